import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import {
  createPodTolerationRestriction,
  isBestEffort,
  parsePodTolerationRestrictionConfig,
  parseTolerationAnnotation,
  type PodTolerationRestrictionConfig,
} from '../plugins/pods/pod-toleration-restriction.js';
import { namespaceReader } from '../plugins/pods/namespace-objects.js';
import { isSuperset, mergeTolerations, verifyAgainstWhitelist, type Toleration } from '../plugins/pods/pod-fields.js';
import { AdmissionConfigError } from '../config.js';
import { CTX, namespace, namespaceObjects, pod, rejects, request } from './scheduling-fixtures.js';

const DEFAULTS = 'scheduler.alpha.platform.io/defaultTolerations';
const WHITELIST = 'scheduler.alpha.platform.io/tolerationsWhitelist';

const T: Record<string, Toleration> = {
  all: { operator: 'Exists' },
  allNoSched: { operator: 'Exists', effect: 'NoSchedule' },
  foo: { key: 'foo', operator: 'Exists' },
  fooBar: { key: 'foo', operator: 'Equal', value: 'bar' },
  fooBarNoSched: { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' },
  fooBazNoSched: { key: 'foo', operator: 'Equal', value: 'baz', effect: 'NoSchedule' },
  fooNoExec: { key: 'foo', operator: 'Exists', effect: 'NoExecute' },
  fooNoExec10: { key: 'foo', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 },
  fooNoExec0: { key: 'foo', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 0 },
  fooBarImplicitEqual: { key: 'foo', value: 'bar', effect: 'NoSchedule' },
  faz: { key: 'faz', operator: 'Exists' },
};

describe('tolerations - as upstream compares and merges them', () => {
  const superset: Array<[string, string, boolean]> = [
    ['all', 'fooBarNoSched', true],
    ['all', 'fooNoExec10', true],
    ['allNoSched', 'fooBarNoSched', true],
    ['allNoSched', 'fooNoExec', false],
    ['foo', 'fooBar', true],
    ['foo', 'fooBazNoSched', true],
    ['fooBar', 'fooBarNoSched', true],
    ['fooBarNoSched', 'fooBar', false],
    ['fooBar', 'foo', false],
    ['fooNoExec', 'fooNoExec10', true],
    ['fooNoExec10', 'fooNoExec0', true],
    ['fooNoExec10', 'fooNoExec', false],
    ['fooNoExec0', 'fooNoExec10', false],
    ['foo', 'faz', false],
    // Upstream only lets an explicit Equal be covered by an Equal.
    ['fooBarNoSched', 'fooBarImplicitEqual', false],
  ];
  for (const [ss, t, want] of superset) {
    it(`isSuperset(${ss}, ${t}) is ${want}`, () => assert.equal(isSuperset(T[ss]!, T[t]!), want));
  }

  const merges: Array<[string, string[], string[], string[]]> = [
    ['disjoint lists are concatenated', ['foo'], ['faz'], ['foo', 'faz']],
    ['a toleration covered by one in the other list is dropped', ['fooBar'], ['foo'], ['foo']],
    ['of equal tolerations the first stays', ['foo'], ['foo'], ['foo']],
    ['a longer NoExecute wins', ['fooNoExec10'], ['fooNoExec'], ['fooNoExec']],
    ['Exists with no key covers everything', ['fooBar', 'faz'], ['all'], ['all']],
  ];
  for (const [name, a, b, want] of merges) {
    it(`merge: ${name}`, () =>
      assert.deepEqual(
        mergeTolerations(
          a.map((k) => T[k]!),
          b.map((k) => T[k]!),
        ),
        want.map((k) => T[k]!),
      ));
  }

  it('verifies against a whitelist: each toleration must be covered; an empty whitelist allows all', () => {
    assert.equal(verifyAgainstWhitelist([T.fooBar!, T.fooNoExec10!], [T.foo!]), true);
    assert.equal(verifyAgainstWhitelist([T.fooBar!, T.faz!], [T.foo!]), false);
    assert.equal(verifyAgainstWhitelist([T.faz!], []), true);
  });
});

describe('PodTolerationRestriction - configuration and annotations', () => {
  const cfg = (configuration: unknown) => ({ configuration, dir: '/tmp', source: '/tmp/ptr.yaml' });
  it("reads kind Configuration in our and upstream's group", () => {
    for (const apiVersion of ['podtolerationrestriction.admission.platform.io/v1alpha1', 'podtolerationrestriction.admission.k8s.io/v1alpha1']) {
      const c = parsePodTolerationRestrictionConfig(cfg({ apiVersion, kind: 'Configuration', default: [T.foo], whitelist: [T.foo, T.faz] }));
      assert.deepEqual(c, { default: [T.foo], whitelist: [T.foo, T.faz] });
    }
    assert.deepEqual(parsePodTolerationRestrictionConfig(undefined), { default: [], whitelist: [] });
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ['another kind', { apiVersion: 'podtolerationrestriction.admission.platform.io/v1alpha1', kind: 'Config' }, /kind must be Configuration/],
    ['an unknown field', { apiVersion: 'podtolerationrestriction.admission.platform.io/v1alpha1', kind: 'Configuration', defaults: [] }, /unknown field "defaults"/],
    [
      'a toleration with tolerationSeconds but not NoExecute',
      { apiVersion: 'podtolerationrestriction.admission.platform.io/v1alpha1', kind: 'Configuration', default: [{ key: 'a', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 3 }] },
      /default\[0\]\.effect: Invalid value: "NoSchedule": effect must be 'NoExecute'/,
    ],
    [
      'an empty key with Equal',
      { apiVersion: 'podtolerationrestriction.admission.platform.io/v1alpha1', kind: 'Configuration', whitelist: [{ operator: 'Equal', value: 'x' }] },
      /whitelist\[0\]\.operator: Invalid value: "Equal": operator must be Exists when `key` is empty/,
    ],
    ['an unknown operator', { apiVersion: 'podtolerationrestriction.admission.platform.io/v1alpha1', kind: 'Configuration', whitelist: [{ key: 'a', operator: 'In' }] }, /Unsupported value: "In"/],
  ];
  for (const [name, doc, want] of bad) {
    it(`fails the start on ${name}`, () => {
      assert.throws(
        () => parsePodTolerationRestrictionConfig(cfg(doc)),
        (err: Error) => err instanceof AdmissionConfigError && want.test(err.message),
      );
    });
  }

  it('reads annotations as Go decodes them: absent, empty, null, case-insensitive fields; bad JSON is a 500', async () => {
    assert.equal(parseTolerationAnnotation(undefined), undefined);
    assert.deepEqual(parseTolerationAnnotation(''), []);
    assert.deepEqual(parseTolerationAnnotation('null'), []);
    assert.deepEqual(parseTolerationAnnotation('[{"Key":"foo","Operator":"Exists","other":1}]'), [{ key: 'foo', operator: 'Exists' }]);
    await rejects(() => parseTolerationAnnotation('[{"key":'), 500, /^Internal error occurred: /);
    await rejects(() => parseTolerationAnnotation('{"key":"a"}'), 500, /JSON list of tolerations/);
    await rejects(() => parseTolerationAnnotation('[{"tolerationSeconds":"5"}]'), 500, /Toleration.tolerationSeconds of type int64/);
  });

  it('tells BestEffort pods by cpu and memory above zero', () => {
    assert.equal(isBestEffort({ containers: [{ name: 'c' }] }), true);
    assert.equal(isBestEffort({ containers: [{ name: 'c', resources: { requests: { cpu: '0', 'example.com/gpu': '1' } } }] }), true);
    assert.equal(isBestEffort({ containers: [{ name: 'c', resources: { limits: { memory: '1Gi' } } }] }), false);
    assert.equal(isBestEffort({ containers: [{ name: 'c' }], initContainers: [{ name: 'i', resources: { requests: { cpu: '100m' } } }] }), false);
  });
});

describe('PodTolerationRestriction - admission', () => {
  const namespaces = namespaceObjects(
    namespace('default'),
    namespace('dev', { [DEFAULTS]: JSON.stringify([T.fooNoExec10]), [WHITELIST]: JSON.stringify([T.foo]) }),
    namespace('open', { [DEFAULTS]: '', [WHITELIST]: '' }),
    namespace('bad', { [DEFAULTS]: '[' }),
  );
  const config: PodTolerationRestrictionConfig = { default: [T.faz!], whitelist: [T.faz!, { key: 'node.platform.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' }] };
  const plugin = createPodTolerationRestriction(config, namespaceReader(namespaces));
  const tolerationsOf = (p: ApiObject) => (p.spec as { tolerations?: unknown }).tolerations;
  const burstable = [{ name: 'c', image: 'img', resources: { requests: { cpu: '100m' } } }];
  const MEMORY_PRESSURE = { key: 'node.platform.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' };

  const cases: Array<{ name: string; ns: string; operation?: 'CREATE' | 'UPDATE'; spec?: Record<string, unknown>; want: unknown }> = [
    { name: 'a namespace without annotations gets the configured default', ns: 'default', want: [T.faz] },
    { name: "a namespace's defaults replace the configured ones and merge with the pod's", ns: 'dev', spec: { tolerations: [T.fooBar] }, want: [T.fooBar, T.fooNoExec10] },
    { name: 'a pod toleration covering the default leaves the default out', ns: 'dev', spec: { tolerations: [T.fooNoExec] }, want: [T.fooNoExec] },
    { name: 'empty annotations mean no defaults and no whitelist', ns: 'open', spec: { tolerations: [T.all] }, want: [T.all] },
    { name: 'a pod that is not BestEffort also tolerates memory pressure', ns: 'default', spec: { containers: burstable }, want: [T.faz, MEMORY_PRESSURE] },
    { name: 'defaults are added on creation only', ns: 'default', operation: 'UPDATE', spec: { tolerations: [T.faz] }, want: [T.faz] },
    { name: 'an update of a Burstable pod adds the memory-pressure toleration', ns: 'open', operation: 'UPDATE', spec: { containers: burstable }, want: [MEMORY_PRESSURE] },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const p = pod(c.spec ?? {}, { namespace: c.ns });
      const old = c.operation === 'UPDATE' ? pod(c.spec ?? {}, { namespace: c.ns }) : null;
      await plugin.mutate!(request('pods', { object: p, old, namespace: c.ns, operation: c.operation ?? 'CREATE' }), CTX);
      assert.deepEqual(tolerationsOf(p), c.want);
      await plugin.validate!(request('pods', { object: p, old, namespace: c.ns, operation: c.operation ?? 'CREATE', phase: 'validating' }), CTX);
    });
  }

  const refusals: Array<{ name: string; ns: string; tolerations: Toleration[]; code: number; message: string | RegExp }> = [
    {
      name: 'a toleration outside the namespace whitelist',
      ns: 'dev',
      tolerations: [T.faz!],
      code: 403,
      message: 'pods "web" is forbidden: pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist',
    },
    {
      name: 'a toleration outside the cluster whitelist',
      ns: 'default',
      tolerations: [T.foo!],
      code: 403,
      message: 'pods "web" is forbidden: pod tolerations (possibly merged with namespace default tolerations) conflict with its cluster whitelist',
    },
    { name: 'a namespace whose annotation is not JSON', ns: 'bad', tolerations: [], code: 500, message: /^Internal error occurred: / },
    { name: 'a namespace that does not exist', ns: 'nowhere', tolerations: [], code: 404, message: 'namespaces "nowhere" not found' },
  ];
  for (const c of refusals) {
    it(`refuses ${c.name}`, async () => {
      const p = pod({ tolerations: c.tolerations }, { namespace: c.ns });
      await rejects(() => plugin.mutate!(request('pods', { object: p, namespace: c.ns }), CTX), c.code, c.message);
    });
  }

  it('checks the whitelist again on the final object', async () => {
    const p = pod({ tolerations: [T.faz] }, { namespace: 'dev' });
    await rejects(
      () => plugin.validate!(request('pods', { object: p, namespace: 'dev', phase: 'validating' }), CTX),
      403,
      'pods "web" is forbidden: pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist',
    );
    // Subresources are not pods proper.
    await plugin.validate!(request('pods', { object: p, namespace: 'dev', sub: 'status', operation: 'UPDATE', phase: 'validating' }), CTX);
  });
});
