// The protobuf codec: the contract against the registry (every kind has a message, no schema field
// the wire cannot carry), bytes checked by hand against the field numbers, Go's zero-value rules,
// the meta types' JSON forms, round trips of every kind, and the envelope's refusals.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { createBuiltinRegistry } from '../../registry/builtin-registry.js';
import type { JsonSchema } from '../../api/types.js';
import { StatusError } from '../../api/status.js';
import { decodeObject, encodeObject, messageOf, normalizeObject, PROTOBUF_PREFIX } from '../envelope.js';
import { decode, encode } from '../wire.js';
import { MAX_OBJECT_MEMBERS } from '../../api/json-scan.js';

type FieldTuple = [string, number, string, string, string?];
const wire = createRequire(import.meta.url)('../../../proto/k8s/wire.json').messages as Record<string, FieldTuple[]>;
const registry = createBuiltinRegistry({ runtimeConfig: 'api/all=true' });
const served = registry.all();
const apiVersionOf = (s: (typeof served)[number]) => (s.group ? `${s.group}/${s.version.name}` : s.version.name);

const OPAQUE = new Set(['meta.v1.Time', 'meta.v1.MicroTime', 'resource.Quantity', 'intstr.IntOrString', 'runtime.RawExtension', 'meta.v1.FieldsV1']);

/** JSON names of a message's fields, inline messages flattened. */
function jsonFields(msg: string): Map<string, FieldTuple> {
  const out = new Map<string, FieldTuple>();
  for (const f of wire[msg] ?? []) {
    if (f[3].includes('i')) for (const [k, v] of jsonFields(f[2])) out.set(k, v);
    else out.set(f[4] ?? f[0], f);
  }
  return out;
}

/** Schema properties the wire cannot carry (apiVersion/kind of embedded objects are TypeMeta, never on the wire). */
function drift(schema: JsonSchema | undefined, msg: string, path: string, out: string[]): void {
  if (!schema || OPAQUE.has(msg)) return;
  const fields = jsonFields(msg);
  for (const [k, sub] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
    if (k === 'apiVersion' || k === 'kind') continue;
    const f = fields.get(k);
    if (!f) {
      out.push(`${path}.${k}`);
      continue;
    }
    if (!wire[f[2]]) continue;
    const next = f[3].includes('r') ? (sub.items as JsonSchema) : f[3].includes('m') ? (sub.additionalProperties as JsonSchema) : sub;
    drift(next, f[2], `${path}.${k}`, out);
  }
}

describe('protobuf - the contract against the registry', () => {
  it('every served kind and the List of every stored kind has a message', () => {
    const missing: string[] = [];
    for (const s of served) {
      if (!messageOf(apiVersionOf(s), s.type.kind)) missing.push(`${apiVersionOf(s)} ${s.type.kind}`);
      if (!s.type.virtual && !messageOf(apiVersionOf(s), `${s.type.kind}List`)) missing.push(`${apiVersionOf(s)} ${s.type.kind}List`);
    }
    assert.deepEqual(missing, []);
  });

  it('no field of any kind schema is missing from its message (the wire would drop it)', () => {
    const out: string[] = [];
    for (const s of served) drift(registry.objectSchema(s), messageOf(apiVersionOf(s), s.type.kind)!, s.type.kind, out);
    assert.deepEqual(out, []);
  });

  it('both group spellings and the meta kinds resolve', () => {
    const cases: Array<[string, string, string | undefined]> = [
      ['v1', 'ConfigMap', 'core.v1.ConfigMap'],
      ['apps/v1', 'DeploymentList', 'apps.v1.DeploymentList'],
      ['rbac.authorization.platform.io/v1', 'Role', 'rbac.v1.Role'],
      ['rbac.authorization.k8s.io/v1', 'Role', 'rbac.v1.Role'],
      ['v1', 'Status', 'meta.v1.Status'],
      ['meta.k8s.io/v1', 'PartialObjectMetadataList', 'meta.v1.PartialObjectMetadataList'],
      ['v1', 'DeleteOptions', 'meta.v1.DeleteOptions'],
      ['autoscaling/v1', 'Scale', 'autoscaling.v1.Scale'],
      ['example.com/v1', 'Widget', undefined],
      ['meta.k8s.io/v1', 'Table', undefined],
    ];
    for (const [apiVersion, kind, want] of cases) assert.equal(messageOf(apiVersion, kind), want, `${apiVersion} ${kind}`);
  });
});

