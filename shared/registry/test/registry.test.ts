import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FieldError } from '../../api/status.js';
import { fieldErrorMessage } from '../../api/status.js';
import type { ApiObject, JsonSchema } from '../../api/types.js';
import { Registry, compareVersions, parseRuntimeConfig } from '../registry.js';
import type { ResourceType } from '../types.js';

const str: JsonSchema = { type: 'string' };

const widgetBody: JsonSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', format: 'int32', minimum: 0, default: 1 },
        mode: { type: 'string', enum: ['Fast', 'Slow'] },
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        size: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'number' }, { type: 'string', pattern: '^[0-9]+(Mi|Gi)?$' }] },
        containers: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: str,
              image: str,
              ports: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { containerPort: { type: 'integer', format: 'int32' }, protocol: { type: 'string', default: 'TCP' } },
                  required: ['containerPort'],
                  additionalProperties: false,
                },
              },
            },
            required: ['name', 'image'],
            additionalProperties: false,
          },
        },
        selector: { type: 'object', additionalProperties: { type: 'string' } },
        routes: { type: 'object', additionalProperties: { type: 'object', properties: { target: str }, additionalProperties: false } },
        config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        partial: { type: 'object', properties: { known: { type: 'object', properties: { a: str }, additionalProperties: false } }, 'x-kubernetes-preserve-unknown-fields': true },
        raw: {},
        startedAt: { type: 'string', format: 'date-time' },
        data: { type: 'string', format: 'byte' },
        big: { type: 'integer', format: 'int64' },
        tags: { type: 'array', items: str, maxItems: 2 },
        note: { type: 'string', nullable: true },
      },
      required: ['mode'],
      additionalProperties: false,
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' } }, additionalProperties: false },
  },
};

function widgetType(extra: Partial<ResourceType> = {}): ResourceType {
  return {
    group: 'example.platform.io',
    kind: 'Widget',
    plural: 'widgets',
    singular: 'widget',
    scope: 'Namespaced',
    shortNames: ['wd'],
    versions: [
      { name: 'v1beta1', schema: widgetBody, deprecation: { since: '1.20' } },
      { name: 'v1', schema: widgetBody },
      { name: 'v1alpha1', schema: widgetBody },
    ],
    ...extra,
  };
}

const gadgetType: ResourceType = {
  group: '',
  kind: 'Gadget',
  plural: 'gadgets',
  singular: 'gadget',
  scope: 'Namespaced',
  shortNames: ['gd'],
  versions: [{ name: 'v1', schema: { type: 'object', properties: { data: { type: 'object', additionalProperties: str } } } }],
};

const knobType: ResourceType = {
  group: 'batch',
  kind: 'Knob',
  plural: 'knobs',
  singular: 'knob',
  scope: 'Cluster',
  nameRule: 'path-segment',
  versions: [
    { name: 'v1', schema: { type: 'object', properties: { value: str } } },
    { name: 'v2beta1', schema: { type: 'object', properties: { value: str } } },
  ],
};

const previewType: ResourceType = {
  group: 'preview.platform.io',
  kind: 'Preview',
  plural: 'previews',
  singular: 'preview',
  scope: 'Cluster',
  versions: [{ name: 'v1alpha1', schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } }],
};

function registry(runtimeConfig?: string, types: ResourceType[] = [widgetType(), gadgetType, knobType, previewType]): Registry {
  return new Registry(types, runtimeConfig === undefined ? {} : { runtimeConfig });
}

test('registry - version priority puts GA before beta before alpha, higher numbers first', () => {
  const sorted = ['v1alpha1', 'foo10', 'v1beta1', 'v1', 'v11alpha2', 'v1beta2', 'v2', 'foo1', 'v10', 'v3beta1', 'v12alpha1'].sort(compareVersions);
  assert.deepEqual(sorted, ['v10', 'v2', 'v1', 'v3beta1', 'v1beta2', 'v1beta1', 'v12alpha1', 'v11alpha2', 'v1alpha1', 'foo1', 'foo10']);
  assert.ok(compareVersions('v1', 'v1beta2') < 0);
  assert.ok(compareVersions('v1beta2', 'v1beta1') < 0);
  assert.ok(compareVersions('v1beta1', 'v1alpha1') < 0);
  assert.equal(compareVersions('v1', 'v1'), 0);
});

