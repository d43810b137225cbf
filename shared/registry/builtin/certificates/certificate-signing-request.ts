// CertificateSigningRequests: clients ask a signer for a certificate; approval and issuance
// happen through the `approval` and `status` subresources.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn, humanDuration } from '../common/columns.js';
import { asArray, asObject, at, duplicate, duplicates, invalidValue, isDnsSubdomain, required, unsupported } from '../common/field-errors.js';
import { atomicList, bytes, int32, mapList, obj, str, strEnum, time } from '../common/schema.js';
import { isDerSequence, scanPem } from './pem.js';

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

const condition = obj(
  { type: str, status: strEnum('True', 'False', 'Unknown'), reason: str, message: str, lastUpdateTime: time, lastTransitionTime: time },
  ['type', 'status'],
);

const schema = obj(
  {
    spec: obj(
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
    status: obj({ conditions: mapList(condition, ['type']), certificate: { ...bytes, 'x-kubernetes-list-type': 'atomic' } }),
  },
  ['spec'],
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

function validateConditions(conditions: unknown): FieldError[] {
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
    else if (CSR_CONDITION_TYPES.includes(type) && cond.status !== 'True' && (type === 'Approved' || type === 'Denied')) errs.push(unsupported(`${f}.status`, cond.status, ['True']));
  });
  if (seen.has('Approved') && seen.has('Denied')) errs.push(invalidValue('status.conditions', 'Approved', 'Approved and Denied conditions are mutually exclusive'));
  return errs;
}

function validateCSR(o: ApiObject): FieldError[] {
  const spec = asObject(o.spec) ?? {};
  const errs = validateRequest(spec.request);
  const signer = spec.signerName;
  if (typeof signer !== 'string' || !signer) errs.push(required('spec.signerName'));
  else {
    const slash = signer.indexOf('/');
    if (slash <= 0 || slash === signer.length - 1 || !isDnsSubdomain(signer.slice(0, slash))) {
      errs.push(invalidValue('spec.signerName', signer, "must be a fully qualified domain and path of the form 'example.com/signer-name'"));
    }
  }
  const exp = spec.expirationSeconds;
  if (typeof exp === 'number' && exp < MIN_EXPIRATION_SECONDS) errs.push(invalidValue('spec.expirationSeconds', exp, 'may not specify a duration less than 600 seconds (10 minutes)'));
  const usages = asArray(spec.usages);
  if (!usages.length) errs.push(required('spec.usages'));
  errs.push(...duplicates('spec.usages', usages));
  errs.push(...validateConditions(at(o, 'status.conditions')));
  errs.push(...validateCertificate(at(o, 'status.certificate')));
  return errs;
}

function validateCSRCreate(o: ApiObject): FieldError[] {
  const errs = validateCSR(o);
  if (at(o, 'spec.signerName') === LEGACY_UNKNOWN_SIGNER) errs.push(invalidValue('spec.signerName', LEGACY_UNKNOWN_SIGNER, 'the legacy signerName is not allowed via this API version'));
  return errs;
}

function conditionTypes(o: ApiObject): Set<string> {
  return new Set(asArray(at(o, 'status.conditions')).map((c) => String(asObject(c)?.type ?? '')));
}

// Approval decisions and issued certificates are final.
function validateCSRUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const errs = validateCSR(o);
  const now = conditionTypes(o);
  for (const t of ['Approved', 'Denied', 'Failed']) {
    if (conditionTypes(old).has(t) && !now.has(t)) errs.push({ type: 'Forbidden', field: 'status.conditions', detail: `updates may not remove a condition of type "${t}"` });
  }
  const oldCert = at(old, 'status.certificate');
  if (typeof oldCert === 'string' && oldCert && at(o, 'status.certificate') !== oldCert) {
    errs.push({ type: 'Forbidden', field: 'status.certificate', detail: 'updates may not modify existing certificate content' });
  }
  return errs;
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
    prepareForUpdate(o, old) {
      // Only approval and status change through their subresources; the request is fixed.
      if (old.spec !== undefined) o.spec = structuredClone(old.spec);
    },
    validate: validateCSRCreate,
    validateUpdate: validateCSRUpdate,
  },
};
