// The names a CustomResourceDefinition gives its resource (spec.names, and status.acceptedNames
// the controllers fill in) and the DNS-1035 labels they must be, worded as upstream words them.

import type { FieldError } from '../../../api/status.js';
import { invalidValue } from '../../../api/field-errors.js';
import { dns1035LabelProblems } from '../../../api/validation.js';

/** Why `value` is not a DNS-1035 label (upstream's IsDNS1035Label); empty when it is one. */
export const dns1035Problems = dns1035LabelProblems;

/** One `Invalid value` naming every DNS-1035 problem, as upstream joins them; none when valid. */
export function dns1035Error(field: string, value: string, prefix = ''): FieldError[] {
  const problems = dns1035Problems(value);
  return problems.length ? [invalidValue(field, value, prefix + problems.join(','))] : [];
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.map(str) : [];
}

const MIXED_CASE = 'may have mixed case, but should otherwise match: ';

/** The format rules of a names block (spec.names or status.acceptedNames); required-ness is the caller's. */
export function validateNames(names: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const plural = str(names.plural);
  const singular = str(names.singular);
  const kind = str(names.kind);
  const listKind = str(names.listKind);
  if (plural) errs.push(...dns1035Error(`${path}.plural`, plural));
  if (singular) errs.push(...dns1035Error(`${path}.singular`, singular));
  if (kind && dns1035Problems(kind.toLowerCase()).length) errs.push(invalidValue(`${path}.kind`, kind, MIXED_CASE + dns1035Problems(kind.toLowerCase()).join(',')));
  if (listKind && dns1035Problems(listKind.toLowerCase()).length) errs.push(invalidValue(`${path}.listKind`, listKind, MIXED_CASE + dns1035Problems(listKind.toLowerCase()).join(',')));
  strings(names.shortNames).forEach((s, i) => errs.push(...dns1035Error(`${path}.shortNames[${i}]`, s)));
  // The same name for an object and its list would make decoding ambiguous.
  if (kind && kind === listKind) errs.push(invalidValue(`${path}.listKind`, listKind, 'kind and listKind may not be the same'));
  strings(names.categories).forEach((c, i) => errs.push(...dns1035Error(`${path}.categories[${i}]`, c)));
  return errs;
}
