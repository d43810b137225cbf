// Label selector evaluation and validation for strategies (apps/batch selectors must match their
// templates; PDB and network policy selectors must be well formed).

import type { FieldError } from '../../../api/status.js';
import { asArray, asObject } from './field-errors.js';
import { forbidden, invalidValue, required, unsupported } from '../../../api/field-errors.js';
import { validLabelValue, validQualifiedName } from '../../../api/validation.js';

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

/** Whether the labels satisfy the selector; an empty selector matches everything. */
export function selectorMatches(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(l, e.key);
    const vals = e.values ?? [];
    switch (e.operator) {
      case 'In':
        if (!has || !vals.includes(l[e.key]!)) return false;
        break;
      case 'NotIn':
        if (has && vals.includes(l[e.key]!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

export function isEmptySelector(selector: LabelSelector | undefined): boolean {
  return !selector || (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0);
}

/** Keys, values and operator/value combinations of a metav1.LabelSelector. */
export function validateLabelSelector(sel: unknown, field: string): FieldError[] {
  const s = asObject(sel);
  if (!s) return [];
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(asObject(s.matchLabels) ?? {})) {
    if (!validQualifiedName(k))
      errs.push(invalidValue(`${field}.matchLabels`, k, "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"));
    if (typeof v === 'string' && !validLabelValue(v))
      errs.push(
        invalidValue(`${field}.matchLabels`, v, "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"),
      );
  }
  asArray(s.matchExpressions).forEach((raw, i) => {
    const e = asObject(raw) ?? {};
    const f = `${field}.matchExpressions[${i}]`;
    const vals = asArray(e.values);
    switch (e.operator) {
      case 'In':
      case 'NotIn':
        if (vals.length === 0) errs.push(required(`${f}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (vals.length > 0) errs.push(forbidden(`${f}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(unsupported(`${f}.operator`, e.operator, ['In', 'NotIn', 'Exists', 'DoesNotExist']));
    }
    if (typeof e.key === 'string' && !validQualifiedName(e.key)) errs.push(invalidValue(`${f}.key`, e.key, 'must be a qualified name'));
  });
  return errs;
}
