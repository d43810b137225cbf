// Runs the authorizer chain for one request: the first Allow or Deny decides; if every
// authorizer has no opinion the request is denied (default deny), carrying the reasons and
// evaluation errors gathered on the way.

import { Decision, type AuthzAttributes, type AuthzReply } from '../../shared/bus/messages.js';
import type { Authorizer } from './types.js';

export interface AuthzChainHooks {
  onError?(authorizer: string, err: unknown): void;
  /** The authorizer whose Allow or Deny ended the chain (a default deny has none). */
  onDecision?(authorizer: string, decision: Decision): void;
}

export async function runAuthzChain(authorizers: Authorizer[], attrs: AuthzAttributes, hooks: AuthzChainHooks = {}): Promise<AuthzReply> {
  const reasons: string[] = [];
  const errors: string[] = [];
  for (const a of authorizers) {
    let d;
    try {
      d = await a.authorize(attrs);
    } catch (err) {
      hooks.onError?.(a.name, err);
      errors.push(`${a.name}: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    if (d.error) errors.push(d.error);
    if (d.decision === Decision.Allow || d.decision === Decision.Deny) {
      hooks.onDecision?.(a.name, d.decision);
      const reply: AuthzReply = { decision: d.decision, decidedBy: a.name };
      if (d.reason) reply.reason = d.reason;
      if (errors.length) reply.evaluationError = errors.join('; ');
      return reply;
    }
    if (d.reason) reasons.push(d.reason);
  }
  // No reason is invented here: upstream's 403 message has no suffix when no authorizer gave one.
  const reply: AuthzReply = { decision: Decision.Deny };
  if (reasons.length) reply.reason = reasons.join('\n');
  if (errors.length) reply.evaluationError = errors.join('; ');
  return reply;
}
