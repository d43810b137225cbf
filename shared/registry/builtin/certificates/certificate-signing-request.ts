// CertificateSigningRequests: clients ask a signer for a certificate; approval and issuance
// happen through the `approval` and `status` subresources, each of which may change only its own
// part (upstream's csrStrategy, csrApprovalStrategy and csrStatusStrategy): the request is fixed
// at creation and names its requester, approval touches only the conditions, and a signer
// writing `/status` can neither approve nor deny.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject, UserInfo } from '../../../api/types.js';
import type { ResourceType, StrategyContext } from '../../types.js';
import { ageColumn, humanDuration } from '../common/columns.js';
import { asArray, asObject, at, duplicates } from '../common/field-errors.js';
import { atomicList, bytes, described, int32, mapList, obj, str, strEnum, time } from '../common/schema.js';
import { isDerSequence, scanPem } from './pem.js';
import { duplicate, forbidden, invalidValue, required, unsupported } from '../../../api/field-errors.js';
import { validDnsSubdomain } from '../../../api/validation.js';
import { cloneJson, jsonEqual } from '../../../patch/json-value.js';
import { PLATFORM_NAMES, type WellKnownNames } from '../../../api/well-known-names.js';

export const KEY_USAGES = [
  'signing',
  'digital signature',
  'content commitment',
  'key encipherment',
  'key agreement',
  'data encipherment',
  'cert sign',
  'crl sign',
  'encipher only',
  'decipher only',
  'any',
  'server auth',
  'client auth',
  'code signing',
  'email protection',
  's/mime',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'timestamping',
  'ocsp signing',
  'microsoft sgc',
  'netscape sgc',
];

export const LEGACY_UNKNOWN_SIGNER = 'platform.io/legacy-unknown';
export const CSR_CONDITION_TYPES = ['Approved', 'Denied', 'Failed'];
const MIN_EXPIRATION_SECONDS = 600;

const condition = described(
  obj({ type: str, status: strEnum('True', 'False', 'Unknown'), reason: str, message: str, lastUpdateTime: time, lastTransitionTime: time }, ['type', 'status']),
  {
    type: 'Approved or Denied (written through the approval subresource), or Failed (written by the signer through status). Each type appears at most once; Approved and Denied exclude each other.',
    status: 'Must be True for the three types.',
    reason: 'Machine-readable reason, in CamelCase, such as AutoApproved or SignerValidationFailure.',
    message: 'Readable details of the decision or the failure.',
    lastUpdateTime: 'When the condition was last written; the server fills it in when left out.',
    lastTransitionTime: 'When status last changed; the server fills it in when left out, keeping the time of a stored condition of the same type and status.',
  },
  'A decision on the request or a failure to sign it. Once added, such a condition is never removed.',
);

const csrSpec = described(
  obj(
    {
      request: { ...bytes, 'x-kubernetes-list-type': 'atomic' },
      signerName: str,
      expirationSeconds: int32,
      usages: atomicList(strEnum(...KEY_USAGES)),
      username: str,
      uid: str,
      groups: atomicList(str),
      extra: { type: 'object', additionalProperties: atomicList(str) },
    },
    ['request', 'signerName'],
  ),
  {
    request: 'The PKCS#10 certificate request, PEM-encoded (a CERTIFICATE REQUEST block), base64 in JSON and YAML. Required.',
    signerName:
      'The signer asked to sign, as `<domain>/<name>`. The built-in ones are `platform.io/apiserver-client` (client certificates for this API server), `platform.io/apiserver-client-agent` (node client certificates, approved automatically for nodes) and `platform.io/agent-serving` (node serving certificates); `platform.io/legacy-unknown` cannot be asked for in v1. Required.',
    expirationSeconds:
      "Lifetime asked for the certificate, in seconds; at least 600. The signer may issue a shorter one: the built-in signers stop at `--cluster-signing-duration` and at the end of their CA. Omitted means the signer's own duration.",
    usages:
      'Key usages and extended key usages asked for, such as `digital signature`, `key encipherment`, `client auth` or `server auth`. Required, no duplicates; each signer accepts only the usages its certificates may have.',
    username: "The user who created the request. Set by the server from the requester's identity; whatever the client writes is replaced.",
    uid: 'The uid of the user who created the request. Set by the server.',
    groups: 'The groups of the user who created the request. Set by the server.',
    extra: 'Extra attributes of the user who created the request. Set by the server.',
  },
  'What is asked for and by whom. Fixed at creation: updates keep the stored spec.',
);

