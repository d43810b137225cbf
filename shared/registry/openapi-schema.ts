// JSON schema (the draft-07 subset our types are written in) to OpenAPI v2 / v3.0 schema objects:
// what the two dialects cannot say is dropped or rewritten the way upstream's documents say it.

import type { JsonSchema } from '../api/types.js';

export type OpenApiDialect = 'v2' | 'v3';

// Keywords that OpenAPI schema objects do not have; dropping them loses nothing a client uses.
const DROPPED = new Set([
  '$schema',
  '$id',
  '$comment',
  '$defs',
  'definitions',
  'examples',
  'if',
  'then',
  'else',
  'dependencies',
  'dependentRequired',
  'dependentSchemas',
  'patternProperties',
  'propertyNames',
  'contains',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
  'contentMediaType',
  'contentEncoding',
]);

/**
 * Converts one schema (recursively) to the given dialect. Refs are written `#/definitions/<name>`
 * in the neutral form and become `#/components/schemas/<name>` in v3. `x-kubernetes-int-or-string`
 * becomes `type: string, format: int-or-string` in v2 and an integer/string `anyOf` in v3.
 */
export function convertSchema(schema: JsonSchema, dialect: OpenApiDialect): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key)) continue;
    switch (key) {
      case 'const':
        out.enum = [value];
        break;
      case 'type':
        if (Array.isArray(value)) {
          const types = value.filter((t) => t !== 'null');
          if (types.length === 1) out.type = types[0];
          if (types.length !== value.length && dialect === 'v3') out.nullable = true;
        } else out.type = value;
        break;
      case 'nullable':
        if (dialect === 'v3') out.nullable = value;
        break;
      case 'properties':
        out.properties = Object.fromEntries(Object.entries(value as Record<string, JsonSchema>).map(([k, v]) => [k, convertSchema(v, dialect)]));
        break;
      case 'items':
        // Tuple validation does not exist in OpenAPI; the first item's schema is the best fit.
        if (Array.isArray(value)) out.items = value.length ? convertSchema(value[0] as JsonSchema, dialect) : {};
        else if (isObject(value)) out.items = convertSchema(value, dialect);
        break;
      case 'additionalProperties':
        // Booleans are dropped: unknown fields are the server's field validation's business, and
        // kubectl's v2 model parser treats only schema-valued additionalProperties as maps.
        if (isObject(value)) out.additionalProperties = convertSchema(value, dialect);
        break;
      case 'allOf':
        out.allOf = (value as JsonSchema[]).map((s) => convertSchema(s, dialect));
        break;
      case 'anyOf':
      case 'oneOf':
        if (dialect === 'v3') out[key] = (value as JsonSchema[]).map((s) => convertSchema(s, dialect));
        break;
      case 'not':
        if (dialect === 'v3' && isObject(value)) out.not = convertSchema(value, dialect);
        break;
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        if (typeof value === 'number') {
          out[key === 'exclusiveMinimum' ? 'minimum' : 'maximum'] = value;
          out[key] = true;
        } else out[key] = value;
        break;
      case 'required':
        if (Array.isArray(value) && value.length) out.required = [...value];
        break;
      case '$ref':
        out.$ref = dialect === 'v3' ? String(value).replace('#/definitions/', '#/components/schemas/') : value;
        break;
      default:
        out[key] = value;
    }
  }
  if (out['x-kubernetes-int-or-string'] === true) {
    delete out.anyOf;
    delete out.oneOf;
    if (dialect === 'v2') {
      out.type = 'string';
      out.format = 'int-or-string';
    } else {
      delete out.type;
      delete out.format;
      out.anyOf = [{ type: 'integer' }, { type: 'string' }];
    }
  }
  if (out.$ref !== undefined && Object.keys(out).length > 1) {
    // v2 ignores siblings of $ref (keep only the description); v3 needs allOf to carry them.
    if (dialect === 'v2') return out.description ? { $ref: out.$ref, description: out.description } : { $ref: out.$ref };
    const { $ref, ...rest } = out;
    return { ...rest, allOf: [{ $ref }] };
  }
  return out;
}

export function isObject(v: unknown): v is JsonSchema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
