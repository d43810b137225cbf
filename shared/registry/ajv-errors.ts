// ajv's errors as FieldErrors worded like the upstream API server's: one per problem, a failed
// anyOf/oneOf reported through the branch that matched the value's type.

import type { ErrorObject } from 'ajv';
import type { FieldError } from '../api/status.js';
import { duplicate, forbidden, invalidValue, required, tooLong, tooMany, unsupported } from '../api/field-errors.js';
import { pointerToFieldPath, valueAtPointer, type ShapeNode } from './schema-shape.js';

function describeTypes(t: unknown): string {
  const list = (Array.isArray(t) ? t : [t]).filter((x) => x !== 'null').map(String);
  return list.join(' or ');
}

function reportable(v: unknown): unknown {
  return v !== null && typeof v === 'object' ? undefined : v;
}

// Objects and arrays would flood the message; their JSON type says enough.
function jsonTypeOrValue(v: unknown): unknown {
  if (Array.isArray(v)) return 'array';
  if (v !== null && typeof v === 'object') return 'object';
  return v;
}

const INTEGER_FORMATS: ReadonlyMap<string, string> = new Map([
  ['int32', `must be an integer between ${-(2 ** 31)} and ${2 ** 31 - 1} (format int32)`],
  ['int64', `must be an integer between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER} (format int64; larger integers cannot be represented exactly)`],
]);

/** One ajv error (not an anyOf/oneOf umbrella) as a FieldError. */
function mapOne(e: ErrorObject, shape: ShapeNode, root: unknown): FieldError | undefined {
  const p = e.params as Record<string, unknown>;
  const field = pointerToFieldPath(shape, e.instancePath);
  const data = valueAtPointer(root, e.instancePath);
  switch (e.keyword) {
    case 'required':
      return required(pointerToFieldPath(shape, e.instancePath, String(p.missingProperty)));
    case 'type':
      return invalidValue(field, jsonTypeOrValue(data), `must be of type ${describeTypes(p.type)}`);
    case 'enum':
      return unsupported(field, data, p.allowedValues as unknown[]);
    case 'const':
      return unsupported(field, data, [p.allowedValue]);
    case 'format':
      return invalidValue(field, reportable(data), INTEGER_FORMATS.get(String(p.format)) ?? `must be of format ${String(p.format)}`);
    case 'minimum':
    case 'exclusiveMinimum':
    case 'maximum':
    case 'exclusiveMaximum': {
      const words: Record<string, string> = {
        minimum: 'greater than or equal to',
        exclusiveMinimum: 'greater than',
        maximum: 'less than or equal to',
        exclusiveMaximum: 'less than',
      };
      return invalidValue(field, data, `must be ${words[e.keyword]} ${String(p.limit)}`);
    }
    case 'multipleOf':
      return invalidValue(field, data, `must be a multiple of ${String(p.multipleOf)}`);
    case 'minLength':
      return invalidValue(field, data, `must be at least ${String(p.limit)} characters long`);
    case 'maxLength':
      return tooLong(field, Number(p.limit), 'characters');
    case 'minItems':
      return invalidValue(field, undefined, `must have at least ${String(p.limit)} items`);
    case 'maxItems':
      return tooMany(field, Number(p.limit), 'items');
    case 'minProperties':
      return invalidValue(field, undefined, `must have at least ${String(p.limit)} properties`);
    case 'maxProperties':
      return tooMany(field, Number(p.limit), 'properties');
    case 'pattern':
      return invalidValue(field, data, `should match '${String(p.pattern)}'`);
    case 'uniqueItems': {
      const idx = Math.max(Number(p.i), Number(p.j));
      const item = Array.isArray(data) ? data[idx] : undefined;
      return duplicate(`${field}[${idx}]`, item);
    }
    case 'additionalProperties':
      return forbidden(pointerToFieldPath(shape, e.instancePath, String(p.additionalProperty)), 'field not declared in schema');
    case 'if':
      // The failing then/else branch reports the real problem.
      return undefined;
    default:
      return invalidValue(field, reportable(data), e.message ?? 'is invalid');
  }
}

/**
 * ajv errors (compiled with `allErrors`) for the value `root` as FieldErrors. A failed anyOf/oneOf is
 * reported through the branch that matched the value's type when there is one (e.g. a quantity
 * string that fails its pattern), otherwise as one "must be of type X or Y" error.
 */
export function mapAjvErrors(errors: readonly ErrorObject[], shape: ShapeNode, root: unknown): FieldError[] {
  if (errors.length === 0) return [];
  const umbrellas = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  // Schema paths restart inside a `$ref`d schema, so the instance path must agree as well.
  const inUmbrella = (e: ErrorObject, u: ErrorObject) =>
    e !== u && e.schemaPath.startsWith(`${u.schemaPath}/`) && (e.instancePath === u.instancePath || e.instancePath.startsWith(`${u.instancePath}/`));
  // Outermost umbrellas own their branches; nested ones are resolved by the recursive call.
  const outer = umbrellas.filter((u) => !umbrellas.some((o) => inUmbrella(u, o)));
  const owned = new Set<ErrorObject>();
  const resolved = new Map<ErrorObject, FieldError[]>();
  for (const u of outer) {
    const branch = errors.filter((e) => inUmbrella(e, u));
    branch.forEach((e) => owned.add(e));
    resolved.set(u, resolveUmbrella(u, branch, shape, root));
  }
  const out: FieldError[] = [];
  // Keep ajv's order (it follows the schema's property order, so metadata comes first).
  for (const e of errors) {
    const r = resolved.get(e);
    if (r) out.push(...r);
    else if (!owned.has(e) && e.keyword !== 'anyOf' && e.keyword !== 'oneOf') {
      const fe = mapOne(e, shape, root);
      if (fe) out.push(fe);
    }
  }
  return out;
}

function resolveUmbrella(u: ErrorObject, branch: ErrorObject[], shape: ShapeNode, root: unknown): FieldError[] {
  const field = pointerToFieldPath(shape, u.instancePath);
  const data = valueAtPointer(root, u.instancePath);
  if (u.keyword === 'oneOf' && branch.length === 0) {
    return [invalidValue(field, jsonTypeOrValue(data), 'must match exactly one schema')];
  }
  const typeMisses = branch.filter((e) => e.keyword === 'type' && e.instancePath === u.instancePath);
  const specific = branch.filter((e) => !typeMisses.includes(e));
  if (specific.length > 0) return mapAjvErrors(specific, shape, root);
  const types = typeMisses.flatMap((e) => {
    const t = (e.params as { type?: unknown }).type;
    return Array.isArray(t) ? t : [t];
  });
  return [invalidValue(field, jsonTypeOrValue(data), `must be of type ${describeTypes([...new Set(types)])}`)];
}

/** Removes repeated reports of the same problem (schema and type rules often agree). */
export function dedupeFieldErrors(errs: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errs.filter((e) => {
    const key = `${e.type}\u0000${e.field}\u0000${JSON.stringify(e.value ?? null)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
