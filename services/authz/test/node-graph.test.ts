import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import type { AuthzAttributes } from '../../../shared/bus/messages.js';
import { NodeGraph } from '../node/graph.js';
import { podReferences, pvSecrets } from '../../../shared/api/node-references.js';
import { createNodeAuthorizer } from '../authorizers/node.js';
import type { AuthorizerDecision } from '../types.js';

const nodeUser = (name: string) => ({ username: `system:node:${name}`, groups: ['system:nodes', 'system:authenticated'] });

function pod(namespace: string, name: string, spec: Record<string, unknown>): ApiObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { namespace, name }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec } };
}
const pv = (name: string, spec: Record<string, unknown>): ApiObject => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name }, spec });
const pvc = (namespace: string, name: string, volumeName?: string): ApiObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { namespace, name },
  spec: volumeName ? { volumeName } : {},
});

function graphWith() {
  const g = new NodeGraph();
  const authz = createNodeAuthorizer(g);
  const put = (resource: string, o: ApiObject, group = '') =>
    g.apply({ ref: { group, resource, name: o.metadata.name!, ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}) }, object: o });
  const del = (resource: string, namespace: string | undefined, name: string, group = '') => g.apply({ ref: { group, resource, name, ...(namespace ? { namespace } : {}) }, object: null });
  const ask = (node: string, verb: string, resource: string, extra: Partial<AuthzAttributes> = {}): AuthorizerDecision =>
    authz.authorize({ user: nodeUser(node), verb, isResourceRequest: true, path: '/x', apiGroup: '', resource, ...extra }) as AuthorizerDecision;
  const decision = (node: string, verb: string, resource: string, extra: Partial<AuthzAttributes> = {}) => ask(node, verb, resource, extra).decision;
  return { g, authz, put, del, ask, decision };
}

const getSecret = (namespace: string, name: string) => ({ namespace, name });

test('node graph - a pod on node A referencing a secret lets A get it, not B', () => {
  const { put, decision, ask } = graphWith();
  put('pods', pod('shop', 'web', { nodeName: 'a', volumes: [{ name: 'v', secret: { secretName: 's' } }] }));
  assert.equal(decision('a', 'get', 'secrets', getSecret('shop', 's')), 'Allow');
  assert.deepEqual(ask('b', 'get', 'secrets', getSecret('shop', 's')), { decision: 'NoOpinion', reason: "no relationship found between node 'b' and this object" });
  // Same name, other namespace: unrelated.
  assert.equal(decision('a', 'get', 'secrets', getSecret('other', 's')), 'NoOpinion');
  // Other secret in the same namespace: unrelated.
  assert.equal(decision('a', 'get', 'secrets', getSecret('shop', 't')), 'NoOpinion');
});

test('node graph - moving or deleting the pod takes the access away', () => {
  const { put, del, decision } = graphWith();
  put('pods', pod('shop', 'web', { nodeName: 'a', imagePullSecrets: [{ name: 'pull' }] }));
  assert.equal(decision('a', 'get', 'secrets', getSecret('shop', 'pull')), 'Allow');
  put('pods', pod('shop', 'web', { nodeName: 'b', imagePullSecrets: [{ name: 'pull' }] }));
  assert.equal(decision('a', 'get', 'secrets', getSecret('shop', 'pull')), 'NoOpinion');
  assert.equal(decision('b', 'get', 'secrets', getSecret('shop', 'pull')), 'Allow');
  // An update that drops the reference drops the edge.
  put('pods', pod('shop', 'web', { nodeName: 'b' }));
  assert.equal(decision('b', 'get', 'secrets', getSecret('shop', 'pull')), 'NoOpinion');
  put('pods', pod('shop', 'web', { nodeName: 'b', imagePullSecrets: [{ name: 'pull' }] }));
  del('pods', 'shop', 'web');
  assert.equal(decision('b', 'get', 'secrets', getSecret('shop', 'pull')), 'NoOpinion');
});