describe('protobuf - bytes as upstream lays them out', () => {
  // Hand-assembled from the field numbers: ConfigMap{metadata=1{name=1}, data=2 map entry{key=1, value=2}}.
  const configMap = Buffer.from([0x0a, 0x03, 0x0a, 0x01, 0x61, 0x12, 0x06, 0x0a, 0x01, 0x6b, 0x12, 0x01, 0x76]);
  it('a ConfigMap encodes to, and decodes from, the expected bytes', () => {
    assert.deepEqual(Buffer.from(encode('core.v1.ConfigMap', { metadata: { name: 'a' }, data: { k: 'v' } })), configMap);
    assert.deepEqual(decode('core.v1.ConfigMap', configMap), { metadata: { name: 'a' }, data: { k: 'v' } });
  });

  it('the envelope: k8s\\0, Unknown{typeMeta=1{apiVersion=1, kind=2}, raw=2}', () => {
    const bytes = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } })!;
    const unknown = Buffer.concat([Buffer.from([0x0a, 0x0f, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x09]), Buffer.from('ConfigMap'), Buffer.from([0x12, configMap.length]), configMap]);
    assert.deepEqual(bytes, Buffer.concat([PROTOBUF_PREFIX, unknown]));
  });

  it('an unknown field number is skipped, packed and unpacked repeated numbers both read', () => {
    // PodSecurityContext.supplementalGroups (4, int64): unpacked 1, 2 then packed [3, 4]; field 99 unknown.
    const bytes = Buffer.from([0x20, 0x01, 0x20, 0x02, 0x22, 0x02, 0x03, 0x04, 0x98, 0x06, 0x07]);
    assert.deepEqual(decode('core.v1.PodSecurityContext', bytes), { supplementalGroups: [1, 2, 3, 4] });
  });
});

describe('protobuf - Go zero values', () => {
  it('a zero in a non-pointer omitempty field means unset; a zero in a pointer field is kept', () => {
    // DeploymentSpec: replicas (1, *int32) = 0, paused (7, bool omitempty) = false, minReadySeconds (5, int32 omitempty) = 0.
    const bytes = Buffer.from([0x08, 0x00, 0x38, 0x00, 0x28, 0x00]);
    assert.deepEqual(decode('apps.v1.DeploymentSpec', bytes), { replicas: 0 });
    // Container.name (1) has no omitempty: an empty name is a value.
    assert.deepEqual(decode('core.v1.Container', Buffer.from([0x0a, 0x00])), { name: '' });
  });

  it('zero times vanish (Go writes null); empty nested structs stay', () => {
    // ObjectMeta{name="a", creationTimestamp=8{}}; Deployment{metadata, spec=2{}, status=3{}}.
    const meta = Buffer.from([0x0a, 0x01, 0x61, 0x42, 0x00]);
    assert.deepEqual(decode('meta.v1.ObjectMeta', meta), { name: 'a' });
    const dep = Buffer.concat([Buffer.from([0x0a, meta.length]), meta, Buffer.from([0x12, 0x00, 0x1a, 0x00])]);
    assert.deepEqual(decode('apps.v1.Deployment', dep), { metadata: { name: 'a' }, spec: {}, status: {} });
  });
});

