// End to end: certificate signing requests through the real HTTPS gateway with
// `--authorization-mode=RBAC` and the default admission plugins. What a user sees: the requester
// recorded from their credentials, approval through `/approval` gated by `approve` on the signer
// (exact name or `<domain>/*`), issuance through `/status` gated by `sign`, neither path able to
// do the other's job, the bootstrap approver roles, and no `system:masters` client certificates.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { csrRequest } from '../support/csr.js';
import { assertOk, assertStatus, eventually, uniq } from './helpers.js';

const RBAC = 'rbac.authorization.platform.io';
const RBAC_V1 = `/apis/${RBAC}/v1`;
const CERTS = 'certificates.platform.io';
const CSRS = `/apis/${CERTS}/v1/certificatesigningrequests`;
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

type Res = Awaited<ReturnType<TestCluster['request']>>;
type Rule = { verbs: string[]; apiGroups: string[]; resources: string[]; resourceNames?: string[] };

const clusterRole = (name: string, rules: Rule[]) => ({ apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name }, rules });
const bindToJane = (name: string, roleName: string) => ({
  apiVersion: `${RBAC}/v1`,
  kind: 'ClusterRoleBinding',
  metadata: { name },
  subjects: [{ kind: 'User', apiGroup: RBAC, name: 'jane' }],
  roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: roleName },
});

function csrBody(name: string, request: string, signerName: string, spec: Record<string, unknown> = {}) {
  return { apiVersion: `${CERTS}/v1`, kind: 'CertificateSigningRequest', metadata: { name }, spec: { request, signerName, usages: ['digital signature', 'client auth'], ...spec } };
}

function forbiddenMessage(res: Res): string {
  return assertStatus(res, 403, 'Forbidden').message as string;
}