test('node graph - a secret used by two pods stays reachable until both are gone', () => {
  const { put, del, decision } = graphWith();
  const spec = { nodeName: 'a', containers: [{ name: 'c', envFrom: [{ secretRef: { name: 'env' } }] }] };
  put('pods', pod('shop', 'one', spec));
  put('pods', pod('shop', 'two', spec));
  del('pods', 'shop', 'one');
  assert.equal(decision('a', 'get', 'secrets', getSecret('shop', 'env')), 'Allow');
  del('pods', 'shop', 'two');
  assert.equal(decision('a', 'get', 'secrets', getSecret('shop', 'env')), 'NoOpinion');
});

test('node graph - unscheduled pods grant nothing', () => {
  const { put, decision } = graphWith();
  put('pods', pod('shop', 'web', { volumes: [{ name: 'v', secret: { secretName: 's' } }] }));
  assert.equal(decision('a', 'get', 'secrets', getSecret('shop', 's')), 'NoOpinion');
});

test('node graph - every way a pod can reference secrets and config maps counts', () => {
  const spec = {
    nodeName: 'a',
    imagePullSecrets: [{ name: 'pull' }],
    initContainers: [{ name: 'i', env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'init-env', key: 'k' } } }] }],
    containers: [
      {
        name: 'c',
        env: [
          { name: 'A', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'k' } } },
          { name: 'B', valueFrom: { configMapKeyRef: { name: 'env-cm', key: 'k' } } },
          { name: 'C', value: 'plain' },
        ],
        envFrom: [{ secretRef: { name: 'envfrom-secret' } }, { configMapRef: { name: 'envfrom-cm' } }],
      },
    ],
    ephemeralContainers: [{ name: 'e', envFrom: [{ secretRef: { name: 'debug-secret' } }] }],
    volumes: [
      { name: 'v1', secret: { secretName: 'vol-secret' } },
      { name: 'v2', configMap: { name: 'vol-cm' } },
      { name: 'v3', projected: { sources: [{ secret: { name: 'proj-secret' } }, { configMap: { name: 'proj-cm' } }, { downwardAPI: {} }] } },
      { name: 'v4', csi: { driver: 'd', nodePublishSecretRef: { name: 'csi-secret' } } },
      { name: 'v5', rbd: { monitors: [], image: 'x', secretRef: { name: 'rbd-secret' } } },
      { name: 'v6', azureFile: { secretName: 'azure-secret', shareName: 's' } },
      { name: 'v7', persistentVolumeClaim: { claimName: 'data' } },
      { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } },
    ],
  };
  const refs = podReferences(pod('ns', 'web', spec))!;
  const sorted = (xs: string[]) => [...xs].sort();
  assert.deepEqual(
    { ...refs, secrets: sorted(refs.secrets), configMaps: sorted(refs.configMaps), persistentVolumeClaims: sorted(refs.persistentVolumeClaims) },
    {
      node: 'a',
      secrets: sorted(['pull', 'init-env', 'env-secret', 'envfrom-secret', 'debug-secret', 'vol-secret', 'proj-secret', 'csi-secret', 'rbd-secret', 'azure-secret']),
      configMaps: sorted(['env-cm', 'envfrom-cm', 'vol-cm', 'proj-cm']),
      persistentVolumeClaims: ['data', 'web-scratch'],
      serviceAccount: 'default',
    },
  );
  const { put, decision } = graphWith();
  put('pods', pod('ns', 'web', spec));
  for (const s of ['pull', 'init-env', 'envfrom-secret', 'proj-secret', 'csi-secret']) assert.equal(decision('a', 'get', 'secrets', getSecret('ns', s)), 'Allow', s);
  for (const c of ['env-cm', 'envfrom-cm', 'vol-cm', 'proj-cm']) assert.equal(decision('a', 'get', 'configmaps', getSecret('ns', c)), 'Allow', c);
  assert.equal(decision('b', 'get', 'configmaps', getSecret('ns', 'vol-cm')), 'NoOpinion');
  // The ephemeral volume's claim is `<pod>-<volume>`.
  assert.equal(decision('a', 'get', 'persistentvolumeclaims', getSecret('ns', 'web-scratch')), 'Allow');
  assert.equal(decision('a', 'get', 'persistentvolumeclaims', getSecret('ns', 'data')), 'Allow');
  assert.equal(decision('a', 'get', 'persistentvolumeclaims', getSecret('ns', 'other')), 'NoOpinion');
});

