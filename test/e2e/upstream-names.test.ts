// End to end: upstream's well-known names beside the spec's when the gateway serves upstream group
// aliases (issue 32 §2), through the real HTTPS gateway and the controllers run against it. What a
// user sees: namespaces labelled `kubernetes.io/metadata.name`; `kubernetes.io/*` secret types
// validated as their `platform.io` twins and a `kubernetes.io/service-account-token` secret filled
// in; stock CSRs to `kubernetes.io/*` signers validated, approved and signed as their twins'; the
// `kube-*` system namespaces there and undeletable; `cluster-info` in both public namespaces, signed
// by the bootstrap signer acting as its own service account; `extension-apiserver-authentication`
// in `kube-system` too, readable by an aggregated server's account bound there to the bootstrap
// reader Role as stock manifests bind it; a node's Lease in `kube-node-lease` that
// `kubectl describe node` shows. With aliases off nothing of it.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import YAML from 'yaml';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { findKubectl, Kubectl } from '../support/kubectl.js';
import { csrRequest } from '../support/csr.js';
import { createCA, issueClientCert } from '../../shared/local/pki.js';
import { loadClientConfig } from '../../shared/client/config.js';
import { ApiClient } from '../../shared/client/rest.js';
import { silentLogger } from '../../shared/log.js';
import { createControllersService, type ControllersService } from '../../services/controllers/service.js';
import { loadSigningCA } from '../../services/controllers/certificates/signers.js';
import { assertOk, assertStatus, createNamespace, eventually, uniq } from './helpers.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const unb64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
const bin = findKubectl();

const secret = (name: string, type: string, data: Record<string, string>, annotations?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  type,
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
});
const csr = async (name: string, signerName: string, subject: string, usages: string[], spec: Record<string, unknown> = {}) => ({
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name },
  spec: { request: await csrRequest(subject), signerName, usages, ...spec },
});
const approved = (o: any) => ({ ...o, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'E2E', message: 'approved by the e2e test' }] } });

