// FieldError constructors, after upstream's field.Required/Invalid/NotSupported/… helpers: the one
// place a FieldError is built. Types and wording are upstream's, because clients and scripts match
// on the causes of a 422 (`reason` is the type, `field` the path, `message` built from both).

import type { FieldError } from './status.js';

export const FieldErrorType = {
  Invalid: 'Invalid value',
  Required: 'Required value',
  TooLong: 'Too long',
  TooMany: 'Too many',
  Forbidden: 'Forbidden',
  Duplicate: 'Duplicate value',
  NotSupported: 'Unsupported value',
  NotFound: 'Not found',
  Internal: 'Internal error',
} as const;
export type FieldErrorType = (typeof FieldErrorType)[keyof typeof FieldErrorType];

export const IMMUTABLE = 'field is immutable';

export function required(field: string, detail?: string): FieldError {
  return detail ? { type: FieldErrorType.Required, field, detail } : { type: FieldErrorType.Required, field };
}

/** `value` undefined leaves the value out (a rule about the field rather than one value). */
export function invalidValue(field: string, value: unknown, detail: string): FieldError {
  return value === undefined ? { type: FieldErrorType.Invalid, field, detail } : { type: FieldErrorType.Invalid, field, value, detail };
}

/** A value outside an enumeration; the supported values are listed as JSON (null entries left out). */
export function unsupported(field: string, value: unknown, supported: readonly unknown[]): FieldError {
  const list = supported
    .filter((v) => v !== null)
    .map((v) => JSON.stringify(v))
    .join(', ');
  return { type: FieldErrorType.NotSupported, field, value, detail: `supported values: ${list}` };
}

export function forbidden(field: string, detail: string): FieldError {
  return { type: FieldErrorType.Forbidden, field, detail };
}

export function duplicate(field: string, value: unknown): FieldError {
  return { type: FieldErrorType.Duplicate, field, value };
}

/** A value longer than `max` bytes (or characters, for schema string limits). */
export function tooLong(field: string, max: number, unit: 'bytes' | 'characters' = 'bytes'): FieldError {
  return { type: FieldErrorType.TooLong, field, detail: `must have at most ${max} ${unit}` };
}

/** A list or map with more than `max` entries. */
export function tooMany(field: string, max: number, unit: 'items' | 'properties' = 'items'): FieldError {
  return { type: FieldErrorType.TooMany, field, detail: `must have at most ${max} ${unit}` };
}

export function notFoundValue(field: string, value: unknown): FieldError {
  return { type: FieldErrorType.NotFound, field, value };
}

export function internalFieldError(field: string, detail: string): FieldError {
  return { type: FieldErrorType.Internal, field, detail };
}

export function immutable(field: string, value: unknown): FieldError {
  return invalidValue(field, value, IMMUTABLE);
}