test('node graph - claim → volume → secret chain, and only node-side CSI secrets', () => {
  const { put, del, decision } = graphWith();
  put('pods', pod('db', 'pg', { nodeName: 'a', volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'pg-data' } }] }));
  put('persistentvolumeclaims', pvc('db', 'pg-data', 'pv-1'));
  put(
    'persistentvolumes',
    pv('pv-1', {
      claimRef: { namespace: 'db', name: 'pg-data' },
      csi: {
        driver: 'd',
        volumeHandle: 'h',
        nodePublishSecretRef: { namespace: 'storage', name: 'publish' },
        nodeStageSecretRef: { namespace: 'storage', name: 'stage' },
        nodeExpandSecretRef: { namespace: 'storage', name: 'expand' },
        controllerPublishSecretRef: { namespace: 'storage', name: 'controller' },
      },
    }),
  );
  assert.equal(decision('a', 'get', 'persistentvolumes', { name: 'pv-1' }), 'Allow');
  assert.equal(decision('b', 'get', 'persistentvolumes', { name: 'pv-1' }), 'NoOpinion');
  for (const s of ['publish', 'stage', 'expand']) assert.equal(decision('a', 'get', 'secrets', getSecret('storage', s)), 'Allow', s);
  assert.equal(decision('a', 'get', 'secrets', getSecret('storage', 'controller')), 'NoOpinion', 'controller-only secret');
  assert.equal(decision('b', 'get', 'secrets', getSecret('storage', 'publish')), 'NoOpinion');

  // The claim rebinding elsewhere cuts the chain.
  put('persistentvolumeclaims', pvc('db', 'pg-data'));
  assert.equal(decision('a', 'get', 'persistentvolumes', { name: 'pv-1' }), 'NoOpinion');
  assert.equal(decision('a', 'get', 'secrets', getSecret('storage', 'publish')), 'NoOpinion');
  put('persistentvolumeclaims', pvc('db', 'pg-data', 'pv-1'));
  assert.equal(decision('a', 'get', 'secrets', getSecret('storage', 'stage')), 'Allow');
  del('persistentvolumes', undefined, 'pv-1');
  assert.equal(decision('a', 'get', 'secrets', getSecret('storage', 'stage')), 'NoOpinion');
});

test('node graph - a claim cannot pull in a volume bound to another claim', () => {
  const { put, decision } = graphWith();
  put('persistentvolumes', pv('pv-bank', { claimRef: { namespace: 'bank', name: 'vault' }, csi: { driver: 'd', volumeHandle: 'h', nodeStageSecretRef: { namespace: 'bank', name: 'keys' } } }));
  // An attacker's claim naming the bank's volume, mounted by a pod on their node.
  put('persistentvolumeclaims', pvc('evil', 'grab', 'pv-bank'));
  put('pods', pod('evil', 'p', { nodeName: 'x', volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'grab' } }] }));
  assert.equal(decision('x', 'get', 'persistentvolumes', { name: 'pv-bank' }), 'NoOpinion');
  assert.equal(decision('x', 'get', 'secrets', getSecret('bank', 'keys')), 'NoOpinion');
});

test('node graph - in-tree volume secrets default to the claim namespace', () => {
  assert.deepEqual(
    pvSecrets(
      pv('p', {
        claimRef: { namespace: 'team', name: 'c' },
        rbd: { secretRef: { name: 'ceph' } },
        azureFile: { secretName: 'az', secretNamespace: 'infra' },
        csi: { nodePublishSecretRef: { name: 'no-namespace' } },
      }),
    ),
    [
      { namespace: 'infra', name: 'az' },
      { namespace: 'team', name: 'ceph' },
    ],
  );
  assert.deepEqual(pvSecrets(pv('p', { cephfs: { secretRef: { name: 'c' } } })), [{ namespace: 'default', name: 'c' }]);
});

