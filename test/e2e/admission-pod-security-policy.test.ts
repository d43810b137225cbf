// End to end: the PodSecurityPolicy admission plugin behind `--authorization-mode=RBAC`, so the
// `use` verb decides which policies apply. A restricted and a privileged policy; jane (token) may
// use only the restricted one, in the default namespace; bob (client certificate) may use the
// privileged one everywhere; the service account `builder` of the default namespace may use the
// privileged one too. Every user may write pods; what they may run is the policies' business.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { issueClientCert, type PemPair } from '../../shared/local/pki.js';
import { assertOk, assertStatus, eventually } from './helpers.js';

const RBAC = 'rbac.authorization.platform.io';
const RBAC_V1 = `/apis/${RBAC}/v1`;
const PSPS = '/apis/policy/v1beta1/podsecuritypolicies';
const PODS = '/api/v1/namespaces/default/pods';
const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };
const PSP_WARNING = '299 - "policy/v1beta1 PodSecurityPolicy is deprecated in v1.21+, unavailable in v1.25+"';

type Res = Awaited<ReturnType<TestCluster['request']>>;

const ANY = { rule: 'RunAsAny' };
const RESTRICTED = {
  apiVersion: 'policy/v1beta1',
  kind: 'PodSecurityPolicy',
  metadata: { name: 'restricted' },
  spec: {
    privileged: false,
    allowPrivilegeEscalation: false,
    requiredDropCapabilities: ['ALL'],
    volumes: ['configMap', 'emptyDir', 'projected', 'secret', 'downwardAPI', 'persistentVolumeClaim'],
    runAsUser: { rule: 'MustRunAsNonRoot' },
    seLinux: ANY,
    supplementalGroups: { rule: 'MustRunAs', ranges: [{ min: 1, max: 65535 }] },
    fsGroup: { rule: 'MustRunAs', ranges: [{ min: 1, max: 65535 }] },
  },
};
const PRIVILEGED = {
  apiVersion: 'policy/v1beta1',
  kind: 'PodSecurityPolicy',
  metadata: { name: 'privileged' },
  spec: {
    privileged: true,
    allowedCapabilities: ['*'],
    volumes: ['*'],
    hostNetwork: true,
    hostPID: true,
    hostIPC: true,
    hostPorts: [{ min: 0, max: 65535 }],
    runAsUser: ANY,
    seLinux: ANY,
    supplementalGroups: ANY,
    fsGroup: ANY,
  },
};

const pod = (name: string, extra: { spec?: Record<string, unknown>; container?: Record<string, unknown> } = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'registry.example/app:1', ...extra.container }], ...extra.spec },
});
const privilegedPod = (name: string, spec: Record<string, unknown> = {}) => pod(name, { spec, container: { securityContext: { privileged: true } } });

const PRIVILEGED_REFUSED = 'PodSecurityPolicy: unable to admit pod: [spec.containers[0].securityContext.privileged: Invalid value: true: Privileged containers are not allowed]';

