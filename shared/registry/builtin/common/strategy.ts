// Strategy building blocks. Validation follows the upstream split: `validate` runs on create and
// `validateUpdate` on update, where it re-checks the whole new object and adds update-only rules
// (immutability), as kube-apiserver's ValidateUpdate functions do.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { WellKnownNames } from '../../../api/well-known-names.js';
import { at } from './field-errors.js';
import { immutable } from '../../../api/field-errors.js';
import { jsonEqual } from '../../../patch/json-value.js';

type Validate = (obj: ApiObject, names?: WellKnownNames) => FieldError[];
type ValidateUpdateOnly = (obj: ApiObject, old: ApiObject) => FieldError[];

/** validateUpdate = the create rules on the new object + the update-only rules. */
export function updateValidation(validate: Validate | undefined, extra?: ValidateUpdateOnly): (obj: ApiObject, old: ApiObject, names?: WellKnownNames) => FieldError[] {
  return (obj, old, names) => [...(validate?.(obj, names) ?? []), ...(extra?.(obj, old) ?? [])];
}

/** `field: Invalid value: ...: field is immutable` for each listed path that changed. */
export function immutableFields(obj: ApiObject, old: ApiObject, paths: string[]): FieldError[] {
  const errs: FieldError[] = [];
  for (const p of paths) {
    const now = at(obj, p);
    if (!jsonEqual(now, at(old, p))) errs.push(immutable(p, now));
  }
  return errs;
}
