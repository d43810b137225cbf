import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../../shared/api/status.js';
import type { ApiObject, ObjectRef, UserInfo } from '../../../shared/api/types.js';
import type { AdmissionRequest } from '../../../shared/bus/messages.js';
import { admissionInterest, pluginMatches } from '../chain.js';
import { createNodeRestriction, forbiddenNodeLabels, modifiedLabels, NODE_RESTRICTION_MATCH } from '../plugins/nodes/node-restriction.js';

const node = (name: string): UserInfo => ({ username: `system:node:${name}`, groups: ['system:nodes', 'system:authenticated'] });
const N1 = node('n1');
const JANE: UserInfo = { username: 'jane', groups: ['system:authenticated'] };
const N1_UID = 'uid-node-n1';
const MIRROR = { 'platform.io/config.mirror': 'hash' };
const nodeOwner = { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: N1_UID, controller: true };

const podObj = (name: string, nodeName: string | undefined, extra: { spec?: Record<string, unknown>; meta?: Record<string, unknown>; status?: Record<string, unknown> } = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, ...extra.meta },
  spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'img' }], ...extra.spec },
  ...(extra.status ? { status: extra.status } : {}),
});
const mirror = (spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => podObj('static-web', 'n1', { spec, meta: { annotations: MIRROR, ownerReferences: [nodeOwner], ...meta } });
const nodeObj = (name: string, labels?: Record<string, string>, spec?: Record<string, unknown>): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, uid: `uid-node-${name}`, ...(labels ? { labels } : {}) },
  ...(spec ? { spec } : {}),
});

// The stored objects the plugin may read live.
const STORE: Record<string, ApiObject> = {
  'nodes//n1': nodeObj('n1'),
  'pods/default/on-n1': podObj('on-n1', 'n1'),
  'pods/default/on-n2': podObj('on-n2', 'n2'),
};

type Operation = AdmissionRequest['operation'];
const GROUPS: Record<string, string> = { leases: 'coordination.platform.io', csinodes: 'storage.platform.io' };

function req(user: UserInfo, operation: Operation, resource: string, o: { sub?: string; name?: string; ns?: string; object?: ApiObject | null; old?: ApiObject | null } = {}): AdmissionRequest {
  const group = GROUPS[resource] ?? '';
  const object = o.object ?? null;
  const r: AdmissionRequest = {
    uid: 'u',
    phase: 'mutating',
    kind: { group, version: 'v1', kind: 'Any' },
    resource: { group, version: 'v1', resource },
    name: o.name ?? object?.metadata.name ?? '',
    operation,
    userInfo: user,
    object,
    oldObject: o.old ?? null,
    dryRun: false,
  };
  if (o.sub) r.subResource = o.sub;
  const ns = o.ns ?? (['nodes', 'csinodes'].includes(resource) ? undefined : 'default');
  if (ns) r.namespace = ns;
  return r;
}

type Outcome = 'allowed' | { code: number; message: string };

function setup() {
  const reads: string[] = [];
  const plugin = createNodeRestriction(async (ref: ObjectRef) => {
    const key = `${ref.resource}/${ref.namespace ?? ''}/${ref.name}`;
    reads.push(key);
    return STORE[key] ? structuredClone(STORE[key]) : null;
  });
  const run = async (r: AdmissionRequest): Promise<Outcome> => {
    try {
      await plugin.mutate!(r, { log: undefined as never, warn: () => {}, annotate: () => {} });
      return 'allowed';
    } catch (err) {
      assert.ok(err instanceof StatusError, String(err));
      return { code: err.code, message: err.message };
    }
  };
  return { plugin, run, reads };
}

const forbid = (message: string): Outcome => ({ code: 403, message });
const podCreate = (object: ApiObject, user = N1) => req(user, 'CREATE', 'pods', { object });

