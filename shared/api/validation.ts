// Generic name and ObjectMeta validation shared by every resource type. Pure functions returning
// FieldErrors whose paths and messages read like the upstream API server's, because clients and
// scripts match on that text.

import type { FieldError } from './status.js';
import { duplicate, FieldErrorType, forbidden, immutable, invalidValue, required, tooLong } from './field-errors.js';
import type { NameRule, ObjectMeta } from './types.js';

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;

const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);

export const DNS1123_LABEL_MAX_LENGTH = 63;
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
export const QUALIFIED_NAME_MAX_LENGTH = 63;
export const LABEL_VALUE_MAX_LENGTH = 63;
/** Upper bound of the summed size of all annotation keys and values. */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

function withExamples(what: string, examples: string[], regex: string): string {
  const eg = examples.map((e) => `'${e}'`).join(',  or ');
  return `${what} (e.g. ${eg}, regex used for validation is '${regex}')`;
}

const DNS1123_LABEL_MSG = withExamples(
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
  ['my-name', '123-abc'],
  DNS1123_LABEL_FMT,
);
const DNS1123_SUBDOMAIN_MSG = withExamples(
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
  ['example.com'],
  DNS1123_SUBDOMAIN_FMT,
);
const QUALIFIED_NAME_PART_MSG = withExamples(
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
  ['MyName', 'my.name', '123-abc'],
  QUALIFIED_NAME_FMT,
);
const LABEL_VALUE_MSG = withExamples(
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
  ['MyValue', 'my_value', '12345'],
  LABEL_VALUE_FMT,
);

function maxLenMsg(n: number): string {
  return `must be no more than ${n} characters`;
}

function invalidAll(field: string, value: unknown, details: string[]): FieldError[] {
  return details.map((detail) => invalidValue(field, value, detail));
}

// The message-level checks return plain strings so the same rule can be reported against a
// name, a label key, or a map key without repeating the wording.

function dns1123LabelProblems(value: string): string[] {
  const out: string[] = [];
  if (value.length > DNS1123_LABEL_MAX_LENGTH) out.push(maxLenMsg(DNS1123_LABEL_MAX_LENGTH));
  if (!DNS1123_LABEL_RE.test(value)) out.push(DNS1123_LABEL_MSG);
  return out;
}

function dns1123SubdomainProblems(value: string): string[] {
  const out: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX_LENGTH) out.push(maxLenMsg(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) out.push(DNS1123_SUBDOMAIN_MSG);
  return out;
}

function pathSegmentProblems(value: string, prefix: boolean): string[] {
  const out: string[] = [];
  // A generateName prefix gets a random suffix appended, so `.` and `..` cannot result from it.
  if (!prefix) {
    if (value === '.') out.push("may not be '.'");
    else if (value === '..') out.push("may not be '..'");
  }
  if (value.includes('/')) out.push("may not contain '/'");
  if (value.includes('%')) out.push("may not contain '%'");
  return out;
}