test('node graph - service account tokens only for accounts of pods on the node', () => {
  const { put, del, decision, ask } = graphWith();
  put('pods', pod('shop', 'web', { nodeName: 'a', serviceAccountName: 'web-sa' }));
  put('pods', pod('shop', 'job', { nodeName: 'a' }));
  const token = (name: string, namespace = 'shop') => ({ namespace, name, subresource: 'token' });
  assert.equal(decision('a', 'create', 'serviceaccounts', token('web-sa')), 'Allow');
  assert.equal(decision('a', 'create', 'serviceaccounts', token('default')), 'Allow', 'a pod without serviceAccountName runs as default');
  assert.equal(decision('b', 'create', 'serviceaccounts', token('web-sa')), 'NoOpinion');
  assert.equal(decision('a', 'create', 'serviceaccounts', token('admin')), 'NoOpinion');
  assert.equal(decision('a', 'create', 'serviceaccounts', token('web-sa', 'other')), 'NoOpinion');
  assert.deepEqual(ask('a', 'get', 'serviceaccounts', { namespace: 'shop', name: 'web-sa' }), { decision: 'NoOpinion', reason: 'can only create tokens for individual service accounts' });
  assert.equal(decision('a', 'create', 'serviceaccounts', { namespace: 'shop', name: 'web-sa' }), 'NoOpinion', 'creating the account itself');
  del('pods', 'shop', 'web');
  assert.equal(decision('a', 'create', 'serviceaccounts', token('web-sa')), 'NoOpinion');
});

test('node graph - graph-held types: only get of one named object', () => {
  const { put, ask } = graphWith();
  put(
    'pods',
    pod('shop', 'web', {
      nodeName: 'a',
      volumes: [
        { name: 'v', secret: { secretName: 's' } },
        { name: 'c', configMap: { name: 'cm' } },
      ],
    }),
  );
  const getOnly = { decision: 'NoOpinion', reason: 'can only get individual resources of this type' };
  for (const resource of ['secrets', 'configmaps', 'persistentvolumeclaims', 'persistentvolumes']) {
    assert.deepEqual(ask('a', 'list', resource, { namespace: 'shop' }), getOnly, `list ${resource}`);
    assert.deepEqual(ask('a', 'watch', resource, { namespace: 'shop' }), getOnly, `watch ${resource}`);
    assert.deepEqual(ask('a', 'list', resource), getOnly, `list ${resource} everywhere`);
  }
  // Even a single-object list (field selector on the name) of a related secret.
  assert.deepEqual(ask('a', 'list', 'secrets', { namespace: 'shop', name: 's' }), getOnly);
  assert.deepEqual(ask('a', 'update', 'secrets', { namespace: 'shop', name: 's' }), getOnly);
  assert.deepEqual(ask('a', 'delete', 'configmaps', { namespace: 'shop', name: 'cm' }), getOnly);
  assert.equal(ask('a', 'get', 'secrets', { namespace: 'shop', name: 's', subresource: 'x' }).decision, 'NoOpinion');
  assert.equal(ask('a', 'get', 'configmaps', { namespace: 'shop', name: 'cm' }).decision, 'Allow');
});

test('node graph - volume attachments: get those attached to the node, and their volumes', () => {
  const { put, del, decision } = graphWith();
  put('persistentvolumes', pv('pv-9', { csi: { driver: 'd', volumeHandle: 'h' } }));
  put(
    'volumeattachments',
    { apiVersion: 'storage.platform.io/v1', kind: 'VolumeAttachment', metadata: { name: 'va-1' }, spec: { nodeName: 'a', attacher: 'd', source: { persistentVolumeName: 'pv-9' } } },
    'storage.platform.io',
  );
  const va = { apiGroup: 'storage.platform.io', name: 'va-1' };
  assert.equal(decision('a', 'get', 'volumeattachments', va), 'Allow');
  assert.equal(decision('b', 'get', 'volumeattachments', va), 'NoOpinion');
  assert.equal(decision('a', 'list', 'volumeattachments', { apiGroup: 'storage.platform.io' }), 'NoOpinion');
  assert.equal(decision('a', 'get', 'persistentvolumes', { name: 'pv-9' }), 'Allow');
  del('volumeattachments', undefined, 'va-1', 'storage.platform.io');
  assert.equal(decision('a', 'get', 'volumeattachments', va), 'NoOpinion');
  assert.equal(decision('a', 'get', 'persistentvolumes', { name: 'pv-9' }), 'NoOpinion');
});

