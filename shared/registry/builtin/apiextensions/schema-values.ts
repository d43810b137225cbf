// A value checked against a CustomResourceDefinition schema node, worded as upstream's OpenAPI
// validator (kube-openapi) words it: `<name> in body must be of type integer: "string"`, where
// <name> is the value's path below the place being validated. What the schema default checks use;
// the keywords are the structural subset CRD schemas allow.

import { compileGoRegexp, type GoRegexp } from '../../../api/go-regexp.js';
import type { FieldError } from '../../../api/status.js';
import { invalidValue, required, tooLong, tooMany, unsupported } from '../../../api/field-errors.js';
import { jsonEqual } from '../../../patch/json-value.js';
import { flag, isNode, itemSchema, listOf, own, schemaList, schemaMap, stringsOf, strOf, type SchemaNode } from './schema-props.js';

function jsonTypeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(v: unknown, type: string): boolean {
  const actual = jsonTypeOf(v);
  return actual === type || (type === 'number' && actual === 'integer');
}

const FORMATS: Readonly<Record<string, (s: string) => boolean>> = {
  'date-time': (s) => /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
  datetime: (s) => FORMATS['date-time']!(s),
  date: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)),
  byte: (s) => /^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0,
  uuid: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  ipv4: (s) => /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/.test(s),
  ipv6: (s) => s.includes(':') && /^[0-9a-fA-F:.]+$/.test(s),
  duration: (s) => /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+$/.test(s),
  hostname: (s) => /^[a-zA-Z0-9]([-a-zA-Z0-9]{0,62})?(\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,62})?)*$/.test(s) && s.length <= 255,
};

/** Where errors go: `base` is the default's own path; `name` the value's path below it. */
class ValueChecker {
  constructor(
    private readonly base: string,
    readonly out: FieldError[],
  ) {}

  field(name: string): string {
    return name ? `${this.base}.${name}` : this.base;
  }

  invalid(name: string, value: unknown, message: string): void {
    this.out.push(invalidValue(this.field(name), value, `${name} in body ${message}`.trim()));
  }

  composite(name: string, message: string): void {
    this.out.push(invalidValue(this.base, '', `${JSON.stringify(name)} ${message}`));
  }
}

function child(name: string, key: string): string {
  return name ? `${name}.${key}` : key;
}

function checkType(v: unknown, s: SchemaNode, name: string, c: ValueChecker): boolean {
  const types = flag(s, 'x-kubernetes-int-or-string') ? ['integer', 'string'] : strOf(s, 'type') ? [strOf(s, 'type')] : [];
  if (v === null && (flag(s, 'nullable') || types.length === 0)) return false;
  if (v !== null && (types.length === 0 || types.some((t) => typeMatches(v, t)))) return true;
  c.invalid(name, jsonTypeOf(v), `must be of type ${types.join(',')}: ${JSON.stringify(jsonTypeOf(v))}`);
  return false;
}

function checkString(v: string, s: SchemaNode, name: string, c: ValueChecker): void {
  const max = own(s, 'maxLength');
  if (typeof max === 'number' && [...v].length > max) c.out.push(tooLong(c.field(name), max));
  const min = own(s, 'minLength');
  if (typeof min === 'number' && [...v].length < min) c.invalid(name, v, `should be at least ${min} chars long`);
  const pattern = strOf(s, 'pattern');
  if (pattern) {
    let re: GoRegexp | undefined;
    try {
      re = compileGoRegexp(pattern);
    } catch {
      re = undefined;
    }
    if (re && !re.test(v)) c.invalid(name, v, `should match '${pattern}'`);
  }
  const check = Object.hasOwn(FORMATS, strOf(s, 'format')) ? FORMATS[strOf(s, 'format')] : undefined;
  if (check && !check(v)) c.invalid(name, v, `must be of type ${strOf(s, 'format')}: ${JSON.stringify(v)}`);
}

function checkNumber(v: number, s: SchemaNode, name: string, c: ValueChecker): void {
  const multipleOf = own(s, 'multipleOf');
  if (typeof multipleOf === 'number' && multipleOf > 0 && !Number.isInteger(v / multipleOf)) c.invalid(name, v, `should be a multiple of ${multipleOf}`);
  const max = own(s, 'maximum');
  if (typeof max === 'number') {
    const exclusive = flag(s, 'exclusiveMaximum');
    if (exclusive ? v >= max : v > max) c.invalid(name, v, exclusive ? `should be less than ${max}` : `should be less than or equal to ${max}`);
  }
  const min = own(s, 'minimum');
  if (typeof min === 'number') {
    const exclusive = flag(s, 'exclusiveMinimum');
    if (exclusive ? v <= min : v < min) c.invalid(name, v, exclusive ? `should be greater than ${min}` : `should be greater than or equal to ${min}`);
  }
}