export function qualifiedNameProblems(value: string): string[] {
  const parts = value.split('/');
  let name: string;
  const out: string[] = [];
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const [prefix, n] = parts as [string, string];
    name = n;
    if (prefix.length === 0) out.push('prefix part must be non-empty');
    else out.push(...dns1123SubdomainProblems(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      withExamples(
        "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        ['MyName', 'my.name', '123-abc'],
        QUALIFIED_NAME_FMT,
      ) + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) out.push('name part must be non-empty');
  else {
    if (name.length > QUALIFIED_NAME_MAX_LENGTH) out.push(`name part ${maxLenMsg(QUALIFIED_NAME_MAX_LENGTH)}`);
    if (!QUALIFIED_NAME_RE.test(name)) out.push(QUALIFIED_NAME_PART_MSG);
  }
  return out;
}

export function labelValueProblems(value: string): string[] {
  const out: string[] = [];
  if (value.length > LABEL_VALUE_MAX_LENGTH) out.push(maxLenMsg(LABEL_VALUE_MAX_LENGTH));
  if (!LABEL_VALUE_RE.test(value)) out.push(LABEL_VALUE_MSG);
  return out;
}

// Yes/no forms of the rules, for strategies that word their own error.

export function validDnsLabel(s: string): boolean {
  return dns1123LabelProblems(s).length === 0;
}

export function validDnsSubdomain(s: string): boolean {
  return dns1123SubdomainProblems(s).length === 0;
}

export function validQualifiedName(s: string): boolean {
  return qualifiedNameProblems(s).length === 0;
}

export function validLabelValue(s: string): boolean {
  return labelValueProblems(s).length === 0;
}

/** Names that are single URL path segments (RBAC objects). */
export function validPathSegmentName(s: string): boolean {
  return pathSegmentProblems(s, false).length === 0;
}

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_RE = new RegExp(`^${DNS1035_LABEL_FMT}$`);
/** Upstream's words for a value that is not an RFC 1035 label (its length is another message). */
export const DNS1035_LABEL_MESSAGE =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character " +
  `(e.g. 'my-name',  or 'abc-123', regex used for validation is '${DNS1035_LABEL_FMT}')`;

/** RFC 1035 label (service names): starts with a letter. */
export function validDns1035Label(s: string): boolean {
  return s.length <= DNS1123_LABEL_MAX_LENGTH && DNS1035_LABEL_RE.test(s);
}

/** Why `s` is not an RFC 1035 label, as upstream's IsDNS1035Label lists it (length, then form); empty when it is one. */
export function dns1035LabelProblems(s: string): string[] {
  const out: string[] = [];
  if (s.length > DNS1123_LABEL_MAX_LENGTH) out.push(`must be no more than ${DNS1123_LABEL_MAX_LENGTH} characters`);
  if (!DNS1035_LABEL_RE.test(s)) out.push(DNS1035_LABEL_MESSAGE);
  return out;
}

const CONFIG_KEY_RE = /^[-._a-zA-Z0-9]+$/;

/** Keys of ConfigMap and Secret data (they become file names in volumes). */
export function validConfigKey(s: string): boolean {
  return s.length <= DNS1123_SUBDOMAIN_MAX_LENGTH && CONFIG_KEY_RE.test(s) && s !== '.' && s !== '..' && !s.startsWith('..');
}

/** One error for a value that is not a DNS-1123 label. */
export function dnsLabelError(field: string, value: string): FieldError {
  return invalidValue(field, value, DNS1123_LABEL_MSG);
}

/** One error for a value that is not a DNS-1123 subdomain. */
export function dnsSubdomainError(field: string, value: string): FieldError {
  return invalidValue(field, value, DNS1123_SUBDOMAIN_MSG);
}

/** A DNS-1123 subdomain (at most 253 characters): most object names. */
export function isDNS1123Subdomain(value: string, field = 'metadata.name'): FieldError[] {
  return invalidAll(field, value, dns1123SubdomainProblems(value));
}

/** A DNS-1123 label (at most 63 characters): namespace names and the like. */
export function isDNS1123Label(value: string, field = 'metadata.name'): FieldError[] {
  return invalidAll(field, value, dns1123LabelProblems(value));
}

/** A name usable as one URL path segment (RBAC objects): not `.`/`..`, no `/` or `%`. */
export function isPathSegmentName(value: string, field = 'metadata.name'): FieldError[] {
  return invalidAll(field, value, pathSegmentProblems(value, false));
}

/** A label/annotation/finalizer key: `[<dns-subdomain>/]<name>`, the name at most 63 characters. */
export function isQualifiedName(value: string, field = 'metadata.labels'): FieldError[] {
  return invalidAll(field, value, qualifiedNameProblems(value));
}

/** A label value: empty, or at most 63 alphanumeric/`-_.` characters starting and ending alphanumeric. */
export function isValidLabelValue(value: string, field = 'metadata.labels'): FieldError[] {
  return invalidAll(field, value, labelValueProblems(value));
}

// A generateName prefix only has to be valid once a random suffix follows it, so a trailing dash
// is judged as if an alphanumeric character came after it.
function maskTrailingDash(prefix: string): string {
  return prefix.length > 1 && prefix.endsWith('-') ? `${prefix.slice(0, -1)}a` : prefix;
}

/** The problems of a name (or, with `prefix`, of a generateName) under a type's name rule. */
export function nameProblems(rule: NameRule, value: string, prefix = false): string[] {
  switch (rule) {
    case 'dns-label':
      return dns1123LabelProblems(prefix ? maskTrailingDash(value) : value);
    case 'path-segment':
      return pathSegmentProblems(value, prefix);
    case 'dns-subdomain':
    default:
      return dns1123SubdomainProblems(prefix ? maskTrailingDash(value) : value);
  }
}

export interface ObjectMetaOptions {
  namespaced: boolean;
  nameRule: NameRule;
  isCreate: boolean;
  /** Virtual types (reviews) carry no name; default true. */
  requireName?: boolean;
  /** Virtual namespaced types take the namespace from the URL; default true. */
  requireNamespace?: boolean;
}

function isStr(v: unknown): v is string {
  return typeof v === 'string';
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * ObjectMeta rules common to every type. Values of the wrong JSON type are skipped here: the
 * registry's schema check reports those, and reporting them twice would only add noise.
 */
export function validateObjectMeta(meta: ObjectMeta, opts: ObjectMetaOptions): FieldError[] {
  const errs: FieldError[] = [];
  const requireName = opts.requireName ?? true;

  const name = meta.name;
  const generateName = meta.generateName;
  if (requireName && !name && !(opts.isCreate && generateName)) {
    errs.push(required('metadata.name', 'name or generateName is required'));
  }
  if (isStr(name) && name !== '') errs.push(...invalidAll('metadata.name', name, nameProblems(opts.nameRule, name)));
  if (isStr(generateName) && generateName !== '') {
    errs.push(...invalidAll('metadata.generateName', generateName, nameProblems(opts.nameRule, generateName, true)));
  }

  const ns = meta.namespace;
  if (opts.namespaced) {
    if (!ns) {
      if (opts.requireNamespace ?? true) errs.push(required('metadata.namespace'));
    } else if (isStr(ns)) errs.push(...invalidAll('metadata.namespace', ns, dns1123LabelProblems(ns)));
  } else if (ns) {
    errs.push(forbidden('metadata.namespace', 'not allowed on this type'));
  }

  if (typeof meta.generation === 'number' && meta.generation < 0) {
    errs.push(invalidValue('metadata.generation', meta.generation, 'must be greater than or equal to 0'));
  }

  errs.push(...validateLabels(meta.labels, 'metadata.labels'));
  errs.push(...validateAnnotations(meta.annotations, 'metadata.annotations'));
  errs.push(...validateFinalizers(meta.finalizers, 'metadata.finalizers'));
  errs.push(...validateOwnerReferences(meta.ownerReferences, 'metadata.ownerReferences'));
  return errs;
}

/** Label keys must be qualified names and values label values. */
export function validateLabels(labels: unknown, field: string): FieldError[] {
  if (!isPlainObject(labels)) return [];
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels)) {
    errs.push(...invalidAll(field, k, qualifiedNameProblems(k)));
    if (isStr(v)) errs.push(...invalidAll(field, v, labelValueProblems(v)));
  }
  return errs;
}

