// Rules shared by ConfigMaps and Secrets: key syntax, the 1 MiB total and `immutable`.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import { asObject } from '../common/field-errors.js';
import { forbidden, invalidValue, tooLong } from '../../../api/field-errors.js';
import { validConfigKey } from '../../../api/validation.js';
import { jsonEqual } from '../../../patch/json-value.js';

/** Total size of ConfigMap/Secret payloads (etcd's per-object limit leaves room for metadata). */
export const MAX_DATA_BYTES = 1024 * 1024;

export function configKeyErrors(field: string, map: unknown): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of Object.keys(asObject(map) ?? {})) {
    if (!validConfigKey(k))
      errs.push(
        invalidValue(
          field,
          k,
          "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
        ),
      );
  }
  return errs;
}

export function sizeError(field: string, bytes: number): FieldError[] {
  return bytes > MAX_DATA_BYTES ? [tooLong(field, MAX_DATA_BYTES)] : [];
}

/** Size of a base64 value once decoded, without decoding it. */
export function decodedLength(b64: string): number {
  const clean = b64.replace(/[\s]/g, '');
  const pad = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - pad);
}

/** `immutable: true` freezes the payload fields and the flag itself. */
export function immutableDataErrors(o: ApiObject, old: ApiObject, fields: string[]): FieldError[] {
  if (old.immutable !== true) return [];
  const errs: FieldError[] = [];
  for (const f of fields) {
    if (!jsonEqual(o[f] ?? {}, old[f] ?? {})) errs.push(forbidden(f, 'field is immutable when `immutable` is set'));
  }
  if (o.immutable !== true) errs.push(forbidden('immutable', 'field is immutable when `immutable` is set'));
  return errs;
}