describe('PodSecurityPolicy admission (RBAC)', () => {
  let c: TestCluster;
  let jane: string;
  let bob: PemPair;

  const asJane = (method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Res> =>
    c.request(method, path, { token: jane, ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });
  const asBob = (method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Res> =>
    c.request(method, path, { token: null, cert: bob, ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });
  const admin = async (path: string, body: unknown) => assertOk(await c.request('POST', path, { body }), 201);
  const binding = (kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, role: string, subjects: unknown[]) => ({
    apiVersion: `${RBAC}/v1`,
    kind,
    metadata: { name, ...(kind === 'RoleBinding' ? { namespace: 'default' } : {}) },
    subjects,
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role },
  });
  const user = (name: string) => ({ kind: 'User', apiGroup: RBAC, name });

  before(async () => {
    c = await startTestCluster({ authorizationModes: ['RBAC'], fullAuthn: true, admission: { enable: ['PodSecurityPolicy'] } });
    jane = c.userToken;
    bob = await issueClientCert(c.ca, { commonName: 'bob' });
    await eventually('the default policy is written', async () => assertOk(await c.request('GET', `${RBAC_V1}/clusterrolebindings/cluster-admin`)), { timeoutMs: 10_000 });

    const pspUser = (psp: string) => ({
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name: `psp-${psp}` },
      rules: [{ verbs: ['use'], apiGroups: ['policy'], resources: ['podsecuritypolicies'], resourceNames: [psp] }],
    });
    await admin(`${RBAC_V1}/clusterroles`, pspUser('restricted'));
    await admin(`${RBAC_V1}/clusterroles`, pspUser('privileged'));
    await admin(`${RBAC_V1}/clusterroles`, {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name: 'pod-writer' },
      rules: [{ verbs: ['create', 'get', 'list', 'update', 'patch', 'delete'], apiGroups: [''], resources: ['pods'] }],
    });
    await admin(`${RBAC_V1}/clusterrolebindings`, binding('ClusterRoleBinding', 'pod-writers', 'pod-writer', [user('jane'), user('bob')]));
    // jane's grant is per namespace; bob's is cluster-wide; the builder account's is its namespace's.
    await admin(`${RBAC_V1}/namespaces/default/rolebindings`, binding('RoleBinding', 'jane-restricted', 'psp-restricted', [user('jane')]));
    await admin(`${RBAC_V1}/clusterrolebindings`, binding('ClusterRoleBinding', 'bob-privileged', 'psp-privileged', [user('bob')]));
    await admin(`${RBAC_V1}/namespaces/default/rolebindings`, binding('RoleBinding', 'builder-privileged', 'psp-privileged', [{ kind: 'ServiceAccount', name: 'builder', namespace: 'default' }]));
    await eventually('bob may write pods', async () => assert.notEqual((await asBob('GET', PODS)).status, 403), { timeoutMs: 5_000 });
  });

  after(async () => {
    await c?.stop();
  });

  it('policies - the deprecated API warns on every request', async () => {
    for (const psp of [RESTRICTED, PRIVILEGED]) {
      const res = await c.request('POST', PSPS, { body: psp });
      assertOk(res, 201);
      assert.equal(res.headers.get('warning'), PSP_WARNING);
    }
    const list = await c.request('GET', PSPS);
    assert.deepEqual(
      assertOk(list)
        .items.map((p: { metadata: { name: string } }) => p.metadata.name)
        .sort(),
      ['privileged', 'restricted'],
    );
    assert.equal(list.headers.get('warning'), PSP_WARNING);
    assert.equal(assertOk(await c.request('GET', `${PSPS}/privileged`)).spec.allowPrivilegeEscalation, true, 'allowPrivilegeEscalation defaults to true');
  });

  it("restricted user - a privileged pod is refused with upstream's message; nothing is stored", async () => {
    const res = await eventually(
      'the policies reached admission',
      async () => {
        const r = await asJane('POST', PODS, privilegedPod('priv'));
        assert.equal(assertStatus(r, 403, 'Forbidden').message, `pods "priv" is forbidden: ${PRIVILEGED_REFUSED}`);
        return r;
      },
      { timeoutMs: 5_000 },
    );
    assert.equal(res.json.details.name, 'priv');
    assertStatus(await c.request('GET', `${PODS}/priv`), 404);
    // A generated name is reported by its prefix, as upstream.
    const generated = await asJane('POST', PODS, { ...privilegedPod(''), metadata: { generateName: 'priv-' } });
    assert.equal(assertStatus(generated, 403).message, `pods "priv-" is forbidden: ${PRIVILEGED_REFUSED}`);
  });

  it('restricted user - a plain pod is admitted, defaulted by the restricted policy and annotated', async () => {
    const created = assertOk(await asJane('POST', PODS, pod('plain')), 201);
    assert.equal(created.metadata.annotations['platform.io/psp'], 'restricted');
    assert.deepEqual(created.spec.securityContext, { supplementalGroups: [1], fsGroup: 1 });
    assert.deepEqual(created.spec.containers[0].securityContext, { runAsNonRoot: true, capabilities: { drop: ['ALL'] }, allowPrivilegeEscalation: false });
    const stored = assertOk(await c.request('GET', `${PODS}/plain`));
    assert.equal(stored.metadata.annotations['platform.io/psp'], 'restricted');
    assert.deepEqual(stored.spec.containers[0].securityContext, created.spec.containers[0].securityContext);
  });

  it('restricted user - host namespaces and host paths are refused, each problem listed', async () => {
    const res = await asJane('POST', PODS, pod('hosty', { spec: { hostNetwork: true, volumes: [{ name: 'etc', hostPath: { path: '/etc' } }] } }));
    assert.equal(
      assertStatus(res, 403).message,
      'pods "hosty" is forbidden: PodSecurityPolicy: unable to admit pod: [spec.securityContext.hostNetwork: Invalid value: true: Host network is not allowed to be used spec.volumes[0]: Invalid value: "hostPath": hostPath volumes are not allowed to be used]',
    );
  });

  it('restricted user - the grant is per namespace: elsewhere no policy is usable', async () => {
    assertOk(await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } } }), 201);
    const res = await asJane('POST', '/api/v1/namespaces/other/pods', pod('plain'));
    assert.equal(assertStatus(res, 403).message, 'pods "plain" is forbidden: PodSecurityPolicy: unable to admit pod: []');
  });

  it('privileged user - a privileged pod is admitted under the privileged policy, and a plain pod unchanged', async () => {
    const priv = assertOk(await asBob('POST', PODS, privilegedPod('bob-priv', { hostNetwork: true })), 201);
    assert.equal(priv.metadata.annotations['platform.io/psp'], 'privileged');
    assert.deepEqual(priv.spec.containers[0].securityContext, { privileged: true });
    // Both policies are usable by nobody else here, but bob's plain pod needs no change under
    // "privileged" and so is not defaulted by "restricted".
    const plain = assertOk(await asBob('POST', PODS, pod('bob-plain')), 201);
    assert.equal(plain.metadata.annotations['platform.io/psp'], 'privileged');
    assert.equal(plain.spec.containers[0].securityContext, undefined);
  });

  it('service account - a pod whose account may use the privileged policy is admitted for a user who may not', async () => {
    const created = assertOk(await asJane('POST', PODS, privilegedPod('built', { serviceAccountName: 'builder' })), 201);
    assert.equal(created.metadata.annotations['platform.io/psp'], 'privileged');
    assert.equal(created.spec.containers[0].securityContext.privileged, true);
    // Another account of the namespace holds no grant.
    assert.equal(assertStatus(await asJane('POST', PODS, privilegedPod('unbuilt', { serviceAccountName: 'other' })), 403).message, `pods "unbuilt" is forbidden: ${PRIVILEGED_REFUSED}`);
  });

  it('updates - the pod must still meet a policy the updater may use; the admitting one is kept', async () => {
    const relabelled = assertOk(await asJane('PATCH', `${PODS}/plain`, { metadata: { labels: { tier: 'web' } } }, MERGE_PATCH));
    assert.equal(relabelled.metadata.labels.tier, 'web');
    assert.equal(relabelled.metadata.annotations['platform.io/psp'], 'restricted');
    // bob's privileged pod meets no policy jane may use.
    const res = await asJane('PATCH', `${PODS}/bob-priv`, { metadata: { labels: { tier: 'web' } } }, MERGE_PATCH);
    assert.equal(
      assertStatus(res, 403).message,
      'pods "bob-priv" is forbidden: PodSecurityPolicy: unable to validate pod: [spec.securityContext.hostNetwork: Invalid value: true: Host network is not allowed to be used spec.containers[0].securityContext.privileged: Invalid value: true: Privileged containers are not allowed]',
    );
    assert.equal(assertOk(await asBob('PATCH', `${PODS}/bob-priv`, { metadata: { labels: { tier: 'web' } } }, MERGE_PATCH)).metadata.labels.tier, 'web');
  });
});