const csrStatus = described(
  obj({ conditions: mapList(condition, ['type']), certificate: { ...bytes, 'x-kubernetes-list-type': 'atomic' } }),
  {
    conditions: 'Approved, Denied and Failed. With none of them the request is pending.',
    certificate:
      'The issued certificate, written by the signer through the status subresource once the request is approved: PEM CERTIFICATE blocks without headers (the leaf first, then any intermediates), base64 in JSON and YAML. Empty until issued; once set it cannot be changed.',
  },
  'Where the request stands: approval, failure and the issued certificate.',
);

const schema = described(
  obj({ spec: csrSpec, status: csrStatus }, ['spec']),
  {
    spec: 'What is asked for and by whom. Fixed at creation.',
    status: 'Approval, failure and the issued certificate.',
  },
  'A request for a certificate from a signer. Someone with approve permission for the signer approves or denies it through the approval subresource (`kubectl certificate approve`); the signer then writes the certificate through status, or a Failed condition. The server deletes a request an hour after it was approved, denied or failed (an issued one sooner if its certificate has expired) and a pending one after a day.',
);

function decode(v: unknown): string {
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('latin1') : '';
}

function validateRequest(request: unknown): FieldError[] {
  if (typeof request !== 'string' || !request) return [required('spec.request')];
  const { blocks, error } = scanPem(decode(request));
  const csr = blocks.find((b) => b.type === 'CERTIFICATE REQUEST' || b.type === 'NEW CERTIFICATE REQUEST');
  if (error || !csr) return [invalidValue('spec.request', '<request data>', 'PEM block type must be CERTIFICATE REQUEST')];
  if (!isDerSequence(csr.bytes)) return [invalidValue('spec.request', '<request data>', 'asn1: structure error: the request is not a DER-encoded certificate request')];
  return [];
}

/** `status.certificate`: CERTIFICATE blocks only, no headers, each a DER structure. */
export function validateCertificate(certificate: unknown): FieldError[] {
  if (typeof certificate !== 'string' || !certificate) return [];
  const f = 'status.certificate';
  const { blocks, error } = scanPem(decode(certificate));
  if (error) return [invalidValue(f, '<certificate data>', error)];
  if (!blocks.length) return [invalidValue(f, '<certificate data>', 'must contain at least one CERTIFICATE PEM block')];
  for (const b of blocks) {
    if (b.type !== 'CERTIFICATE') return [invalidValue(f, '<certificate data>', `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(b.type)}`)];
    if (Object.keys(b.headers).length) return [invalidValue(f, '<certificate data>', 'no PEM block headers are permitted')];
    if (!isDerSequence(b.bytes)) return [invalidValue(f, '<certificate data>', 'each PEM block must contain a DER-encoded certificate')];
  }
  return [];
}

function validateConditions(conditions: unknown, allowBoth: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  asArray(conditions).forEach((c, i) => {
    const cond = asObject(c) ?? {};
    const f = `status.conditions[${i}]`;
    const type = typeof cond.type === 'string' ? cond.type : '';
    if (!type) errs.push(required(`${f}.type`));
    else if (!CSR_CONDITION_TYPES.includes(type)) errs.push(unsupported(`${f}.type`, type, CSR_CONDITION_TYPES));
    else if (seen.has(type)) errs.push(duplicate(`${f}.type`, type));
    seen.add(type);
    if (typeof cond.status !== 'string' || !cond.status) errs.push(required(`${f}.status`));
    else if (CSR_CONDITION_TYPES.includes(type) && cond.status !== 'True') errs.push(unsupported(`${f}.status`, cond.status, ['True']));
  });
  if (seen.has('Approved') && seen.has('Denied') && !allowBoth) errs.push(invalidValue('status.conditions', 'Approved', 'Approved and Denied conditions are mutually exclusive'));
  return errs;
}

