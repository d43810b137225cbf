import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Decision, type AuthzAttributes } from '../../../shared/bus/messages.js';
import { MetricsRegistry } from '../../../shared/metrics/registry.js';
import { runAuthzChain } from '../chain.js';
import { AuthzMetrics } from '../metrics.js';
import type { Authorizer } from '../types.js';

const attrs = (verb: string): AuthzAttributes => ({
  user: { username: 'jane', groups: ['system:authenticated'] },
  verb,
  isResourceRequest: true,
  path: '/api/v1/namespaces/a/pods',
  resource: 'pods',
  namespace: 'a',
  apiGroup: '',
});

test('authz metrics - apiserver_authorization_decisions_total counts the authorizer whose decision ended the chain', async () => {
  const registry = new MetricsRegistry();
  const metrics = new AuthzMetrics(registry);
  const node: Authorizer = { name: 'Node', authorize: () => ({ decision: Decision.NoOpinion }) };
  const rbac: Authorizer = { name: 'RBAC', authorize: (a) => ({ decision: a.verb === 'get' ? Decision.Allow : a.verb === 'escalate' ? Decision.Deny : Decision.NoOpinion }) };
  for (const verb of ['get', 'get', 'escalate', 'delete']) {
    const start = performance.now();
    const reply = await runAuthzChain([node, rbac], attrs(verb), { onDecision: metrics.decided });
    metrics.chain(reply.decision, (performance.now() - start) / 1000);
  }
  const text = await registry.metrics();
  assert.match(text, /^apiserver_authorization_decisions_total\{type="RBAC",name="rbac",decision="allowed"\} 2$/m);
  assert.match(text, /^apiserver_authorization_decisions_total\{type="RBAC",name="rbac",decision="denied"\} 1$/m);
  assert.doesNotMatch(text, /type="Node"/, 'no opinion is no decision');
  // The chain's own latency: the default deny (nobody decided) is a denial too.
  assert.match(text, /^platform_authorization_duration_seconds_count\{decision="allowed"\} 2$/m);
  assert.match(text, /^platform_authorization_duration_seconds_count\{decision="denied"\} 2$/m);
});
