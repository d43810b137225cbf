// Field selectors: the `fieldSelector` query parameter (`metadata.name=x,spec.nodeName!=`),
// parsed once per request and matched against objects through a field getter supplied by the
// resource type. Values escape `\`, `,` and `=` with a backslash; one linear pass splits terms.

import { badRequest } from './status.js';

export const FieldOperator = {
  Equals: '=',
  DoubleEquals: '==',
  NotEquals: '!=',
} as const;
export type FieldOperator = (typeof FieldOperator)[keyof typeof FieldOperator];

export interface FieldRequirement {
  field: string;
  operator: FieldOperator;
  /** Unescaped. */
  value: string;
}

/** Escapes a value for embedding in a field selector (`a,b` → `a\,b`). */
export function escapeFieldValue(value: string): string {
  let out = '';
  let last = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x5c || c === 0x2c || c === 0x3d) {
      out += value.slice(last, i) + '\\';
      last = i;
    }
  }
  return out + value.slice(last);
}

export class FieldSelector {
  readonly requirements: readonly FieldRequirement[];

  constructor(requirements: FieldRequirement[]) {
    this.requirements = requirements;
  }

  /** Selects every object. */
  get empty(): boolean {
    return this.requirements.length === 0;
  }

  /**
   * A field the getter does not know reads as the empty string, as upstream's field sets do, so
   * `spec.nodeName=` selects objects without the field.
   */
  matches(get: (field: string) => string | undefined): boolean {
    for (const r of this.requirements) {
      const v = get(r.field) ?? '';
      if (r.operator === FieldOperator.NotEquals ? v === r.value : v !== r.value) return false;
    }
    return true;
  }

  /** The value the selector pins `field` to with `=` or `==` (first such term), if any. */
  exactMatch(field: string): string | undefined {
    for (const r of this.requirements) {
      if (r.field === field && r.operator !== FieldOperator.NotEquals) return r.value;
    }
    return undefined;
  }

  /** Terms in their original order, values re-escaped; parses back to an equal selector. */
  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
  }
}

function malformed(input: string, detail: string): Error {
  return badRequest(`invalid field selector: ${JSON.stringify(input)}: ${detail}`, [{ reason: 'FieldValueInvalid', message: detail, field: 'fieldSelector' }]);
}

/**
 * Parses a `fieldSelector` query value. Empty terms are skipped (`a=b,` is `a=b`); a term needs
 * a non-empty field name and one of `=`, `==`, `!=` (the first unescaped occurrence splits it).
 * Throws a 400 StatusError on malformed input.
 */
export function parseFieldSelector(input: string): FieldSelector {
  const reqs: FieldRequirement[] = [];
  const n = input.length;
  let i = 0;
  while (i <= n) {
    // One term: field name up to the first unescaped operator, then the value up to an unescaped comma.
    const termStart = i;
    let opAt = -1;
    let op: FieldOperator = FieldOperator.Equals;
    let value = '';
    let valueFrom = -1; // start of the not-yet-copied run of the value
    for (; i < n; i++) {
      const c = input.charCodeAt(i);
      if (c === 0x5c) {
        const next = i + 1 < n ? input.charCodeAt(i + 1) : -1;
        if (next !== 0x5c && next !== 0x2c && next !== 0x3d) {
          throw malformed(input, next === -1 ? 'trailing backslash' : `invalid escape sequence "\\${input[i + 1]}" (only \\\\, \\, and \\= may be escaped)`);
        }
        if (opAt >= 0) {
          value += input.slice(valueFrom, i);
          valueFrom = i + 1;
        }
        i++;
        continue;
      }
      if (c === 0x2c) break;
      if (opAt < 0) {
        if (c === 0x21 && input.charCodeAt(i + 1) === 0x3d) {
          opAt = i;
          op = FieldOperator.NotEquals;
          i++;
        } else if (c === 0x3d) {
          opAt = i;
          if (input.charCodeAt(i + 1) === 0x3d) {
            op = FieldOperator.DoubleEquals;
            i++;
          } else {
            op = FieldOperator.Equals;
          }
        } else {
          continue;
        }
        valueFrom = i + 1;
      } else if (c === 0x3d) {
        // An unescaped `=` inside a value is ambiguous (`a=b=c`); upstream rejects it too.
        throw malformed(input, `unescaped '=' in the value of term ${JSON.stringify(input.slice(termStart, i))}`);
      }
    }
    const termEnd = i;
    if (termEnd > termStart) {
      if (opAt < 0) throw malformed(input, `can't understand ${JSON.stringify(input.slice(termStart, termEnd))}: expected 'field=value', 'field==value' or 'field!=value'`);
      const field = input.slice(termStart, opAt);
      if (field.length === 0) throw malformed(input, `term ${JSON.stringify(input.slice(termStart, termEnd))} has no field name`);
      if (field.includes('\\')) throw malformed(input, `field name ${JSON.stringify(field)} may not contain escapes`);
      value += input.slice(valueFrom, termEnd);
      reqs.push({ field, operator: op, value });
    }
    i = termEnd + 1;
  }
  return new FieldSelector(reqs);
}
