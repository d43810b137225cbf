// APIService validation, after upstream's kube-aggregator rules: the name is `<version>.<group>`,
// the priorities are bounded, a Local APIService (no spec.service) has no TLS settings, a remote
// one names its Service and a valid port. Field paths and wording are upstream's, because clients
// and scripts match on the causes of a 422.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import { invalidValue, required, unsupported } from '../../../api/field-errors.js';
import { dns1035LabelProblems, isDNS1123Subdomain, validPathSegmentName } from '../../../api/validation.js';
import { asArray, asObject, type Json } from '../common/field-errors.js';

export const MAX_GROUP_PRIORITY = 20_000;
export const MAX_VERSION_PRIORITY = 1_000;

const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;

/** Go reads an absent string as "" and an absent int32 as 0; the rules judge what Go would hold. */
function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
function int(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

/** The name an APIService must have: `<version>.<group>` (`v1.` for the core group). */
export function apiServiceName(group: string, version: string): string {
  return `${version}.${group}`;
}

/** The byte length of a base64 `[]byte` field as Go would hold it. */
function byteLength(v: unknown): number {
  return typeof v === 'string' ? Buffer.from(v, 'base64').length : 0;
}

function validateName(o: ApiObject, spec: Json): FieldError[] {
  const name = o.metadata.name ?? '';
  // A name that is not a path segment is reported by the generic metadata rules (nameRule).
  if (!name || !validPathSegmentName(name)) return [];
  const want = apiServiceName(text(spec.group), text(spec.version));
  return name === want ? [] : [invalidValue('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(want)}`)];
}

function validateGroupVersion(spec: Json): FieldError[] {
  const errs: FieldError[] = [];
  const group = text(spec.group);
  const version = text(spec.version);
  // Only the legacy core group is served without a name, and only at v1.
  if (!group && version !== 'v1') errs.push(required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group) errs.push(...isDNS1123Subdomain(group, 'spec.group'));
  // The length and the form are two problems upstream reports apart.
  for (const problem of dns1035LabelProblems(version)) errs.push(invalidValue('spec.version', version, problem));
  return errs;
}

function validatePriorities(spec: Json): FieldError[] {
  const errs: FieldError[] = [];
  const group = int(spec.groupPriorityMinimum);
  const version = int(spec.versionPriority);
  if (group <= 0 || group > MAX_GROUP_PRIORITY) errs.push(invalidValue('spec.groupPriorityMinimum', group, `must be positive and less than ${MAX_GROUP_PRIORITY}`));
  if (version <= 0 || version > MAX_VERSION_PRIORITY) errs.push(invalidValue('spec.versionPriority', version, `must be positive and less than ${MAX_VERSION_PRIORITY}`));
  return errs;
}

/** A Local APIService is served by this server itself: there is no connection to secure. */
function validateLocal(spec: Json): FieldError[] {
  const errs: FieldError[] = [];
  const caBytes = byteLength(spec.caBundle);
  if (caBytes) errs.push(invalidValue('spec.caBundle', `${caBytes} bytes`, 'local APIServices may not have a caBundle'));
  if (spec.insecureSkipTLSVerify === true) errs.push(invalidValue('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
  return errs;
}

function validateRemote(spec: Json, service: Json): FieldError[] {
  const errs: FieldError[] = [];
  if (!text(service.namespace)) errs.push(required('spec.service.namespace'));
  if (!text(service.name)) errs.push(required('spec.service.name'));
  const port = int(service.port);
  if (port < 1 || port > 65_535) errs.push(invalidValue('spec.service.port', port, 'port is not valid: must be between 1 and 65535, inclusive'));
  if (spec.insecureSkipTLSVerify === true && byteLength(spec.caBundle) > 0) {
    errs.push(invalidValue('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  }
  return errs;
}

/** Create rules; an update re-checks them all (upstream has no immutable APIService field). */
export function validateAPIService(o: ApiObject): FieldError[] {
  const spec = asObject(o.spec) ?? {};
  const service = asObject(spec.service);
  return [...validateName(o, spec), ...validateGroupVersion(spec), ...validatePriorities(spec), ...(service ? validateRemote(spec, service) : validateLocal(spec))];
}

/** Rules of a write through `/status`: each condition's status is one of the three. */
export function validateAPIServiceStatus(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  asArray(asObject(o.status)?.conditions).forEach((c, i) => {
    const status = asObject(c)?.status;
    if (!(CONDITION_STATUSES as readonly unknown[]).includes(status)) errs.push(unsupported(`status.conditions[${i}].status`, status ?? '', CONDITION_STATUSES));
  });
  return errs;
}