test('node restriction - mirror pods a node may create', async () => {
  const p = 'pods "static-web" is forbidden: ';
  const cases: Array<[string, AdmissionRequest, Outcome]> = [
    ['a mirror pod bound to itself, owned by its Node', podCreate(mirror()), 'allowed'],
    ['a mirror pod with only a generateName', podCreate({ ...mirror(), metadata: { ...mirror().metadata, name: undefined, generateName: 'static-' } }), 'allowed'],
    [
      'an ordinary pod',
      podCreate(podObj('static-web', 'n1', { meta: { ownerReferences: [nodeOwner] } })),
      forbid(`${p}pod does not have "platform.io/config.mirror" annotation, node "n1" can only create mirror pods`),
    ],
    ['a mirror pod bound to another node', podCreate(mirror({ nodeName: 'n2' })), forbid(`${p}node "n1" can only create pods with spec.nodeName set to itself`)],
    ['a mirror pod bound to no node', podCreate(mirror({ nodeName: undefined })), forbid(`${p}node "n1" can only create pods with spec.nodeName set to itself`)],
    ['no owner reference', podCreate(mirror({}, { ownerReferences: [] })), forbid(`${p}node "n1" can only create pods with an owner reference set to itself`)],
    [
      'two owner references',
      podCreate(mirror({}, { ownerReferences: [nodeOwner, { ...nodeOwner, controller: false }] })),
      forbid(`${p}node "n1" can only create pods with a single owner reference set to itself`),
    ],
    ['a malformed owner reference is refused, not a failure', podCreate(mirror({}, { ownerReferences: [null] })), forbid(`${p}node "n1" can only create pods with an owner reference set to itself`)],
    [
      'owned by a ReplicaSet',
      podCreate(mirror({}, { ownerReferences: [{ ...nodeOwner, apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs' }] })),
      forbid(`${p}node "n1" can only create pods with an owner reference set to itself`),
    ],
    ['owned by another Node', podCreate(mirror({}, { ownerReferences: [{ ...nodeOwner, name: 'n2' }] })), forbid(`${p}node "n1" can only create pods with an owner reference set to itself`)],
    [
      'owner is not the controller',
      podCreate(mirror({}, { ownerReferences: [{ ...nodeOwner, controller: false }] })),
      forbid(`${p}node "n1" can only create pods with a controller owner reference set to itself`),
    ],
    ['owner blocks deletion', podCreate(mirror({}, { ownerReferences: [{ ...nodeOwner, blockOwnerDeletion: true }] })), forbid(`${p}node "n1" must not set blockOwnerDeletion on an owner reference`)],
    ['owner uid of an earlier Node n1', podCreate(mirror({}, { ownerReferences: [{ ...nodeOwner, uid: 'old' }] })), forbid(`${p}node "n1" UID mismatch: expected ${N1_UID} got old`)],
    [
      'its Node object does not exist',
      podCreate({ ...mirror({ nodeName: 'n3' }), metadata: { ...mirror().metadata, ownerReferences: [{ ...nodeOwner, name: 'n3' }] } }, node('n3')),
      { code: 404, message: 'nodes "n3" not found' },
    ],
    ['a service account', podCreate(mirror({ serviceAccountName: 'builder' })), forbid(`${p}node "n1" can not create pods that reference a service account`)],
    ['a service account (deprecated field)', podCreate(mirror({ serviceAccount: 'builder' })), forbid(`${p}node "n1" can not create pods that reference a service account`)],
    ['a secret volume', podCreate(mirror({ volumes: [{ name: 'v', secret: { secretName: 's' } }] })), forbid(`${p}node "n1" can not create pods that reference secrets`)],
    [
      'a secret in env',
      podCreate(mirror({ containers: [{ name: 'c', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }] })),
      forbid(`${p}node "n1" can not create pods that reference secrets`),
    ],
    ['an image pull secret', podCreate(mirror({ imagePullSecrets: [{ name: 'pull' }] })), forbid(`${p}node "n1" can not create pods that reference secrets`)],
    [
      'a config map in envFrom of an init container',
      podCreate(mirror({ initContainers: [{ name: 'i', envFrom: [{ configMapRef: { name: 'cm' } }] }] })),
      forbid(`${p}node "n1" can not create pods that reference configmaps`),
    ],
    [
      'a projected config map',
      podCreate(mirror({ volumes: [{ name: 'v', projected: { sources: [{ configMap: { name: 'cm' } }] } }] })),
      forbid(`${p}node "n1" can not create pods that reference configmaps`),
    ],
    [
      'a cluster trust bundle',
      podCreate(mirror({ volumes: [{ name: 'v', projected: { sources: [{ clusterTrustBundle: { name: 'b', path: 'ca.pem' } }] } }] })),
      forbid(`${p}node "n1" can not create pods that reference clustertrustbundles`),
    ],
    [
      'a persistent volume claim',
      podCreate(mirror({ volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'data' } }] })),
      forbid(`${p}node "n1" can not create pods that reference persistentvolumeclaims`),
    ],
    [
      'a generic ephemeral volume (a claim named after the pod)',
      podCreate(mirror({ volumes: [{ name: 'v', ephemeral: { volumeClaimTemplate: { spec: {} } } }] })),
      forbid(`${p}node "n1" can not create pods that reference persistentvolumeclaims`),
    ],
    [
      'host path and empty dir volumes reference nothing',
      podCreate(
        mirror({
          volumes: [
            { name: 'h', hostPath: { path: '/etc' } },
            { name: 'e', emptyDir: {} },
          ],
        }),
      ),
      'allowed',
    ],
    ['anyone else creates any pod', podCreate(podObj('static-web', 'n2', { spec: { serviceAccountName: 'x' } }), JANE), 'allowed'],
  ];
  for (const [name, r, want] of cases) {
    const { run } = setup();
    assert.deepEqual(await run(r), want, name);
  }
});

test('node restriction - pod updates, status, deletion and eviction', async () => {
  const own = STORE['pods/default/on-n1']!;
  const other = STORE['pods/default/on-n2']!;
  const withStatus = (p: ApiObject, status: Record<string, unknown>, labels?: Record<string, string>): ApiObject => ({ ...p, metadata: { ...p.metadata, ...(labels ? { labels } : {}) }, status });
  const claimStatus = (claim: string) => ({ resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: claim }] });
  const eviction = (pod: string) => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace: 'default' } });
  const cases: Array<[string, AdmissionRequest, Outcome]> = [
    [
      'update of its own pod',
      req(N1, 'UPDATE', 'pods', { object: own, old: own }),
      forbid('pods "on-n1" is forbidden: unexpected operation "UPDATE", node "n1" can only create and delete mirror pods'),
    ],
    ['status of its own pod', req(N1, 'UPDATE', 'pods', { sub: 'status', object: withStatus(own, { phase: 'Running' }), old: own }), 'allowed'],
    [
      'status of a pod on another node',
      req(N1, 'UPDATE', 'pods', { sub: 'status', object: withStatus(other, { phase: 'Running' }), old: other }),
      forbid('pods "on-n2" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself'),
    ],
    [
      'status of a pod moved to n1 in the update',
      req(N1, 'UPDATE', 'pods', { sub: 'status', object: podObj('on-n2', 'n1'), old: other }),
      forbid('pods "on-n2" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself'),
    ],
    [
      'labels through status',
      req(N1, 'UPDATE', 'pods', { sub: 'status', object: withStatus(own, { phase: 'Running' }, { app: 'x' }), old: own }),
      forbid('pods "on-n1" is forbidden: node "n1" cannot update labels through pod status'),
    ],
    [
      'resource claim statuses through status',
      req(N1, 'UPDATE', 'pods', { sub: 'status', object: withStatus(own, claimStatus('other')), old: withStatus(own, claimStatus('mine')) }),
      forbid('pods "on-n1" is forbidden: node "n1" cannot update resource claim statuses'),
    ],
    [
      'unchanged resource claim statuses',
      req(N1, 'UPDATE', 'pods', { sub: 'status', object: withStatus(own, { ...claimStatus('mine'), phase: 'Running' }), old: withStatus(own, claimStatus('mine')) }),
      'allowed',
    ],
    ['delete its own pod', req(N1, 'DELETE', 'pods', { name: 'on-n1', old: own }), 'allowed'],
    ['delete a pod on another node', req(N1, 'DELETE', 'pods', { name: 'on-n2', old: other }), forbid('pods "on-n2" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself')],
    [
      'delete without the stored pod in the request reads it',
      req(N1, 'DELETE', 'pods', { name: 'on-n2' }),
      forbid('pods "on-n2" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself'),
    ],
    ['delete of a pod that does not exist', req(N1, 'DELETE', 'pods', { name: 'gone' }), { code: 404, message: 'pods "gone" not found' }],
    ['evict its own pod', req(N1, 'CREATE', 'pods', { sub: 'eviction', name: 'on-n1', object: eviction('on-n1') }), 'allowed'],
    [
      'evict a pod on another node',
      req(N1, 'CREATE', 'pods', { sub: 'eviction', name: 'on-n2', object: eviction('on-n2') }),
      forbid('pods "on-n2" is forbidden: node "n1" can only evict pods with spec.nodeName set to itself'),
    ],
    [
      'the URL names the evicted pod, not the body',
      req(N1, 'CREATE', 'pods', { sub: 'eviction', name: 'on-n2', object: eviction('on-n1') }),
      forbid('pods "on-n2" is forbidden: node "n1" can only evict pods with spec.nodeName set to itself'),
    ],
    ['evict a pod that does not exist', req(N1, 'CREATE', 'pods', { sub: 'eviction', name: 'gone', object: eviction('gone') }), { code: 404, message: 'pods "gone" not found' }],
    [
      'bind a pod',
      req(N1, 'CREATE', 'pods', { sub: 'binding', name: 'on-n2', object: { metadata: { name: 'on-n2' } } }),
      forbid('pods "on-n2" is forbidden: unexpected pod subresource "binding", only \'status\' and \'eviction\' are allowed'),
    ],
    ['anyone else updates and deletes pods on n1', req(JANE, 'UPDATE', 'pods', { object: { ...own, spec: { nodeName: 'n9' } }, old: own }), 'allowed'],
  ];
  for (const [name, r, want] of cases) {
    const { run } = setup();
    assert.deepEqual(await run(r), want, name);
  }
});