/** Annotation keys must be qualified names (case-insensitively) and all entries fit in 256 KiB. */
export function validateAnnotations(annotations: unknown, field: string): FieldError[] {
  if (!isPlainObject(annotations)) return [];
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) {
    errs.push(...invalidAll(field, k, qualifiedNameProblems(k.toLowerCase())));
    size += utf8Length(k) + (isStr(v) ? utf8Length(v) : 0);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) {
    errs.push(tooLong(field, TOTAL_ANNOTATION_SIZE_LIMIT));
  }
  return errs;
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      // A surrogate pair is one 4-byte code point.
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Finalizers are qualified names and appear once each. */
export function validateFinalizers(finalizers: unknown, field: string): FieldError[] {
  if (!Array.isArray(finalizers)) return [];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  finalizers.forEach((f, i) => {
    if (!isStr(f)) return;
    errs.push(...invalidAll(`${field}[${i}]`, f, qualifiedNameProblems(f)));
    if (seen.has(f)) errs.push(duplicate(field, f));
    seen.add(f);
  });
  return errs;
}

/** Each owner reference names its owner fully; at most one of them is the controller. */
export function validateOwnerReferences(refs: unknown, field: string): FieldError[] {
  if (!Array.isArray(refs)) return [];
  const errs: FieldError[] = [];
  const controllers: string[] = [];
  refs.forEach((r, i) => {
    if (!isPlainObject(r)) return;
    const at = `${field}[${i}]`;
    const need: Array<[string, string]> = [
      ['apiVersion', 'version must not be empty'],
      ['kind', 'kind must not be empty'],
      ['name', 'name must not be empty'],
      ['uid', 'uid must not be empty'],
    ];
    for (const [key, detail] of need) {
      if (r[key] === undefined || r[key] === null || r[key] === '') errs.push(required(`${at}.${key}`, detail));
    }
    if (r.controller === true) controllers.push(`${String(r.kind ?? '')}/${String(r.name ?? '')}`);
  });
  if (controllers.length > 1) {
    errs.push(invalidValue(field, refs, `Only one reference can have Controller set to true. Found "true" in references for ${controllers.join(' and ')}`));
  }
  return errs;
}

