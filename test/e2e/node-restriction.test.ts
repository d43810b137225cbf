// End to end: the NodeRestriction admission plugin behind `--authorization-mode=Node,RBAC`, with
// node agents authenticating by client certificate (`system:node:<name>` in `system:nodes`).
// The nodes are also granted broad RBAC rights on nodes, pods and tokens, so the authorizers let
// every request through and each refusal below is NodeRestriction's (its message says so): what
// a node may change is decided by the objects, not by its verbs.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { issueClientCert, type PemPair } from '../../shared/local/pki.js';
import { assertOk, assertStatus, eventually, uniq } from './helpers.js';

const RBAC = 'rbac.authorization.platform.io';
const NODES = '/api/v1/nodes';
const PODS = '/api/v1/namespaces/default/pods';
const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };
const NOT_READY_TAINT = { key: 'node.platform.io/not-ready', effect: 'NoSchedule' };

type Res = Awaited<ReturnType<TestCluster['request']>>;

function forbiddenMessage(res: Res): string {
  return assertStatus(res, 403, 'Forbidden').message as string;
}

const pod = (name: string, nodeName: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { nodeName, containers: [{ name: 'c', image: 'registry.example/app:1' }], ...extra },
});

describe('NodeRestriction (Node, RBAC)', () => {
  let c: TestCluster;
  let n1: PemPair;

  /** A request made by node n1. */
  const asN1 = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    c.request(method, path, { token: null, cert: n1, ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });
  const adminCreate = async (path: string, body: unknown) => assertOk(await c.request('POST', path, { body }), 201);
  const get = async (path: string) => assertOk(await c.request('GET', path));

  before(async () => {
    c = await startTestCluster({ authorizationModes: ['Node', 'RBAC'], fullAuthn: true, admission: { enable: ['NodeRestriction'] } });
    n1 = await issueClientCert(c.ca, { commonName: 'system:node:n1', organizations: ['system:nodes'] });
    const broad = 'nodes-may-write-everything';
    const rules = [
      { verbs: ['create', 'update', 'patch', 'delete'], apiGroups: [''], resources: ['nodes', 'nodes/status', 'pods', 'pods/status'] },
      { verbs: ['create'], apiGroups: [''], resources: ['serviceaccounts/token'] },
    ];
    await adminCreate(`/apis/${RBAC}/v1/clusterroles`, { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: broad }, rules });
    await adminCreate(`/apis/${RBAC}/v1/clusterrolebindings`, {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name: broad },
      subjects: [{ kind: 'Group', apiGroup: RBAC, name: 'system:nodes' }],
      roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: broad },
    });
    await eventually("the nodes' RBAC grant is in effect", async () => {
      const review = {
        apiVersion: 'authorization.platform.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: 'system:node:n1', groups: ['system:nodes'], resourceAttributes: { verb: 'delete', resource: 'nodes', name: 'n2' } },
      };
      assert.equal(assertOk(await c.request('POST', '/apis/authorization.platform.io/v1/subjectaccessreviews', { body: review }), 201).status.allowed, true);
    });
  });

  after(async () => {
    await c?.stop();
  });

  it('nodes - a node registers itself with taints and agent labels, and relabels itself within them', async () => {
    const labels = { 'platform.io/hostname': 'n1', 'platform.io/os': 'linux', 'topology.platform.io/zone': 'z1', 'node.platform.io/pool': 'a', 'agent.platform.io/cpu': 'fast', team: 'infra' };
    const taints = [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }];
    const created = assertOk(await asN1('POST', NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels }, spec: { taints } }), 201);
    assert.deepEqual(created.metadata.labels, labels);
    // TaintNodesByCondition (on by default) adds the not-ready taint to every new node.
    assert.deepEqual(created.spec.taints, [...taints, NOT_READY_TAINT]);

    const relabelled = assertOk(
      await asN1('PUT', `${NODES}/n1`, { ...created, metadata: { ...created.metadata, labels: { ...labels, 'topology.platform.io/zone': 'z2', 'node.platform.io/pool': 'b' } } }),
    );
    assert.equal(relabelled.metadata.labels['topology.platform.io/zone'], 'z2');
    const patched = assertOk(await asN1('PATCH', `${NODES}/n1`, { metadata: { labels: { 'beta.platform.io/instance-type': 'm5.large', team: null } } }, MERGE_PATCH));
    assert.equal(patched.metadata.labels['beta.platform.io/instance-type'], 'm5.large');
    assert.equal(patched.metadata.labels.team, undefined);
    const status = assertOk(await asN1('PUT', `${NODES}/n1/status`, { ...patched, status: { conditions: [{ type: 'Ready', status: 'True' }] } }));
    assert.equal(status.status.conditions[0].type, 'Ready');
  });

  it('nodes - restricted and other platform.io labels are refused; ones an administrator set may stay', async () => {
    const cur = await get(`${NODES}/n1`);
    const withLabels = (extra: Record<string, string>) => ({ ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata.labels, ...extra } } });
    assert.equal(
      forbiddenMessage(await asN1('PUT', `${NODES}/n1`, withLabels({ 'node-restriction.platform.io/dedicated': 'gpu' }))),
      'nodes "n1" is forbidden: node "n1" is not allowed to modify labels: node-restriction.platform.io/dedicated',
    );
    assert.equal(
      forbiddenMessage(await asN1('PATCH', `${NODES}/n1`, { metadata: { labels: { 'platform.io/role': 'control-plane' } } }, MERGE_PATCH)),
      'nodes "n1" is forbidden: node "n1" is not allowed to modify labels: platform.io/role',
    );
    assert.equal(
      forbiddenMessage(await asN1('POST', NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'node-role.platform.io/master': '' } } })),
      'nodes "n1" is forbidden: node "n1" is not allowed to set the following labels: node-role.platform.io/master',
    );
    const stored = await get(`${NODES}/n1`);
    assert.equal(stored.metadata.labels['node-restriction.platform.io/dedicated'], undefined);
    assert.equal(stored.metadata.labels['platform.io/role'], undefined);

    // An administrator may set it; the node's own updates then carry it along unchanged.
    assertOk(await c.request('PATCH', `${NODES}/n1`, { body: { metadata: { labels: { 'node-restriction.platform.io/dedicated': 'gpu' } } }, headers: MERGE_PATCH }));
    const kept = assertOk(await asN1('PATCH', `${NODES}/n1`, { metadata: { labels: { 'node.platform.io/pool': 'c' } } }, MERGE_PATCH));
    assert.equal(kept.metadata.labels['node-restriction.platform.io/dedicated'], 'gpu');
    assert.equal(
      forbiddenMessage(await asN1('PATCH', `${NODES}/n1`, { metadata: { labels: { 'node-restriction.platform.io/dedicated': null } } }, MERGE_PATCH)),
      'nodes "n1" is forbidden: node "n1" is not allowed to modify labels: node-restriction.platform.io/dedicated',
    );
    assert.equal((await get(`${NODES}/n1`)).metadata.labels['node-restriction.platform.io/dedicated'], 'gpu');
  });

  it('nodes - a node may not change its taints, touch another node, or delete its node object', async () => {
    assert.equal(forbiddenMessage(await asN1('PATCH', `${NODES}/n1`, { spec: { taints: [] } }, MERGE_PATCH)), 'nodes "n1" is forbidden: node "n1" is not allowed to modify taints');
    const cur = await get(`${NODES}/n1`);
    const retainted = { ...cur, spec: { ...cur.spec, taints: [...cur.spec.taints, { key: 'extra', effect: 'NoExecute' }] } };
    assert.equal(forbiddenMessage(await asN1('PUT', `${NODES}/n1`, retainted)), 'nodes "n1" is forbidden: node "n1" is not allowed to modify taints');
    assert.deepEqual((await get(`${NODES}/n1`)).spec.taints, [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }, NOT_READY_TAINT]);

    const n2 = await adminCreate(NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } });
    assert.equal(
      forbiddenMessage(await asN1('PUT', `${NODES}/n2`, { ...n2, metadata: { ...n2.metadata, labels: { hijacked: 'yes' } } })),
      'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"',
    );
    assert.equal(forbiddenMessage(await asN1('PUT', `${NODES}/n2/status`, { ...n2, status: { phase: 'Running' } })), 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');
    assert.equal(forbiddenMessage(await asN1('DELETE', `${NODES}/n2`)), 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');
    assert.equal(forbiddenMessage(await asN1('POST', NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n3' } })), 'nodes "n3" is forbidden: node "n1" is not allowed to modify node "n3"');
    assert.equal((await get(`${NODES}/n2`)).metadata.labels?.hijacked, undefined);

    assert.equal(forbiddenMessage(await asN1('DELETE', `${NODES}/n1`)), 'nodes "n1" is forbidden: node "n1" is not allowed to delete its node object');
    assert.equal((await get(`${NODES}/n1`)).metadata.name, 'n1');

    // None of this binds anyone but nodes: an administrator untaints and deletes.
    assertOk(await c.request('PATCH', `${NODES}/n2`, { body: { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } }, headers: MERGE_PATCH }));
    assertOk(await c.request('PATCH', `${NODES}/n2`, { body: { spec: { taints: [] } }, headers: MERGE_PATCH }));
    assertOk(await c.request('DELETE', `${NODES}/n2`));
  });

  it('pods - a node updates the status of pods bound to it, never their spec, and deletes only those', async () => {
    const mine = uniq('on-n1');
    const theirs = uniq('on-n2');
    await adminCreate(PODS, pod(mine, 'n1'));
    await adminCreate(PODS, pod(theirs, 'n2'));
    const running = async (name: string) => {
      const p = await get(`${PODS}/${name}`);
      return { ...p, status: { phase: 'Running' } };
    };
    // The Node authorizer learns about the pod from its watch.
    const updated = await eventually('n1 updates the status of its pod', async () => assertOk(await asN1('PUT', `${PODS}/${mine}/status`, await running(mine))));
    assert.equal(updated.status.phase, 'Running');
    assert.equal(
      forbiddenMessage(await asN1('PUT', `${PODS}/${theirs}/status`, await running(theirs))),
      `pods "${theirs}" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself`,
    );
    assert.notEqual((await get(`${PODS}/${theirs}`)).status?.phase, 'Running');

    const cur = await get(`${PODS}/${mine}`);
    assert.equal(
      forbiddenMessage(await asN1('PUT', `${PODS}/${mine}`, { ...cur, spec: { ...cur.spec, activeDeadlineSeconds: 30 } })),
      `pods "${mine}" is forbidden: unexpected operation "UPDATE", node "n1" can only create and delete mirror pods`,
    );
    assert.equal(
      forbiddenMessage(await asN1('PATCH', `${PODS}/${mine}`, { metadata: { labels: { app: 'x' } } }, MERGE_PATCH)),
      `pods "${mine}" is forbidden: unexpected operation "UPDATE", node "n1" can only create and delete mirror pods`,
    );
    assert.equal((await get(`${PODS}/${mine}`)).spec.activeDeadlineSeconds, undefined);

    assert.equal(forbiddenMessage(await asN1('DELETE', `${PODS}/${theirs}`)), `pods "${theirs}" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself`);
    assertOk(await asN1('DELETE', `${PODS}/${mine}?gracePeriodSeconds=0`));
    assertStatus(await c.request('GET', `${PODS}/${mine}`), 404, 'NotFound');
    assertOk(await c.request('GET', `${PODS}/${theirs}`));
  });

  it('pods - a node creates only mirror pods of its own, owned by its Node and referencing no API objects', async () => {
    const self = await get(`${NODES}/n1`);
    const owner = { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: self.metadata.uid, controller: true };
    const mirror = (name: string, spec: Record<string, unknown> = {}) => {
      const p = pod(name, 'n1', spec);
      return { ...p, metadata: { ...p.metadata, annotations: { 'platform.io/config.mirror': 'hash' }, ownerReferences: [owner] } };
    };
    const name = uniq('static');
    const created = assertOk(await asN1('POST', PODS, mirror(name)), 201);
    assert.equal(created.metadata.ownerReferences[0].uid, self.metadata.uid);

    const plain = uniq('plain');
    assert.equal(
      forbiddenMessage(await asN1('POST', PODS, pod(plain, 'n1'))),
      `pods "${plain}" is forbidden: pod does not have "platform.io/config.mirror" annotation, node "n1" can only create mirror pods`,
    );
    const secretive = uniq('secretive');
    assert.equal(
      forbiddenMessage(await asN1('POST', PODS, mirror(secretive, { volumes: [{ name: 'v', secret: { secretName: 'db-password' } }] }))),
      `pods "${secretive}" is forbidden: node "n1" can not create pods that reference secrets`,
    );
    const elsewhere = uniq('elsewhere');
    assert.equal(
      forbiddenMessage(await asN1('POST', PODS, mirror(elsewhere, { nodeName: 'n2' }))),
      `pods "${elsewhere}" is forbidden: node "n1" can only create pods with spec.nodeName set to itself`,
    );
    for (const n of [plain, secretive, elsewhere]) assertStatus(await c.request('GET', `${PODS}/${n}`), 404, 'NotFound');
  });

  it('token requests - a node gets service-account tokens only bound to a pod scheduled on it', async () => {
    await adminCreate('/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder' } });
    const mine = await adminCreate(PODS, pod(uniq('builder-n1'), 'n1', { serviceAccountName: 'builder' }));
    const theirs = await adminCreate(PODS, pod(uniq('builder-n2'), 'n2', { serviceAccountName: 'builder' }));
    const url = '/api/v1/namespaces/default/serviceaccounts/builder/token';
    const tokenRequest = (bound?: { metadata: { name: string; uid: string } }) => ({
      apiVersion: 'authentication.platform.io/v1',
      kind: 'TokenRequest',
      spec: { audiences: [], ...(bound ? { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: bound.metadata.name, uid: bound.metadata.uid } } : {}) },
    });
    const issued = await eventually('n1 gets a token for the pod bound to it', async () => assertOk(await asN1('POST', url, tokenRequest(mine)), 201));
    assert.ok(issued.status.token, 'a token is issued');
    assert.equal(issued.spec.boundObjectRef.name, mine.metadata.name);
    assert.equal(forbiddenMessage(await asN1('POST', url, tokenRequest())), 'serviceaccounts "builder" is forbidden: node requested token not bound to a pod');
    assert.equal(forbiddenMessage(await asN1('POST', url, tokenRequest(theirs))), 'serviceaccounts "builder" is forbidden: node requested token bound to a pod scheduled on a different node');
    // Anyone else may ask for an unbound token.
    assert.ok(assertOk(await c.request('POST', url, { body: tokenRequest() }), 201).status.token);
  });
});