function checkArray(v: unknown[], s: SchemaNode, name: string, c: ValueChecker): void {
  const max = own(s, 'maxItems');
  if (typeof max === 'number' && v.length > max) c.out.push(tooMany(c.field(name), max));
  const min = own(s, 'minItems');
  if (typeof min === 'number' && v.length < min) c.invalid(name, v.length, `should have at least ${min} items`);
  const items = itemSchema(s);
  if (items) v.forEach((x, i) => checkValue(x, items, `${name}[${i}]`, c));
}

function checkObject(v: Record<string, unknown>, s: SchemaNode, name: string, c: ValueChecker): void {
  const count = Object.keys(v).length;
  const max = own(s, 'maxProperties');
  if (typeof max === 'number' && count > max) c.out.push(tooMany(c.field(name), max, 'properties'));
  const min = own(s, 'minProperties');
  if (typeof min === 'number' && count < min) c.invalid(name, count, `should have at least ${min} properties`);
  for (const key of stringsOf(s, 'required')) if (!Object.hasOwn(v, key)) c.out.push(required(c.field(child(name, key))));
  const props = new Map(schemaMap(s, 'properties'));
  const ap = own(s, 'additionalProperties');
  for (const [key, x] of Object.entries(v)) {
    const p = props.get(key);
    if (p) checkValue(x, p, child(name, key), c);
    else if (isNode(ap)) checkValue(x, ap, child(name, key), c);
    else if (ap === false) c.out.push(invalidValue(c.field(child(name, key)), key, `${child(name, key)} in body is a forbidden property`));
  }
}

function checkJunctors(v: unknown, s: SchemaNode, name: string, c: ValueChecker): void {
  const passes = (b: SchemaNode) => checkValue(v, b, name, new ValueChecker('', [])).length === 0;
  const allOf = schemaList(s, 'allOf');
  const allFailed = allOf.filter((b) => !passes(b));
  for (const b of allFailed) checkValue(v, b, name, c);
  if (allFailed.length) c.composite(name, 'must validate all the schemas (allOf)');
  const anyOf = schemaList(s, 'anyOf');
  if (anyOf.length && !anyOf.some(passes)) c.composite(name, 'must validate at least one schema (anyOf)');
  const oneOf = schemaList(s, 'oneOf');
  const matched = oneOf.filter(passes).length;
  if (oneOf.length && matched !== 1) c.composite(name, `must validate one and only one schema (oneOf). ${matched === 0 ? 'Found none valid' : `Found ${matched} valid alternatives`}`);
  const not = own(s, 'not');
  if (isNode(not) && passes(not)) c.composite(name, 'must not validate the schema (not)');
}

function checkEnum(v: unknown, s: SchemaNode, name: string, c: ValueChecker): void {
  const values = listOf(s, 'enum');
  if (values.length && !values.some((e) => jsonEqual(e, v))) {
    c.out.push(
      unsupported(
        c.field(name),
        v,
        values.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))),
      ),
    );
  }
}

/** Errors of `v` against schema node `s`; `name` is its path below the checker's base. */
function checkValue(v: unknown, s: SchemaNode, name: string, c: ValueChecker): FieldError[] {
  const before = c.out.length;
  if (!checkType(v, s, name, c)) return c.out.slice(before);
  checkJunctors(v, s, name, c);
  if (typeof v === 'string') checkString(v, s, name, c);
  else if (typeof v === 'number') checkNumber(v, s, name, c);
  else if (Array.isArray(v)) checkArray(v, s, name, c);
  else if (isNode(v)) checkObject(v, s, name, c);
  checkEnum(v, s, name, c);
  return c.out.slice(before);
}

/** The errors of `value` against `schema`, reported at `path` (a default's path) and below. */
export function valueErrors(value: unknown, schema: SchemaNode, path: string): FieldError[] {
  const c = new ValueChecker(path, []);
  checkValue(value, schema, '', c);
  return c.out;
}
