// Field error builders, name checks and object walking used by the built-in types' strategies.
// Messages follow the upstream wording so clients and tests that match on them keep working.

import { at } from '../../../api/object-path.js';
import type { FieldError } from '../../../api/status.js';

export function required(field: string, detail?: string): FieldError {
  return detail ? { type: 'Required value', field, detail } : { type: 'Required value', field };
}

export function invalidValue(field: string, value: unknown, detail: string): FieldError {
  return { type: 'Invalid value', field, value, detail };
}

export function unsupported(field: string, value: unknown, supported: readonly string[]): FieldError {
  return { type: 'Unsupported value', field, value, detail: `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}` };
}

export function forbidden(field: string, detail: string): FieldError {
  return { type: 'Forbidden', field, detail };
}

export function duplicate(field: string, value: unknown): FieldError {
  return { type: 'Duplicate value', field, value };
}

export function tooLong(field: string, max: number): FieldError {
  return { type: 'Too long', field, detail: `must have at most ${max} bytes` };
}

export const IMMUTABLE = 'field is immutable';

export function immutable(field: string, value: unknown): FieldError {
  return invalidValue(field, value, IMMUTABLE);
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

export function isDnsLabel(s: string): boolean {
  return s.length <= 63 && DNS_LABEL.test(s);
}

export function isDns1035Label(s: string): boolean {
  return s.length <= 63 && DNS1035_LABEL.test(s);
}

export function isDnsSubdomain(s: string): boolean {
  return s.length <= 253 && DNS_SUBDOMAIN.test(s);
}

/** Label and annotation keys: `[prefix/]name`. */
export function isQualifiedName(s: string): boolean {
  const parts = s.split('/');
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1]!;
  if (name.length > 63 || !QUALIFIED_NAME_PART.test(name)) return false;
  return parts.length === 1 || (parts[0]!.length > 0 && isDnsSubdomain(parts[0]!));
}

export function isLabelValue(s: string): boolean {
  return s.length <= 63 && LABEL_VALUE.test(s);
}

/** Keys of ConfigMap and Secret data (they become file names in volumes). */
export function isConfigKey(s: string): boolean {
  return s.length <= 253 && CONFIG_KEY.test(s) && s !== '.' && s !== '..' && !s.startsWith('..');
}

/** Names that are single URL path segments (RBAC objects). */
export function isPathSegmentName(s: string): boolean {
  return s !== '.' && s !== '..' && !s.includes('/') && !s.includes('%');
}

export function dnsLabelError(field: string, value: string): FieldError {
  return invalidValue(field, value, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
}

export function dnsSubdomainError(field: string, value: string): FieldError {
  return invalidValue(field, value, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
}

export type Json = Record<string, unknown>;

export { at };

/** The fields of an ObjectReference that event field selectors expose. */
export const OBJECT_REF_FIELDS = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'] as const;

/** Field-selector getters reading each dotted path as a string ('' when absent, as upstream). */
export function pathSelectors(...paths: string[]): Record<string, (o: unknown) => string> {
  return Object.fromEntries(
    paths.map((p) => [
      p,
      (o: unknown) => {
        const v = at(o, p);
        return v === undefined || v === null ? '' : String(v);
      },
    ]),
  );
}

export function asObject(v: unknown): Json | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Returns the object at `key`, creating it when absent. */
export function ensureObject(parent: Json, key: string): Json {
  const v = asObject(parent[key]);
  if (v) return v;
  const fresh: Json = {};
  parent[key] = fresh;
  return fresh;
}

export function setDefault(target: Json, key: string, value: unknown): void {
  if (target[key] === undefined || target[key] === null) target[key] = value;
}

/** Deep equality of JSON values (key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ka = Object.keys(a as Json).filter((k) => (a as Json)[k] !== undefined);
  const kb = Object.keys(b as Json).filter((k) => (b as Json)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => jsonEqual((a as Json)[k], (b as Json)[k]));
}

/** Reports every item equal to an earlier one as `field[i]: Duplicate value`. */
export function duplicates(field: string, values: unknown[]): FieldError[] {
  const seen = new Set<string>();
  const errs: FieldError[] = [];
  values.forEach((v, i) => {
    const k = JSON.stringify(v);
    if (seen.has(k)) errs.push(duplicate(`${field}[${i}]`, v));
    seen.add(k);
  });
  return errs;
}