function validateCSR(o: ApiObject, allowBothApprovedAndDenied = false): FieldError[] {
  const spec = asObject(o.spec) ?? {};
  const errs = validateRequest(spec.request);
  const signer = spec.signerName;
  if (typeof signer !== 'string' || !signer) errs.push(required('spec.signerName'));
  else {
    const slash = signer.indexOf('/');
    if (slash <= 0 || slash === signer.length - 1 || !validDnsSubdomain(signer.slice(0, slash))) {
      errs.push(invalidValue('spec.signerName', signer, "must be a fully qualified domain and path of the form 'example.com/signer-name'"));
    }
  }
  const exp = spec.expirationSeconds;
  if (typeof exp === 'number' && exp < MIN_EXPIRATION_SECONDS) errs.push(invalidValue('spec.expirationSeconds', exp, 'may not specify a duration less than 600 seconds (10 minutes)'));
  const usages = asArray(spec.usages);
  if (!usages.length) errs.push(required('spec.usages'));
  errs.push(...duplicates('spec.usages', usages));
  errs.push(...validateConditions(at(o, 'status.conditions'), allowBothApprovedAndDenied));
  errs.push(...validateCertificate(at(o, 'status.certificate')));
  return errs;
}

function validateCSRCreate(o: ApiObject, names: WellKnownNames = PLATFORM_NAMES): FieldError[] {
  const errs = validateCSR(o);
  const signer = at(o, 'spec.signerName');
  // Upstream's `kubernetes.io/legacy-unknown` too, with upstream names on.
  if (typeof signer === 'string' && names.signer(signer) === LEGACY_UNKNOWN_SIGNER) errs.push(invalidValue('spec.signerName', signer, 'the legacy signerName is not allowed via this API version'));
  return errs;
}

function conditionsOf(o: ApiObject): Record<string, unknown>[] {
  return asArray(at(o, 'status.conditions')).map((c) => asObject(c) ?? {});
}

function conditionsOfType(o: ApiObject, type: string): Record<string, unknown>[] {
  return conditionsOf(o).filter((c) => c.type === type);
}

/** What an update path may change besides the other conditions (upstream's validation options). */
interface UpdatePath {
  /** `/approval`: add Approved or Denied. */
  approval?: boolean;
  /** `/status`: set the certificate (once). */
  certificate?: boolean;
}

// Decisions and issued certificates are final; each is made through its own subresource.
function validateCSRUpdate(o: ApiObject, old: ApiObject, path: UpdatePath): FieldError[] {
  // Stored objects that already hold both decisions stay updatable (upstream tolerates old data).
  const errs = validateCSR(o, conditionsOfType(old, 'Approved').length > 0 && conditionsOfType(old, 'Denied').length > 0);
  for (const t of ['Approved', 'Denied', 'Failed']) {
    if (conditionsOfType(o, t).length < conditionsOfType(old, t).length) errs.push(forbidden('status.conditions', `updates may not remove a condition of type "${t}"`));
  }
  if (!path.approval) {
    for (const t of ['Approved', 'Denied']) {
      const before = conditionsOfType(old, t);
      const now = conditionsOfType(o, t);
      if (now.length > before.length) errs.push(forbidden('status.conditions', `updates may not add a condition of type "${t}"`));
      else if (now.length === before.length && !jsonEqual(now, before)) errs.push(forbidden('status.conditions', `updates may not modify a condition of type "${t}"`));
    }
  }
  const oldCert = at(old, 'status.certificate') ?? '';
  const newCert = at(o, 'status.certificate') ?? '';
  if (newCert !== oldCert) {
    if (!path.certificate) errs.push(forbidden('status.certificate', 'updates may not set certificate content'));
    else if (oldCert) errs.push(forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return errs;
}

/**
 * Fills what a client left out of the conditions it wrote: lastUpdateTime is now; lastTransitionTime
 * is kept from a stored condition of the same type and status, else now.
 */
export function populateConditionTimestamps(conditions: Record<string, unknown>[], old: Record<string, unknown>[], now: string): Record<string, unknown>[] {
  return conditions.map((c) => {
    const out = { ...c };
    if (!out.lastUpdateTime) out.lastUpdateTime = now;
    if (!out.lastTransitionTime) {
      const same = old.find((o) => o.type === c.type && o.status === c.status && o.lastTransitionTime);
      out.lastTransitionTime = same?.lastTransitionTime ?? now;
    }
    return out;
  });
}

function withConditions(status: unknown, conditions: Record<string, unknown>[]): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(asObject(status) ?? {}) };
  if (conditions.length) out.conditions = conditions;
  else delete out.conditions;
  return out;
}