test('node restriction - its own Node object: names, taints, deletion', async () => {
  const own = nodeObj('n1', { 'platform.io/hostname': 'n1' }, { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] });
  const untaint = { ...own, spec: { taints: [] } };
  const cases: Array<[string, AdmissionRequest, Outcome]> = [
    ['create its own node, with taints', req(N1, 'CREATE', 'nodes', { object: own }), 'allowed'],
    ['create another node', req(N1, 'CREATE', 'nodes', { object: nodeObj('n2') }), forbid('nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"')],
    [
      'create with a config source',
      req(N1, 'CREATE', 'nodes', { object: nodeObj('n1', undefined, { configSource: { configMap: { name: 'c' } } }) }),
      forbid('nodes "n1" is forbidden: node "n1" is not allowed to create its node object with a non-nil configSource'),
    ],
    ['update its own node', req(N1, 'UPDATE', 'nodes', { object: { ...own, spec: { ...(own.spec as object), podCIDR: '10.0.0.0/24' } }, old: own }), 'allowed'],
    ['update its own status', req(N1, 'UPDATE', 'nodes', { sub: 'status', object: { ...own, status: { phase: 'Running' } }, old: own }), 'allowed'],
    ['update another node', req(N1, 'UPDATE', 'nodes', { object: nodeObj('n2'), old: nodeObj('n2') }), forbid('nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"')],
    [
      'status of another node',
      req(N1, 'UPDATE', 'nodes', { sub: 'status', object: nodeObj('n2'), old: nodeObj('n2') }),
      forbid('nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"'),
    ],
    ['remove its taints', req(N1, 'UPDATE', 'nodes', { object: untaint, old: own }), forbid('nodes "n1" is forbidden: node "n1" is not allowed to modify taints')],
    [
      'add a taint',
      req(N1, 'UPDATE', 'nodes', { object: { ...own, spec: { taints: [...(own.spec as { taints: unknown[] }).taints, { key: 'x', effect: 'NoExecute' }] } }, old: own }),
      forbid('nodes "n1" is forbidden: node "n1" is not allowed to modify taints'),
    ],
    ['taints through the status subresource', req(N1, 'UPDATE', 'nodes', { sub: 'status', object: untaint, old: own }), forbid('nodes "n1" is forbidden: node "n1" is not allowed to modify taints')],
    ['an empty taint list is no taints', req(N1, 'UPDATE', 'nodes', { object: nodeObj('n1', undefined, { taints: [] }), old: nodeObj('n1') }), 'allowed'],
    [
      'a new config source',
      req(N1, 'UPDATE', 'nodes', { object: { ...own, spec: { ...(own.spec as object), configSource: { configMap: { name: 'c' } } } }, old: own }),
      forbid('nodes "n1" is forbidden: node "n1" is not allowed to update configSource to a new non-nil configSource'),
    ],
    ['dropping a config source', req(N1, 'UPDATE', 'nodes', { object: own, old: { ...own, spec: { ...(own.spec as object), configSource: { configMap: { name: 'c' } } } } }), 'allowed'],
    ['delete its own node', req(N1, 'DELETE', 'nodes', { name: 'n1', old: own }), forbid('nodes "n1" is forbidden: node "n1" is not allowed to delete its node object')],
    ['delete another node', req(N1, 'DELETE', 'nodes', { name: 'n2', old: nodeObj('n2') }), forbid('nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"')],
    ['anyone else untaints and deletes nodes', req(JANE, 'UPDATE', 'nodes', { object: untaint, old: own }), 'allowed'],
    ['anyone else deletes a node', req(JANE, 'DELETE', 'nodes', { name: 'n1', old: own }), 'allowed'],
    ['system:node:n1 outside group system:nodes is not a node', req({ username: 'system:node:n1', groups: ['developers'] }, 'DELETE', 'nodes', { name: 'n2', old: nodeObj('n2') }), 'allowed'],
    ['a node user without a name', req(node(''), 'UPDATE', 'nodes', { object: own, old: own }), forbid('nodes "n1" is forbidden: could not determine node from user "system:node:"')],
  ];
  for (const [name, r, want] of cases) {
    const { run } = setup();
    assert.deepEqual(await run(r), want, name);
  }
});

