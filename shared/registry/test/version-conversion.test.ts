// Versions of one type behind one stored object: what each version reads and writes, the warning
// a deprecated version's requests get, and the storage version staying put under --runtime-config.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../api/types.js';
import { createBuiltinRegistry } from '../builtin-registry.js';
import { Targets } from '../target.js';
import { type Target } from '../types.js';
import { deprecationWarning } from '../versions.js';
import { PDB_V1BETA1_LABEL } from '../builtin/policy/pod-disruption-budget.js';

const registry = createBuiltinRegistry();
const targets = new Targets(registry);

function target(group: string, version: string, resource: string): Target {
  const t = targets.of(group, version, resource);
  assert.ok(t, `${group}/${version}/${resource} is served`);
  return t;
}
const read = (t: Target, stored: ApiObject) => (t.fromStored ? t.fromStored(stored) : stored);
const pdb = (apiVersion: string, selector: unknown): ApiObject => ({
  apiVersion,
  kind: 'PodDisruptionBudget',
  metadata: { name: 'p', namespace: 'ns' },
  spec: { minAvailable: 1, ...(selector === undefined ? {} : { selector }) },
});
const selectorOf = (o: ApiObject) => (o.spec as { selector?: unknown }).selector;

const MATCH_NONE = { matchExpressions: [{ key: PDB_V1BETA1_LABEL, operator: 'Exists' }] };
const V1BETA1_ALL = { matchExpressions: [{ key: PDB_V1BETA1_LABEL, operator: 'DoesNotExist' }] };

describe('PodDisruptionBudget selectors across policy/v1 and policy/v1beta1', () => {
  const v1 = target('policy', 'v1', 'poddisruptionbudgets');
  const beta = target('policy', 'v1beta1', 'poddisruptionbudgets');
  const cases: Array<{ name: string; write: Target; selector: unknown; stored: unknown; asV1: unknown; asBeta: unknown }> = [
    { name: 'a v1beta1 empty selector matches nothing', write: beta, selector: {}, stored: MATCH_NONE, asV1: MATCH_NONE, asBeta: {} },
    { name: 'a v1beta1 match-all selector is v1 empty', write: beta, selector: V1BETA1_ALL, stored: {}, asV1: {}, asBeta: V1BETA1_ALL },
    { name: 'a v1 empty selector matches everything', write: v1, selector: {}, stored: {}, asV1: {}, asBeta: V1BETA1_ALL },
    {
      name: 'an ordinary selector is the same in both',
      write: beta,
      selector: { matchLabels: { app: 'a' } },
      stored: { matchLabels: { app: 'a' } },
      asV1: { matchLabels: { app: 'a' } },
      asBeta: { matchLabels: { app: 'a' } },
    },
    { name: 'v1 keeps the match-none selector', write: v1, selector: MATCH_NONE, stored: MATCH_NONE, asV1: MATCH_NONE, asBeta: {} },
    {
      name: 'v1 drops the label from any other selector',
      write: v1,
      selector: { matchLabels: { app: 'a' }, matchExpressions: [{ key: PDB_V1BETA1_LABEL, operator: 'DoesNotExist' }] },
      stored: { matchLabels: { app: 'a' } },
      asV1: { matchLabels: { app: 'a' } },
      asBeta: { matchLabels: { app: 'a' } },
    },
    { name: 'an absent selector stays absent', write: beta, selector: undefined, stored: undefined, asV1: undefined, asBeta: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const input = pdb(c.write.apiVersion, structuredClone(c.selector));
      const before = structuredClone(input);
      const stored = c.write.toStored(input);
      assert.deepEqual(input, before, 'the written object is not changed');
      assert.equal(stored.apiVersion, 'policy/v1');
      assert.deepEqual(selectorOf(stored), c.stored);
      assert.deepEqual(selectorOf(read(v1, stored)), c.asV1);
      const asBeta = read(beta, stored);
      assert.equal(asBeta.apiVersion, 'policy/v1beta1');
      assert.deepEqual(selectorOf(asBeta), c.asBeta);
      // A v1beta1 client writing back what it read changes nothing.
      assert.deepEqual(selectorOf(beta.toStored(asBeta)), c.stored);
    });
  }
});

describe('same-shape beta versions', () => {
  const cases: Array<[group: string, resource: string, kind: string]> = [
    ['batch', 'cronjobs', 'CronJob'],
    ['node.platform.io', 'runtimeclasses', 'RuntimeClass'],
    ['storage.platform.io', 'csistoragecapacities', 'CSIStorageCapacity'],
  ];
  for (const [group, resource, kind] of cases) {
    it(`${group} v1beta1 ${kind} is stored as v1 and read back in either version`, () => {
      const beta = target(group, 'v1beta1', resource);
      const obj: ApiObject = { apiVersion: `${group}/v1beta1`, kind, metadata: { name: 'x' }, spec: { a: 1 } };
      const stored = beta.toStored(obj);
      assert.equal(stored.apiVersion, `${group}/v1`);
      assert.deepEqual(read(beta, stored), obj);
      assert.deepEqual(read(target(group, 'v1', resource), stored), stored);
    });
  }

  it('events.platform.io v1beta1 Events live in core events and read back as v1beta1', () => {
    const beta = target('events.platform.io', 'v1beta1', 'events');
    const obj: ApiObject = {
      apiVersion: 'events.platform.io/v1beta1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'ns' },
      regarding: { kind: 'Pod', name: 'p', namespace: 'ns' },
      note: 'hi',
      reason: 'Started',
      type: 'Normal',
    };
    const stored = beta.toStored(obj);
    assert.equal(stored.apiVersion, 'v1');
    assert.deepEqual(stored.involvedObject, obj.regarding);
    assert.equal(stored.message, 'hi');
    assert.deepEqual(read(beta, stored), obj);
    assert.equal(read(target('events.platform.io', 'v1', 'events'), stored).apiVersion, 'events.platform.io/v1');
  });
});

