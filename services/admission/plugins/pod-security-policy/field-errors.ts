// The field errors PodSecurityPolicy rejections list, rendered as upstream prints a Go
// field.ErrorList with %v: `[<path>: <type>: <value>: <detail> <path>: …]`. Values print the way
// Go's field.Error does: numbers and booleans bare, strings quoted, a nil pointer as "null", and
// slices in Go syntax (`[]int64{0}`), because clients and runbooks match on these messages.

import { FieldErrorType } from '../../../../shared/api/field-errors.js';

/** A value that prints verbatim (Go's %#v or %v of a slice or struct). */
export class GoLiteral {
  constructor(readonly text: string) {}
}

/** `null` is a nil pointer, which upstream prints as the string "null". */
export type GoValue = string | number | boolean | null | GoLiteral;

export interface PspFieldError {
  type: FieldErrorType;
  field: string;
  value?: GoValue;
  detail?: string;
}

export interface IdRange {
  min: number;
  max: number;
}

export function invalid(field: string, value: GoValue, detail: string): PspFieldError {
  return { type: FieldErrorType.Invalid, field, value, detail };
}

export function required(field: string, detail = ''): PspFieldError {
  return { type: FieldErrorType.Required, field, detail };
}

export function forbidden(field: string, detail: string): PspFieldError {
  return { type: FieldErrorType.Forbidden, field, detail };
}

/** Go's `%#v` of an []int64: `[]int64{1, 2}`, nil as `[]int64(nil)`. */
export function int64Slice(values: readonly number[] | undefined): GoLiteral {
  return new GoLiteral(values === undefined ? '[]int64(nil)' : `[]int64{${values.join(', ')}}`);
}

/** Go's `%#v` of a []core.Capability. */
export function capabilitySlice(values: readonly string[] | undefined): GoLiteral {
  return new GoLiteral(values === undefined ? '[]core.Capability(nil)' : `[]core.Capability{${values.map((v) => JSON.stringify(v)).join(', ')}}`);
}

/** Go's `%v` of a []IDRange: `[{1 100} {200 300}]`. */
export function rangesText(ranges: readonly IdRange[]): string {
  return `[${ranges.map((r) => `{${r.min} ${r.max}}`).join(' ')}]`;
}

function valueText(v: GoValue | undefined): string {
  if (v === null || v === undefined) return '"null"';
  if (v instanceof GoLiteral) return v.text;
  if (typeof v === 'string') return JSON.stringify(v);
  return String(v);
}

export function errorText(e: PspFieldError): string {
  const bare = e.type === FieldErrorType.Required || e.type === FieldErrorType.Forbidden || e.type === FieldErrorType.TooLong || e.type === FieldErrorType.Internal;
  let body: string = bare ? e.type : `${e.type}: ${valueText(e.value)}`;
  if (e.detail) body += `: ${e.detail}`;
  return `${e.field}: ${body}`;
}

/** The list as Go's %v prints a field.ErrorList. */
export function errorListText(errs: readonly PspFieldError[]): string {
  return `[${errs.map(errorText).join(' ')}]`;
}