describe('protobuf - JSON forms of the meta types', () => {
  const cases: Array<[string, string, unknown]> = [
    ['Time at second precision', 'meta.v1.ObjectMeta', { creationTimestamp: '2026-11-24T18:10:00Z' }],
    ['MicroTime keeps microseconds', 'coordination.v1.LeaseSpec', { renewTime: '2026-11-24T18:10:00.123456Z', leaseDurationSeconds: 40 }],
    ['Quantity is its string', 'core.v1.ResourceRequirements', { limits: { cpu: '500m', memory: '1Gi' }, requests: { 'nvidia.com/gpu': '1' } }],
    ['IntOrString as a number', 'apps.v1.RollingUpdateDeployment', { maxUnavailable: 1, maxSurge: '25%' }],
    ['IntOrString zero is a value', 'policy.v1.PodDisruptionBudgetSpec', { minAvailable: 0 }],
    ['bytes are base64', 'core.v1.Secret', { data: { k: Buffer.from([0, 1, 2, 255]).toString('base64') }, type: 'Opaque' }],
    ['RawExtension is embedded JSON', 'apps.v1.ControllerRevision', { data: { spec: { template: { a: [1, 'x', null, true] } } }, revision: 3 }],
    [
      'FieldsV1 is embedded JSON',
      'meta.v1.ManagedFieldsEntry',
      { manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', time: '2026-11-24T18:10:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } },
    ],
    ['pointer booleans keep false', 'core.v1.PodSpec', { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'i' }] }],
    [
      'inline structs flatten (VolumeSource, ProbeHandler, LocalObjectReference)',
      'core.v1.Container',
      {
        name: 'c',
        livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5 },
        envFrom: [{ configMapRef: { name: 'cfg' } }],
      },
    ],
    ['int64 lists', 'core.v1.PodSecurityContext', { supplementalGroups: [1000, 2000], runAsUser: 0 }],
  ];
  for (const [what, type, value] of cases) {
    it(`${what} (${type})`, () => assert.deepEqual(decode(type, encode(type, value)), value));
  }
  it('a volume source is flattened into the volume', () => {
    const v = { name: 'v', configMap: { name: 'cfg', items: [{ key: 'a', path: 'b' }], defaultMode: 420 } };
    assert.deepEqual(decode('core.v1.Volume', encode('core.v1.Volume', v)), v);
  });
});

/** A full object of every kind: metadata with every field type, plus what the kind's fixture adds. */
const META = {
  name: 'x',
  namespace: 'ns',
  uid: '0b1f2d3c-0000-4000-8000-000000000001',
  resourceVersion: '42',
  generation: 3,
  creationTimestamp: '2026-11-24T18:10:00Z',
  deletionTimestamp: '2026-11-24T18:11:00Z',
  deletionGracePeriodSeconds: 30,
  labels: { app: 'x', 'platform.io/part-of': 'y' },
  annotations: { note: 'a\nb' },
  ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u-1', controller: true, blockOwnerDeletion: false }],
  finalizers: ['platform.io/protect'],
  managedFields: [
    { manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '2026-11-24T18:10:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } } },
  ],
};

const PODSPEC = {
  containers: [
    {
      name: 'c',
      image: 'registry.example/app:1',
      command: ['sh', '-c'],
      args: ['run'],
      ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
      env: [
        { name: 'A', value: 'b' },
        { name: 'S', valueFrom: { secretKeyRef: { name: 's', key: 'k', optional: true } } },
      ],
      resources: { limits: { cpu: '1', memory: '512Mi' }, requests: { cpu: '250m' } },
      volumeMounts: [{ name: 'v', mountPath: '/data', readOnly: true }],
      readinessProbe: { tcpSocket: { port: 8080 }, initialDelaySeconds: 2 },
      securityContext: { runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
      imagePullPolicy: 'IfNotPresent',
    },
  ],
  volumes: [
    { name: 'v', emptyDir: { sizeLimit: '1Gi' } },
    { name: 'p', persistentVolumeClaim: { claimName: 'c' } },
  ],
  restartPolicy: 'Always',
  terminationGracePeriodSeconds: 30,
  nodeSelector: { disk: 'ssd' },
  tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 60 }],
  affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }] } } },
};
const TEMPLATE = { metadata: { labels: { app: 'x' } }, spec: PODSPEC };
const SELECTOR = { matchLabels: { app: 'x' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] };