test('node restriction - labels a node may give itself', async () => {
  const allowed = [
    'platform.io/hostname',
    'platform.io/arch',
    'platform.io/os',
    'beta.platform.io/arch',
    'beta.platform.io/os',
    'beta.platform.io/instance-type',
    'node.platform.io/instance-type',
    'failure-domain.beta.platform.io/region',
    'failure-domain.beta.platform.io/zone',
    'topology.platform.io/region',
    'topology.platform.io/zone',
    'agent.platform.io/anything',
    'node.platform.io/pool',
    'team.node.platform.io/x',
    'example.com/role',
    'notplatform.io/x',
    'plain',
  ];
  const forbidden = [
    'node-restriction.platform.io/dedicated',
    'team.node-restriction.platform.io/x',
    'platform.io/role',
    'node-role.platform.io/control-plane',
    'beta.platform.io/fluentd-ds-ready',
    'topology.platform.io/rack',
    'platform.io/hostname-alias',
  ];
  const create = (labels: Record<string, string>) => req(N1, 'CREATE', 'nodes', { object: nodeObj('n1', labels) });
  const update = (labels: Record<string, string> | undefined, old: Record<string, string> | undefined) => req(N1, 'UPDATE', 'nodes', { object: nodeObj('n1', labels), old: nodeObj('n1', old) });
  const { run } = setup();
  for (const key of allowed) {
    assert.equal(await run(create({ [key]: 'v' })), 'allowed', `create with ${key}`);
    assert.equal(await run(update({ [key]: 'v2' }, { [key]: 'v' })), 'allowed', `change ${key}`);
    assert.equal(await run(update(undefined, { [key]: 'v' })), 'allowed', `remove ${key}`);
  }
  for (const key of forbidden) {
    assert.deepEqual(
      await run(create({ [key]: 'v', 'platform.io/os': 'linux' })),
      forbid(`nodes "n1" is forbidden: node "n1" is not allowed to set the following labels: ${key}`),
      `create with ${key}`,
    );
    assert.deepEqual(await run(update({ [key]: 'v' }, {})), forbid(`nodes "n1" is forbidden: node "n1" is not allowed to modify labels: ${key}`), `add ${key}`);
    assert.deepEqual(await run(update({ [key]: 'v2' }, { [key]: 'v' })), forbid(`nodes "n1" is forbidden: node "n1" is not allowed to modify labels: ${key}`), `change ${key}`);
    assert.deepEqual(await run(update({}, { [key]: 'v' })), forbid(`nodes "n1" is forbidden: node "n1" is not allowed to modify labels: ${key}`), `remove ${key}`);
    // An administrator set it: an agent's update that carries it along unchanged is fine.
    assert.equal(await run(update({ [key]: 'v', 'node.platform.io/pool': 'a' }, { [key]: 'v' })), 'allowed', `keep ${key}`);
  }
  assert.deepEqual(
    await run(create({ 'platform.io/role': 'x', 'node-restriction.platform.io/a': 'y', 'platform.io/os': 'linux' })),
    forbid('nodes "n1" is forbidden: node "n1" is not allowed to set the following labels: node-restriction.platform.io/a, platform.io/role'),
    'every offending label is named, sorted',
  );
  const { run: asJane } = setup();
  assert.equal(await asJane(req(JANE, 'UPDATE', 'nodes', { object: nodeObj('n1', { 'node-restriction.platform.io/x': 'y' }), old: nodeObj('n1') })), 'allowed', 'administrators set restricted labels');
});