test('registry - alpha versions are off by default, the rest served with the preferred version first', () => {
  const r = registry();
  assert.ok(r.lookup('example.platform.io', 'v1', 'widgets'));
  assert.ok(r.lookup('example.platform.io', 'v1beta1', 'widgets'), 'deprecated versions stay served');
  assert.equal(r.lookup('example.platform.io', 'v1alpha1', 'widgets'), undefined);
  assert.equal(r.lookup('preview.platform.io', 'v1alpha1', 'previews'), undefined);
  assert.deepEqual(r.groups(), [
    { name: 'example.platform.io', versions: ['v1', 'v1beta1'], preferredVersion: 'v1' },
    { name: 'batch', versions: ['v1', 'v2beta1'], preferredVersion: 'v1' },
  ]);
  assert.deepEqual(r.group('')?.versions, ['v1']);
  assert.deepEqual(
    r.resources('', 'v1').map((s) => s.type.plural),
    ['gadgets'],
  );
  assert.equal(r.lookupKind('batch', 'v2beta1', 'Knob')?.version.name, 'v2beta1');
  assert.equal(r.lookupKind('batch', 'v2beta1', 'Widget'), undefined);
  assert.deepEqual(
    r.all().map((s) => `${s.group}/${s.version.name}/${s.type.plural}`),
    ['example.platform.io/v1/widgets', 'example.platform.io/v1beta1/widgets', '/v1/gadgets', 'batch/v1/knobs', 'batch/v2beta1/knobs'],
  );
});

test('registry - runtime-config enables and disables group versions and resources', () => {
  const cases: Array<[string, string[]]> = [
    ['example.platform.io/v1=false', ['example.platform.io/v1beta1/widgets', '/v1/gadgets', 'batch/v1/knobs', 'batch/v2beta1/knobs']],
    [
      'example.platform.io/v1alpha1',
      ['example.platform.io/v1/widgets', 'example.platform.io/v1beta1/widgets', 'example.platform.io/v1alpha1/widgets', '/v1/gadgets', 'batch/v1/knobs', 'batch/v2beta1/knobs'],
    ],
    ['api/beta=false', ['example.platform.io/v1/widgets', '/v1/gadgets', 'batch/v1/knobs']],
    ['api/all=false,v1=true', ['/v1/gadgets']],
    ['api/all=false,api/v1', ['/v1/gadgets']],
    ['v1=false', ['example.platform.io/v1/widgets', 'example.platform.io/v1beta1/widgets', 'batch/v1/knobs', 'batch/v2beta1/knobs']],
    ['api/all=false,batch/v1/knobs=true', ['batch/v1/knobs']],
    ['batch/v1/knobs=false, batch/v2beta1=0', ['example.platform.io/v1/widgets', 'example.platform.io/v1beta1/widgets', '/v1/gadgets']],
    ['api/all=true,api/alpha=false', ['example.platform.io/v1/widgets', 'example.platform.io/v1beta1/widgets', '/v1/gadgets', 'batch/v1/knobs', 'batch/v2beta1/knobs']],
    ['v1/gadgets=false,', ['example.platform.io/v1/widgets', 'example.platform.io/v1beta1/widgets', 'batch/v1/knobs', 'batch/v2beta1/knobs']],
  ];
  for (const [rc, want] of cases) {
    const got = registry(rc)
      .all()
      .map((s) => `${s.group}/${s.version.name}/${s.type.plural}`);
    assert.deepEqual(got, want, rc);
  }
});

