import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../api/types.js';
import { certificatesigningrequests as csr } from '../builtin/certificates/certificate-signing-request.js';
import { b64, createFlow, fields, schemaErrors } from './builtin-helpers.js';
import { samples } from './builtin-samples.js';

const base = samples['certificates.platform.io/certificatesigningrequests']!;
const der = Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00]).toString('base64');
const pem = (type: string, body = der, headers = '') => `-----BEGIN ${type}-----\n${headers}${body}\n-----END ${type}-----\n`;

function withSpec(patch: Record<string, unknown>): ApiObject {
  const o = structuredClone(base);
  Object.assign(o.spec as object, patch);
  for (const [k, v] of Object.entries(patch)) if (v === undefined) delete (o.spec as Record<string, unknown>)[k];
  return o;
}

function withStatus(status: Record<string, unknown>): ApiObject {
  return { ...structuredClone(base), status };
}

function statusErrors(o: ApiObject): string[] {
  // Status arrives through /status, so it is validated as an update of the created object.
  const created = createFlow(csr, base).obj;
  return fields(csr.strategy!.validateUpdate!({ ...created, status: o.status }, created));
}

describe('certificatesigningrequests spec rules', () => {
  const cases: Array<[string, ApiObject, string[]]> = [
    ['valid request', base, []],
    ['signerName missing', withSpec({ signerName: undefined }), ['spec.signerName: Required value']],
    ['signerName without path', withSpec({ signerName: 'example.com' }), ['spec.signerName: Invalid value']],
    ['legacy-unknown signer not creatable', withSpec({ signerName: 'platform.io/legacy-unknown' }), ['spec.signerName: Invalid value']],
    ['expirationSeconds 599', withSpec({ expirationSeconds: 599 }), ['spec.expirationSeconds: Invalid value']],
    ['expirationSeconds 600', withSpec({ expirationSeconds: 600 }), []],
    ['usages missing', withSpec({ usages: undefined }), ['spec.usages: Required value']],
    ['usages empty', withSpec({ usages: [] }), ['spec.usages: Required value']],
    ['duplicate usage', withSpec({ usages: ['client auth', 'client auth'] }), ['spec.usages[1]: Duplicate value']],
    ['request is not a CSR PEM', withSpec({ request: b64(pem('CERTIFICATE')) }), ['spec.request: Invalid value']],
    ['request body is not DER', withSpec({ request: b64(pem('CERTIFICATE REQUEST', 'aGVsbG8=')) }), ['spec.request: Invalid value']],
  ];
  for (const [name, obj, want] of cases) {
    it(name, () => assert.deepEqual(fields(createFlow(csr, obj).errors), want));
  }

  it('accepts only known usages (schema enum)', () => {
    assert.deepEqual(schemaErrors(csr, withSpec({ usages: ['server auth', 'ocsp signing', 'netscape sgc', 's/mime'] })), []);
    assert.equal(schemaErrors(csr, withSpec({ usages: ['serverauth'] })).length, 1);
  });

  it('requires request and signerName in the schema', () => {
    assert.ok(schemaErrors(csr, withSpec({ request: undefined })).some((e) => e.includes('request')));
  });

  it('keeps an existing object with the legacy signer updatable', () => {
    const old = createFlow(csr, base).obj;
    (old.spec as Record<string, unknown>).signerName = 'platform.io/legacy-unknown';
    assert.deepEqual(csr.strategy!.validateUpdate!(structuredClone(old), old), []);
  });

  it('keeps the spec on updates of the main resource', () => {
    const old = createFlow(csr, base).obj;
    const next = withSpec({ signerName: 'example.com/other' });
    csr.strategy!.prepareForUpdate!(next, old);
    assert.deepEqual(next.spec, old.spec);
  });
});

describe('certificatesigningrequests status rules', () => {
  const cases: Array<[string, Record<string, unknown>, string[]]> = [
    ['approved', { conditions: [{ type: 'Approved', status: 'True', reason: 'AutoApproved' }] }, []],
    ['failed', { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Failed', status: 'True', message: 'no' }] }, []],
    ['condition without status', { conditions: [{ type: 'Approved' }] }, ['status.conditions[0].status: Required value']],
    ['unknown condition type', { conditions: [{ type: 'Issued', status: 'True' }] }, ['status.conditions[0].type: Unsupported value']],
    ['duplicate condition type', { conditions: [{ type: 'Denied', status: 'True' }, { type: 'Denied', status: 'True' }] }, ['status.conditions[1].type: Duplicate value']],
    ['approved and denied', { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Denied', status: 'True' }] }, ['status.conditions: Invalid value']],
    ['one certificate', { certificate: b64(pem('CERTIFICATE')) }, []],
    ['chain with text around blocks', { certificate: b64(`subject=leaf\n${pem('CERTIFICATE')}issuer\n${pem('CERTIFICATE')}trailing`) }, []],
    ['no PEM block', { certificate: b64('not a certificate') }, ['status.certificate: Invalid value']],
    ['non-CERTIFICATE block', { certificate: b64(pem('CERTIFICATE') + pem('RSA PRIVATE KEY')) }, ['status.certificate: Invalid value']],
    ['block with headers', { certificate: b64(pem('CERTIFICATE', der, 'Proc-Type: 4,ENCRYPTED\n\n')) }, ['status.certificate: Invalid value']],
    ['bad base64 in block', { certificate: b64(pem('CERTIFICATE', '!!!!')) }, ['status.certificate: Invalid value']],
    ['block that is not DER', { certificate: b64(pem('CERTIFICATE', 'aGVsbG8=')) }, ['status.certificate: Invalid value']],
  ];
  for (const [name, status, want] of cases) {
    it(name, () => assert.deepEqual(statusErrors(withStatus(status)), want));
  }

  it('requires condition type and status in the schema', () => {
    assert.equal(schemaErrors(csr, withStatus({ conditions: [{ type: 'Approved' }] })).length, 1);
  });

  it('never drops an approval or rewrites an issued certificate', () => {
    const old = { ...createFlow(csr, base).obj, status: { conditions: [{ type: 'Approved', status: 'True' }], certificate: b64(pem('CERTIFICATE')) } };
    const dropped = { ...structuredClone(old), status: { certificate: b64(pem('CERTIFICATE')) } };
    assert.deepEqual(fields(csr.strategy!.validateUpdate!(dropped, old)), ['status.conditions: Forbidden']);
    const rewritten = structuredClone(old);
    (rewritten.status as Record<string, unknown>).certificate = b64(pem('CERTIFICATE') + pem('CERTIFICATE'));
    assert.deepEqual(fields(csr.strategy!.validateUpdate!(rewritten, old)), ['status.certificate: Forbidden']);
  });

  it('shows the condition column', () => {
    const col = csr.columns!.find((c) => c.name === 'Condition')!;
    assert.equal(col.cell(base), 'Pending');
    assert.equal(col.cell(withStatus({ conditions: [{ type: 'Approved', status: 'True' }], certificate: 'eA==' })), 'Approved,Issued');
  });
});
