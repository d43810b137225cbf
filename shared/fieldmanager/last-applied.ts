// From client-side to server-side apply, as upstream eases it: kubectl's client-side apply owns
// its fields as the manager `kubectl-client-side-apply` and keeps what it applied in the
// last-applied-configuration annotation. When `kubectl apply --server-side` (manager `kubectl`)
// then conflicts only over fields that annotation applied and the live object still holds as
// applied, the apply takes them over as if forced; and while the annotation exists, an apply by
// `kubectl` rewrites it to the configuration it applied, so a later client-side apply still
// computes its three-way merge from the truth.

import type { ApiObject, JsonSchema } from '../api/types.js';
import { cloneJson, jsonEqual } from '../patch/json-value.js';
import { FieldSet } from './fieldset.js';
import { toFieldSet, valueAt, type Ignore } from './typed.js';

/** kubectl writes upstream's key; the brand's spelling is read and kept up to date as well. */
export const LAST_APPLIED_ANNOTATIONS = ['kubectl.kubernetes.io/last-applied-configuration', 'kubectl.platform.io/last-applied-configuration'] as const;

/** The one manager upstream upgrades: kubectl's server-side apply under its default name. */
export const LAST_APPLIED_MANAGER = 'kubectl';

/** Upstream's limit on the total size of an object's annotations (keys and values), 256 KiB. */
const TOTAL_ANNOTATION_SIZE = 256 * 1024;

function annotationKeys(obj: ApiObject | null): string[] {
  const a = obj?.metadata?.annotations;
  if (!a || typeof a !== 'object') return [];
  return LAST_APPLIED_ANNOTATIONS.filter((k) => typeof a[k] === 'string' && a[k].length > 0);
}

function isLeaf(set: FieldSet, path: readonly string[]): boolean {
  let n: FieldSet | undefined = set;
  for (const e of path) n = n?.children.get(e);
  return !!n && n.children.size === 0;
}

/**
 * The fields kubectl's server-side apply may take over without `force`: those of the last-applied
 * configuration that the live object still holds with the applied values. Undefined when the
 * manager is another, there is no annotation, it does not parse, or it was applied in another
 * version than the request's (`apiVersions`: the request's spellings of it).
 */
export function lastAppliedFields(live: ApiObject | null, manager: string, apiVersions: readonly string[], schema: JsonSchema | undefined, ignore: Ignore): FieldSet | undefined {
  const key = manager === LAST_APPLIED_MANAGER ? annotationKeys(live)[0] : undefined;
  if (!live || !key) return undefined;
  let last: unknown;
  try {
    last = JSON.parse(live.metadata.annotations![key]!);
  } catch {
    return undefined;
  }
  if (!last || typeof last !== 'object' || !apiVersions.includes((last as ApiObject).apiVersion ?? '')) return undefined;
  const applied = toFieldSet(last, schema, ignore);
  const allowed = new FieldSet();
  for (const p of applied.paths()) {
    const now = valueAt(live, p);
    if (now === undefined) continue;
    if (isLeaf(applied, p) && !jsonEqual(now, valueAt(last, p))) continue;
    allowed.insert(p);
  }
  return allowed;
}

function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) out[k] = sortedKeys((v as Record<string, unknown>)[k]);
  return out;
}

const GO_HTML_ESCAPED = /[<>&\u2028\u2029]/g;

/** The configuration as the annotation holds it: Go's JSON encoding (sorted keys, HTML-escaped, a trailing newline), the annotation itself left out. */
export function lastAppliedValue(config: unknown): string {
  const c = cloneJson(config) as ApiObject;
  const annotations = c?.metadata?.annotations;
  if (annotations && typeof annotations === 'object') for (const k of LAST_APPLIED_ANNOTATIONS) delete annotations[k];
  return JSON.stringify(sortedKeys(c)).replace(GO_HTML_ESCAPED, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`) + '\n';
}

/**
 * After an apply by kubectl onto an object that has the annotation: the annotation of `merged`
 * set to `config` (the applied configuration); dropped when the annotations would outgrow their limit.
 */
export function syncLastApplied(merged: ApiObject, live: ApiObject | null, config: unknown, manager: string): void {
  if (manager !== LAST_APPLIED_MANAGER) return;
  const keys = annotationKeys(live);
  if (!keys.length) return;
  const value = lastAppliedValue(config);
  const annotations = (merged.metadata.annotations ??= {});
  for (const k of keys) annotations[k] = value;
  const size = Object.entries(annotations).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(String(v)), 0);
  if (size > TOTAL_ANNOTATION_SIZE) for (const k of keys) delete annotations[k];
}