const FIXTURES: Record<string, Record<string, unknown>> = {
  Pod: { spec: { ...PODSPEC, nodeName: 'n1' }, status: { phase: 'Running', podIP: '10.0.0.1', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-11-24T18:10:00Z' }] } },
  Deployment: {
    spec: { replicas: 0, selector: SELECTOR, template: TEMPLATE, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } } },
    status: { replicas: 2, readyReplicas: 1 },
  },
  StatefulSet: {
    spec: {
      replicas: 2,
      serviceName: 's',
      selector: SELECTOR,
      template: TEMPLATE,
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    },
  },
  Service: {
    spec: {
      type: 'NodePort',
      selector: { app: 'x' },
      ports: [{ name: 'http', port: 80, targetPort: 'http', nodePort: 30080, protocol: 'TCP' }],
      clusterIP: '10.96.0.10',
      clusterIPs: ['10.96.0.10'],
      ipFamilies: ['IPv4'],
    },
    status: { loadBalancer: {} },
  },
  Secret: { data: { k: 'AAEC/w==' }, stringData: { s: 'plain' }, type: 'Opaque', immutable: true },
  ConfigMap: { data: { a: 'b' }, binaryData: { bin: 'AAE=' } },
  Node: {
    spec: { podCIDR: '10.244.0.0/24', taints: [{ key: 'k', effect: 'NoSchedule' }] },
    status: { capacity: { cpu: '4', memory: '16Gi', pods: '110' }, addresses: [{ type: 'InternalIP', address: '10.0.0.5' }] },
  },
  Lease: { spec: { holderIdentity: 'h', leaseDurationSeconds: 40, acquireTime: '2026-11-24T18:10:00.000001Z', renewTime: '2026-11-24T18:10:05.500000Z', leaseTransitions: 2 } },
  'v1 Event': {
    involvedObject: { kind: 'Pod', name: 'p', namespace: 'ns' },
    reason: 'Started',
    message: 'm',
    count: 2,
    type: 'Normal',
    firstTimestamp: '2026-11-24T18:10:00Z',
    eventTime: '2026-11-24T18:10:00.250000Z',
  },
  ControllerRevision: { data: { spec: { template: { metadata: { labels: { app: 'x' } } } } }, revision: 7 },
  CertificateSigningRequest: {
    spec: {
      request: Buffer.from('-----BEGIN CERTIFICATE REQUEST-----').toString('base64'),
      signerName: 'platform.io/kube-apiserver-client',
      usages: ['client auth'],
      expirationSeconds: 3600,
      extra: { scopes: ['a', 'b'] },
    },
  },
  PodDisruptionBudget: { spec: { minAvailable: '50%', selector: SELECTOR } },
  CronJob: { spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { ...PODSPEC, restartPolicy: 'Never' } }, backoffLimit: 0 } }, suspend: false } },
  ClusterRole: { rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }], aggregationRule: { clusterRoleSelectors: [{ matchLabels: { agg: 'true' } }] } },
  ResourceQuota: { spec: { hard: { pods: '10', 'requests.cpu': '4' } }, status: { used: { pods: '1' } } },
};

describe('protobuf - every kind round-trips JSON → protobuf → JSON', () => {
  for (const s of served) {
    const kind = s.type.kind;
    it(`${apiVersionOf(s)} ${kind}`, () => {
      const obj = {
        apiVersion: apiVersionOf(s),
        kind,
        metadata: s.type.scope === 'Cluster' ? { ...META, namespace: undefined } : META,
        ...(FIXTURES[`${apiVersionOf(s)} ${kind}`] ?? FIXTURES[kind] ?? {}),
      };
      const json = JSON.parse(JSON.stringify(obj));
      assert.deepEqual(decodeObject(encodeObject(json)!), json);
    });
  }

  it('a list keeps its metadata and items', () => {
    const list = {
      apiVersion: 'v1',
      kind: 'ConfigMapList',
      metadata: { resourceVersion: '9', continue: 'tok', remainingItemCount: 4 },
      items: [{ metadata: { name: 'a' }, data: { k: 'v' } }, { metadata: { name: 'b' } }],
    };
    assert.deepEqual(decodeObject(encodeObject(list)!), list);
  });

  it('a Status with causes', () => {
    const st = {
      apiVersion: 'v1',
      kind: 'Status',
      metadata: {},
      status: 'Failure',
      message: 'm',
      reason: 'Invalid',
      code: 422,
      details: { name: 'x', kind: 'pods', causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers' }] },
    };
    assert.deepEqual(decodeObject(encodeObject(st)!), st);
  });
});

describe('protobuf - the envelope refuses what is not one', () => {
  const bad = (body: Buffer, message: RegExp) =>
    assert.throws(
      () => decodeObject(body),
      (e: StatusError) => e.code === 400 && message.test(e.status.message ?? ''),
    );
  it('a wrong or missing prefix, a broken message, an unknown kind, a content encoding', () => {
    const good = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } })!;
    bad(Buffer.from('{"kind":"ConfigMap"}'), /prefix/);
    bad(Buffer.from([0x6b, 0x38, 0x73]), /prefix/);
    bad(Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x01]), good.subarray(4)]), /prefix/);
    bad(Buffer.concat([PROTOBUF_PREFIX, Buffer.from([0x0a, 0x7f, 0x01])]), /not a valid envelope/);
    bad(encodeObject({ apiVersion: 'v1', kind: 'ConfigMap' })!.subarray(0, 8), /./);
    bad(Buffer.concat([PROTOBUF_PREFIX, encode('runtime.Unknown', { apiVersion: 'example.com/v1', kind: 'Widget', raw: Buffer.alloc(0) })]), /no protobuf message is known/);
    bad(Buffer.concat([PROTOBUF_PREFIX, encode('runtime.Unknown', { apiVersion: 'v1', kind: 'ConfigMap', raw: Buffer.alloc(0), contentEncoding: 'gzip' })]), /content encoding/);
  });
  it('a map of more distinct keys than an object may have members (as JSON bounds it)', () => {
    const data = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
    const ok = decodeObject(encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', data: data(MAX_OBJECT_MEMBERS) })!) as { data: object };
    assert.equal(Object.keys(ok.data).length, MAX_OBJECT_MEMBERS);
    bad(encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', data: data(MAX_OBJECT_MEMBERS + 1) })!, /data has more than 100000 entries/);
  });
});

