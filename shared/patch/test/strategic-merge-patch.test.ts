import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../api/status.js';
import { applyStrategicMergePatch } from '../strategic-merge-patch.js';
import type { JsonSchema } from '../../api/types.js';

// A cut-down apps/v1 Deployment schema carrying the markers upstream declares on these fields.
const str: JsonSchema = { type: 'string' };
const envVar: JsonSchema = { type: 'object', properties: { name: str, value: str } };
const container: JsonSchema = {
  type: 'object',
  properties: {
    name: str,
    image: str,
    args: { type: 'array', items: str, 'x-kubernetes-list-type': 'atomic' },
    env: { type: 'array', items: envVar, 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' },
    ports: {
      type: 'array',
      items: { type: 'object', properties: { containerPort: { type: 'integer' }, protocol: str } },
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
      'x-kubernetes-patch-merge-key': 'containerPort',
      'x-kubernetes-patch-strategy': 'merge',
    },
    resources: { type: 'object', properties: { limits: { type: 'object', additionalProperties: str } } },
  },
};
const volume: JsonSchema = {
  type: 'object',
  properties: { name: str, emptyDir: { type: 'object', properties: { medium: str } }, configMap: { type: 'object', properties: { name: str } } },
};
const podSpec: JsonSchema = {
  type: 'object',
  properties: {
    containers: { type: 'array', items: container, 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' },
    volumes: { type: 'array', items: volume, 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge,retainKeys' },
    tolerations: { type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'atomic' },
    nodeSelector: { type: 'object', additionalProperties: str, 'x-kubernetes-map-type': 'atomic' },
  },
};
const deploymentSchema: JsonSchema = {
  type: 'object',
  properties: {
    apiVersion: str,
    kind: str,
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        strategy: {
          type: 'object',
          properties: { type: str, rollingUpdate: { type: 'object', properties: { maxSurge: str } } },
          'x-kubernetes-patch-strategy': 'retainKeys',
        },
        template: { type: 'object', properties: { metadata: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, spec: podSpec } },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
  },
};

function deployment(containers: unknown[], more: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' }, finalizers: ['a/b'] },
    spec: { replicas: 2, template: { metadata: { labels: { app: 'web' } }, spec: { containers, ...more } } },
  };
}

function containersOf(obj: unknown): unknown {
  return (obj as { spec: { template: { spec: { containers: unknown } } } }).spec.template.spec.containers;
}

function statusOf(fn: () => unknown): { code: number; message: string } {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof StatusError, `expected a StatusError, got ${String(err)}`);
    return { code: err.status.code, message: err.status.message };
  }
  assert.fail('expected the patch to be refused');
}

const three = [
  { name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }] },
  { name: 'sidecar', image: 'envoy:1' },
  { name: 'log', image: 'fluent:1' },
];

test('strategic merge patch - kubectl apply changes one container image and keeps the others', () => {
  const live = deployment(three);
  const before = structuredClone(live);
  // What kubectl apply sends when only the sidecar's image changed in the manifest.
  const patch = {
    spec: {
      template: {
        spec: {
          '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }, { name: 'log' }],
          containers: [{ name: 'sidecar', image: 'envoy:2' }],
        },
      },
    },
  };
  const out = applyStrategicMergePatch(live, patch, deploymentSchema);
  assert.deepEqual(containersOf(out), [
    { name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }] },
    { name: 'sidecar', image: 'envoy:2' },
    { name: 'log', image: 'fluent:1' },
  ]);
  assert.deepEqual(live, before, 'the live object is not changed');
  assert.equal((out as { spec: { replicas: number } }).spec.replicas, 2);
});

