import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serviceUnavailable, timeout } from '../../../shared/api/status.js';
import type { ApiObject } from '../../../shared/api/types.js';
import { silentLogger } from '../../../shared/log.js';
import type { AdmissionRequest, AuthzAttributes } from '../../../shared/bus/messages.js';
import { csrPem, csrRequest } from '../../../test/support/csr.js';
import { runAdmissionChain } from '../chain.js';
import type { AdmissionPlugin } from '../types.js';
import { createCertificateApproval } from '../plugins/certificates/certificate-approval.js';
import { createCertificateSigning } from '../plugins/certificates/certificate-signing.js';
import { createCertificateSubjectRestriction } from '../plugins/certificates/certificate-subject-restriction.js';
import type { Authorize } from '../plugins/certificates/signer-authorization.js';

const GROUP = 'certificates.platform.io';
const CERT = Buffer.from('-----BEGIN CERTIFICATE-----\nMAMCAQA=\n-----END CERTIFICATE-----\n').toString('base64');

function csr(signerName: string, status?: Record<string, unknown>, request = 'cmVxdWVzdA=='): ApiObject {
  return { apiVersion: `${GROUP}/v1`, kind: 'CertificateSigningRequest', metadata: { name: 'csr1' }, spec: { request, signerName, usages: ['client auth'] }, ...(status ? { status } : {}) };
}

function req(over: Partial<AdmissionRequest>): AdmissionRequest {
  return {
    uid: 'u',
    phase: 'validating',
    kind: { group: GROUP, version: 'v1', kind: 'CertificateSigningRequest' },
    resource: { group: GROUP, version: 'v1', resource: 'certificatesigningrequests' },
    name: 'csr1',
    operation: 'UPDATE',
    userInfo: { username: 'jane', groups: ['system:authenticated'] },
    object: csr('example.com/foo'),
    oldObject: csr('example.com/foo'),
    dryRun: false,
    ...over,
  };
}

/** An authorizer allowing exactly `grants` (`<verb> <signer name>`), or failing with `error`; it records every question. */
function fakeAuthz(grants: string[], error?: Error): { authorize: Authorize; asked: string[] } {
  const asked: string[] = [];
  const authorize: Authorize = async (a: AuthzAttributes) => {
    assert.equal(a.apiGroup, GROUP);
    assert.equal(a.resource, 'signers');
    assert.equal(a.isResourceRequest, true);
    asked.push(`${a.verb} ${a.name}`);
    if (error) throw error;
    return { decision: grants.includes(`${a.verb} ${a.name}`) ? 'Allow' : 'NoOpinion' };
  };
  return { authorize, asked };
}

type Outcome = 'allowed' | { code: number; message: string };

async function run(plugin: AdmissionPlugin, r: AdmissionRequest): Promise<Outcome> {
  // Through the chain, so the plugin's match is applied as in the service.
  const reply = await runAdmissionChain([plugin], r, silentLogger());
  return reply.allowed ? 'allowed' : { code: reply.status!.code, message: reply.status!.message };
}

const forbidden = (why: string) => ({ code: 403, message: `certificatesigningrequests.${GROUP} "csr1" is forbidden: ${why}` });

interface Case {
  name: string;
  grants?: string[];
  authzError?: Error;
  req: AdmissionRequest;
  want: Outcome;
  asked?: string[];
}

function table(create: (a: Authorize) => AdmissionPlugin, cases: Case[]): void {
  for (const c of cases) {
    test(c.name, async () => {
      const { authorize, asked } = fakeAuthz(c.grants ?? [], c.authzError);
      assert.deepEqual(await run(create(authorize), c.req), c.want);
      if (c.asked) assert.deepEqual(asked, c.asked);
    });
  }
}

describe('CertificateApproval', () => {
  const approval = (over: Partial<AdmissionRequest> = {}) => req({ subResource: 'approval', ...over });
  table(createCertificateApproval, [
    { name: 'approve on the exact signer name allows', grants: ['approve example.com/foo'], req: approval(), want: 'allowed', asked: ['approve example.com/foo'] },
    { name: 'approve on <domain>/* allows', grants: ['approve example.com/*'], req: approval(), want: 'allowed', asked: ['approve example.com/foo', 'approve example.com/*'] },
    { name: 'no approve permission is 403', req: approval(), want: forbidden('user not permitted to approve requests with signerName "example.com/foo"') },
    {
      name: 'sign does not imply approve',
      grants: ['sign example.com/foo', 'sign example.com/*'],
      req: approval(),
      want: forbidden('user not permitted to approve requests with signerName "example.com/foo"'),
    },
    {
      name: "another domain's wildcard does not help",
      grants: ['approve example.org/*'],
      req: approval(),
      want: forbidden('user not permitted to approve requests with signerName "example.com/foo"'),
    },
    {
      name: 'the stored signer is checked, not the one sent',
      grants: ['approve example.com/foo'],
      req: approval({ object: csr('example.com/foo'), oldObject: csr('platform.io/apiserver-client') }),
      want: forbidden('user not permitted to approve requests with signerName "platform.io/apiserver-client"'),
    },
    { name: 'authz unreachable refuses with its 503', authzError: serviceUnavailable('no responders'), req: approval(), want: { code: 503, message: 'no responders' } },
    { name: 'a status update is not an approval', req: approval({ subResource: 'status' }), want: 'allowed', asked: [] },
    { name: 'a main-resource update is not an approval', req: approval({ subResource: undefined }), want: 'allowed', asked: [] },
    { name: 'a create is not an approval', req: approval({ operation: 'CREATE', oldObject: null }), want: 'allowed', asked: [] },
    {
      name: "another resource's approval subresource is not checked",
      req: approval({ resource: { group: 'example.com', version: 'v1', resource: 'certificatesigningrequests' } }),
      want: 'allowed',
      asked: [],
    },
  ]);
});