test('node restriction - label diff and classification', () => {
  const diffs: Array<[Record<string, string> | undefined, Record<string, string> | undefined, string[]]> = [
    [undefined, undefined, []],
    [{ a: '1' }, undefined, ['a']],
    [undefined, { a: '1' }, ['a']],
    [{ a: '1', b: '2' }, { a: '1', b: '3', c: '4' }, ['b', 'c']],
    [{ a: '' }, {}, ['a']],
  ];
  for (const [next, old, want] of diffs) assert.deepEqual(modifiedLabels(next, old), want, JSON.stringify([next, old]));
  assert.deepEqual(forbiddenNodeLabels(['platform.io/os', 'platform.io/x', 'other.io/y', 'node-restriction.platform.io/z']), ['platform.io/x', 'node-restriction.platform.io/z']);
});

test('node restriction - persistent volume claims: status capacity and conditions only', async () => {
  const pvc: ApiObject = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'data', namespace: 'default', resourceVersion: '5' },
    spec: { resources: { requests: { storage: '1Gi' } } },
    status: { phase: 'Bound', capacity: { storage: '1Gi' } },
  };
  const grown = {
    ...pvc,
    metadata: { ...pvc.metadata, resourceVersion: '' },
    status: { phase: 'Bound', capacity: { storage: '2Gi' }, conditions: [{ type: 'FileSystemResizePending', status: 'True' }] },
  };
  const cases: Array<[string, AdmissionRequest, Outcome]> = [
    ['capacity and conditions through status', req(N1, 'UPDATE', 'persistentvolumeclaims', { sub: 'status', object: grown, old: pvc }), 'allowed'],
    [
      'the phase through status',
      req(N1, 'UPDATE', 'persistentvolumeclaims', { sub: 'status', object: { ...pvc, status: { phase: 'Lost' } }, old: pvc }),
      forbid('persistentvolumeclaims "data" is forbidden: node "n1" is not allowed to update fields other than status.capacity and status.conditions'),
    ],
    [
      'labels through status',
      req(N1, 'UPDATE', 'persistentvolumeclaims', { sub: 'status', object: { ...grown, metadata: { ...grown.metadata, labels: { a: 'b' } } }, old: pvc }),
      forbid('persistentvolumeclaims "data" is forbidden: node "n1" is not allowed to update fields other than status.capacity and status.conditions'),
    ],
    ['the claim itself', req(N1, 'UPDATE', 'persistentvolumeclaims', { object: grown, old: pvc }), forbid('persistentvolumeclaims "data" is forbidden: may only update PVC status')],
    ['deleting a claim', req(N1, 'DELETE', 'persistentvolumeclaims', { name: 'data', old: pvc }), forbid('persistentvolumeclaims "data" is forbidden: may only update PVC status')],
    ['anyone else changes the claim', req(JANE, 'UPDATE', 'persistentvolumeclaims', { object: grown, old: pvc }), 'allowed'],
  ];
  for (const [name, r, want] of cases) {
    const { run } = setup();
    assert.deepEqual(await run(r), want, name);
  }
});

