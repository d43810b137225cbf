import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../api/types.js';
import { compileJsonPath } from '../json-path.js';
import { customResourceBody, customResourceType, isEstablished, printerColumns } from '../custom-resource-type.js';
import { Registry } from '../../registry.js';
import { builtinTypes } from '../../builtin-types.js';

const pod = {
  metadata: { name: 'p', labels: { 'app.kubernetes.io/name': 'web' } },
  spec: {
    replicas: 3,
    containers: [
      { name: 'a', image: 'x' },
      { name: 'b', image: 'y' },
    ],
  },
  status: {
    conditions: [
      { type: 'Ready', status: 'True' },
      { type: 'Synced', status: 'False' },
    ],
    count: 2,
  },
};

describe('custom resources - JSONPath of printer columns', () => {
  const cases: Array<[string, unknown[]]> = [
    ['.spec.replicas', [3]],
    ['{.spec.replicas}', [3]],
    ['$.spec.replicas', [3]],
    ['.spec.containers[0].image', ['x']],
    ['.spec.containers[-1].name', ['b']],
    ['.spec.containers[*].name', ['a', 'b']],
    ['.spec.containers[0:1].name', ['a']],
    ['.status.conditions[?(@.type=="Ready")].status', ['True']],
    ["$.status.conditions[?(@.type == 'Synced')].status", ['False']],
    ['.status.conditions[?(@.type!="Ready")].type', ['Synced']],
    ['[?(@.count >= 2)]', []],
    [".metadata.labels['app.kubernetes.io/name']", ['web']],
    ['.spec.missing', []],
    ['.spec.replicas.deeper', []],
  ];
  for (const [path, want] of cases) {
    it(`${path} finds ${JSON.stringify(want)}`, () => assert.deepEqual(compileJsonPath(path)(pod), want));
  }
  for (const bad of ['spec.replicas', '.spec[', '.spec..x', '.spec[?(length(@) > 1)]', '.a.']) {
    it(`refuses ${bad}`, () => assert.throws(() => compileJsonPath(bad), /JSONPath/));
  }
});

describe('custom resources - printer columns', () => {
  it('cells as upstream fills them: the first match, null when absent or of another type', () => {
    const cols = printerColumns([
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Images', type: 'string', jsonPath: '.spec.containers[*].image' },
      { name: 'Spec', type: 'string', jsonPath: '.spec.containers[0]' },
      { name: 'Wrong', type: 'boolean', jsonPath: '.spec.replicas' },
      { name: 'Missing', type: 'date', jsonPath: '.status.lastRun', priority: 1 },
    ]);
    assert.deepEqual(
      cols.map((c) => c.cell(pod as unknown as ApiObject)),
      [3, 'True', 'x', '{"name":"a","image":"x"}', null, null],
    );
    assert.equal(cols[5]!.priority, 1);
  });
  it('Age alone when the definition names none', () => {
    const [age, ...rest] = printerColumns(undefined);
    assert.deepEqual(rest, []);
    assert.equal(age!.name, 'Age');
    assert.equal(age!.type, 'date');
    // A date cell is an age, as upstream's table convertor writes it (kubectl prints cells as they come).
    const created = (ts: string) => age!.cell({ metadata: { creationTimestamp: ts } } as ApiObject);
    assert.equal(created(new Date(Date.now() - 90_000).toISOString()), '90s');
    assert.equal(created(new Date(Date.now() - 3 * 86_400_000).toISOString()), '3d');
    assert.equal(created(''), '<unknown>');
    assert.equal(created('yesterday'), '<invalid>');
  });
});

const schema = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      properties: {
        cronSpec: { type: 'string', pattern: '^(\\S+ ){4}\\S+$' },
        replicas: { type: 'integer', default: 1 },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
      },
    },
    status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
  },
};