describe('upstream well-known names (Node, RBAC, --upstream-group-aliases, controllers)', { timeout: 120_000 }, () => {
  let c: TestCluster;
  let controllers: ControllersService;
  /** The bootstrap signer alone, as its own service account (`--use-service-account-credentials`): only its bootstrap Roles let it sign. */
  let signer: ControllersService;

  before(async () => {
    // The gateway publishes its front-proxy CA, as `npm start` and compose run it.
    const frontProxyCA = await createCA('upstream-names-front-proxy-ca');
    const proxyClient = await issueClientCert(frontProxyCA, { commonName: 'front-proxy-client' });
    c = await startTestCluster({
      upstreamGroupAliases: true,
      authorizationModes: ['Node', 'RBAC'],
      fullAuthn: true,
      admission: { enable: ['NodeRestriction'] },
      gateway: { authenticationInfo: { requestHeaderCA: frontProxyCA.certPem, proxyClientCert: proxyClient.certPem } },
    });
    await eventually('the default policy is written', async () => assertOk(await c.request('GET', `${RBAC}/clusterrolebindings/cluster-admin`)), { timeoutMs: 10_000, intervalMs: 50 });
    const client = new ApiClient(await loadClientConfig({ env: { PLATFORMCONFIG: c.kubeconfigPath } }));
    controllers = createControllersService({
      client,
      log: silentLogger(),
      config: {
        controllers: ['csrsigning', 'csrapproving', 'serviceaccount-token', 'root-ca-cert-publisher'],
        signingCA: await loadSigningCA(c.ca.certPem, c.ca.keyPem),
        signingDurationMs: 24 * 3_600_000,
        serviceAccountKey: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey,
        rootCA: c.caPem,
      },
    });
    // Not awaited: it starts once its Roles let it list, which the signing test waits for.
    signer = createControllersService({ client, log: silentLogger(), config: { controllers: ['bootstrapsigner'], useServiceAccountCredentials: true } });
    await controllers.leading;
  });

  after(async () => {
    await signer?.stop();
    await controllers?.stop();
    await c?.stop();
  });

  it('namespaces carry kubernetes.io/metadata.name beside platform.io/metadata.name, kept equal to the name, and selectors find them by it', async () => {
    const ns = uniq('names');
    await createNamespace(c, ns);
    const o = assertOk(await c.request('GET', `/api/v1/namespaces/${ns}`));
    assert.equal(o.metadata.labels['kubernetes.io/metadata.name'], ns);
    assert.equal(o.metadata.labels['platform.io/metadata.name'], ns);
    const patched = assertOk(
      await c.request('PATCH', `/api/v1/namespaces/${ns}`, { body: { metadata: { labels: { 'kubernetes.io/metadata.name': 'other' } } }, headers: { 'content-type': 'application/merge-patch+json' } }),
    );
    assert.equal(patched.metadata.labels['kubernetes.io/metadata.name'], ns, 'the label is immutable');
    const list = assertOk(await c.request('GET', `/api/v1/namespaces?labelSelector=${encodeURIComponent(`kubernetes.io/metadata.name=${ns}`)}`));
    assert.deepEqual(
      list.items.map((i: any) => i.metadata.name),
      [ns],
    );
    const generated = assertOk(await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { generateName: 'gen-' } } }), 201);
    assert.equal(generated.metadata.labels['kubernetes.io/metadata.name'], generated.metadata.name, 'generateName: labelled with the generated name');
  });

  it('kubernetes.io/* secret types are validated as their platform.io twins, with upstream messages', async () => {
    const ns = uniq('secrets');
    await createNamespace(c, ns);
    const post = (body: unknown) => c.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body });
    const cases: Array<[string, unknown, string]> = [
      ['tls', secret('tls', 'kubernetes.io/tls', { 'tls.key': 'k' }), 'Secret "tls" is invalid: data[tls.crt]: Required value'],
      ['tls-empty', secret('tls-empty', 'kubernetes.io/tls', {}), 'Secret "tls-empty" is invalid: [data[tls.crt]: Required value, data[tls.key]: Required value]'],
      ['ssh', secret('ssh', 'kubernetes.io/ssh-auth', {}), 'Secret "ssh" is invalid: data[ssh-privatekey]: Required value'],
      ['basic', secret('basic', 'kubernetes.io/basic-auth', {}), 'Secret "basic" is invalid: data[username]: Required value: at least one of `username` or `password` is required'],
      ['cfg', secret('cfg', 'kubernetes.io/dockercfg', {}), 'Secret "cfg" is invalid: data[.dockercfg]: Required value'],
      ['cfgjson', secret('cfgjson', 'kubernetes.io/dockerconfigjson', {}), 'Secret "cfgjson" is invalid: data[.dockerconfigjson]: Required value'],
      ['sa', secret('sa', 'kubernetes.io/service-account-token', {}), 'Secret "sa" is invalid: metadata.annotations[kubernetes.io/service-account.name]: Required value'],
    ];
    for (const [name, body, message] of cases) assert.equal(assertStatus(await post(body), 422, 'Invalid').message, message, name);
    assertOk(await post(secret('good', 'kubernetes.io/tls', { 'tls.crt': 'c', 'tls.key': 'k' })), 201);
    const changed = await c.request('PATCH', `/api/v1/namespaces/${ns}/secrets/good`, { body: { type: 'Opaque' }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(assertStatus(changed, 422, 'Invalid').message, 'Secret "good" is invalid: type: Invalid value: "Opaque": field is immutable');
  });

  it('a kubernetes.io/service-account-token secret gets its token, ca.crt and namespace from the token controller', async () => {
    const ns = uniq('satoken');
    await createNamespace(c, ns);
    const account = assertOk(await c.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'build-robot' } } }), 201);
    assertOk(
      await c.request('POST', `/api/v1/namespaces/${ns}/secrets`, {
        body: {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'build-robot-secret', annotations: { 'kubernetes.io/service-account.name': 'build-robot' } },
          type: 'kubernetes.io/service-account-token',
        },
      }),
      201,
    );
    const filled = await eventually('the token is written', async () => {
      const s = assertOk(await c.request('GET', `/api/v1/namespaces/${ns}/secrets/build-robot-secret`));
      assert.ok(s.data?.token, 'no token yet');
      return s;
    });
    assert.equal(unb64(filled.data.namespace), ns);
    assert.equal(unb64(filled.data['ca.crt']), c.caPem);
    assert.equal(filled.metadata.annotations['kubernetes.io/service-account.uid'], account.metadata.uid);
    const claims = JSON.parse(Buffer.from(unb64(filled.data.token).split('.')[1]!, 'base64url').toString('utf8'));
    assert.equal(claims.sub, `system:serviceaccount:${ns}:build-robot`);
  });

  it('a CSR to kubernetes.io/legacy-unknown is refused as its twin, and kube-apiserver-client refuses system:masters', async () => {
    const legacy = await c.request('POST', CSRS, { body: await csr('legacy', 'kubernetes.io/legacy-unknown', 'CN=x', ['client auth']) });
    assert.match(
      assertStatus(legacy, 422, 'Invalid').message,
      / "legacy" is invalid: spec\.signerName: Invalid value: "kubernetes\.io\/legacy-unknown": the legacy signerName is not allowed via this API version$/,
    );
    const masters = await c.request('POST', CSRS, { body: await csr('masters', 'kubernetes.io/kube-apiserver-client', 'CN=x,O=system:masters', ['client auth']) });
    assert.match(assertStatus(masters, 403, 'Forbidden').message, /use of kubernetes\.io\/kube-apiserver-client signer with system:masters group is not allowed$/);
  });

  it('approving a kubernetes.io/kube-apiserver-client CSR needs approve on the signer (either spelling); the controller signs it', async () => {
    const name = uniq('client');
    assertOk(await c.request('POST', CSRS, { body: await csr(name, 'kubernetes.io/kube-apiserver-client', 'CN=jane-client', ['digital signature', 'client auth']) }), 201);
    const jane = c.userToken;
    const role = uniq('approver');
    assertOk(
      await c.request('POST', `${RBAC}/clusterroles`, {
        body: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: role },
          rules: [{ verbs: ['update'], apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/approval'] }],
        },
      }),
      201,
    );
    assertOk(
      await c.request('POST', `${RBAC}/clusterrolebindings`, {
        body: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: role },
          subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'jane' }],
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        },
      }),
      201,
    );
    const current = assertOk(await c.request('GET', `${CSRS}/${name}`));
    const denied = await eventually('jane may update approval', async () => {
      const r = await c.request('PUT', `${CSRS}/${name}/approval`, { body: approved(current), token: jane });
      assert.match(r.text, /user not permitted to approve/);
      return r;
    });
    assert.match(assertStatus(denied, 403, 'Forbidden').message, /user not permitted to approve requests with signerName "kubernetes\.io\/kube-apiserver-client"$/);
    // A grant on the spec's name of the signer is a grant on upstream's.
    assertOk(
      await c.request('PATCH', `${RBAC}/clusterroles/${role}`, {
        body: {
          rules: [
            { verbs: ['update'], apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/approval'] },
            { verbs: ['approve'], apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['platform.io/apiserver-client'] },
          ],
        },
        headers: { 'content-type': 'application/merge-patch+json' },
      }),
    );
    await eventually('jane approves', async () => assertOk(await c.request('PUT', `${CSRS}/${name}/approval`, { body: approved(current), token: jane })));
    const issued = await eventually('the certificate is issued', async () => {
      const o = assertOk(await c.request('GET', `${CSRS}/${name}`));
      assert.ok(o.status?.certificate, 'not issued yet');
      return o;
    });
    const cert = new X509Certificate(unb64(issued.status.certificate));
    assert.match(cert.subject, /CN=jane-client/);
    assert.ok(cert.verify(new X509Certificate(c.caPem).publicKey), 'issued under the cluster CA');
  });

  it("a kubernetes.io/kube-apiserver-client-kubelet CSR is auto-approved and signed; kubelet-serving's rules are applied once approved", async () => {
    const client = uniq('kubelet-client');
    assertOk(
      await c.request('POST', CSRS, {
        body: await csr(client, 'kubernetes.io/kube-apiserver-client-kubelet', 'CN=system:node:n7,O=system:nodes', ['digital signature', 'key encipherment', 'client auth']),
      }),
      201,
    );
    const auto = await eventually('auto-approved and issued', async () => {
      const o = assertOk(await c.request('GET', `${CSRS}/${client}`));
      assert.ok(o.status?.certificate, 'not issued yet');
      return o;
    });
    assert.equal(auto.status.conditions.find((x: any) => x.type === 'Approved')?.reason, 'AutoApproved');

    const serving = uniq('kubelet-serving');
    const created = assertOk(
      await c.request('POST', CSRS, {
        body: await csr(serving, 'kubernetes.io/kubelet-serving', 'CN=system:node:n7,O=system:nodes', ['digital signature', 'key encipherment', 'server auth']),
      }),
      201,
    );
    assert.equal(created.status?.certificate, undefined);
    assertOk(await c.request('PUT', `${CSRS}/${serving}/approval`, { body: approved(created) }));
    // The serving signer's own rule (a custom signer's request would just stay approved).
    const failed = await eventually('the serving signer judges it', async () => {
      const o = assertOk(await c.request('GET', `${CSRS}/${serving}`));
      const f = o.status?.conditions?.find((x: any) => x.type === 'Failed');
      assert.ok(f, 'not judged yet');
      return f;
    });
    assert.deepEqual([failed.reason, failed.message], ['SignerValidationFailure', 'DNS or IP subjectAltName is required']);
  });

  it('kube-system, kube-public and kube-node-lease exist; kube-system and kube-public may not be deleted', async () => {
    for (const ns of ['kube-system', 'kube-public', 'kube-node-lease']) {
      const o = assertOk(await c.request('GET', `/api/v1/namespaces/${ns}`));
      assert.equal(o.metadata.labels['kubernetes.io/metadata.name'], ns);
    }
    for (const ns of ['kube-system', 'kube-public', 'platform-system']) {
      const r = await c.request('DELETE', `/api/v1/namespaces/${ns}`);
      assert.equal(assertStatus(r, 403, 'Forbidden').message, `namespaces "${ns}" is forbidden: this namespace may not be deleted`);
    }
  });

  it('cluster-info (the CA and server as a kubeconfig) is in platform-public and kube-public, and the bootstrap signer signs both as its own service account', async () => {
    const infos = [];
    for (const ns of ['platform-public', 'kube-public']) {
      infos.push(await eventually(`cluster-info in ${ns}`, async () => assertOk(await c.request('GET', `/api/v1/namespaces/${ns}/configmaps/cluster-info`))));
    }
    for (const info of infos) {
      const kubeconfig = YAML.parse(info.data.kubeconfig);
      assert.equal(kubeconfig.kind, 'Config');
      assert.equal(unb64(kubeconfig.clusters[0].cluster['certificate-authority-data']), c.caPem);
      assert.equal(kubeconfig.clusters[0].cluster.server, c.url);
    }
    const token = { id: 'abcdef', secret: '0123456789abcdef' };
    assertOk(
      await c.request('POST', '/api/v1/namespaces/platform-system/secrets', {
        body: secret(`bootstrap-token-${token.id}`, 'bootstrap.platform.io/token', { 'token-id': token.id, 'token-secret': token.secret, 'usage-bootstrap-signing': 'true' }),
      }),
      201,
    );
    for (const ns of ['platform-public', 'kube-public']) {
      await eventually(
        `cluster-info signed in ${ns}`,
        async () => {
          const o = assertOk(await c.request('GET', `/api/v1/namespaces/${ns}/configmaps/cluster-info`));
          assert.match(o.data[`jws-kubeconfig-${token.id}`] ?? '', /^[\w-]+\.\.[\w-]+$/);
        },
        { timeoutMs: 10_000, intervalMs: 100 },
      );
    }
    // It signed as its own account (made for it on first use), so its bootstrap Roles in both namespaces are what let it.
    assertOk(await c.request('GET', '/api/v1/namespaces/platform-system/serviceaccounts/bootstrap-signer'));
  });

  it('extension-apiserver-authentication is in kube-system too, readable by an aggregated server account bound there to the bootstrap reader Role', async () => {
    const path = (ns: string) => `/api/v1/namespaces/${ns}/configmaps/extension-apiserver-authentication`;
    const published = await eventually('the platform-system copy', async () => assertOk(await c.request('GET', path('platform-system'))).data, { timeoutMs: 10_000, intervalMs: 100 });
    assert.equal(published['requestheader-allowed-names'], '["front-proxy-client"]');
    const role = await eventually('the bootstrap Role in kube-system', async () => assertOk(await c.request('GET', `${RBAC}/namespaces/kube-system/roles/extension-apiserver-authentication-reader`)), {
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    assert.deepEqual(role.rules, [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['extension-apiserver-authentication'] }]);
    // metrics-server's manifest: its account in its own namespace, bound in kube-system (upstream spellings throughout).
    const ns = uniq('metrics');
    await createNamespace(c, ns);
    assertOk(await c.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'metrics-server' } } }), 201);
    const tokenRequest = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: [] } };
    const token: string = assertOk(await c.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts/metrics-server/token`, { body: tokenRequest }), 201).status.token;
    assertStatus(await c.request('GET', path('kube-system'), { token }), 403, 'Forbidden');
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: `${ns}:metrics-server-auth-reader`, namespace: 'kube-system' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'extension-apiserver-authentication-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'metrics-server', namespace: ns }],
    };
    assertOk(await c.request('POST', `${RBAC}/namespaces/kube-system/rolebindings`, { body: binding }), 201);
    const copy = await eventually('readable in kube-system', async () => assertOk(await c.request('GET', path('kube-system'), { token })), { timeoutMs: 5_000, intervalMs: 100 });
    assert.deepEqual(copy.data, published, 'the same data as the platform-system copy');
    // The binding in kube-system grants the kube-system copy only, and nothing else there.
    assertStatus(await c.request('GET', path('platform-system'), { token }), 403, 'Forbidden');
    assertStatus(await c.request('GET', '/api/v1/namespaces/kube-system/configmaps', { token }), 403, 'Forbidden');
  });

  it('a node keeps its Lease in kube-node-lease (Node authorizer and NodeRestriction), and kubectl describe node shows it', { skip: bin ? false : 'kubectl not on PATH' }, async () => {
    const node = uniq('n');
    const cert = await issueClientCert(c.ca, { commonName: `system:node:${node}`, organizations: ['system:nodes'] });
    assertOk(await c.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: node } } }), 201);
    const lease = (name: string) => ({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name },
      spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: '2030-01-01T00:00:00.000000Z' },
    });
    const leases = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';
    assertOk(await c.request('POST', leases, { body: lease(node), token: null, cert }), 201);
    const other = await c.request('POST', leases, { body: lease('someone-else'), token: null, cert });
    assert.equal(other.status, 403, other.text);
    const out = await new Kubectl(bin!, c.kubeconfigPath).run(['describe', 'node', node]);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, new RegExp(`Lease:\\s+HolderIdentity:\\s+${node}\\b`));
  });
});

describe('upstream well-known names with aliases off: only the spec names mean anything', () => {
  let c: TestCluster;
  before(async () => {
    const frontProxyCA = await createCA('upstream-names-off-front-proxy-ca');
    c = await startTestCluster({ gateway: { authenticationInfo: { requestHeaderCA: frontProxyCA.certPem } } });
  });
  after(async () => {
    await c?.stop();
  });

  it('no kubernetes.io label, kubernetes.io/tls is a plain type, no kube-* namespaces or their default Roles, the upstream legacy signer is any signer', async () => {
    const ns = uniq('off');
    await createNamespace(c, ns);
    const o = assertOk(await c.request('GET', `/api/v1/namespaces/${ns}`));
    assert.deepEqual(o.metadata.labels, { 'platform.io/metadata.name': ns });
    assertOk(await c.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: secret('tls', 'kubernetes.io/tls', {}) }), 201);
    const tls = assertStatus(await c.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: secret('ptls', 'platform.io/tls', {}) }), 422, 'Invalid');
    assert.match(tls.message, /data\[tls\.crt\]: Required value/);
    // Once the gateway has published its ConfigMap and authz written its default Roles, nothing of them went to a kube-* namespace.
    const waitLong = { timeoutMs: 10_000, intervalMs: 100 };
    await eventually('the platform-system ConfigMap', async () => assertOk(await c.request('GET', '/api/v1/namespaces/platform-system/configmaps/extension-apiserver-authentication')), waitLong);
    await eventually(
      'the default Roles',
      async () => {
        assertOk(await c.request('GET', '/apis/rbac.authorization.platform.io/v1/namespaces/platform-public/roles/system:controller:bootstrap-signer'));
        assertOk(await c.request('GET', '/apis/rbac.authorization.platform.io/v1/namespaces/platform-system/rolebindings/system::extension-apiserver-authentication-reader'));
      },
      waitLong,
    );
    for (const n of ['kube-system', 'kube-public', 'kube-node-lease']) assertStatus(await c.request('GET', `/api/v1/namespaces/${n}`), 404, 'NotFound');
    const legacy = {
      apiVersion: 'certificates.platform.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: uniq('legacy') },
      spec: { request: await csrRequest('CN=x'), signerName: 'kubernetes.io/legacy-unknown', usages: ['client auth'] },
    };
    assertOk(await c.request('POST', '/apis/certificates.platform.io/v1/certificatesigningrequests', { body: legacy }), 201);
    // A kube-system made by a user is an ordinary namespace.
    await createNamespace(c, 'kube-system');
    assertOk(await c.request('DELETE', '/api/v1/namespaces/kube-system'));
  });
});