test('registry - runtime-config changes discovery and preferred versions', () => {
  assert.deepEqual(registry('example.platform.io/v1=false').groups()[0], { name: 'example.platform.io', versions: ['v1beta1'], preferredVersion: 'v1beta1' });
  assert.deepEqual(
    registry('api/alpha=true')
      .groups()
      .map((g) => `${g.name}:${g.versions.join(',')}`),
    ['example.platform.io:v1,v1beta1,v1alpha1', 'batch:v1,v2beta1', 'preview.platform.io:v1alpha1'],
  );
  assert.deepEqual(
    registry('batch/v1=false,batch/v2beta1=false')
      .groups()
      .map((g) => g.name),
    ['example.platform.io'],
  );
});

test('registry - invalid runtime-config is refused with a clear error', () => {
  const cases: Array<[string, RegExp]> = [
    ['unknown.io/v1', /unknown API group version unknown\.io\/v1/],
    ['batch/v3=false', /unknown API group version batch\/v3/],
    ['batch/v1/widgets=false', /unknown resource widgets in batch\/v1/],
    ['batch/v1=maybe', /invalid value "maybe" for key "batch\/v1"/],
    ['batch', /key "batch" is not a group version/],
    ['a/b/c/d', /too many segments/],
    ['batch//v1', /empty segment/],
    ['=true', /has no key/],
  ];
  for (const [rc, want] of cases) assert.throws(() => registry(rc), want, rc);
});

test('registry - parseRuntimeConfig reads keys, bare keys and boolean spellings', () => {
  assert.deepEqual(parseRuntimeConfig(''), []);
  assert.deepEqual(
    parseRuntimeConfig('api/all=false, v1 ,batch/v1=False,apps/v1/deployments=0,api/alpha=t,api/v1/pods=1').map((e) => [e.key, e.enabled, e.target]),
    [
      ['api/all', false, { scope: 'all' }],
      ['v1', true, { scope: 'groupVersion', group: '', version: 'v1' }],
      ['batch/v1', false, { scope: 'groupVersion', group: 'batch', version: 'v1' }],
      ['apps/v1/deployments', false, { scope: 'resource', group: 'apps', version: 'v1', resource: 'deployments' }],
      ['api/alpha', true, { scope: 'level', level: 'alpha' }],
      ['api/v1/pods', true, { scope: 'resource', group: '', version: 'v1', resource: 'pods' }],
    ],
  );
});

test('registry - short names, storage location and storage version', () => {
  const events: ResourceType = {
    group: 'events.platform.io',
    kind: 'Event',
    plural: 'events',
    singular: 'event',
    scope: 'Namespaced',
    versions: [{ name: 'v1', schema: {} }],
    storedAs: { group: '', resource: 'events', toStored: (o) => o, fromStored: (o) => o },
  };
  const r = registry(undefined, [widgetType({ storageVersion: 'v1beta1' }), gadgetType, knobType, events]);
  assert.deepEqual(
    r.lookupShortName('wd').map((s) => `${s.group}/${s.version.name}`),
    ['example.platform.io/v1'],
  );
  assert.deepEqual(r.lookupShortName('nope'), []);
  const widget = r.lookup('example.platform.io', 'v1', 'widgets')!.type;
  assert.equal(r.storageVersion(widget), 'v1beta1');
  assert.equal(r.storageVersion(knobType), 'v1');
  assert.deepEqual(r.storageRef(widget), { group: 'example.platform.io', resource: 'widgets' });
  assert.deepEqual(r.storageRef(events), { group: '', resource: 'events' });
});

test('registry - duplicate registrations are refused at construction', () => {
  assert.throws(() => new Registry([knobType, { ...knobType, kind: 'Other' }]), /batch\/v1\/knobs is registered twice/);
});

