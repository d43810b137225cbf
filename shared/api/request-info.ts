// RequestInfo: what a request addresses (group, version, namespace, resource, name,
// subresource) and its authorization verb, derived from method, path and query alone. It runs
// before authentication on every request, so it is a pure, allocation-light single pass and never
// throws: anything it cannot classify is a non-resource request (which authorizes by path).

import { parseFieldSelector } from './fields.js';

export interface RequestInfo {
  isResourceRequest: boolean;
  /** The path as received (not decoded). */
  path: string;
  verb: string;
  apiPrefix: string;
  /** The group the request addresses: the canonical name, which authorization and admission see. */
  apiGroup: string;
  /** The group as the URL spells it: `apiGroup`, or its upstream alias (`rbac.authorization.k8s.io`). */
  groupSpelling: string;
  apiVersion: string;
  namespace: string;
  /**
   * The resource is addressed inside a namespace: `namespaces/<ns>/<resource>...`. False at
   * cluster paths, the namespace object's own `namespaces/<ns>[/status|/finalize]` included (there
   * `namespace` is its name, yet the path is the cluster-scoped type's). A type is served only at
   * paths of its own scope, so this, not `namespace`, is what routing compares with the type.
   */
  namespaced: boolean;
  resource: string;
  subresource: string;
  name: string;
  /** Decoded segments from the resource on (`pods/name/proxy/rest/of/path`). */
  parts: string[];
}

export const ApiPrefix = {
  /** The legacy core group: `/api/<version>/...`. */
  Core: 'api',
  /** Named groups: `/apis/<group>/<version>/...`. */
  Groups: 'apis',
} as const;
export type ApiPrefix = (typeof ApiPrefix)[keyof typeof ApiPrefix];

const METHOD_VERBS: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

// Segments the namespace's own URL may carry without them being a namespaced resource type.
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

function nonResource(method: string, path: string): RequestInfo {
  return {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    groupSpelling: '',
    apiVersion: '',
    namespace: '',
    namespaced: false,
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
}

/**
 * Splits the path into decoded segments, or undefined when a segment is empty, `.`, `..`,
 * badly percent-encoded or decodes to something holding `/` (such a path cannot address an
 * object, and treating it as one would let `a%2Fb` or `x/../y` dodge per-resource authorization).
 */
function segments(path: string): string[] | undefined {
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === 0x2f) start++;
  while (end > start && path.charCodeAt(end - 1) === 0x2f) end--;
  if (start === end) return [];
  const out: string[] = [];
  let segStart = start;
  for (let i = start; i <= end; i++) {
    if (i < end && path.charCodeAt(i) !== 0x2f) continue;
    let seg = path.slice(segStart, i);
    segStart = i + 1;
    if (seg.includes('%')) {
      try {
        seg = decodeURIComponent(seg);
      } catch {
        return undefined;
      }
      if (seg.includes('/')) return undefined;
    }
    if (seg === '' || seg === '.' || seg === '..') return undefined;
    out.push(seg);
  }
  return out;
}

/** Upstream's query boolean: absent, `false` (any case) or `0` is false; any other value is true. */
function queryFlag(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  if (v === null) return false;
  return !(v === '0' || v.toLowerCase() === 'false');
}

function isValidPathSegmentName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');
}

/**
 * kube-apiserver's RequestInfo semantics:
 * - `/api/<v>/...` and `/apis/<g>/<v>/...` with at least a resource are resource requests;
 *   discovery paths (`/api`, `/api/v1`, `/apis/<g>`, `/apis/<g>/<v>`) and everything else are
 *   non-resource requests whose verb is the lowercase HTTP method.
 * - A `watch` or `proxy` segment right after the version is the legacy verb form.
 * - `namespaces/<ns>/<resource>/...` is namespaced; `namespaces/<ns>[/status|/finalize]` is the
 *   namespace object itself, with namespace = its name (so namespace-scoped grants cover it) but
 *   `namespaced` false. Which types exist at which of these paths is not the parser's to say:
 *   `namespaces/<ns>/namespaces/<name>` parses, and routing answers it 404.
 * - GET/HEAD without a name is list, or watch with `watch=true`; a list/watch whose field
 *   selector pins `metadata.name` carries that name (a single-object watch). A GET of a named
 *   object stays `get` whatever `watch` says, as upstream.
 * - DELETE without a name is deletecollection. Methods outside the table give verb "".
 */
export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const segs = segments(path);
  if (!segs || segs.length < 3) return nonResource(method, path);
  const prefix = segs[0]!;
  if (prefix !== ApiPrefix.Core && prefix !== ApiPrefix.Groups) return nonResource(method, path);
  let p = 1;
  let group = '';
  if (prefix === ApiPrefix.Groups) {
    if (segs.length < 4) return nonResource(method, path);
    group = segs[p++]!;
  }
  const version = segs[p++]!;

  let verb: string;
  const first = segs[p]!;
  if (first === 'watch' || first === 'proxy') {
    // The legacy form needs something to act on: `/api/v1/watch` alone addresses nothing.
    if (segs.length - p < 2) return nonResource(method, path);
    verb = first;
    p++;
  } else {
    verb = METHOD_VERBS[method.toUpperCase()] ?? '';
  }

  let namespace = '';
  let namespaced = false;
  if (segs[p] === 'namespaces' && segs.length - p > 1) {
    namespace = segs[p + 1]!;
    if (segs.length - p > 2 && !NAMESPACE_SUBRESOURCES.has(segs[p + 2]!)) {
      p += 2;
      namespaced = true;
    }
  }

  const parts = segs.slice(p);
  const resource = parts[0] ?? '';
  let name = parts.length >= 2 ? parts[1]! : '';
  // `proxy` keeps the rest of the path in parts: it is the proxied path, not a subresource.
  const subresource = parts.length >= 3 && verb !== 'proxy' ? parts[2]! : '';

  if (name === '' && verb === 'get') {
    verb = queryFlag(query, 'watch') ? 'watch' : 'list';
  }
  if (name === '' && (verb === 'list' || verb === 'watch')) {
    const fs = query.get('fieldSelector');
    if (fs) {
      try {
        const pinned = parseFieldSelector(fs).exactMatch('metadata.name');
        if (pinned !== undefined && isValidPathSegmentName(pinned)) name = pinned;
      } catch {
        // Malformed selectors are rejected with a 400 by the handler; here they just pin nothing.
      }
    }
  }
  if (name === '' && verb === 'delete') verb = 'deletecollection';

  return {
    isResourceRequest: true,
    path,
    verb,
    apiPrefix: prefix,
    apiGroup: group,
    groupSpelling: group,
    apiVersion: version,
    namespace,
    namespaced,
    resource,
    subresource,
    name,
    parts,
  };
}