test('node graph - its own node object, not another one', () => {
  const { decision, ask } = graphWith();
  const cases: Array<[string, string, Partial<AuthzAttributes>, 'Allow' | 'NoOpinion']> = [
    ['get any node', 'get', { name: 'b' }, 'Allow'],
    ['list nodes', 'list', {}, 'Allow'],
    ['watch nodes', 'watch', {}, 'Allow'],
    ['register itself (name known only from the body)', 'create', {}, 'Allow'],
    ['update own node', 'update', { name: 'a' }, 'Allow'],
    ['patch own node status', 'patch', { name: 'a', subresource: 'status' }, 'Allow'],
    ['update own node status', 'update', { name: 'a', subresource: 'status' }, 'Allow'],
    ['update another node', 'update', { name: 'b' }, 'NoOpinion'],
    ['patch another node status', 'patch', { name: 'b', subresource: 'status' }, 'NoOpinion'],
    ['create another node by name', 'create', { name: 'b' }, 'NoOpinion'],
    ['delete own node', 'delete', { name: 'a' }, 'NoOpinion'],
    ['delete another node', 'delete', { name: 'b' }, 'NoOpinion'],
    ['delete all nodes', 'deletecollection', {}, 'NoOpinion'],
  ];
  for (const [name, verb, extra, want] of cases) assert.equal(decision('a', verb, 'nodes', extra), want, name);
  assert.deepEqual(ask('a', 'update', 'nodes', { name: 'b' }), { decision: 'NoOpinion', reason: 'can only modify its own node object' });
});

test('node graph - pods: read all, status and deletion only of its own pods', () => {
  const { put, del, decision } = graphWith();
  put('pods', pod('shop', 'web', { nodeName: 'a' }));
  const own = { namespace: 'shop', name: 'web' };
  const cases: Array<[string, string, string, Partial<AuthzAttributes>, 'Allow' | 'NoOpinion']> = [
    ['read pods', 'a', 'list', {}, 'Allow'],
    ["get another node's pod", 'b', 'get', own, 'Allow'],
    ['status of own pod', 'a', 'patch', { ...own, subresource: 'status' }, 'Allow'],
    ['status of own pod (update)', 'a', 'update', { ...own, subresource: 'status' }, 'Allow'],
    ['status of a pod on another node', 'b', 'patch', { ...own, subresource: 'status' }, 'NoOpinion'],
    ['status of an unknown pod', 'a', 'patch', { namespace: 'shop', name: 'nope', subresource: 'status' }, 'NoOpinion'],
    ['delete own (mirror) pod', 'a', 'delete', own, 'Allow'],
    ['delete a pod on another node', 'b', 'delete', own, 'NoOpinion'],
    ['update the pod spec', 'a', 'update', own, 'NoOpinion'],
    ['exec into a pod', 'a', 'create', { ...own, subresource: 'exec' }, 'NoOpinion'],
    ['delete all pods', 'a', 'deletecollection', { namespace: 'shop' }, 'NoOpinion'],
  ];
  for (const [name, node, verb, extra, want] of cases) assert.equal(decision(node, verb, 'pods', extra), want, name);
  del('pods', 'shop', 'web');
  assert.equal(decision('a', 'patch', 'pods', { ...own, subresource: 'status' }), 'NoOpinion', 'pod gone');
});

