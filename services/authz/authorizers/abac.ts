// `--authorization-mode=ABAC`: allows what a line of `--authorization-policy-file` grants, has no
// opinion otherwise. The file is read once at start-up (like upstream, changes need a restart);
// a malformed line fails start-up with its line number.

import { readFile } from 'node:fs/promises';
import { Decision, type AuthzAttributes } from '../../../shared/bus/messages.js';
import { AbacPolicyError, abacRulesFor, parseAbacPolicies, policyMatches, type AbacPolicy } from '../abac/policy.js';
import type { Authorizer, ModeFactory } from '../types.js';
import { canonicalGroupNames } from '../../../shared/api/groups.js';

/** Upstream's reason when no line matched. */
export const NO_POLICY_MATCHED = 'No policy matched.';

export function createAbacAuthorizer(policies: readonly AbacPolicy[]): Authorizer {
  return {
    name: 'ABAC',
    authorize: (attrs: AuthzAttributes) => (policies.some((p) => policyMatches(p, attrs)) ? { decision: Decision.Allow } : { decision: Decision.NoOpinion, reason: NO_POLICY_MATCHED }),
    rulesFor: (user, namespace) => ({ ...abacRulesFor(policies, user, namespace), incomplete: false }),
  };
}

export async function loadAbacPolicyFile(file: string): Promise<AbacPolicy[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new AbacPolicyError(`--authorization-policy-file: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  return parseAbacPolicies(text, file);
}

export const abacMode: ModeFactory = async (ctx) => {
  const file = ctx.config.policyFile;
  if (!file) throw new AbacPolicyError('authorization mode ABAC needs --authorization-policy-file');
  const canonicalGroup = canonicalGroupNames(ctx.config.upstreamGroupAliases ?? false);
  // A line naming a group by its upstream spelling names the branded group when aliases are served.
  const policies = (await loadAbacPolicyFile(file)).map((p) => ({ ...p, apiGroup: canonicalGroup(p.apiGroup) }));
  ctx.log.info({ file, policies: policies.length }, 'ABAC policies loaded');
  return createAbacAuthorizer(policies);
};