test('strategic merge patch - list and map semantics', () => {
  const cases: Array<{ name: string; live: unknown; patch: Record<string, unknown>; want: unknown }> = [
    {
      name: 'a new container is appended',
      live: deployment([{ name: 'app', image: 'app:1' }]),
      patch: { spec: { template: { spec: { containers: [{ name: 'tail', image: 'busybox' }] } } } },
      want: [
        { name: 'app', image: 'app:1' },
        { name: 'tail', image: 'busybox' },
      ],
    },
    {
      name: 'nested keyed lists merge too (env by name) and null removes a member',
      live: deployment([
        {
          name: 'app',
          image: 'app:1',
          resources: { limits: { cpu: '1' } },
          env: [
            { name: 'A', value: '1' },
            { name: 'B', value: '2' },
          ],
        },
      ]),
      patch: {
        spec: {
          template: {
            spec: {
              containers: [
                {
                  name: 'app',
                  resources: null,
                  env: [
                    { name: 'B', value: '3' },
                    { name: 'C', value: '4' },
                  ],
                },
              ],
            },
          },
        },
      },
      want: [
        {
          name: 'app',
          image: 'app:1',
          env: [
            { name: 'A', value: '1' },
            { name: 'B', value: '3' },
            { name: 'C', value: '4' },
          ],
        },
      ],
    },
    {
      name: '$patch: delete removes a list item by its key',
      live: deployment(three),
      patch: { spec: { template: { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } } } },
      want: [three[0], three[2]],
    },
    {
      name: '$patch: delete of an item that is not there is a no-op',
      live: deployment(three),
      patch: { spec: { template: { spec: { containers: [{ name: 'nope', $patch: 'delete' }] } } } },
      want: three,
    },
    {
      name: '$patch: replace as a list item replaces the whole list',
      live: deployment(three),
      patch: { spec: { template: { spec: { containers: [{ name: 'only', image: 'x' }, { $patch: 'replace' }] } } } },
      want: [{ name: 'only', image: 'x' }],
    },
    {
      name: '$patch: replace in an item replaces that item instead of merging it',
      live: deployment(three),
      patch: { spec: { template: { spec: { containers: [{ name: 'app', image: 'app:2', $patch: 'replace' }] } } } },
      want: [{ name: 'app', image: 'app:2' }, three[1], three[2]],
    },
    {
      name: 'atomic lists are replaced',
      live: deployment([{ name: 'app', args: ['a', 'b'] }]),
      patch: { spec: { template: { spec: { containers: [{ name: 'app', args: ['c'] }] } } } },
      want: [{ name: 'app', args: ['c'] }],
    },
    {
      name: 'a list keyed by its patch merge key (ports by containerPort)',
      live: deployment([
        {
          name: 'app',
          ports: [
            { containerPort: 80, protocol: 'TCP' },
            { containerPort: 443, protocol: 'TCP' },
          ],
        },
      ]),
      patch: { spec: { template: { spec: { containers: [{ name: 'app', ports: [{ containerPort: 443, name: 'https' }] }] } } } },
      want: [
        {
          name: 'app',
          ports: [
            { containerPort: 80, protocol: 'TCP' },
            { containerPort: 443, protocol: 'TCP', name: 'https' },
          ],
        },
      ],
    },
  ];
  for (const c of cases) assert.deepEqual(containersOf(applyStrategicMergePatch(c.live, c.patch, deploymentSchema)), c.want, c.name);
});

test('strategic merge patch - $setElementOrder orders merged lists', () => {
  const cases: Array<{ name: string; live: unknown[]; patch: Record<string, unknown>; want: string[] }> = [
    {
      name: 'reorder only',
      live: three,
      patch: { '$setElementOrder/containers': [{ name: 'log' }, { name: 'app' }, { name: 'sidecar' }] },
      want: ['log', 'app', 'sidecar'],
    },
    {
      name: 'a new item lands where the order puts it',
      live: three,
      patch: { '$setElementOrder/containers': [{ name: 'app' }, { name: 'new' }, { name: 'sidecar' }, { name: 'log' }], containers: [{ name: 'new', image: 'n' }] },
      want: ['app', 'new', 'sidecar', 'log'],
    },
    {
      name: 'items only the server knows keep their place',
      live: [{ name: 'app' }, { name: 'injected' }, { name: 'sidecar' }, { name: 'log' }],
      patch: { '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }, { name: 'log' }], containers: [{ name: 'sidecar', image: 'v2' }] },
      want: ['app', 'injected', 'sidecar', 'log'],
    },
  ];
  for (const c of cases) {
    const out = applyStrategicMergePatch(deployment(c.live), { spec: { template: { spec: c.patch } } }, deploymentSchema);
    assert.deepEqual(
      (containersOf(out) as Array<{ name: string }>).map((x) => x.name),
      c.want,
      c.name,
    );
  }
  // Lists of values: finalizers merge as a set (metadata markers come from the resolver).
  const out = applyStrategicMergePatch(deployment(three), { metadata: { '$setElementOrder/finalizers': ['c/d', 'a/b'], finalizers: ['c/d'] } }, deploymentSchema);
  assert.deepEqual((out as { metadata: { finalizers: string[] } }).metadata.finalizers, ['c/d', 'a/b']);
});

test('strategic merge patch - lists of values', () => {
  const meta = (o: unknown): Record<string, unknown> => (o as { metadata: Record<string, unknown> }).metadata;
  const live = deployment(three);
  const cases: Array<{ name: string; patch: Record<string, unknown>; want: unknown }> = [
    { name: 'finalizers are unioned', patch: { metadata: { finalizers: ['x/y', 'a/b'] } }, want: ['a/b', 'x/y'] },
    { name: '$deleteFromPrimitiveList removes values', patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a/b'] } }, want: [] },
    { name: 'delete and add together', patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a/b'], finalizers: ['c/d'] } }, want: ['c/d'] },
    { name: 'null removes the list', patch: { metadata: { finalizers: null } }, want: undefined },
  ];
  for (const c of cases) assert.deepEqual(meta(applyStrategicMergePatch(live, c.patch, deploymentSchema)).finalizers, c.want, c.name);
});

test('strategic merge patch - $retainKeys clears the other members of a union', () => {
  const live = { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%' } } } };
  // kubectl apply switching a Deployment to Recreate.
  const out = applyStrategicMergePatch(live, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }, deploymentSchema);
  assert.deepEqual(out, { spec: { strategy: { type: 'Recreate' } } });

  // Volumes merge by name and each item is a union of sources.
  const pod = deployment([], {
    volumes: [
      { name: 'v', emptyDir: {} },
      { name: 'w', emptyDir: {} },
    ],
  });
  const patched = applyStrategicMergePatch(pod, { spec: { template: { spec: { volumes: [{ name: 'v', $retainKeys: ['configMap', 'name'], configMap: { name: 'cm' } }] } } } }, deploymentSchema) as {
    spec: { template: { spec: { volumes: unknown } } };
  };
  assert.deepEqual(patched.spec.template.spec.volumes, [
    { name: 'v', configMap: { name: 'cm' } },
    { name: 'w', emptyDir: {} },
  ]);

  // Setting a member the list does not retain contradicts the directive.
  const s = statusOf(() => applyStrategicMergePatch(live, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: { maxSurge: '1' } } } }, deploymentSchema));
  assert.equal(s.code, 422);
  assert.match(s.message, /\$retainKeys/);
});