describe('certificate signing requests (RBAC)', () => {
  let c: TestCluster;
  let jane: string;

  const withToken = (token: string | undefined) => (token === undefined ? {} : { token });
  const get = async (name: string, sub = '') => assertOk(await c.request('GET', `${CSRS}/${name}${sub}`));
  const put = (name: string, sub: string, body: unknown, token?: string) => c.request('PUT', `${CSRS}/${name}/${sub}`, { body, ...withToken(token) });
  /** Jane's copy of the CSR with `change` applied to its status, as kubectl sends it. */
  const withStatus = async (name: string, change: (status: Record<string, any>) => void) => {
    const o = await get(name);
    o.status ??= {};
    change(o.status);
    return o;
  };
  const approve = (status: Record<string, any>) => {
    status.conditions = [...(status.conditions ?? []), { type: 'Approved', status: 'True', reason: 'E2E', message: 'approved by the e2e test' }];
  };
  /** Admin grants jane a ClusterRole with `rules`. */
  const grantJane = async (prefix: string, rules: Rule[]) => {
    const name = uniq(prefix);
    assertOk(await c.request('POST', `${RBAC_V1}/clusterroles`, { body: clusterRole(name, rules) }), 201);
    assertOk(await c.request('POST', `${RBAC_V1}/clusterrolebindings`, { body: bindToJane(name, name) }), 201);
  };
  const createCsr = async (name: string, signerName: string, subject = `CN=${name}`, token?: string, spec: Record<string, unknown> = {}) =>
    assertOk(await c.request('POST', CSRS, { body: csrBody(name, await csrRequest(subject), signerName, spec), ...withToken(token) }), 201);

  before(async () => {
    c = await startTestCluster({ authorizationModes: ['RBAC'] });
    jane = c.userToken;
    // The admin is in system:masters, which RBAC knows only once the bootstrap policy is written.
    await eventually('the default policy is written', async () => assertOk(await c.request('GET', `${RBAC_V1}/clusterrolebindings/cluster-admin`)), { timeoutMs: 10_000 });
    await grantJane('csr-requester', [{ verbs: ['create', 'get', 'list', 'watch'], apiGroups: [CERTS], resources: ['certificatesigningrequests'] }]);
    await eventually('jane may create CSRs', async () => assertOk(await c.request('GET', CSRS, { token: jane })), { timeoutMs: 5_000 });
  });

  after(async () => {
    await c?.stop();
  });

  it('create - the requester is the caller, whatever the client wrote', async () => {
    const csr = await createCsr('jane-client', 'example.com/foo', 'CN=jane', jane, { username: 'platform-admin', uid: 'admin-uid', groups: ['system:masters'] });
    assert.equal(csr.spec.username, 'jane');
    assert.equal(csr.spec.uid, 'jane-uid');
    assert.deepEqual(csr.spec.groups, ['developers', 'qa', 'system:authenticated']);
    assert.deepEqual(csr.status, {}, 'a new request is pending: no conditions, no certificate (an empty status, as upstream writes it)');
    const stored = await get('jane-client');
    assert.equal(stored.spec.username, 'jane');
  });

  it('approval - update on /approval without approve on the signer is 403 from CertificateApproval', async () => {
    await createCsr('to-approve', 'example.com/foo');
    await grantJane('csr-approval-writer', [{ verbs: ['update', 'patch'], apiGroups: [CERTS], resources: ['certificatesigningrequests/approval'] }]);
    const want = `certificatesigningrequests.${CERTS} "to-approve" is forbidden: user not permitted to approve requests with signerName "example.com/foo"`;
    // Until the grant is seen, RBAC itself says no (another 403); then admission does.
    await eventually('the admission plugin refuses jane', async () => assert.equal(forbiddenMessage(await put('to-approve', 'approval', await withStatus('to-approve', approve), jane)), want), {
      timeoutMs: 5_000,
    });
    assert.equal((await get('to-approve')).status?.conditions, undefined, 'nothing was approved');
  });

  it('approval - approve on <domain>/* lets jane approve; the condition appears, timestamped, and GET /approval shows it', async () => {
    await grantJane('example-approver', [{ verbs: ['approve'], apiGroups: [CERTS], resources: ['signers'], resourceNames: ['example.com/*'] }]);
    const res = await eventually('jane may approve example.com signers', async () => assertOk(await put('to-approve', 'approval', await withStatus('to-approve', approve), jane)), {
      timeoutMs: 5_000,
    });
    const [cond, ...rest] = res.status.conditions;
    assert.deepEqual(rest, []);
    assert.equal(cond.type, 'Approved');
    assert.equal(cond.reason, 'E2E');
    assert.match(cond.lastUpdateTime, RFC3339);
    assert.match(cond.lastTransitionTime, RFC3339);
    const viaApproval = await get('to-approve', '/approval');
    assert.equal(viaApproval.kind, 'CertificateSigningRequest');
    assert.deepEqual(viaApproval.status.conditions, res.status.conditions);
    // The wildcard covers only its own domain.
    await createCsr('other-domain', 'example.org/foo');
    assert.match(forbiddenMessage(await put('other-domain', 'approval', await withStatus('other-domain', approve), jane)), /user not permitted to approve requests with signerName "example.org\/foo"/);
  });

  it('approval - the approval path changes only the conditions', async () => {
    const sent = await withStatus('to-approve', (s) => (s.certificate = Buffer.from(c.caPem).toString('base64')));
    sent.spec.signerName = 'example.com/bar';
    const res = assertOk(await put('to-approve', 'approval', sent, jane));
    assert.equal(res.spec.signerName, 'example.com/foo');
    assert.equal(res.status.certificate, undefined);
  });

  it('status - a status writer can neither add nor remove nor rewrite an approval', async () => {
    await grantJane('csr-status-writer', [{ verbs: ['update', 'patch'], apiGroups: [CERTS], resources: ['certificatesigningrequests/status'] }]);
    const approved = await get('to-approve');
    const removed = await eventually(
      'jane may write CSR status',
      async () => {
        const r = await put('to-approve', 'status', { ...approved, status: { conditions: [] } }, jane);
        assert.notEqual(r.status, 403, r.text);
        return r;
      },
      { timeoutMs: 5_000 },
    );
    assert.match(assertStatus(removed, 422, 'Invalid').message, /updates may not remove a condition of type "Approved"/);

    await createCsr('pending', 'example.com/foo');
    const added = await put('pending', 'status', await withStatus('pending', approve), jane);
    assert.match(assertStatus(added, 422, 'Invalid').message, /updates may not add a condition of type "Approved"/);
    assert.equal((await get('pending')).status?.conditions, undefined);

    // An edited decision is put back as it was stored.
    const edited = await withStatus('to-approve', (s) => (s.conditions[0].reason = 'Forged'));
    assert.equal(assertOk(await put('to-approve', 'status', edited, jane)).status.conditions[0].reason, 'E2E');
  });

  it('signing - setting the certificate without sign on the signer is 403; with it the certificate is stored', async () => {
    const certificate = Buffer.from(c.caPem).toString('base64');
    const want = `certificatesigningrequests.${CERTS} "to-approve" is forbidden: user not permitted to sign requests with signerName "example.com/foo"`;
    assert.equal(forbiddenMessage(await put('to-approve', 'status', await withStatus('to-approve', (s) => (s.certificate = certificate)), jane)), want);
    assert.equal((await get('to-approve')).status.certificate, undefined);

    await grantJane('example-signer', [{ verbs: ['sign'], apiGroups: [CERTS], resources: ['signers'], resourceNames: ['example.com/*'] }]);
    const signed = await eventually(
      'jane may sign example.com signers',
      async () => assertOk(await put('to-approve', 'status', await withStatus('to-approve', (s) => (s.certificate = certificate)), jane)),
      { timeoutMs: 5_000 },
    );
    assert.equal(signed.status.certificate, certificate);
    assert.equal((await get('to-approve')).status.certificate, certificate);
    assert.deepEqual(
      signed.status.conditions.map((x: { type: string }) => x.type),
      ['Approved'],
    );
  });

  it('bootstrap roles - system:certificates.platform.io:apiserver-client-agent-approver approves agent client requests', async () => {
    const role = 'system:certificates.platform.io:apiserver-client-agent-approver';
    await eventually('the bootstrap approver role exists', async () => assertOk(await c.request('GET', `${RBAC_V1}/clusterroles/${encodeURIComponent(role)}`)), { timeoutMs: 5_000 });
    await createCsr('agent-client', 'platform.io/apiserver-client-agent', 'CN=system:node:n1, O=system:nodes');
    assert.match(forbiddenMessage(await put('agent-client', 'approval', await withStatus('agent-client', approve), jane)), /signerName "platform.io\/apiserver-client-agent"/);
    assertOk(await c.request('POST', `${RBAC_V1}/clusterrolebindings`, { body: bindToJane(uniq('agent-approver'), role) }), 201);
    const res = await eventually('jane may approve agent client requests', async () => assertOk(await put('agent-client', 'approval', await withStatus('agent-client', approve), jane)), {
      timeoutMs: 5_000,
    });
    assert.equal(res.status.conditions[0].type, 'Approved');
  });

  it('subject restriction - nobody gets a system:masters client certificate request past admission', async () => {
    for (const token of [undefined, jane]) {
      const res = await c.request('POST', CSRS, { body: csrBody(uniq('masters'), await csrRequest('CN=mallory, O=system:masters'), 'platform.io/apiserver-client'), ...withToken(token) });
      assert.match(forbiddenMessage(res), /is forbidden: use of platform.io\/apiserver-client signer with system:masters group is not allowed$/);
    }
    // The same subject for another signer, or another group for this one, is fine.
    await createCsr(uniq('masters-elsewhere'), 'example.com/foo', 'CN=mallory, O=system:masters');
    await createCsr(uniq('devs'), 'platform.io/apiserver-client', 'CN=jane, O=developers', jane);
  });
});