describe("objects in Go's JSON form (normalizeObject)", () => {
  // [kind, apiVersion, as written, as upstream returns it]
  const rows: [string, string, Record<string, unknown>, Record<string, unknown>][] = [
    [
      'Service',
      'v1',
      { metadata: { name: 's', annotations: {}, labels: { a: 'b' }, generateName: '' }, spec: { ports: [{ port: 80, name: '' }], selector: {} } },
      { metadata: { name: 's', labels: { a: 'b' } }, spec: { ports: [{ port: 80 }] }, status: { loadBalancer: {} } },
    ],
    [
      'Deployment',
      'apps/v1',
      {
        metadata: { name: 'd', finalizers: [] },
        spec: { replicas: 0, paused: false, selector: { matchLabels: { a: 'b' } }, template: { spec: { containers: [{ name: 'c', image: 'i', env: [] }] } } },
      },
      {
        metadata: { name: 'd' },
        spec: { replicas: 0, selector: { matchLabels: { a: 'b' } }, strategy: {}, template: { metadata: {}, spec: { containers: [{ name: 'c', image: 'i', resources: {} }] } } },
        status: {},
      },
    ],
    ['ConfigMap', 'v1', { metadata: { name: 'c', labels: null }, data: {}, binaryData: {} }, { metadata: { name: 'c' } }],
    [
      'ClusterRole',
      'rbac.authorization.platform.io/v1',
      { metadata: { name: 'r' }, rules: [{ verbs: [], apiGroups: [''], resources: [] }] },
      // `verbs` has no omitempty in Go: an empty list stays.
      { metadata: { name: 'r' }, rules: [{ verbs: [], apiGroups: [''] }] },
    ],
    [
      'PodDisruptionBudget',
      'policy/v1',
      { metadata: { name: 'p' }, spec: { minAvailable: 1 } },
      // Scalars without omitempty are written as their zeros.
      { metadata: { name: 'p' }, spec: { minAvailable: 1 }, status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 } },
    ],
  ];
  for (const [kind, apiVersion, input, expected] of rows) {
    it(`${kind}: empty omitempty fields go, empty structs appear, pointers and unknown fields stay`, () => {
      const obj: Record<string, unknown> = { apiVersion, kind, ...structuredClone(input) };
      normalizeObject(apiVersion, kind, obj);
      assert.deepEqual(obj, { apiVersion, kind, ...expected });
    });
  }

  it('without fill only what Go would drop goes: nothing is made up before validation', () => {
    const svc: Record<string, unknown> = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', annotations: {} }, spec: { ports: [{}] } };
    normalizeObject('v1', 'Service', svc, false);
    assert.deepEqual(svc, { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{}] } });
  });

  it('a kind without a message is left as it is; special types (times, quantities) are not filled in', () => {
    const odd = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { annotations: {} } };
    normalizeObject('example.com/v1', 'Widget', odd);
    assert.deepEqual(odd.metadata, { annotations: {} });
    const pod: Record<string, unknown> = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', resources: { limits: { cpu: '1' } } }] } };
    normalizeObject('v1', 'Pod', pod);
    assert.deepEqual(pod.spec, { containers: [{ name: 'c', resources: { limits: { cpu: '1' } } }] });
    assert.deepEqual(pod.status, {});
    assert.equal((pod.metadata as Record<string, unknown>).creationTimestamp, undefined);
  });
});
