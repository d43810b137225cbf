// The gateway's OpenAPI with the remote APIServices' own merged in, as kube-aggregator merges its
// backends' specs: v2 gains each backend's paths of its group/version and the definitions they
// use; v3 gains each backend's `apis/<g>/<v>` document, listed in the root with its hash. What
// the gateway serves itself is never replaced: a name both define keeps the gateway's.

import { serializeDocument } from '../../../shared/registry/discovery.js';
import type { OpenApiDocument, OpenApiV3Set } from '../../../shared/registry/openapi.js';
import type { JsonSchema } from '../../../shared/api/types.js';

/** One backend's OpenAPI (services/gateway/aggregation/remote-openapi.ts). */
export interface RemoteOpenApiPart {
  group: string;
  version: string;
  v3?: Record<string, unknown>;
  v2?: { paths: Record<string, unknown>; definitions: Record<string, unknown> };
}

const sorted = <T>(o: Record<string, T>): Record<string, T> => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Names `refs` reach from `start` through `$ref`s in `defs`. */
function closure(start: Iterable<string>, defs: Record<string, unknown>): Set<string> {
  const seen = new Set<string>();
  const queue = [...start];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) for (const n of node) walk(n);
    else if (node && typeof node === 'object')
      for (const [k, v] of Object.entries(node)) {
        if (k === '$ref' && typeof v === 'string') queue.push(v.slice(v.lastIndexOf('/') + 1));
        else walk(v);
      }
  };
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    if (seen.has(name) || !(name in defs)) continue;
    seen.add(name);
    walk(defs[name]);
  }
  return seen;
}

/** swagger 2.0: the gateway's document with each backend's paths and the definitions they reach (and its own kinds). */
export function mergeOpenApiV2(own: OpenApiDocument, remotes: readonly RemoteOpenApiPart[]): OpenApiDocument {
  if (!remotes.some((r) => r.v2)) return own;
  const paths = { ...(own.paths as Record<string, unknown>) };
  const definitions = { ...(own.definitions as Record<string, JsonSchema>) };
  for (const r of remotes) {
    if (!r.v2) continue;
    const starts = new Set<string>();
    for (const [p, item] of Object.entries(r.v2.paths)) {
      if (p in paths) continue;
      paths[p] = item;
    }
    const collect = (node: unknown): void => {
      if (Array.isArray(node)) for (const n of node) collect(n);
      else if (node && typeof node === 'object')
        for (const [k, v] of Object.entries(node)) {
          if (k === '$ref' && typeof v === 'string') starts.add(v.slice(v.lastIndexOf('/') + 1));
          else collect(v);
        }
    };
    collect(r.v2.paths);
    // The backend's kinds of this group/version, referenced or not, so `kubectl explain` finds them.
    for (const [name, def] of Object.entries(r.v2.definitions)) {
      const gvks = (def as { 'x-kubernetes-group-version-kind'?: Array<{ group?: string; version?: string }> })['x-kubernetes-group-version-kind'];
      if (gvks?.some((g) => g.group === r.group && g.version === r.version)) starts.add(name);
    }
    for (const name of closure(starts, r.v2.definitions)) if (!(name in definitions)) definitions[name] = r.v2.definitions[name] as JsonSchema;
  }
  return { ...own, paths: sorted(paths), definitions: sorted(definitions) };
}

/** OpenAPI v3: the gateway's set with each backend's group-version document added and the root listing it. */
export function mergeOpenApiV3(own: OpenApiV3Set, remotes: readonly RemoteOpenApiPart[]): OpenApiV3Set {
  if (!remotes.some((r) => r.v3)) return own;
  const documents: OpenApiV3Set['documents'] = new Map(own.documents);
  for (const r of remotes) {
    const key = `apis/${r.group}/${r.version}`;
    if (r.v3 && !documents.has(key)) documents.set(key, { document: r.v3, serialized: serializeDocument(r.v3) });
  }
  const paths: OpenApiV3Set['root']['paths'] = {};
  for (const [key, { serialized }] of [...documents.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${serialized.hash}` };
  }
  return { root: { paths }, documents };
}
