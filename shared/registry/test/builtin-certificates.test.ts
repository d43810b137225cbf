import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject, UserInfo } from '../../api/types.js';
import type { StrategyContext } from '../types.js';
import { certificatesigningrequests as csr } from '../builtin/certificates/certificate-signing-request.js';
import { b64, createFlow, fields, schemaErrors, testStrategyContext } from './builtin-helpers.js';
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

const approval = csr.strategy!.subresources!.approval!;
const statusSub = csr.strategy!.subresources!.status!;
const NOW = '2026-03-04T05:06:07Z';
const ctx: StrategyContext = { ...testStrategyContext, now: NOW };

/** The gateway's `/status` path: status from the client, the rest kept, then the CSR's status strategy. */
function throughStatus(sent: ApiObject, old: ApiObject): ApiObject {
  return statusSub.prepareForUpdate({ ...old, metadata: { ...old.metadata }, status: sent.status }, old, ctx);
}

function statusErrors(o: ApiObject): string[] {
  // Conditions arrive through /approval and certificates through /status: each is validated as an
  // update of the created object along its own path.
  const created = createFlow(csr, base).obj;
  const sent = { ...structuredClone(created), status: o.status };
  const errs = at(o, 'certificate') !== undefined ? statusSub.validateUpdate!(throughStatus(sent, created), created) : approval.validateUpdate!(approval.prepareForUpdate(sent, created, ctx), created);
  return fields(errs);
}

function at(o: ApiObject, key: 'certificate' | 'conditions'): unknown {
  return (o.status as Record<string, unknown> | undefined)?.[key];
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
    csr.strategy!.prepareForUpdate!(next, old, ctx);
    assert.deepEqual(next.spec, old.spec);
  });
});

describe('certificatesigningrequests create records the requester', () => {
  const jane: UserInfo = { username: 'jane', uid: 'jane-uid', groups: ['developers', 'system:authenticated'], extra: { scopes: ['a', 'b'] } };
  const forged = { username: 'root', uid: 'root-uid', groups: ['system:masters'], extra: { forged: ['yes'] } };
  const cases: Array<[string, UserInfo, Record<string, unknown>]> = [
    ['the requesting user replaces what the client wrote', jane, { username: 'jane', uid: 'jane-uid', groups: ['developers', 'system:authenticated'], extra: { scopes: ['a', 'b'] } }],
    ['a user without uid, groups or extra leaves them unset', { username: 'bob', groups: [] }, { username: 'bob' }],
  ];
  for (const [name, user, want] of cases) {
    it(name, () => {
      const { obj } = createFlow(csr, withSpec(forged), 'v1', { now: NOW, user });
      const spec = obj.spec as Record<string, unknown>;
      assert.deepEqual({ username: spec.username, uid: spec.uid, groups: spec.groups, extra: spec.extra }, { username: undefined, uid: undefined, groups: undefined, extra: undefined, ...want });
      assert.equal(spec.signerName, 'platform.io/apiserver-client', "the rest of the spec is the client's");
    });
  }
});

describe('certificatesigningrequests status rules', () => {
  const cases: Array<[string, Record<string, unknown>, string[]]> = [
    ['approved', { conditions: [{ type: 'Approved', status: 'True', reason: 'AutoApproved' }] }, []],
    [
      'failed',
      {
        conditions: [
          { type: 'Approved', status: 'True' },
          { type: 'Failed', status: 'True', message: 'no' },
        ],
      },
      [],
    ],
    ['condition without status', { conditions: [{ type: 'Approved' }] }, ['status.conditions[0].status: Required value']],
    ['unknown condition type', { conditions: [{ type: 'Issued', status: 'True' }] }, ['status.conditions[0].type: Unsupported value']],
    [
      'duplicate condition type',
      {
        conditions: [
          { type: 'Denied', status: 'True' },
          { type: 'Denied', status: 'True' },
        ],
      },
      ['status.conditions[1].type: Duplicate value'],
    ],
    [
      'approved and denied',
      {
        conditions: [
          { type: 'Approved', status: 'True' },
          { type: 'Denied', status: 'True' },
        ],
      },
      ['status.conditions: Invalid value'],
    ],
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
    const dropped = approval.prepareForUpdate({ ...structuredClone(old), status: {} }, old, ctx);
    assert.deepEqual(fields(approval.validateUpdate!(dropped, old)), ['status.conditions: Forbidden']);
    const rewritten = structuredClone(old);
    (rewritten.status as Record<string, unknown>).certificate = b64(pem('CERTIFICATE') + pem('CERTIFICATE'));
    assert.deepEqual(fields(statusSub.validateUpdate!(throughStatus(rewritten, old), old)), ['status.certificate: Forbidden']);
  });

  it('shows the condition column', () => {
    const col = csr.columns!.find((c) => c.name === 'Condition')!;
    assert.equal(col.cell(base), 'Pending');
    assert.equal(col.cell(withStatus({ conditions: [{ type: 'Approved', status: 'True' }], certificate: 'eA==' })), 'Approved,Issued');
  });
});

