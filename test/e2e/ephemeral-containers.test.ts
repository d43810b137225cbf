// End to end: pods/<name>/ephemeralcontainers. `kubectl debug` (upstream kubectl, skipped when it is
// not on PATH) adds a debugging container with a strategic merge patch of the subresource; a
// change to an existing one is 422; the grant is its own (the bootstrap `edit` role lacks it, as
// upstream's does); PodSecurity judges the added container; discovery lists the subresource.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { findKubectl, Kubectl, kubectlOk } from '../support/kubectl.js';
import { assertOk, assertStatus, eventually, uniq } from './helpers.js';

const bin = findKubectl();
const RBAC = 'rbac.authorization.platform.io';
const SMP = { 'content-type': 'application/strategic-merge-patch+json' };

const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] },
});

describe('pods/ephemeralcontainers', () => {
  let c: TestCluster;
  let kubectl: Kubectl | undefined;
  let ns: string;
  const podPath = (name: string, sub = '') => `/api/v1/namespaces/${ns}/pods/${name}${sub ? `/${sub}` : ''}`;
  const createPod = async (name: string) => assertOk(await c.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod(name) }), 201);
  const addDebugger = (name: string, container: Record<string, unknown>, token?: string) =>
    c.request('PATCH', podPath(name, 'ephemeralcontainers'), { headers: SMP, body: { spec: { ephemeralContainers: [container] } }, ...(token ? { token } : {}) });

  before(async () => {
    c = await startTestCluster({ authorizationModes: ['RBAC'] });
    if (bin) kubectl = new Kubectl(bin, c.kubeconfigPath);
    ns = uniq('debug');
    assertOk(await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } }), 201);
    await eventually('the bootstrap roles are written', async () => assertOk(await c.request('GET', `/apis/${RBAC}/v1/clusterroles/edit`)), { timeoutMs: 10_000 });
  });

  after(async () => {
    await c?.stop();
  });

  it('kubectl debug - adds an ephemeral container to the pod', { skip: bin ? false : 'kubectl not on PATH' }, async () => {
    await createPod('web');
    const r = await kubectl!.run(['debug', 'pod/web', '-n', ns, '--image=busybox', '-c', 'debugger', '--target=app', '--attach=false', '-v=8']);
    kubectlOk(r);
    assert.match(r.stderr, /PATCH https:\/\/[^ ]+\/api\/v1\/namespaces\/[^/]+\/pods\/web\/ephemeralcontainers/);
    const stored = assertOk(await c.request('GET', podPath('web')));
    const added = stored.spec.ephemeralContainers;
    assert.equal(added.length, 1);
    assert.equal(added[0].name, 'debugger');
    assert.equal(added[0].image, 'busybox');
    assert.equal(added[0].targetContainerName, 'app');
    // Defaulted as a container of a created pod is.
    assert.equal(added[0].terminationMessagePolicy, 'File');
    assert.equal(added[0].imagePullPolicy, 'Always');
    // GET of the subresource is the pod.
    const viaSub = assertOk(await c.request('GET', podPath('web', 'ephemeralcontainers')));
    assert.equal(viaSub.kind, 'Pod');
    assert.deepEqual(viaSub.spec.ephemeralContainers, added);
  });

  it('only additions - a change to an existing ephemeral container is 422, other pod fields are ignored', async () => {
    await createPod('api');
    const first = assertOk(await addDebugger('api', { name: 'dbg', image: 'busybox', stdin: true }));
    assert.deepEqual(
      first.spec.ephemeralContainers.map((e: { name: string }) => e.name),
      ['dbg'],
    );

    const changed = assertStatus(await addDebugger('api', { name: 'dbg', image: 'alpine' }), 422, 'Invalid');
    assert.equal(changed.details.causes[0].field, 'spec.ephemeralContainers');
    assert.match(changed.details.causes[0].message, /^Forbidden: existing ephemeral containers "dbg" may not be changed/);
    assert.match(changed.message, /^Pod "api" is invalid: spec\.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be changed/);

    const withPort = assertStatus(await addDebugger('api', { name: 'web', image: 'busybox', ports: [{ containerPort: 80 }] }), 422, 'Invalid');
    assert.deepEqual(
      withPort.details.causes.map((x: { field: string; message: string }) => `${x.field}: ${x.message}`),
      ['spec.ephemeralContainers[1].ports: Forbidden: cannot be set for an Ephemeral Container'],
    );

    // A PUT through the subresource may not change the rest of the pod: it is taken from storage.
    const current = assertOk(await c.request('GET', podPath('api', 'ephemeralcontainers')));
    current.spec.containers[0].image = 'registry.example/app:2';
    current.metadata.labels = { sneaked: 'in' };
    current.spec.ephemeralContainers.push({ name: 'second', image: 'busybox' });
    const put = assertOk(await c.request('PUT', podPath('api', 'ephemeralcontainers'), { body: current }));
    assert.equal(put.spec.containers[0].image, 'registry.example/app:1');
    assert.equal(put.metadata.labels, undefined);
    assert.deepEqual(
      put.spec.ephemeralContainers.map((e: { name: string }) => e.name),
      ['dbg', 'second'],
    );

    // The pod itself may not add them: only the subresource's grant does.
    const viaPod = assertStatus(await c.request('PATCH', podPath('api'), { headers: SMP, body: { spec: { ephemeralContainers: [{ name: 'third', image: 'busybox' }] } } }), 422, 'Invalid');
    assert.match(viaPod.message, /spec: Forbidden: pod updates may not change fields other than/);
    const created = assertStatus(
      await c.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { ...pod('born'), spec: { ...pod('born').spec, ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] } } }),
      422,
      'Invalid',
    );
    assert.match(created.message, /spec\.ephemeralContainers: Forbidden: cannot be set on create/);
  });

  it('authorization - edit may not add ephemeral containers; a grant on pods/ephemeralcontainers may', async () => {
    await createPod('guarded');
    assertOk(
      await c.request('POST', `/apis/${RBAC}/v1/namespaces/${ns}/rolebindings`, {
        body: {
          apiVersion: `${RBAC}/v1`,
          kind: 'RoleBinding',
          metadata: { name: 'jane-edit' },
          subjects: [{ kind: 'User', apiGroup: RBAC, name: 'jane' }],
          roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'edit' },
        },
      }),
      201,
    );
    await eventually('jane may read pods', async () => assertOk(await c.request('GET', podPath('guarded'), { token: c.userToken })), { timeoutMs: 5_000 });
    const denied = assertStatus(await addDebugger('guarded', { name: 'dbg', image: 'busybox' }, c.userToken), 403, 'Forbidden');
    assert.equal(denied.message, `pods "guarded" is forbidden: User "jane" cannot patch resource "pods/ephemeralcontainers" in API group "" in the namespace "${ns}"`);
    if (kubectl) {
      const r = await kubectl.run(['debug', 'pod/guarded', '-n', ns, '--image=busybox', '--attach=false', '--token', c.userToken]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /cannot patch resource "pods\/ephemeralcontainers"/);
    }

    assertOk(
      await c.request('POST', `/apis/${RBAC}/v1/namespaces/${ns}/roles`, {
        body: { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'debugger' }, rules: [{ apiGroups: [''], resources: ['pods/ephemeralcontainers'], verbs: ['patch', 'update'] }] },
      }),
      201,
    );
    assertOk(
      await c.request('POST', `/apis/${RBAC}/v1/namespaces/${ns}/rolebindings`, {
        body: {
          apiVersion: `${RBAC}/v1`,
          kind: 'RoleBinding',
          metadata: { name: 'jane-debug' },
          subjects: [{ kind: 'User', apiGroup: RBAC, name: 'jane' }],
          roleRef: { apiGroup: RBAC, kind: 'Role', name: 'debugger' },
        },
      }),
      201,
    );
    await eventually('jane may add an ephemeral container', async () => assertOk(await addDebugger('guarded', { name: 'dbg', image: 'busybox' }, c.userToken)), { timeoutMs: 5_000 });
  });

  it('PodSecurity - an ephemeral container is held to the namespace level', async () => {
    const restricted = uniq('restricted');
    const labels = { 'pod-security.platform.io/enforce': 'baseline' };
    assertOk(await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: restricted, labels } } }), 201);
    assertOk(await c.request('POST', `/api/v1/namespaces/${restricted}/pods`, { body: pod('p') }), 201);
    const path = `/api/v1/namespaces/${restricted}/pods/p/ephemeralcontainers`;
    const privileged = { name: 'root', image: 'busybox', securityContext: { privileged: true } };
    const refused = assertStatus(await c.request('PATCH', path, { headers: SMP, body: { spec: { ephemeralContainers: [privileged] } } }), 403, 'Forbidden');
    assert.match(refused.message, /violates PodSecurity "baseline:latest": privileged \(container "root" must not set securityContext\.privileged=true\)/);
    assertOk(await c.request('PATCH', path, { headers: SMP, body: { spec: { ephemeralContainers: [{ name: 'plain', image: 'busybox' }] } } }));
  });

  it('discovery - pods/ephemeralcontainers is served with get, patch and update', async () => {
    const list = assertOk(await c.request('GET', '/api/v1'));
    const entry = list.resources.find((r: { name: string }) => r.name === 'pods/ephemeralcontainers');
    assert.deepEqual(entry?.verbs, ['get', 'patch', 'update']);
    assert.equal(entry?.kind, 'Pod');
  });
});
