// Defaults in a CustomResourceDefinition schema (upstream's structural defaulting validation): a
// default must survive pruning by its own schema unchanged, an embedded object in it must carry a
// string apiVersion and kind (and an object metadata), and it must validate against the schema it
// stands in. Defaults inside an embedded object's metadata are only checked against their schema
// (upstream also runs ObjectMeta validation on the object they would produce). Pruning is
// upstream's algorithm, exported so custom resources can be pruned by the same rules.

import type { FieldError } from '../../../api/status.js';
import { invalidValue, required } from '../../../api/field-errors.js';
import { cloneJson, jsonEqual } from '../../../patch/json-value.js';
import { flag, hasDefault, isNode, itemSchema, own, property, schemaHas, type SchemaNode } from './schema-props.js';
import { valueErrors } from './schema-values.js';
import { dns1035Problems } from './crd-names.js';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

function embedded(s: SchemaNode | undefined, isResourceRoot: boolean): boolean {
  return isResourceRoot || (s !== undefined && flag(s, 'x-kubernetes-embedded-resource'));
}

/** The schema a map member is pruned by: its property, else additionalProperties (undefined for `true`: prune all below). */
function memberSchema(s: SchemaNode, key: string): { declared: boolean; schema: SchemaNode | undefined } {
  const p = property(s, key);
  if (p) return { declared: true, schema: p };
  const ap = own(s, 'additionalProperties');
  if (ap !== undefined && ap !== null) return { declared: true, schema: isNode(ap) ? ap : undefined };
  return { declared: false, schema: undefined };
}

// Under x-kubernetes-preserve-unknown-fields: unknown members stay, declared ones are pruned by their schema.
function skipPrune(x: unknown, s: SchemaNode | undefined, isResourceRoot: boolean): void {
  if (!s) return;
  if (isNode(x)) {
    for (const [k, v] of Object.entries(x)) {
      if (embedded(s, isResourceRoot) && META_FIELDS.has(k)) continue;
      const m = memberSchema(s, k);
      if (m.declared) pruneNode(v, m.schema, false);
    }
  } else if (Array.isArray(x)) {
    for (const v of x) skipPrune(v, itemSchema(s), false);
  }
}

function pruneNode(x: unknown, s: SchemaNode | undefined, isResourceRoot: boolean): void {
  if (s && flag(s, 'x-kubernetes-preserve-unknown-fields')) {
    skipPrune(x, s, isResourceRoot);
    return;
  }
  if (isNode(x)) {
    for (const [k, v] of Object.entries(x)) {
      if (s && embedded(s, isResourceRoot) && META_FIELDS.has(k)) continue;
      const m = s ? memberSchema(s, k) : { declared: false, schema: undefined };
      if (m.declared) pruneNode(v, m.schema, false);
      else delete x[k];
    }
  } else if (Array.isArray(x)) {
    for (const v of x) pruneNode(v, s ? itemSchema(s) : undefined, false);
  }
}

/**
 * Drops, in place, the fields of `value` its schema does not declare (upstream's pruning): kept
 * under x-kubernetes-preserve-unknown-fields, and apiVersion/kind/metadata of embedded objects
 * and of the resource root.
 */
export function pruneBySchema(value: unknown, schema: SchemaNode, isResourceRoot: boolean): void {
  pruneNode(value, schema, isResourceRoot);
}

function apiVersionProblem(v: string): string | undefined {
  if (v.split('/').length > 2) return `unexpected GroupVersion string: ${v}`;
  return undefined;
}

function typeMetaErrors(obj: Record<string, unknown>, path: string, out: FieldError[]): void {
  for (const key of ['apiVersion', 'kind']) {
    const v = own(obj, key);
    if (v === undefined) out.push(required(`${path}.${key}`));
    else if (typeof v !== 'string') out.push(invalidValue(`${path}.${key}`, v, 'must be a string'));
    else if (!v) out.push(invalidValue(`${path}.${key}`, v, 'must not be empty'));
    else if (key === 'apiVersion' && apiVersionProblem(v)) out.push(invalidValue(`${path}.${key}`, v, apiVersionProblem(v)!));
    else if (key === 'kind' && dns1035Problems(v.toLowerCase()).length)
      out.push(invalidValue(`${path}.${key}`, v, `may have mixed case, but should otherwise match: ${dns1035Problems(v.toLowerCase()).join(',')}`));
  }
  const meta = own(obj, 'metadata');
  if (meta !== undefined && !isNode(meta)) out.push(invalidValue(`${path}.metadata`, meta, 'must be an object'));
}

/** The embedded objects in a default value, checked as upstream's objectmeta validation checks them. */
function embeddedErrors(value: unknown, s: SchemaNode | undefined, isResourceRoot: boolean, path: string, out: FieldError[]): void {
  if (!s) return;
  if (isNode(value)) {
    if (embedded(s, isResourceRoot)) typeMetaErrors(value, path, out);
    for (const [k, v] of Object.entries(value)) {
      const p = property(s, k);
      const ap = own(s, 'additionalProperties');
      if (p) embeddedErrors(v, p, false, `${path}.${k}`, out);
      else if (isNode(ap)) embeddedErrors(v, ap, false, `${path}[${k}]`, out);
    }
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => embeddedErrors(v, itemSchema(s), false, `${path}[${i}]`, out));
  }
}

function oneDefault(s: SchemaNode, path: string, insideMeta: boolean, isResourceRoot: boolean, requirePruned: boolean, out: FieldError[]): void {
  const value = own(s, 'default');
  const at = `${path}.default`;
  if (!insideMeta) {
    if (requirePruned) {
      const pruned = cloneJson(value);
      pruneBySchema(pruned, s, embedded(s, isResourceRoot));
      if (!jsonEqual(pruned, value)) out.push(invalidValue(at, value, 'must not have unknown fields'));
    }
    const before = out.length;
    embeddedErrors(value, s, embedded(s, isResourceRoot), at, out);
    if (out.length > before) return;
  }
  out.push(...valueErrors(value, s, at));
}

function walkDefaults(s: SchemaNode, path: string, insideMeta: boolean, isResourceRoot: boolean, requirePruned: boolean, out: FieldError[]): void {
  const isEmbedded = embedded(s, isResourceRoot);
  const inMeta = isEmbedded ? false : insideMeta;
  if (hasDefault(s)) oneDefault(s, path, inMeta, isResourceRoot, requirePruned, out);
  // additionalProperties is not followed: defaults are forbidden there.
  const items = itemSchema(s);
  if (items) walkDefaults(items, `${path}.items`, inMeta, false, requirePruned, out);
  const props = own(s, 'properties');
  if (isNode(props)) {
    for (const [k, p] of Object.entries(props)) {
      if (isNode(p)) walkDefaults(p, `${path}.properties[${k}]`, inMeta || (isEmbedded && META_FIELDS.has(k)), false, requirePruned, out);
    }
  }
}

/** Errors of every default in a structural schema rooted at `path` (the resource root). */
export function defaultsErrors(root: SchemaNode, path: string, requirePruned: boolean): FieldError[] {
  const out: FieldError[] = [];
  walkDefaults(root, path, false, true, requirePruned, out);
  return out;
}

/** Whether some default changes when pruned (old objects may keep such defaults on update). */
export function hasUnprunedDefaults(root: SchemaNode): boolean {
  return schemaHas(root, (s) => {
    if (!hasDefault(s)) return false;
    const value = own(s, 'default');
    const pruned = cloneJson(value);
    pruneBySchema(pruned, s, flag(s, 'x-kubernetes-embedded-resource'));
    return !jsonEqual(pruned, value);
  });
}
