import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Decision, type AuthzAttributes } from '../../../shared/bus/messages.js';
import { runAuthzChain } from '../chain.js';
import { validateModes } from '../modes.js';
import type { Authorizer, AuthorizerDecision } from '../types.js';

const attrs: AuthzAttributes = {
  user: { username: 'jane', groups: ['system:authenticated'] },
  verb: 'get',
  isResourceRequest: true,
  path: '/api/v1/namespaces/a/pods/p',
  resource: 'pods',
  namespace: 'a',
  name: 'p',
  apiGroup: '',
};

const fixed = (name: string, d: AuthorizerDecision): Authorizer => ({ name, authorize: () => d });
const throwing = (name: string): Authorizer => ({
  name,
  authorize: () => {
    throw new Error('backend down');
  },
});

test('authz chain - first Allow or Deny decides, NoOpinion passes on, none is a deny that names no decider', async () => {
  const allow = fixed('allow', { decision: Decision.Allow });
  const deny = fixed('deny', { decision: Decision.Deny, reason: 'denied by policy' });
  const silent = fixed('silent', { decision: Decision.NoOpinion });
  const why = fixed('why', { decision: Decision.NoOpinion, reason: 'no rule matched' });
  const cases: Array<{ name: string; chain: Authorizer[]; want: object }> = [
    { name: 'allow', chain: [allow], want: { decision: 'Allow', decidedBy: 'allow' } },
    { name: 'deny before allow', chain: [deny, allow], want: { decision: 'Deny', decidedBy: 'deny', reason: 'denied by policy' } },
    { name: 'allow before deny', chain: [allow, deny], want: { decision: 'Allow', decidedBy: 'allow' } },
    { name: 'no opinion then allow', chain: [silent, allow], want: { decision: 'Allow', decidedBy: 'allow' } },
    { name: 'nobody has an opinion', chain: [silent], want: { decision: 'Deny' } },
    { name: 'reasons of the abstainers are kept', chain: [why, silent], want: { decision: 'Deny', reason: 'no rule matched' } },
    { name: 'empty chain', chain: [], want: { decision: 'Deny' } },
    { name: 'a failing authorizer is skipped and reported', chain: [throwing('webhook'), allow], want: { decision: 'Allow', decidedBy: 'allow', evaluationError: 'webhook: backend down' } },
    { name: 'a failing authorizer never allows', chain: [throwing('webhook')], want: { decision: 'Deny', evaluationError: 'webhook: backend down' } },
  ];
  for (const c of cases) assert.deepEqual(await runAuthzChain(c.chain, attrs), c.want, c.name);
});

test('authz modes - the mode list is validated like upstream', () => {
  validateModes(['AlwaysAllow']);
  validateModes(['AlwaysDeny', 'AlwaysAllow']);
  const cases: Array<{ modes: string[]; err: RegExp }> = [
    { modes: [], err: /at least one mode is required/ },
    { modes: ['AlwaysAllow', 'AlwaysAllow'], err: /mode "AlwaysAllow" is specified more than once/ },
    { modes: ['Sometimes'], err: /unknown mode "Sometimes" \(valid modes: AlwaysAllow, AlwaysDeny, ABAC, RBAC, Node, Webhook\)/ },
    { modes: ['alwaysallow'], err: /unknown mode "alwaysallow"/ },
  ];
  for (const c of cases) assert.throws(() => validateModes(c.modes), c.err, c.modes.join(','));
});
