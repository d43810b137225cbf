// Secrets: base64 `data` (plus write-only `stringData`), with per-type required keys. Bootstrap
// token secrets are checked in full because the authenticator trusts their shape.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import { setOwn } from '../../../api/own-keys.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asObject, ensureObject, type Json } from '../common/field-errors.js';
import { bool, bytesMap, described, obj, str, strMap } from '../common/schema.js';
import { immutableFields, updateValidation } from '../common/strategy.js';
import { configKeyErrors, decodedLength, immutableDataErrors, sizeError } from './data-rules.js';
import { forbidden, invalidValue, required, unsupported } from '../../../api/field-errors.js';
import { PLATFORM_NAMES, serviceAccountAnnotations, type WellKnownNames } from '../../../api/well-known-names.js';

export const SecretType = {
  Opaque: 'Opaque',
  ServiceAccountToken: 'platform.io/service-account-token',
  Dockercfg: 'platform.io/dockercfg',
  DockerConfigJson: 'platform.io/dockerconfigjson',
  BasicAuth: 'platform.io/basic-auth',
  SshAuth: 'platform.io/ssh-auth',
  Tls: 'platform.io/tls',
  BootstrapToken: 'bootstrap.platform.io/token',
} as const;

export const SERVICE_ACCOUNT_NAME_ANNOTATION = 'platform.io/service-account.name';
export const BOOTSTRAP_TOKEN_NAMESPACE = 'platform-system';
export const BOOTSTRAP_TOKEN_NAME_PREFIX = 'bootstrap-token-';
const TOKEN_ID = /^[a-z0-9]{6}$/;
const TOKEN_SECRET = /^[a-z0-9]{16}$/;
const BOOTSTRAP_USAGES = ['usage-bootstrap-authentication', 'usage-bootstrap-signing'];
const BOOTSTRAP_GROUP_PREFIX = 'system:bootstrappers:';
const BOOTSTRAP_GROUP = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

const schema = described(
  obj({ data: bytesMap, stringData: strMap, type: str, immutable: bool }),
  {
    data: 'Secret entries, each value base64-encoded in JSON. Keys consist of letters, digits, `-`, `_` and `.`. At most 1 MiB in all.',
    stringData: 'Entries given as plain text, for convenience when writing: each is merged into data (winning over a key of the same name) and is never returned on reads.',
    type: 'What the secret holds, which decides the keys it must have: Opaque (the default, anything), platform.io/service-account-token, platform.io/dockercfg, platform.io/dockerconfigjson, platform.io/basic-auth, platform.io/ssh-auth, platform.io/tls or bootstrap.platform.io/token. Cannot be changed.',
    immutable: 'When true, data can no longer be changed, and immutable cannot be set back: only deleting the object remains. Defaults to false.',
  },
  'Sensitive data (passwords, tokens, keys) as key/value entries that pods read as environment variables or files of a volume, kept apart from the pods that use it.',
);

function decode(v: unknown): string | undefined {
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : undefined;
}

/** Decoded view of data with stringData laid over it (as the API merges them on write). */
function plainData(o: ApiObject): Record<string, string> {
  // Null prototype: a `__proto__` key is data here, and no inherited member answers a lookup.
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(asObject(o.data) ?? {})) out[k] = decode(v) ?? '';
  for (const [k, v] of Object.entries(asObject(o.stringData) ?? {})) if (typeof v === 'string') out[k] = v;
  return out;
}

function has(d: Record<string, string>, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(d, k);
}

/** The rules of a `bootstrap.platform.io/token` secret. */
export function validateBootstrapToken(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const d = plainData(o);
  if (o.metadata.namespace !== undefined && o.metadata.namespace !== BOOTSTRAP_TOKEN_NAMESPACE) {
    errs.push(invalidValue('metadata.namespace', o.metadata.namespace, `bootstrap token secrets must be in the ${BOOTSTRAP_TOKEN_NAMESPACE} namespace`));
  }
  const name = o.metadata.name ?? '';
  const nameId = name.startsWith(BOOTSTRAP_TOKEN_NAME_PREFIX) ? name.slice(BOOTSTRAP_TOKEN_NAME_PREFIX.length) : undefined;
  if (nameId === undefined || !TOKEN_ID.test(nameId)) {
    errs.push(invalidValue('metadata.name', name, `bootstrap token secret names must be "${BOOTSTRAP_TOKEN_NAME_PREFIX}<token-id>" with a token id matching [a-z0-9]{6}`));
  }
  if (!has(d, 'token-id')) errs.push(required('data[token-id]'));
  else if (!TOKEN_ID.test(d['token-id']!)) errs.push(invalidValue('data[token-id]', d['token-id'], 'must match [a-z0-9]{6}'));
  else if (nameId !== undefined && d['token-id'] !== nameId) errs.push(invalidValue('data[token-id]', d['token-id'], `must equal the token id in the secret name (${JSON.stringify(nameId)})`));
  if (!has(d, 'token-secret')) errs.push(required('data[token-secret]'));
  else if (!TOKEN_SECRET.test(d['token-secret']!)) errs.push(invalidValue('data[token-secret]', '<redacted>', 'must match [a-z0-9]{16}'));
  if (has(d, 'expiration') && (!RFC3339.test(d.expiration!) || Number.isNaN(Date.parse(d.expiration!)))) {
    errs.push(invalidValue('data[expiration]', d.expiration, 'must be an RFC 3339 timestamp (e.g. 2030-01-02T15:04:05Z)'));
  }
  for (const k of Object.keys(d)) {
    if (!k.startsWith('usage-bootstrap-')) continue;
    if (!BOOTSTRAP_USAGES.includes(k)) errs.push(unsupported(`data[${k}]`, k, BOOTSTRAP_USAGES));
    else if (d[k] !== 'true' && d[k] !== 'false') errs.push(invalidValue(`data[${k}]`, d[k], 'must be "true" or "false"'));
  }
  if (has(d, 'auth-extra-groups')) {
    for (const g of d['auth-extra-groups']!.split(',')) {
      const group = g.trim();
      if (!group.startsWith(BOOTSTRAP_GROUP_PREFIX) || !BOOTSTRAP_GROUP.test(group)) {
        errs.push(invalidValue('data[auth-extra-groups]', group, `each group must start with "${BOOTSTRAP_GROUP_PREFIX}" and match ${BOOTSTRAP_GROUP.source}`));
      }
    }
  }
  return errs;
}