test('strategic merge patch - map directives', () => {
  const live = { spec: { template: { spec: { nodeSelector: { a: '1', b: '2' }, containers: [] } } } };
  const cases: Array<{ name: string; patch: unknown; want: unknown }> = [
    { name: 'maps merge', patch: { spec: { template: { spec: { nodeSelector: { c: '3', a: null } } } } }, want: { b: '2', c: '3' } },
    { name: '$patch: replace', patch: { spec: { template: { spec: { nodeSelector: { c: '3', $patch: 'replace' } } } } }, want: { c: '3' } },
    { name: '$patch: delete', patch: { spec: { template: { spec: { nodeSelector: { $patch: 'delete' } } } } }, want: undefined },
    { name: '$patch: merge', patch: { spec: { template: { spec: { nodeSelector: { c: '3', $patch: 'merge' } } } } }, want: { a: '1', b: '2', c: '3' } },
  ];
  for (const c of cases) {
    const out = applyStrategicMergePatch(live, c.patch, deploymentSchema) as typeof live;
    assert.deepEqual(out.spec.template.spec.nodeSelector, c.want, c.name);
  }
  assert.deepEqual(applyStrategicMergePatch({ a: 1 }, { $patch: 'replace', b: 2 }), { b: 2 });
  assert.deepEqual(applyStrategicMergePatch({ a: 1 }, { $patch: 'delete' }), {});
});

test('strategic merge patch - lists without a schema node are replaced', () => {
  const cases: Array<{ name: string; schema: JsonSchema | undefined; live: unknown; patch: unknown; want: unknown }> = [
    { name: 'no schema at all', schema: undefined, live: { l: [{ name: 'a', x: 1 }] }, patch: { l: [{ name: 'b' }] }, want: { l: [{ name: 'b' }] } },
    {
      name: 'preserve-unknown-fields subtree',
      schema: deploymentSchema,
      live: { spec: { extra: { containers: [{ name: 'a' }] } } },
      patch: { spec: { extra: { containers: [{ name: 'b' }] } } },
      want: { spec: { extra: { containers: [{ name: 'b' }] } } },
    },
    { name: 'maps still merge without a schema', schema: undefined, live: { m: { a: 1, b: 2 } }, patch: { m: { a: null, c: 3 } }, want: { m: { b: 2, c: 3 } } },
  ];
  for (const c of cases) assert.deepEqual(applyStrategicMergePatch(c.live, c.patch, c.schema), c.want, c.name);
});

test('strategic merge patch - malformed patches', () => {
  const live = deployment(three);
  const cases: Array<{ name: string; patch: unknown; code: number }> = [
    { name: 'not an object', patch: [{ a: 1 }], code: 400 },
    { name: 'unknown $patch', patch: { spec: { $patch: 'explode' } }, code: 400 },
    { name: 'item without merge key', patch: { spec: { template: { spec: { containers: [{ image: 'x' }] } } } }, code: 400 },
    { name: 'scalar item in a keyed list', patch: { spec: { template: { spec: { containers: ['x'] } } } }, code: 400 },
    { name: '$setElementOrder not a list', patch: { spec: { template: { spec: { '$setElementOrder/containers': { name: 'a' } } } } }, code: 400 },
    { name: '$setElementOrder item without key', patch: { spec: { template: { spec: { '$setElementOrder/containers': [{ image: 'a' }] } } } }, code: 400 },
    { name: '$retainKeys not strings', patch: { spec: { strategy: { $retainKeys: [1] } } }, code: 400 },
  ];
  for (const c of cases) assert.equal(statusOf(() => applyStrategicMergePatch(live, c.patch, deploymentSchema)).code, c.code, c.name);
});

test('strategic merge patch - __proto__ and constructor keys stay plain data', () => {
  const patch = JSON.parse('{"__proto__": {"polluted": true}, "metadata": {"constructor": {"prototype": {"polluted": true}}, "labels": {"__proto__": "x"}}}');
  const out = applyStrategicMergePatch({ metadata: { name: 'a' } }, patch, deploymentSchema) as Record<string, unknown>;
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.equal(JSON.stringify(out), '{"metadata":{"name":"a","constructor":{"prototype":{"polluted":true}},"labels":{"__proto__":"x"}},"__proto__":{"polluted":true}}');
});