function crd(extra: { versions?: unknown[]; acceptedNames?: unknown; conditions?: unknown[] } = {}): ApiObject {
  return {
    apiVersion: 'apiextensions.platform.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      scope: 'Namespaced',
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'], categories: ['all'] },
      versions: extra.versions ?? [
        { name: 'v1beta1', served: true, storage: false, deprecated: true, schema: { openAPIV3Schema: schema } },
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
          additionalPrinterColumns: [{ name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' }],
        },
        { name: 'v0', served: false, storage: false, schema: { openAPIV3Schema: schema } },
      ],
    },
    status: { conditions: extra.conditions ?? [{ type: 'Established', status: 'True' }], ...(extra.acceptedNames ? { acceptedNames: extra.acceptedNames } : {}) },
  } as unknown as ApiObject;
}

describe('custom resources - a definition as a type', () => {
  it('names, scope, versions, storage version, subresources and columns come from the definition', () => {
    const t = customResourceType(crd());
    assert.deepEqual(
      [t.group, t.kind, t.listKind, t.plural, t.singular, t.scope, t.shortNames, t.categories, t.storageVersion],
      ['stable.example.com', 'CronTab', 'CronTabList', 'crontabs', 'crontab', 'Namespaced', ['ct'], ['all'], 'v1'],
    );
    assert.deepEqual(
      t.versions.map((v) => [v.name, v.served ?? true, v.deprecation?.warning]),
      [
        ['v1beta1', true, 'stable.example.com/v1beta1 CronTab is deprecated'],
        ['v1', true, undefined],
        ['v0', false, undefined],
      ],
    );
    const v1 = t.versions.find((v) => v.name === 'v1')!;
    assert.deepEqual(v1.subresources, { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } });
    assert.deepEqual(
      v1.columns?.map((c) => c.name),
      ['Spec'],
    );
    // Versions that name none have none (and Age alone), not the storage version's.
    const v1beta1 = t.versions.find((v) => v.name === 'v1beta1')!;
    assert.deepEqual(v1beta1.subresources, {});
    assert.deepEqual(
      v1beta1.columns?.map((c) => c.name),
      ['Age'],
    );
  });

  it('serves the accepted names, not the asked ones', () => {
    const t = customResourceType(crd({ acceptedNames: { plural: 'crontabs', kind: 'CronTab', shortNames: [] } }));
    assert.equal(t.shortNames, undefined);
    assert.equal(t.listKind, 'CronTabList');
  });

  it('is served only once Established', () => {
    assert.equal(isEstablished(crd()), true);
    assert.equal(
      isEstablished(
        crd({
          conditions: [
            { type: 'NamesAccepted', status: 'True' },
            { type: 'Established', status: 'False' },
          ],
        }),
      ),
      false,
    );
  });

  it('the registry prunes what the schema does not name, defaults and validates, and keeps embedded resources whole', () => {
    const r = new Registry([...builtinTypes]);
    r.define('crd', [customResourceType(crd())]);
    const served = r.lookup('stable.example.com', 'v1', 'crontabs')!;
    const obj = {
      apiVersion: 'stable.example.com/v1',
      kind: 'CronTab',
      metadata: { name: 'a', namespace: 'default' },
      spec: { cronSpec: '* * * * */5', unknown: 1, template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 't', bogus: 1 }, spec: { anything: true } } },
      extra: 'x',
    } as unknown as ApiObject;
    r.prune(served, obj);
    r.defaults(served, obj);
    assert.deepEqual(obj, {
      apiVersion: 'stable.example.com/v1',
      kind: 'CronTab',
      metadata: { name: 'a', namespace: 'default' },
      spec: { cronSpec: '* * * * */5', replicas: 1, template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 't' }, spec: { anything: true } } },
    });
    assert.deepEqual(r.validate(served, obj), []);
    const bad = { ...obj, spec: { cronSpec: 'nope', replicas: 'x' } } as unknown as ApiObject;
    assert.deepEqual(
      r
        .validate(served, bad)
        .map((e) => e.field)
        .sort(),
      ['spec.cronSpec', 'spec.replicas'],
    );
    assert.equal(r.lookup('stable.example.com', 'v0', 'crontabs'), undefined);
  });

  it('a root schema that names nothing keeps only the identity; one that preserves keeps everything', () => {
    assert.deepEqual(customResourceBody({ type: 'object' }), { type: 'object', properties: {} });
    const preserved = customResourceBody(undefined);
    assert.equal(preserved['x-kubernetes-preserve-unknown-fields'], true);
  });
});
