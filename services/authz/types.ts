// The contract every authorizer implements (`--authorization-mode` entries and the built-in
// privileged-group check). A new mode (RBAC, ABAC, Node, Webhook) is one file exporting a
// ModeFactory plus one line in modes.ts.

import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from '../../shared/log.js';
import type { AuthzAttributes, Decision } from '../../shared/bus/messages.js';

export interface AuthorizerDecision {
  decision: Decision;
  /** Shown to the caller after the 403 message (upstream appends it the same way). */
  reason?: string;
  /** An evaluation problem the authorizer hit but survived (a missing role binding target). */
  error?: string;
}

export interface Authorizer {
  readonly name: string;
  /** Allow or Deny ends the chain; NoOpinion passes to the next authorizer. Throwing = NoOpinion + error. */
  authorize(attrs: AuthzAttributes): Promise<AuthorizerDecision> | AuthorizerDecision;
  stop?(): Promise<void>;
}

export interface AuthzConfig {
  /** `--authorization-mode`, in the order the modes are consulted. */
  modes: string[];
}

/** What a mode gets to build itself: later modes read their own config fields and the bus. */
export interface ModeContext {
  nc: NatsConnection;
  config: AuthzConfig;
  log: Logger;
}

export type ModeFactory = (ctx: ModeContext) => Authorizer | Promise<Authorizer>;