describe('certificatesigningrequests updates through subresources', () => {
  const T0 = '2026-01-01T00:00:00Z';
  const CERT = b64(pem('CERTIFICATE'));
  const created = createFlow(csr, base).obj;
  const approved = (extra: Record<string, unknown> = {}) => ({ type: 'Approved', status: 'True', reason: 'ByHand', lastUpdateTime: T0, lastTransitionTime: T0, ...extra });
  const stored = (status?: Record<string, unknown>): ApiObject => (status ? { ...structuredClone(created), status } : structuredClone(created));
  const sent = (old: ApiObject, status: Record<string, unknown>, change: (o: ApiObject) => void = () => {}): ApiObject => {
    const o = { ...structuredClone(old), status };
    change(o);
    return o;
  };
  const details = (errs: Array<{ detail?: string }>) => errs.map((e) => e.detail);

  type Case = { name: string; old: ApiObject; client: ApiObject; want: { conditions?: unknown; certificate?: unknown }; errors?: string[] };

  const approvalCases: Case[] = [
    {
      name: 'approving stores the condition with both timestamps set to now',
      old: stored(),
      client: sent(stored(), { conditions: [{ type: 'Approved', status: 'True', reason: 'ByHand' }] }),
      want: { conditions: [{ type: 'Approved', status: 'True', reason: 'ByHand', lastUpdateTime: NOW, lastTransitionTime: NOW }] },
    },
    {
      name: 'spec, certificate and labels sent with an approval are ignored',
      old: stored(),
      client: sent(stored(), { conditions: [{ type: 'Denied', status: 'True' }], certificate: CERT }, (o) => {
        (o.spec as Record<string, unknown>).signerName = 'example.com/other';
        o.metadata.labels = { sneaky: 'yes' };
      }),
      want: { conditions: [{ type: 'Denied', status: 'True', lastUpdateTime: NOW, lastTransitionTime: NOW }] },
    },
    {
      name: 'timestamps the client sets are kept',
      old: stored(),
      client: sent(stored(), { conditions: [approved()] }),
      want: { conditions: [approved()] },
    },
    {
      name: 'a condition re-sent without timestamps keeps its transition time and gets a new update time',
      old: stored({ conditions: [approved()], certificate: CERT }),
      client: sent(stored(), { conditions: [{ type: 'Approved', status: 'True', reason: 'ByHand' }] }),
      want: { conditions: [approved({ lastUpdateTime: NOW })], certificate: CERT },
    },
    {
      name: 'an approval cannot be withdrawn',
      old: stored({ conditions: [approved()] }),
      client: sent(stored(), {}),
      want: {},
      errors: ['updates may not remove a condition of type "Approved"'],
    },
  ];

  const statusCases: Case[] = [
    {
      name: 'a signer stores the certificate; spec and conditions stay',
      old: stored({ conditions: [approved()] }),
      client: sent(stored(), { conditions: [approved()], certificate: CERT }, (o) => ((o.spec as Record<string, unknown>).signerName = 'example.com/other')),
      want: { conditions: [approved()], certificate: CERT },
    },
    {
      name: 'an edited Approved condition is put back as stored',
      old: stored({ conditions: [approved()] }),
      client: sent(stored(), { conditions: [approved({ reason: 'Forged', lastTransitionTime: '2030-01-01T00:00:00Z' })], certificate: CERT }),
      want: { conditions: [approved()], certificate: CERT },
    },
    {
      name: 'a Failed condition may be added and is timestamped',
      old: stored({ conditions: [approved()] }),
      client: sent(stored(), { conditions: [approved(), { type: 'Failed', status: 'True', reason: 'SignerRefused' }] }),
      want: { conditions: [approved(), { type: 'Failed', status: 'True', reason: 'SignerRefused', lastUpdateTime: NOW, lastTransitionTime: NOW }] },
    },
    {
      name: 'approving through /status is refused',
      old: stored(),
      client: sent(stored(), { conditions: [{ type: 'Approved', status: 'True' }] }),
      want: { conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: NOW, lastTransitionTime: NOW }] },
      errors: ['updates may not add a condition of type "Approved"'],
    },
    {
      name: 'denying through /status is refused',
      old: stored({ conditions: [approved()] }),
      client: sent(stored(), { conditions: [approved(), { type: 'Denied', status: 'True' }] }),
      want: { conditions: [approved(), { type: 'Denied', status: 'True', lastUpdateTime: NOW, lastTransitionTime: NOW }] },
      errors: ['Approved and Denied conditions are mutually exclusive', 'updates may not add a condition of type "Denied"'],
    },
    {
      name: 'removing an approval through /status is refused',
      old: stored({ conditions: [approved()] }),
      client: sent(stored(), { certificate: CERT }),
      want: { certificate: CERT },
      errors: ['updates may not remove a condition of type "Approved"'],
    },
  ];

  for (const [path, cases, prepare, validate] of [
    ['approval', approvalCases, (c: Case) => approval.prepareForUpdate(c.client, c.old, ctx), approval.validateUpdate!],
    ['status', statusCases, (c: Case) => throughStatus(c.client, c.old), statusSub.validateUpdate!],
  ] as const) {
    for (const c of cases) {
      it(`/${path} - ${c.name}`, () => {
        const before = structuredClone(c.old);
        const next = prepare(c);
        assert.deepEqual(next.spec, c.old.spec, 'the spec is the stored one');
        assert.deepEqual(next.metadata, c.old.metadata, 'metadata is the stored one');
        const status = (next.status ?? {}) as Record<string, unknown>;
        assert.deepEqual({ conditions: status.conditions, certificate: status.certificate }, { conditions: undefined, certificate: undefined, ...c.want });
        assert.deepEqual(details(validate(next, c.old)), c.errors ?? []);
        assert.deepEqual(c.old, before, 'the stored object is not changed');
      });
    }
  }

  it('the main resource can neither decide nor issue', () => {
    const old = stored();
    assert.deepEqual(details(csr.strategy!.validateUpdate!(sent(old, { conditions: [approved()] }), old)), ['updates may not add a condition of type "Approved"']);
    assert.deepEqual(details(csr.strategy!.validateUpdate!(sent(old, { certificate: CERT }), old)), ['updates may not set certificate content']);
  });
});
