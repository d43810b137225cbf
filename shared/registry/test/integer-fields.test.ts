// Integer fields of the built-in schemas: int32 range, int64 limited to what a JS number holds
// exactly, fractions refused — each a field error (422), never a silently changed value.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createBuiltinRegistry } from '../builtin-registry.js';
import type { ApiObject } from '../../api/types.js';

const registry = createBuiltinRegistry();
const deployments = registry.lookup('apps', 'v1', 'deployments')!;
const jobs = registry.lookup('batch', 'v1', 'jobs')!;

function deployment(replicas: unknown): ApiObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'default' },
    spec: { replicas, selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  } as ApiObject;
}

function job(activeDeadlineSeconds: unknown): ApiObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'j', namespace: 'default' },
    spec: { activeDeadlineSeconds, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
  } as ApiObject;
}

function errorsAt(errs: { field: string; detail?: string; type: string }[], field: string): string[] {
  return errs.filter((e) => e.field === field).map((e) => `${e.type}: ${e.detail ?? ''}`);
}

test('integer fields - int32 range, fractions and int64 exactness are field errors', () => {
  const cases: { name: string; obj: ApiObject; field: string; want: RegExp | null }[] = [
    { name: 'replicas 2^31', obj: deployment(2 ** 31), field: 'spec.replicas', want: /int32|2147483647/ },
    { name: 'replicas -2^31-1', obj: deployment(-(2 ** 31) - 1), field: 'spec.replicas', want: /int32|2147483647/ },
    { name: 'replicas 2^31-1', obj: deployment(2 ** 31 - 1), field: 'spec.replicas', want: null },
    { name: 'replicas 1.5', obj: deployment(1.5), field: 'spec.replicas', want: /integer/ },
    { name: 'replicas 1e17', obj: deployment(1e17), field: 'spec.replicas', want: /int32|2147483647/ },
    { name: 'activeDeadlineSeconds 1e17', obj: job(1e17), field: 'spec.activeDeadlineSeconds', want: /9007199254740991/ },
    { name: 'activeDeadlineSeconds 2^63', obj: job(2 ** 63), field: 'spec.activeDeadlineSeconds', want: /9007199254740991/ },
    { name: 'activeDeadlineSeconds 2^53', obj: job(2 ** 53), field: 'spec.activeDeadlineSeconds', want: /9007199254740991/ },
    { name: 'activeDeadlineSeconds 2^53-1', obj: job(2 ** 53 - 1), field: 'spec.activeDeadlineSeconds', want: null },
    { name: 'activeDeadlineSeconds 0.5', obj: job(0.5), field: 'spec.activeDeadlineSeconds', want: /integer/ },
  ];
  for (const c of cases) {
    const served = c.obj.kind === 'Job' ? jobs : deployments;
    const errs = errorsAt(registry.validate(served, c.obj), c.field);
    if (c.want === null) assert.deepEqual(errs, [], c.name);
    else {
      assert.equal(errs.length, 1, `${c.name}: ${JSON.stringify(errs)}`);
      assert.match(errs[0]!, c.want, c.name);
    }
  }
});