/** The requester, as upstream records it: whatever the client wrote is replaced. */
function requester(spec: Record<string, unknown>, user: UserInfo): Record<string, unknown> {
  const { username: _u, uid: _i, groups: _g, extra: _e, ...rest } = spec;
  const out: Record<string, unknown> = { ...rest, username: user.username };
  if (user.uid) out.uid = user.uid;
  if (user.groups.length) out.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) out.extra = cloneJson(user.extra);
  return out;
}

/** `/approval`: only the conditions come from the client. */
function prepareApproval(o: ApiObject, old: ApiObject, ctx: StrategyContext): ApiObject {
  const conditions = populateConditionTimestamps(conditionsOf(o), conditionsOf(old), ctx.now);
  return { ...cloneJson(old), status: withConditions(old.status, conditions) };
}

/**
 * `/status` (after the generic part kept spec and metadata): an Approved or Denied condition the
 * stored object has is put back as stored, so a signer cannot edit a decision; adding or dropping
 * one is left in place for validation to refuse.
 */
function prepareStatus(o: ApiObject, old: ApiObject, ctx: StrategyContext): ApiObject {
  // Timestamps first: a decision put back must equal the stored one even if that has none.
  const conditions = populateConditionTimestamps(conditionsOf(o), conditionsOf(old), ctx.now);
  for (const t of ['Approved', 'Denied']) {
    const before = conditionsOfType(old, t);
    const positions = conditions.flatMap((c, i) => (c.type === t ? [i] : []));
    if (before.length === positions.length) positions.forEach((i, k) => (conditions[i] = cloneJson(before[k]!)));
  }
  return { ...o, status: withConditions(o.status, conditions) };
}

function conditionCell(o: ApiObject): string {
  const types = asArray(at(o, 'status.conditions'))
    .map((c) => asObject(c) ?? {})
    .filter((c) => c.status === 'True' || c.status === undefined)
    .map((c) => String(c.type));
  if (at(o, 'status.certificate')) types.push('Issued');
  return types.length ? types.join(',') : 'Pending';
}

export const certificatesigningrequests: ResourceType = {
  group: 'certificates.platform.io',
  versions: [{ name: 'v1', schema }],
  kind: 'CertificateSigningRequest',
  plural: 'certificatesigningrequests',
  singular: 'certificatesigningrequest',
  scope: 'Cluster',
  shortNames: ['csr'],
  subresources: {
    status: true,
    others: [{ name: 'approval', kind: 'CertificateSigningRequest', verbs: ['get', 'patch', 'update'] }],
  },
  columns: [
    ageColumn,
    { name: 'SignerName', type: 'string', description: 'Name of the signer', cell: (o) => at(o, 'spec.signerName') ?? '' },
    { name: 'Requestor', type: 'string', description: 'Name of the requesting user', cell: (o) => at(o, 'spec.username') ?? '' },
    {
      name: 'RequestedDuration',
      type: 'string',
      description: 'Requested certificate lifetime',
      cell: (o) => (typeof at(o, 'spec.expirationSeconds') === 'number' ? humanDuration(at(o, 'spec.expirationSeconds') as number) : '<none>'),
    },
    { name: 'Condition', type: 'string', description: 'Approval and issuance state', cell: conditionCell },
  ],
  fieldSelectors: { 'spec.signerName': (o) => at(o, 'spec.signerName') as string | undefined },
  strategy: {
    prepareForCreate(o, ctx) {
      o.spec = requester(asObject(o.spec) ?? {}, ctx.user);
    },
    prepareForUpdate(o, old) {
      // Only approval and status change through their subresources; the request is fixed.
      if (old.spec !== undefined) o.spec = cloneJson(old.spec);
    },
    validate: validateCSRCreate,
    validateUpdate: (o, old) => validateCSRUpdate(o, old, {}),
    subresources: {
      approval: { prepareForUpdate: prepareApproval, validateUpdate: (o, old) => validateCSRUpdate(o, old, { approval: true }) },
      status: { prepareForUpdate: prepareStatus, validateUpdate: (o, old) => validateCSRUpdate(o, old, { certificate: true }) },
    },
  },
};