test('node restriction - service account tokens must be bound to a pod on the node', async () => {
  const tokenRequest = (boundObjectRef?: Record<string, unknown>): ApiObject => ({
    apiVersion: 'authentication.platform.io/v1',
    kind: 'TokenRequest',
    metadata: {},
    spec: { audiences: [], ...(boundObjectRef ? { boundObjectRef } : {}) },
  });
  const tokenFor = (user: UserInfo, bound?: Record<string, unknown>) => req(user, 'CREATE', 'serviceaccounts', { sub: 'token', name: 'builder', object: tokenRequest(bound) });
  const pod = (name: string, uid = `uid-${name}`) => ({ apiVersion: 'v1', kind: 'Pod', name, uid });
  const p = 'serviceaccounts "builder" is forbidden: ';
  const cases: Array<[string, AdmissionRequest, Outcome]> = [
    ['bound to a pod on the node', tokenFor(N1, pod('on-n1')), 'allowed'],
    ['not bound', tokenFor(N1), forbid(`${p}node requested token not bound to a pod`)],
    ['bound to a secret', tokenFor(N1, { apiVersion: 'v1', kind: 'Secret', name: 's', uid: 'x' }), forbid(`${p}node requested token not bound to a pod`)],
    ['bound to a pod without apiVersion', tokenFor(N1, { kind: 'Pod', name: 'on-n1', uid: 'uid-on-n1' }), forbid(`${p}node requested token not bound to a pod`)],
    ['bound to a pod without uid', tokenFor(N1, { ...pod('on-n1'), uid: '' }), forbid(`${p}node requested token with a pod binding without a uid`)],
    [
      'bound to a recreated pod',
      tokenFor(N1, pod('on-n1', 'stale')),
      forbid(`${p}the UID in the bound object reference (stale) does not match the UID in record. The object might have been deleted and then recreated`),
    ],
    ['bound to a pod on another node', tokenFor(N1, pod('on-n2')), forbid(`${p}node requested token bound to a pod scheduled on a different node`)],
    ['bound to a pod that does not exist', tokenFor(N1, pod('gone')), { code: 404, message: 'pods "gone" not found' }],
    ['anyone else asks for an unbound token', tokenFor(JANE), 'allowed'],
    ['creating or updating the service account itself', req(N1, 'CREATE', 'serviceaccounts', { object: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder' } } }), 'allowed'],
  ];
  for (const [name, r, want] of cases) {
    const { run } = setup();
    assert.deepEqual(await run(r), want, name);
  }
});

test('node restriction - leases and CSINodes named after the node', async () => {
  const lease = (name: string, ns = 'platform-node-lease') => ({ apiVersion: 'coordination.platform.io/v1', kind: 'Lease', metadata: { name, namespace: ns } });
  const csiNode = (name: string) => ({ apiVersion: 'storage.platform.io/v1', kind: 'CSINode', metadata: { name } });
  const cases: Array<[string, AdmissionRequest, Outcome]> = [
    ['create its own lease', req(N1, 'CREATE', 'leases', { ns: 'platform-node-lease', object: lease('n1') }), 'allowed'],
    ['renew its own lease', req(N1, 'UPDATE', 'leases', { ns: 'platform-node-lease', object: lease('n1'), old: lease('n1') }), 'allowed'],
    [
      "create another node's lease",
      req(N1, 'CREATE', 'leases', { ns: 'platform-node-lease', object: lease('n2') }),
      forbid('leases.coordination.platform.io "n2" is forbidden: can only access node lease with the same name as the requesting node'),
    ],
    [
      "delete another node's lease",
      req(N1, 'DELETE', 'leases', { ns: 'platform-node-lease', name: 'n2', old: lease('n2') }),
      forbid('leases.coordination.platform.io "n2" is forbidden: can only access node lease with the same name as the requesting node'),
    ],
    [
      'a lease elsewhere',
      req(N1, 'CREATE', 'leases', { ns: 'default', object: lease('n1', 'default') }),
      forbid('leases.coordination.platform.io "n1" is forbidden: can only access leases in the "platform-node-lease" system namespace'),
    ],
    ['anyone else takes any lease', req(JANE, 'UPDATE', 'leases', { ns: 'platform-node-lease', object: lease('n2'), old: lease('n2') }), 'allowed'],
    ['create its own CSINode', req(N1, 'CREATE', 'csinodes', { object: csiNode('n1') }), 'allowed'],
    [
      'update another CSINode',
      req(N1, 'UPDATE', 'csinodes', { object: csiNode('n2'), old: csiNode('n2') }),
      forbid('csinodes.storage.platform.io "n2" is forbidden: can only access CSINode with the same name as the requesting node'),
    ],
    ['other resources are not restricted', req(N1, 'CREATE', 'configmaps', { object: { metadata: { name: 'cm' } } }), 'allowed'],
  ];
  for (const [name, r, want] of cases) {
    const { run } = setup();
    assert.deepEqual(await run(r), want, name);
  }
});

test('node restriction - runs in the mutating phase only, for the writes it judges, without reads for anyone else', async () => {
  const { plugin, run, reads } = setup();
  assert.equal(plugin.validate, undefined);
  assert.equal(plugin.mutatesObject, false);
  assert.deepEqual(admissionInterest([plugin]), { mutating: [NODE_RESTRICTION_MATCH], validating: [] });
  const wants = (operation: Operation, resource: string) => pluginMatches(plugin.match, req(N1, operation, resource));
  assert.equal(wants('UPDATE', 'pods'), true);
  assert.equal(wants('DELETE', 'nodes'), true);
  assert.equal(wants('CREATE', 'serviceaccounts'), true);
  assert.equal(wants('UPDATE', 'leases'), true);
  assert.equal(wants('CREATE', 'configmaps'), false, 'configmaps are not judged');
  assert.equal(wants('CONNECT', 'pods'), false, 'exec and port-forward are not judged');
  // Non-node writes that would need a read for a node cost nothing.
  await run(req(JANE, 'CREATE', 'pods', { sub: 'eviction', name: 'on-n2', object: { metadata: { name: 'on-n2' } } }));
  await run(req(JANE, 'CREATE', 'serviceaccounts', { sub: 'token', name: 'builder', object: { metadata: {}, spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'on-n2', uid: 'x' } } } }));
  assert.deepEqual(reads, []);
});