test('node graph - the fixed node rules, and nothing else', () => {
  const { decision } = graphWith();
  const cases: Array<[string, string, Partial<AuthzAttributes>, 'Allow' | 'NoOpinion']> = [
    ['services read', 'list', { resource: 'services' }, 'Allow'],
    ['endpoints read', 'get', { resource: 'endpoints', namespace: 'x', name: 'e' }, 'Allow'],
    ['services write', 'create', { resource: 'services', namespace: 'x' }, 'NoOpinion'],
    ['core events', 'create', { resource: 'events', namespace: 'x' }, 'Allow'],
    ['events.platform.io events', 'patch', { apiGroup: 'events.platform.io', resource: 'events', namespace: 'x', name: 'e' }, 'Allow'],
    ['events delete', 'delete', { resource: 'events', namespace: 'x', name: 'e' }, 'NoOpinion'],
    ['own lease', 'update', { apiGroup: 'coordination.platform.io', resource: 'leases', namespace: 'platform-node-lease', name: 'a' }, 'Allow'],
    ['create own lease', 'create', { apiGroup: 'coordination.platform.io', resource: 'leases', namespace: 'platform-node-lease' }, 'Allow'],
    ["another node's lease", 'update', { apiGroup: 'coordination.platform.io', resource: 'leases', namespace: 'platform-node-lease', name: 'b' }, 'NoOpinion'],
    ['lease elsewhere', 'get', { apiGroup: 'coordination.platform.io', resource: 'leases', namespace: 'platform-system', name: 'a' }, 'NoOpinion'],
    ['list leases', 'list', { apiGroup: 'coordination.platform.io', resource: 'leases', namespace: 'platform-node-lease' }, 'NoOpinion'],
    ['CSR create', 'create', { apiGroup: 'certificates.platform.io', resource: 'certificatesigningrequests' }, 'Allow'],
    ['CSR watch', 'watch', { apiGroup: 'certificates.platform.io', resource: 'certificatesigningrequests' }, 'Allow'],
    ['CSR approve', 'update', { apiGroup: 'certificates.platform.io', resource: 'certificatesigningrequests', name: 'c', subresource: 'approval' }, 'NoOpinion'],
    ['token review', 'create', { apiGroup: 'authentication.platform.io', resource: 'tokenreviews' }, 'Allow'],
    ['access review', 'create', { apiGroup: 'authorization.platform.io', resource: 'subjectaccessreviews' }, 'Allow'],
    ['roles', 'get', { apiGroup: 'rbac.authorization.platform.io', resource: 'roles', namespace: 'x', name: 'r' }, 'NoOpinion'],
    ['namespaces', 'list', { resource: 'namespaces' }, 'NoOpinion'],
    ['deployments', 'list', { apiGroup: 'apps', resource: 'deployments' }, 'NoOpinion'],
    ['a same-named resource in another group', 'get', { apiGroup: 'example.com', resource: 'secrets', namespace: 'x', name: 's' }, 'NoOpinion'],
    ['non-resource path', 'get', { isResourceRequest: false, path: '/healthz', resource: undefined }, 'NoOpinion'],
  ];
  for (const [name, verb, extra, want] of cases) assert.equal(decision('a', verb, extra.resource ?? '', extra), want, name);
});

test('node graph - only system:node:<name> in system:nodes is a node', () => {
  const { g, put } = graphWith();
  put('pods', pod('shop', 'web', { nodeName: 'a', volumes: [{ name: 'v', secret: { secretName: 's' } }] }));
  const authz = createNodeAuthorizer(g);
  const ask = (username: string, groups: string[]) =>
    authz.authorize({ user: { username, groups }, verb: 'get', isResourceRequest: true, path: '/x', apiGroup: '', resource: 'secrets', namespace: 'shop', name: 's' });
  assert.deepEqual(ask('system:node:a', ['system:nodes']), { decision: 'Allow' });
  assert.deepEqual(ask('system:node:a', ['system:authenticated']), { decision: 'NoOpinion' }, 'name without the group');
  assert.deepEqual(ask('a', ['system:nodes']), { decision: 'NoOpinion' }, 'group without the name');
  assert.deepEqual(ask('jane', ['system:masters']), { decision: 'NoOpinion' });
  assert.deepEqual(ask('system:node:', ['system:nodes']), { decision: 'NoOpinion', reason: 'unknown node for user "system:node:"' });
  // Graph grants cannot be listed: a node's rules review is incomplete, anyone else's is empty and complete.
  assert.deepEqual(authz.rulesFor!({ username: 'system:node:a', groups: ['system:nodes'] }, 'shop'), {
    resourceRules: [],
    nonResourceRules: [],
    incomplete: true,
    evaluationError: 'node authorizer does not support user rule resolution',
  });
  assert.deepEqual(authz.rulesFor!({ username: 'jane', groups: [] }, 'shop'), { resourceRules: [], nonResourceRules: [], incomplete: false });
});
