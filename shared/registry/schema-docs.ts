// Field descriptions kept beside the schemas they document, and the measure of how many fields of
// a published kind carry one. Descriptions are documentation only: the registry's ajv copy drops
// them (schema-tools), no validation, pruning or defaulting reads them, stored objects and the
// protobuf codecs never see them; they reach clients through OpenAPI v2/v3 (`kubectl explain`).

import type { JsonSchema } from '../api/types.js';

/** Descriptions of an object schema's own properties, by property name. */
export type FieldDocs = Readonly<Record<string, string>>;

function isSchema(v: unknown): v is JsonSchema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A copy of an object schema whose listed properties carry the given descriptions and, with
 * `about`, whose own description (what `kubectl explain` prints for the type) is `about`. Apply it
 * where a sub-schema is defined, so a schema shared by many types is described once. A property
 * that is a shared sub-schema is copied shallowly: its children keep their identity, so the
 * registry still compiles them once. Throws, at module load, for a name that is not a property
 * or an empty text, so descriptions cannot drift from the fields they describe.
 */
export function described(schema: JsonSchema, fields: FieldDocs, about?: string): JsonSchema {
  const props = isSchema(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : undefined;
  const out: Record<string, JsonSchema> = { ...props };
  for (const [name, text] of Object.entries(fields)) {
    const prop = props?.[name];
    if (!isSchema(prop)) throw new Error(`described: no property ${JSON.stringify(name)} to describe (properties: ${Object.keys(props ?? {}).join(', ')})`);
    if (!text.trim()) throw new Error(`described: empty description for ${JSON.stringify(name)}`);
    out[name] = { ...prop, description: text };
  }
  const copy: JsonSchema = props ? { ...schema, properties: out } : { ...schema };
  if (about !== undefined) {
    if (!about.trim()) throw new Error('described: empty description of the type');
    copy.description = about;
  }
  return copy;
}

// ---- the measure ---------------------------------------------------------------------------------

/** How many fields of one published kind carry a description, and which do not. */
export interface FieldDocCoverage {
  /** Fields (every nested property) plus one for the kind's own description. */
  total: number;
  described: number;
  /** Dotted paths as `kubectl explain` takes them (`spec.containers.image`); `(kind)` for the type's own text. */
  missing: string[];
}

/** Resolves a `$ref` (`#/components/schemas/<name>` or `#/definitions/<name>`) to its schema. */
export type RefResolver = (name: string) => JsonSchema | undefined;

function refName(ref: unknown): string | undefined {
  return typeof ref === 'string' ? ref.slice(ref.lastIndexOf('/') + 1) : undefined;
}

/** The schema behind a bare `$ref` or a one-ref `allOf` wrapper (OpenAPI v3's way of describing a ref). */
function target(node: JsonSchema, resolve: RefResolver): { schema: JsonSchema; ref?: string } {
  const direct = refName(node.$ref);
  const wrapped = Array.isArray(node.allOf) && node.allOf.length === 1 && isSchema(node.allOf[0]) ? refName(node.allOf[0].$ref) : undefined;
  const ref = direct ?? wrapped;
  const found = ref === undefined ? undefined : resolve(ref);
  return found ? { schema: found, ref } : { schema: node };
}

class CoverageWalk {
  readonly result: FieldDocCoverage = { total: 0, described: 0, missing: [] };
  private readonly onPath = new Set<string>();

  constructor(private readonly resolve: RefResolver) {}

  /** The properties of `node` (and of what it holds: list items, map values), then theirs. */
  object(node: JsonSchema, prefix: string): void {
    const { schema, ref } = target(node, this.resolve);
    if (ref !== undefined) {
      if (this.onPath.has(ref)) return; // a recursive type: its fields were counted one level up
      this.onPath.add(ref);
    }
    if (isSchema(schema.items)) this.object(schema.items, prefix);
    if (isSchema(schema.additionalProperties)) this.object(schema.additionalProperties, prefix);
    if (isSchema(schema.properties)) {
      for (const [name, prop] of Object.entries(schema.properties)) if (isSchema(prop)) this.field(prop, prefix ? `${prefix}.${name}` : name);
    }
    if (ref !== undefined) this.onPath.delete(ref);
  }

  private field(prop: JsonSchema, path: string): void {
    this.result.total++;
    const text = prop.description ?? target(prop, this.resolve).schema.description;
    if (typeof text === 'string' && text.trim()) this.result.described++;
    else this.result.missing.push(path);
    this.object(prop, path);
  }
}

/** The coverage of one kind's published schema: the kind's own description and every nested field. */
export function fieldDocCoverage(kind: JsonSchema, resolve: RefResolver): FieldDocCoverage {
  const walk = new CoverageWalk(resolve);
  walk.result.total++;
  if (typeof kind.description === 'string' && kind.description.trim()) walk.result.described++;
  else walk.result.missing.push('(kind)');
  walk.object(kind, '');
  return walk.result;
}

/** A share in percent, rounded down to one decimal so that a floor recorded from it always holds. */
export function coveragePercent(c: Pick<FieldDocCoverage, 'total' | 'described'>): number {
  return c.total === 0 ? 100 : Math.floor((c.described * 1000) / c.total) / 10;
}

/** The descriptions an object schema's properties carry, to describe a variant of it the same way. */
export function docsOf(schema: JsonSchema, names?: readonly string[]): FieldDocs {
  const props = isSchema(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
  const docs: Record<string, string> = {};
  for (const [name, prop] of Object.entries(props)) {
    if ((names === undefined || names.includes(name)) && typeof prop.description === 'string') docs[name] = prop.description;
  }
  return docs;
}