describe('CertificateSigning', () => {
  const approved = { conditions: [{ type: 'Approved', status: 'True' }] };
  const status = (over: Partial<AdmissionRequest> = {}) =>
    req({ subResource: 'status', oldObject: csr('example.com/foo', approved), object: csr('example.com/foo', { ...approved, certificate: CERT }), ...over });
  table(createCertificateSigning, [
    { name: 'sign on the exact signer name allows issuing', grants: ['sign example.com/foo'], req: status(), want: 'allowed', asked: ['sign example.com/foo'] },
    { name: 'sign on <domain>/* allows issuing', grants: ['sign example.com/*'], req: status(), want: 'allowed' },
    { name: 'no sign permission is 403', req: status(), want: forbidden('user not permitted to sign requests with signerName "example.com/foo"') },
    {
      name: 'approve does not imply sign',
      grants: ['approve example.com/foo', 'approve example.com/*'],
      req: status(),
      want: forbidden('user not permitted to sign requests with signerName "example.com/foo"'),
    },
    {
      name: 'a status write that leaves the certificate alone needs no sign permission',
      req: status({ object: csr('example.com/foo', { conditions: [...approved.conditions, { type: 'Failed', status: 'True' }] }) }),
      want: 'allowed',
      asked: [],
    },
    { name: 'authz timing out refuses with its 504', authzError: timeout('authz did not answer'), req: status(), want: { code: 504, message: 'authz did not answer' } },
    { name: 'the approval subresource is not signing', req: status({ subResource: 'approval' }), want: 'allowed', asked: [] },
  ]);
});

describe('CertificateSubjectRestriction', () => {
  let masters: string;
  let developers: string;
  before(async () => {
    masters = await csrRequest('CN=eve, O=system:masters');
    developers = await csrRequest('CN=jane, O=developers');
  });
  const create =
    (signerName: string, request: () => string, over: Partial<AdmissionRequest> = {}) =>
    () =>
      req({ operation: 'CREATE', oldObject: null, object: csr(signerName, undefined, request()), ...over });
  const notCsrPem = () => Buffer.from('-----BEGIN CERTIFICATE-----\nMAMCAQA=\n-----END CERTIFICATE-----\n').toString('base64');
  const notCsrDer = () => Buffer.from('-----BEGIN CERTIFICATE REQUEST-----\nMAMCAQA=\n-----END CERTIFICATE REQUEST-----\n').toString('base64');
  const cases: Array<{ name: string; req: () => AdmissionRequest; want: Outcome | RegExp }> = [
    {
      name: 'system:masters for the API server client signer is 403',
      req: create('platform.io/apiserver-client', () => masters),
      want: forbidden('use of platform.io/apiserver-client signer with system:masters group is not allowed'),
    },
    { name: 'another organization for that signer is allowed', req: create('platform.io/apiserver-client', () => developers), want: 'allowed' },
    { name: 'system:masters for another signer is allowed', req: create('example.com/foo', () => masters), want: 'allowed' },
    {
      name: 'a PEM block that is no certificate request is 403',
      req: create('platform.io/apiserver-client', notCsrPem),
      want: forbidden('failed to parse CSR: PEM block type must be CERTIFICATE REQUEST'),
    },
    { name: 'a certificate request that does not parse is 403', req: create('platform.io/apiserver-client', notCsrDer), want: /is forbidden: failed to parse CSR: / },
    { name: 'an update is not checked', req: create('platform.io/apiserver-client', () => masters, { operation: 'UPDATE', oldObject: csr('platform.io/apiserver-client') }), want: 'allowed' },
    { name: 'a subresource write is not checked', req: create('platform.io/apiserver-client', () => masters, { subResource: 'status' }), want: 'allowed' },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const got = await run(createCertificateSubjectRestriction(), c.req());
      if (c.want instanceof RegExp) {
        assert.ok(got !== 'allowed' && got.code === 403, JSON.stringify(got));
        assert.match(got.message, c.want);
      } else assert.deepEqual(got, c.want);
    });
  }

  test('system:masters among several organizations is found', async () => {
    const pem = await csrPem('CN=eve, O=developers, O=system:masters');
    const got = await run(
      createCertificateSubjectRestriction(),
      req({ operation: 'CREATE', oldObject: null, object: csr('platform.io/apiserver-client', undefined, Buffer.from(pem).toString('base64')) }),
    );
    assert.deepEqual(got, forbidden('use of platform.io/apiserver-client signer with system:masters group is not allowed'));
  });
});

test('certificate plugins are validating and say which requests they want', () => {
  const { authorize } = fakeAuthz([]);
  for (const p of [createCertificateApproval(authorize), createCertificateSigning(authorize), createCertificateSubjectRestriction()]) {
    assert.equal(p.mutate, undefined, p.name);
    assert.ok(p.validate, p.name);
    assert.deepEqual(p.match?.resources, [{ group: GROUP, resource: 'certificatesigningrequests' }], p.name);
  }
});
