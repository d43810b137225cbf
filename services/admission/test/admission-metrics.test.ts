import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forbidden } from '../../../shared/api/status.js';
import type { AdmissionRequest } from '../../../shared/bus/messages.js';
import { silentLogger } from '../../../shared/log.js';
import { MetricsRegistry } from '../../../shared/metrics/registry.js';
import { runAdmissionChain } from '../chain.js';
import { AdmissionMetrics } from '../metrics.js';
import type { AdmissionPlugin } from '../types.js';

const req: AdmissionRequest = {
  uid: 'u',
  phase: 'validating',
  kind: { group: '', version: 'v1', kind: 'ConfigMap' },
  resource: { group: '', version: 'v1', resource: 'configmaps' },
  name: 'c',
  namespace: 'a',
  operation: 'CREATE',
  userInfo: { username: 'jane', groups: [] },
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } },
  oldObject: null,
  dryRun: false,
};

test('admission metrics - each plugin timed by name, type, operation and rejection; each phase as a step', async () => {
  const registry = new MetricsRegistry();
  const metrics = new AdmissionMetrics(registry);
  const slowAllow: AdmissionPlugin = { name: 'SlowAllow', mutate: () => new Promise((r) => setTimeout(r, 30)), validate: () => undefined };
  const deny: AdmissionPlugin = {
    name: 'Deny',
    validate: () => {
      throw forbidden({ group: '', resource: 'configmaps' }, 'c', 'no');
    },
  };
  const run = async (r: AdmissionRequest) => {
    const start = performance.now();
    const reply = await runAdmissionChain([slowAllow, deny], r, silentLogger(), metrics);
    metrics.step(r, !reply.allowed, (performance.now() - start) / 1000);
    return reply;
  };
  assert.equal((await run({ ...req, phase: 'mutating' })).allowed, true);
  assert.equal((await run(req)).allowed, false);
  assert.equal((await run({ ...req, operation: 'UPDATE' })).allowed, false);
  const text = await registry.metrics();
  const controller = 'apiserver_admission_controller_admission_duration_seconds';
  assert.match(text, new RegExp(`^# HELP ${controller} \\[STABLE\\] Admission controller latency histogram in seconds`, 'm'));
  assert.match(text, new RegExp(`^${controller}_count\\{name="SlowAllow",type="admit",operation="CREATE",rejected="false"\\} 1$`, 'm'));
  // The 30 ms mutation lands above the 25 ms bucket.
  assert.match(text, new RegExp(`^${controller}_bucket\\{name="SlowAllow",type="admit",operation="CREATE",rejected="false",le="0.025"\\} 0$`, 'm'));
  assert.match(text, new RegExp(`^${controller}_count\\{name="SlowAllow",type="validate",operation="CREATE",rejected="false"\\} 1$`, 'm'));
  assert.match(text, new RegExp(`^${controller}_count\\{name="Deny",type="validate",operation="CREATE",rejected="true"\\} 1$`, 'm'));
  assert.match(text, new RegExp(`^${controller}_count\\{name="Deny",type="validate",operation="UPDATE",rejected="true"\\} 1$`, 'm'));
  assert.doesNotMatch(text, /name="Deny",type="admit"/, 'a plugin without a mutate hook is not timed in that phase');
  const step = 'apiserver_admission_step_admission_duration_seconds';
  assert.match(text, new RegExp(`^${step}_count\\{type="admit",operation="CREATE",rejected="false"\\} 1$`, 'm'));
  assert.match(text, new RegExp(`^${step}_count\\{type="validate",operation="CREATE",rejected="true"\\} 1$`, 'm'));
  // Upstream's webhook families are there for the webhook plugins to record into.
  metrics.webhookRejection('hook.example.com', req, 'no_error', 700);
  assert.match(
    await registry.metrics(),
    /^apiserver_admission_webhook_rejection_count\{name="hook\.example\.com",type="validating",operation="CREATE",error_type="no_error",rejection_code="600"\} 1$/m,
  );
});