test('registry - object schema wraps the type body with apiVersion, kind and metadata', () => {
  const r = registry();
  const s = r.objectSchema(r.lookup('example.platform.io', 'v1', 'widgets')!);
  const props = s.properties as Record<string, JsonSchema>;
  assert.deepEqual(Object.keys(props).slice(0, 4), ['apiVersion', 'kind', 'metadata', 'spec']);
  assert.equal((props.metadata!.properties as Record<string, JsonSchema>).name!.type, 'string');
  assert.deepEqual(s['x-kubernetes-group-version-kind'], [{ group: 'example.platform.io', version: 'v1', kind: 'Widget' }]);
  // The type's own schema object is not modified by the wrapping.
  assert.equal((widgetBody.properties as Record<string, unknown>).metadata, undefined);
});

function widget(spec: Record<string, unknown>, meta: Record<string, unknown> = {}): ApiObject {
  return { apiVersion: 'example.platform.io/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default', ...meta }, spec };
}

function messages(errs: FieldError[]): string[] {
  return errs.map(fieldErrorMessage);
}

test('registry - schema errors become field errors with upstream paths and types', () => {
  const r = registry();
  const served = r.lookup('example.platform.io', 'v1', 'widgets')!;
  const cases: Array<[string, ApiObject, string[]]> = [
    ['valid', widget({ mode: 'Fast', port: 'http', size: '10Gi', containers: [{ name: 'a', image: 'img' }] }), []],
    ['missing required', widget({}), ['spec.mode: Required value']],
    ['enum', widget({ mode: 'Medium' }), ['spec.mode: Unsupported value: "Medium": supported values: "Fast", "Slow"']],
    ['minimum', widget({ mode: 'Fast', replicas: -1 }), ['spec.replicas: Invalid value: -1: must be greater than or equal to 0']],
    ['type', widget({ mode: 'Fast', replicas: 'three' }), ['spec.replicas: Invalid value: "three": must be of type integer']],
    ['int32 range', widget({ mode: 'Fast', replicas: 2 ** 31 }), ['spec.replicas: Invalid value: 2147483648: must be an integer between -2147483648 and 2147483647 (format int32)']],
    ['int64 accepted', widget({ mode: 'Fast', big: 2 ** 40 }), []],
    ['nested item required', widget({ mode: 'Fast', containers: [{ name: 'a', image: 'i' }, { name: 'b' }] }), ['spec.containers[1].image: Required value']],
    [
      'deeply nested type',
      widget({ mode: 'Fast', containers: [{ name: 'a', image: 'i', ports: [{ containerPort: '80' }] }] }),
      ['spec.containers[0].ports[0].containerPort: Invalid value: "80": must be of type integer'],
    ],
    ['map value', widget({ mode: 'Fast', selector: { app: 5 } }), ['spec.selector[app]: Invalid value: 5: must be of type string']],
    ['map of objects', widget({ mode: 'Fast', routes: { a: { target: 1 } } }), ['spec.routes[a].target: Invalid value: 1: must be of type string']],
    ['int-or-string', widget({ mode: 'Fast', port: 1.5 }), ['spec.port: Invalid value: 1.5: must be of type integer or string']],
    ['int-or-string object', widget({ mode: 'Fast', port: { a: 1 } }), ['spec.port: Invalid value: "object": must be of type integer or string']],
    ['quantity pattern', widget({ mode: 'Fast', size: 'lots' }), ['spec.size: Invalid value: "lots": should match \'^[0-9]+(Mi|Gi)?$\'']],
    ['quantity number', widget({ mode: 'Fast', size: 0.5 }), []],
    ['date-time', widget({ mode: 'Fast', startedAt: 'yesterday' }), ['spec.startedAt: Invalid value: "yesterday": must be of format date-time']],
    ['date-time ok', widget({ mode: 'Fast', startedAt: '2024-05-01T10:00:00Z' }), []],
    ['byte', widget({ mode: 'Fast', data: 'aGVsbG8=' }), []],
    ['byte invalid', widget({ mode: 'Fast', data: '%%%' }), ['spec.data: Invalid value: "%%%": must be of format byte']],
    ['max items', widget({ mode: 'Fast', tags: ['a', 'b', 'c'] }), ['spec.tags: Too many: must have at most 2 items']],
    ['nulls for optional fields', widget({ mode: 'Fast', replicas: null, containers: null }, { creationTimestamp: null, labels: null }), []],
    ['metadata types', widget({ mode: 'Fast' }, { labels: { app: 1 } }), ['metadata.labels[app]: Invalid value: 1: must be of type string']],
    [
      'metadata rules',
      widget({ mode: 'Fast' }, { name: 'Not_Valid' }),
      [
        `metadata.name: Invalid value: "Not_Valid": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      ],
    ],
    ['unknown fields are not validation errors', widget({ mode: 'Fast', bogus: 1 }), []],
    [
      'several at once, metadata first',
      widget({ replicas: -2 }, { namespace: undefined }),
      ['metadata.namespace: Required value', 'spec.mode: Required value', 'spec.replicas: Invalid value: -2: must be greater than or equal to 0'],
    ],
  ];
  for (const [name, obj, want] of cases) assert.deepEqual(messages(r.validate(served, obj)), want, name);
});

test('registry - type rules run after the schema, once per problem, and see the old object on update', () => {
  const calls: string[] = [];
  const t = widgetType({
    strategy: {
      validate(obj) {
        calls.push('validate');
        const spec = obj.spec as { mode?: string; replicas?: number };
        const errs: FieldError[] = [];
        if (!spec.mode) errs.push({ type: 'Required value', field: 'spec.mode' });
        if (spec.replicas === 7) errs.push({ type: 'Invalid value', field: 'spec.replicas', value: 7, detail: 'seven is unlucky' });
        return errs;
      },
      validateUpdate(obj, old) {
        calls.push('validateUpdate');
        const a = (obj.spec as { mode?: string }).mode;
        const b = (old.spec as { mode?: string }).mode;
        return a === b ? [] : [{ type: 'Invalid value', field: 'spec.mode', value: a, detail: 'field is immutable' }];
      },
    },
  });
  const r = registry(undefined, [t]);
  const served = r.lookup('example.platform.io', 'v1', 'widgets')!;
  assert.deepEqual(messages(r.validate(served, widget({ mode: 'Fast', replicas: 7 }))), ['spec.replicas: Invalid value: 7: seven is unlucky']);
  // Schema and type rule both find the missing mode: reported once.
  assert.deepEqual(messages(r.validate(served, widget({}))), ['spec.mode: Required value']);
  // With a JSON type mismatch the type rules are not run on a shape they cannot handle.
  calls.length = 0;
  assert.equal(r.validate(served, widget({ mode: 'Fast', replicas: 'x' })).length, 1);
  assert.deepEqual(calls, []);

  const old = { ...widget({ mode: 'Fast' }, { uid: 'u1', resourceVersion: '3' }) };
  assert.deepEqual(messages(r.validate(served, widget({ mode: 'Slow' }, { uid: 'u1' }), old)), ['spec.mode: Invalid value: "Slow": field is immutable']);
  assert.deepEqual(messages(r.validate(served, widget({ mode: 'Fast' }, { name: 'w2', uid: 'u1' }), old)), ['metadata.name: Invalid value: "w2": field is immutable']);
  assert.deepEqual(calls, ['validateUpdate', 'validateUpdate']);
});

test('registry - metadata rules follow the type scope, name rule and virtual flag', () => {
  const review: ResourceType = {
    ...knobType,
    group: 'authorization.platform.io',
    kind: 'Review',
    plural: 'reviews',
    singular: 'review',
    virtual: true,
    verbs: ['create'],
    versions: [{ name: 'v1', schema: {} }],
  };
  const r = registry(undefined, [knobType, review]);
  const knob = r.lookup('batch', 'v1', 'knobs')!;
  const base = { apiVersion: 'batch/v1', kind: 'Knob' };
  assert.deepEqual(r.validate(knob, { ...base, metadata: { name: 'system:knob:1' } }), []);
  assert.deepEqual(messages(r.validate(knob, { ...base, metadata: { name: 'k', namespace: 'default' } })), ['metadata.namespace: Forbidden: not allowed on this type']);
  assert.deepEqual(messages(r.validate(knob, { ...base, metadata: {} })), ['metadata.name: Required value: name or generateName is required']);
  const rv = r.lookup('authorization.platform.io', 'v1', 'reviews')!;
  assert.deepEqual(r.validate(rv, { apiVersion: 'authorization.platform.io/v1', kind: 'Review', metadata: {}, spec: { anything: true } }), []);
});

test('registry - defaults apply schema defaults, then version defaults, then type defaults', () => {
  const order: string[] = [];
  const t = widgetType({ strategy: { defaults: (o) => void order.push(`type:${(o.spec as { mode?: string }).mode}`) } });
  t.versions = t.versions.map((v) => ({
    ...v,
    defaults: (o: ApiObject) => {
      order.push('version');
      (o.spec as Record<string, unknown>).mode ??= 'Slow';
    },
  }));
  const r = registry(undefined, [t]);
  const served = r.lookup('example.platform.io', 'v1', 'widgets')!;
  const obj = widget({ containers: [{ name: 'a', image: 'i', ports: [{ containerPort: 80 }, { containerPort: 81, protocol: 'UDP' }] }] });
  r.defaults(served, obj);
  assert.deepEqual(order, ['version', 'type:Slow']);
  const spec = obj.spec as { replicas: number; containers: Array<{ ports: Array<{ protocol: string }> }> };
  assert.equal(spec.replicas, 1);
  assert.deepEqual(
    spec.containers[0]!.ports.map((p) => p.protocol),
    ['TCP', 'UDP'],
  );
});

test('registry - unknown fields are found at every depth, never in modelled or preserved data', () => {
  const r = registry();
  const served = r.lookup('example.platform.io', 'v1', 'widgets')!;
  const obj = {
    apiVersion: 'example.platform.io/v1',
    kind: 'Widget',
    extra: true,
    metadata: { name: 'w', namespace: 'd', labels: { any: 'x' }, bogusMeta: 1, ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'n', uid: 'u', nope: 1 }] },
    spec: {
      mode: 'Fast',
      foo: 1,
      port: 'http',
      containers: [
        { name: 'a', image: 'i', bogus: true, ports: [{ containerPort: 1, what: 2 }] },
        { name: 'b', image: 'i' },
      ],
      selector: { 'any.key/x': 'y' },
      routes: { r1: { target: 't', weight: 3 } },
      config: { anything: { goes: [1, 2, { deep: true }] } },
      partial: { free: 1, known: { a: 'x', b: 'unknown-below-known' } },
      raw: { whatever: { nested: 1 } },
    },
    status: { ready: true, phase: 'x' },
  };
  const want = [
    '.extra',
    '.metadata.bogusMeta',
    '.metadata.ownerReferences[0].nope',
    '.spec.foo',
    '.spec.containers[0].bogus',
    '.spec.containers[0].ports[0].what',
    '.spec.routes[r1].weight',
    '.spec.partial.known.b',
    '.status.phase',
  ];
  assert.deepEqual(r.unknownFields(served, obj).sort(), [...want].sort());

  const pruned = structuredClone(obj) as unknown as ApiObject;
  r.prune(served, pruned);
  assert.deepEqual(r.unknownFields(served, pruned), []);
  const expected = structuredClone(obj) as Record<string, any>;
  delete expected.extra;
  delete expected.metadata.bogusMeta;
  delete expected.metadata.ownerReferences[0].nope;
  delete expected.spec.foo;
  delete expected.spec.containers[0].bogus;
  delete expected.spec.containers[0].ports[0].what;
  delete expected.spec.routes.r1.weight;
  delete expected.spec.partial.known.b;
  delete expected.status.phase;
  assert.deepEqual(pruned, expected);
  // A valid, fully modelled object survives pruning untouched.
  const clean = structuredClone(expected);
  r.prune(served, clean as ApiObject);
  assert.deepEqual(clean, expected);
});

test('registry - pruning drops nulls that only mean "unset" and keeps them where null is a value', () => {
  const r = registry();
  const served = r.lookup('example.platform.io', 'v1', 'widgets')!;
  const obj = widget({ mode: 'Fast', replicas: null, note: null, config: { keep: null } }, { creationTimestamp: null, labels: null });
  assert.deepEqual(r.validate(served, obj), []);
  r.prune(served, obj);
  assert.deepEqual(obj.metadata, { name: 'w1', namespace: 'default', creationTimestamp: null });
  assert.deepEqual(obj.spec, { mode: 'Fast', note: null, config: { keep: null } });
  assert.deepEqual(r.validate(served, obj), []);
});

test('registry - a type without a modelled body keeps everything', () => {
  const r = registry(undefined, [{ ...knobType, versions: [{ name: 'v1', schema: {} }] }]);
  const served = r.lookup('batch', 'v1', 'knobs')!;
  const obj = { apiVersion: 'batch/v1', kind: 'Knob', metadata: { name: 'k', junk: 1 }, spec: { a: 1 }, other: [1] };
  assert.deepEqual(r.unknownFields(served, obj), ['.metadata.junk']);
  r.prune(served, obj as ApiObject);
  assert.deepEqual(obj, { apiVersion: 'batch/v1', kind: 'Knob', metadata: { name: 'k' }, spec: { a: 1 }, other: [1] });
});

test('registry - errors inside schemas shared between fields and types keep their full paths', () => {
  const quantity: JsonSchema = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'number' }, { type: 'string', pattern: '^[0-9]+(m|Mi|Gi)?$' }] };
  const container: JsonSchema = {
    type: 'object',
    properties: { name: str, image: str, limits: { type: 'object', additionalProperties: quantity } },
    required: ['name', 'image'],
    additionalProperties: false,
  };
  const podSpec: JsonSchema = {
    type: 'object',
    properties: { containers: { type: 'array', items: container }, initContainers: { type: 'array', items: container } },
    additionalProperties: false,
  };
  const mk = (kind: string, plural: string): ResourceType => ({
    group: 'apps',
    kind,
    plural,
    singular: kind.toLowerCase(),
    scope: 'Namespaced',
    versions: [{ name: 'v1', schema: { type: 'object', properties: { spec: { type: 'object', properties: { template: podSpec, size: quantity } } } } }],
  });
  const r = registry(undefined, [mk('Sheep', 'sheep'), mk('Goat', 'goats')]);
  const served = r.lookup('apps', 'v1', 'goats')!;
  const obj: ApiObject = {
    apiVersion: 'apps/v1',
    kind: 'Goat',
    metadata: { name: 'g', namespace: 'd' },
    spec: {
      size: 'huge',
      template: {
        containers: [{ name: 'a', image: 'i', limits: { cpu: '500m', memory: 'lots' } }],
        initContainers: [
          { name: 'b', image: 'i' },
          { name: 'c', limits: { cpu: true } },
        ],
      },
    },
  };
  assert.deepEqual(
    messages(r.validate(served, obj)).sort(),
    [
      'spec.size: Invalid value: "huge": should match \'^[0-9]+(m|Mi|Gi)?$\'',
      'spec.template.containers[0].limits[memory]: Invalid value: "lots": should match \'^[0-9]+(m|Mi|Gi)?$\'',
      'spec.template.initContainers[1].image: Required value',
      'spec.template.initContainers[1].limits[cpu]: Invalid value: true: must be of type number or string',
    ].sort(),
  );
  assert.deepEqual(r.unknownFields(served, { ...obj, spec: { template: { initContainers: [{ name: 'x', image: 'y', z: 1 }] } } }), ['.spec.template.initContainers[0].z']);
});

test('registry - a second registry over the same types is cheap to build', () => {
  const types = [widgetType(), gadgetType, knobType, previewType];
  new Registry(types);
  const t0 = performance.now();
  for (let i = 0; i < 5; i++) new Registry(types, { runtimeConfig: 'api/alpha=true' });
  assert.ok(performance.now() - t0 < 1000);
});