describe('events.platform.io/v1beta1 creates are checked leniently, as upstream checks non-v1 Events', () => {
  const served = registry.lookup('events.platform.io', 'v1beta1', 'events')!;
  const strict = registry.lookup('events.platform.io', 'v1', 'events')!;
  const base = { apiVersion: 'events.platform.io/v1beta1', kind: 'Event', metadata: { name: 'e', namespace: 'ns' } };
  const fields = (errs: Array<{ field: string }>) => errs.map((e) => e.field).sort();
  it('an event without eventTime needs only a matching namespace', () => {
    assert.deepEqual(fields(registry.validate(served, { ...base, regarding: { kind: 'Pod', name: 'p', namespace: 'ns' } })), []);
    assert.deepEqual(fields(registry.validate(served, { ...base, regarding: { kind: 'Pod', name: 'p', namespace: 'other' } })), ['regarding.namespace']);
    // v1 refuses the same object for what it lacks.
    assert.ok(fields(registry.validate(strict, { ...base, apiVersion: 'events.platform.io/v1', regarding: { kind: 'Pod', name: 'p', namespace: 'ns' } })).includes('eventTime'));
  });
  it('an event with eventTime needs its reporting fields', () => {
    const errs = registry.validate(served, { ...base, eventTime: '2026-01-01T00:00:00.000000Z', regarding: { kind: 'Pod', name: 'p', namespace: 'ns' } });
    assert.deepEqual(fields(errs), ['action', 'reason', 'reportingController', 'reportingInstance']);
  });
});

describe('deprecation warnings', () => {
  const cases: Array<[group: string, version: string, resource: string, warning: string]> = [
    ['batch', 'v1beta1', 'cronjobs', 'batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob'],
    ['policy', 'v1beta1', 'poddisruptionbudgets', 'policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+, unavailable in v1.25+; use policy/v1 PodDisruptionBudget'],
    ['policy', 'v1beta1', 'podsecuritypolicies', 'policy/v1beta1 PodSecurityPolicy is deprecated in v1.21+, unavailable in v1.25+'],
    ['events.platform.io', 'v1beta1', 'events', 'events.platform.io/v1beta1 Event is deprecated in v1.22+, unavailable in v1.25+'],
    ['node.platform.io', 'v1beta1', 'runtimeclasses', 'node.platform.io/v1beta1 RuntimeClass is deprecated in v1.22+, unavailable in v1.25+'],
    [
      'storage.platform.io',
      'v1beta1',
      'csistoragecapacities',
      'storage.platform.io/v1beta1 CSIStorageCapacity is deprecated in v1.24+, unavailable in v1.27+; use storage.platform.io/v1 CSIStorageCapacity',
    ],
    [
      'authentication.platform.io',
      'v1beta1',
      'tokenreviews',
      'authentication.platform.io/v1beta1 TokenReview is deprecated in v1.19+, unavailable in v1.22+; use authentication.platform.io/v1 TokenReview',
    ],
  ];
  for (const [group, version, resource, warning] of cases) {
    it(`${group}/${version} ${resource}`, () => {
      const t = target(group, version, resource);
      const d = t.served.version.deprecation;
      assert.ok(d);
      assert.equal(deprecationWarning(group, version, t.kind, d), warning);
    });
  }
  it('stable versions carry none', () => {
    for (const [group, , resource] of cases) assert.equal(target(group, 'v1', resource === 'podsecuritypolicies' ? 'poddisruptionbudgets' : resource).served.version.deprecation, undefined);
  });
});

describe('the storage version does not follow --runtime-config', () => {
  it('with batch/v1 off, v1beta1 CronJobs are still stored as batch/v1', () => {
    const off = createBuiltinRegistry({ runtimeConfig: 'batch/v1=false' });
    assert.equal(off.lookup('batch', 'v1', 'cronjobs'), undefined);
    const t = new Targets(off).of('batch', 'v1beta1', 'cronjobs')!;
    assert.equal(t.toStored({ apiVersion: 'batch/v1beta1', kind: 'CronJob', metadata: { name: 'c' } }).apiVersion, 'batch/v1');
    assert.equal(off.group('batch')?.preferredVersion, 'v1beta1');
  });
});