function sameTime(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isStr(a) || !isStr(b)) return (a ?? undefined) === (b ?? undefined);
  const ta = Date.parse(a);
  const tb = Date.parse(b);
  return !Number.isNaN(ta) && ta === tb;
}

/**
 * Rules for an update: identity fields never change, a started deletion cannot be undone, and
 * the new metadata must itself be valid. Without `opts`, scope is inferred from the old object
 * and the name rule is not re-checked (the name cannot change, so it was checked on create).
 */
export function validateObjectMetaUpdate(meta: ObjectMeta, old: ObjectMeta, opts?: Omit<ObjectMetaOptions, 'isCreate'>): FieldError[] {
  const errs: FieldError[] = [];
  if ((meta.name ?? '') !== (old.name ?? '')) errs.push(immutable('metadata.name', meta.name ?? ''));
  if ((meta.namespace ?? '') !== (old.namespace ?? '')) errs.push(immutable('metadata.namespace', meta.namespace ?? ''));
  // An update that leaves uid or creationTimestamp out keeps the stored ones (clients replace
  // objects from files that never had them); only a different value is a change.
  if (meta.uid && meta.uid !== (old.uid ?? '')) errs.push(immutable('metadata.uid', meta.uid));
  if (old.creationTimestamp && meta.creationTimestamp && !sameTime(meta.creationTimestamp, old.creationTimestamp)) {
    errs.push(immutable('metadata.creationTimestamp', meta.creationTimestamp ?? null));
  }
  if (old.deletionTimestamp && !sameTime(meta.deletionTimestamp, old.deletionTimestamp)) {
    errs.push(immutable('metadata.deletionTimestamp', meta.deletionTimestamp ?? null));
  }
  const base: ObjectMetaOptions = opts ? { ...opts, isCreate: false } : { namespaced: Boolean(old.namespace), nameRule: 'path-segment', isCreate: false };
  const rest = validateObjectMeta(meta, base);
  // The name cannot change, so a second identical report of a bad old name would be noise.
  return errs.concat(opts ? rest : rest.filter((e) => e.field !== 'metadata.name' || e.type === FieldErrorType.Required));
}