function requireKeys(d: Record<string, string>, keys: string[]): FieldError[] {
  return keys.filter((k) => !has(d, k)).map((k) => required(`data[${k}]`));
}

function jsonKey(d: Record<string, string>, k: string): FieldError[] {
  if (!has(d, k)) return [required(`data[${k}]`)];
  try {
    JSON.parse(d[k]!);
    return [];
  } catch (e) {
    return [invalidValue(`data[${k}]`, '<secret contents redacted>', e instanceof Error ? e.message : 'invalid JSON')];
  }
}

// An upstream type (`kubernetes.io/tls`) has its twin's rules when upstream names are on; a
// service-account token names its account in annotations spelled as its type is.
function typeErrors(o: ApiObject, names: WellKnownNames): FieldError[] {
  const d = plainData(o);
  switch (typeof o.type === 'string' ? names.secretType(o.type) : o.type) {
    case SecretType.ServiceAccountToken: {
      const annotation = serviceAccountAnnotations(o.type as string).name;
      return o.metadata.annotations?.[annotation] ? [] : [required(`metadata.annotations[${annotation}]`)];
    }
    case SecretType.Dockercfg:
      return jsonKey(d, '.dockercfg');
    case SecretType.DockerConfigJson:
      return jsonKey(d, '.dockerconfigjson');
    case SecretType.BasicAuth:
      return has(d, 'username') || has(d, 'password') ? [] : [required('data[username]', 'at least one of `username` or `password` is required')];
    case SecretType.SshAuth:
      return requireKeys(d, ['ssh-privatekey']);
    case SecretType.Tls:
      return requireKeys(d, ['tls.crt', 'tls.key']);
    case SecretType.BootstrapToken:
      return validateBootstrapToken(o);
    default:
      return [];
  }
}

function validateSecret(o: ApiObject, names: WellKnownNames = PLATFORM_NAMES): FieldError[] {
  const errs = [...configKeyErrors('data', o.data), ...configKeyErrors('stringData', o.stringData)];
  if (typeof o.type === 'string' && o.type === '') errs.push(required('type'));
  let total = 0;
  for (const v of Object.values(asObject(o.data) ?? {})) if (typeof v === 'string') total += decodedLength(v);
  errs.push(...sizeError('data', total));
  errs.push(...typeErrors(o, names));
  return errs;
}

function validateSecretUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const errs = immutableFields(o, old, ['type']);
  if (old.immutable === true && o.stringData !== undefined && Object.keys(asObject(o.stringData) ?? {}).length) {
    errs.push(forbidden('stringData', 'field is immutable when `immutable` is set'));
  }
  errs.push(...immutableDataErrors(o, old, ['data']));
  return errs;
}

/** stringData is write-only: merged into data (base64) before validation and storage. */
function mergeStringData(o: ApiObject): void {
  const sd = asObject(o.stringData);
  if (!sd) return;
  const data: Json = ensureObject(o, 'data');
  for (const [k, v] of Object.entries(sd)) if (typeof v === 'string') setOwn(data, k, Buffer.from(v, 'utf8').toString('base64'));
  delete o.stringData;
}

export const secrets: ResourceType = {
  group: '',
  versions: [{ name: 'v1', schema }],
  kind: 'Secret',
  plural: 'secrets',
  singular: 'secret',
  scope: 'Namespaced',
  generation: false,
  columns: [
    { name: 'Type', type: 'string', description: 'The type of the secret', cell: (o) => o.type ?? SecretType.Opaque },
    { name: 'Data', type: 'integer', description: 'The number of entries in the secret', cell: (o) => Object.keys(asObject(o.data) ?? {}).length },
    ageColumn,
  ],
  fieldSelectors: { type: (o) => (typeof o.type === 'string' ? o.type : SecretType.Opaque) },
  strategy: {
    defaults(o) {
      if (o.type === undefined || o.type === null || o.type === '') o.type = SecretType.Opaque;
      mergeStringData(o);
    },
    validate: validateSecret,
    validateUpdate: updateValidation(validateSecret, validateSecretUpdate),
  },
};
