// OpenAPI documents built from the registry: swagger 2.0 (`/openapi/v2`), the OpenAPI v3 root
// (`/openapi/v3`) and one v3 document per group version (`/openapi/v3/apis/<g>/<v>`). kubectl reads
// them for `explain`, client-side validation and to learn whether the server supports server-side
// field validation (a `fieldValidation` query parameter on the PATCH operation of a kind), so the
// vendor extensions and parameter placement follow upstream exactly. Pure: built once at boot.
// The parts: openapi-schema (JSON schema → a dialect), openapi-definitions (the shared
// definitions), openapi-operations and openapi-resource-paths (every path, dialect-neutral) and
// openapi-render (paths → a dialect).

import { CORE_VERSION, DEFAULT_GIT_VERSION, resourceVerbs, serializeDocument } from './discovery.js';
import type { DiscoverySource, SerializedDocument, ServedResource } from './discovery.js';
import {
  API_GROUP_DEF,
  API_GROUP_LIST_DEF,
  API_VERSIONS_DEF,
  LIST_META_DEF,
  OBJECT_META_DEF,
  VERSION_INFO_DEF,
  addGvk,
  apiVersionProp,
  definitionName,
  gvkExt,
  kindProp,
  metaDefinitions,
  refTo,
} from './openapi-definitions.js';
import { discoveryOp, discoveryResourcesPath, groupCamel, gvKey, gvkKey, listKindOf, tagOf } from './openapi-operations.js';
import { resourcePaths } from './openapi-resource-paths.js';
import type { GroupVersion, PathSpec } from './openapi-operations.js';
import { renderPaths, sortKeys } from './openapi-render.js';
import { convertSchema, isObject } from './openapi-schema.js';
import type { JsonSchema } from '../api/types.js';

export { DELETE_OPTIONS_DEF, LIST_META_DEF, OBJECT_META_DEF, PATCH_DEF, STATUS_DEF, WATCH_EVENT_DEF, definitionName } from './openapi-definitions.js';
export { convertSchema } from './openapi-schema.js';
export type { OpenApiDialect } from './openapi-schema.js';

/** What OpenAPI needs from the registry; `Registry` satisfies it structurally. */
export interface OpenApiSource extends DiscoverySource {
  /** Full object schema including apiVersion/kind/metadata. */
  objectSchema(served: ServedResource): JsonSchema;
}

export interface OpenApiInfo {
  title?: string;
  version?: string;
}

export type OpenApiDocument = Record<string, unknown>;

/** Upstream's info.version is the server's gitVersion. */
const DEFAULT_INFO = { title: 'Platform', version: DEFAULT_GIT_VERSION };

// ---------------------------------------------------------------------------------------------
// Model: definitions and operations of every group version, built once

interface Model {
  gvs: GroupVersion[];
  defs: Map<string, JsonSchema>;
  /** Definitions named by the GVK they carry, for resolving subresource kinds. */
  defByGvk: Map<string, string>;
  paths: Map<string, PathSpec[]>;
}

function allGroupVersions(source: DiscoverySource): GroupVersion[] {
  const gvs: GroupVersion[] = [];
  if (source.resources('', CORE_VERSION).length) gvs.push({ group: '', version: CORE_VERSION });
  for (const g of source.groups()) for (const v of g.versions) gvs.push({ group: g.name, version: v });
  return gvs;
}

function buildModel(source: OpenApiSource): Model {
  const gvs = allGroupVersions(source);
  const defs = metaDefinitions(gvs);
  const defByGvk = new Map<string, string>([[gvkKey({ group: 'autoscaling', version: 'v1', kind: 'Scale' }), definitionName('autoscaling', 'v1', 'Scale')]]);
  const served = gvs.map((gv) => ({ gv, resources: source.resources(gv.group, gv.version) }));

  // Canonical spellings first, wherever discovery lists them: each makes its type's definition.
  const byCanonicalFirst = [
    ...served.map(({ gv, resources }) => ({ gv, resources: resources.filter((s) => s.group === s.type.group) })),
    ...served.map(({ gv, resources }) => ({ gv, resources: resources.filter((s) => s.group !== s.type.group) })),
  ];
  for (const { gv, resources } of byCanonicalFirst) {
    for (const s of resources) {
      const kind = s.type.kind;
      // One definition per type, named by its canonical group; an upstream alias of the group
      // adds its group/version/kind to the definition's list.
      const name = definitionName(s.type.group, gv.version, kind);
      const known = defs.get(name);
      if (s.group !== s.type.group && known) {
        addGvk(known, { group: gv.group, version: gv.version, kind });
        defByGvk.set(gvkKey({ group: gv.group, version: gv.version, kind }), name);
        const listName = definitionName(s.type.group, gv.version, listKindOf(s));
        const listDef = defs.get(listName);
        if (listDef) {
          addGvk(listDef, { group: gv.group, version: gv.version, kind: listKindOf(s) });
          defByGvk.set(gvkKey({ group: gv.group, version: gv.version, kind: listKindOf(s) }), listName);
        }
        continue;
      }
      const raw = source.objectSchema(s);
      const props = (raw.properties ?? {}) as Record<string, JsonSchema>;
      const schema: JsonSchema = {
        ...raw,
        type: 'object',
        properties: props.metadata ? { ...props, metadata: refTo(OBJECT_META_DEF, 'Standard object metadata.') } : props,
        ...gvkExt([{ group: gv.group, version: gv.version, kind }]),
        ...selectableFieldsExt(s),
      };
      defs.set(name, schema);
      defByGvk.set(gvkKey({ group: gv.group, version: gv.version, kind }), name);
      if (resourceVerbs(s.type).includes('list')) {
        const listKind = listKindOf(s);
        const listName = definitionName(s.type.group, gv.version, listKind);
        defs.set(listName, {
          type: 'object',
          description: `${listKind} is a list of ${kind} objects.`,
          required: ['items'],
          properties: {
            apiVersion: apiVersionProp,
            items: { type: 'array', description: `List of ${kind} objects.`, items: refTo(name) },
            kind: kindProp,
            metadata: refTo(LIST_META_DEF, 'Standard list metadata.'),
          },
          ...gvkExt([{ group: gv.group, version: gv.version, kind: listKind }]),
        });
        defByGvk.set(gvkKey({ group: gv.group, version: gv.version, kind: listKind }), listName);
      }
    }
  }

  const paths = new Map<string, PathSpec[]>();
  for (const { gv, resources } of served) {
    const specs = [discoveryResourcesPath(gv)];
    for (const s of resources) specs.push(...resourcePaths(s, defByGvk));
    paths.set(gvKey(gv.group, gv.version), specs);
  }
  return { gvs, defs, defByGvk, paths };
}

/**
 * A definition's selectable fields as upstream (1.30+) publishes them for a custom resource version
 * that declares some: the keys its field selectors take beyond metadata.name and metadata.namespace.
 */
function selectableFieldsExt(s: ServedResource): JsonSchema {
  const keys = Object.keys(s.version.fieldSelectors ?? {});
  return keys.length ? { 'x-kubernetes-selectable-fields': keys.map((fieldPath) => ({ fieldPath })) } : {};
}

const BEARER = { type: 'apiKey', description: 'Bearer token authentication', name: 'authorization', in: 'header' };

/** Paths of the discovery documents that are not tied to a group version's resources. */
function discoveryPaths(model: Model): Map<string, PathSpec[]> {
  const out = new Map<string, PathSpec[]>();
  out.set('api', [{ path: '/api/', params: [], ops: [discoveryOp('getCoreAPIVersions', 'core', API_VERSIONS_DEF, 'get available API versions')] }]);
  out.set('apis', [{ path: '/apis/', params: [], ops: [discoveryOp('getAPIVersions', 'apis', API_GROUP_LIST_DEF, 'get available API versions')] }]);
  for (const group of new Set(model.gvs.filter((gv) => gv.group).map((gv) => gv.group))) {
    out.set(`apis/${group}`, [{ path: `/apis/${group}/`, params: [], ops: [discoveryOp(`get${groupCamel(group)}APIGroup`, tagOf(group), API_GROUP_DEF, 'get information of a group')] }]);
  }
  out.set('version', [{ path: '/version/', params: [], ops: [discoveryOp('getCodeVersion', 'version', VERSION_INFO_DEF, 'get the code version')] }]);
  return out;
}

/** swagger 2.0 (`/openapi/v2`): every definition and every path. */
export function openApiV2(source: OpenApiSource, info: OpenApiInfo = {}): OpenApiDocument {
  const model = buildModel(source);
  const specs: PathSpec[] = [];
  for (const s of discoveryPaths(model).values()) specs.push(...s);
  for (const s of model.paths.values()) specs.push(...s);
  const definitions: Record<string, JsonSchema> = {};
  for (const [name, schema] of model.defs) definitions[name] = convertSchema(schema, 'v2');
  return {
    swagger: '2.0',
    info: { ...DEFAULT_INFO, ...info },
    paths: renderPaths(specs, 'v2'),
    definitions: sortKeys(definitions),
    securityDefinitions: { BearerToken: BEARER },
    security: [{ BearerToken: [] }],
  };
}

function collectRefs(node: unknown, into: Set<string>): void {
  if (Array.isArray(node)) for (const n of node) collectRefs(n, into);
  else if (isObject(node)) {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') into.add(v.slice(v.lastIndexOf('/') + 1));
      else collectRefs(v, into);
    }
  }
}

interface V3Defs {
  schemas: Map<string, JsonSchema>;
  /** Names each schema refers to, computed once for every document's closure. */
  refs: Map<string, Set<string>>;
}

function v3Document(specs: PathSpec[], v3Defs: V3Defs, extraDefs: string[], info: OpenApiInfo): OpenApiDocument {
  const paths = renderPaths(specs, 'v3');
  const wanted = new Set<string>(extraDefs);
  collectRefs(paths, wanted);
  // Close over references between schemas (ObjectMeta → OwnerReference, ...).
  const schemas: Record<string, JsonSchema> = {};
  const queue = [...wanted];
  while (queue.length) {
    const name = queue.pop()!;
    const schema = v3Defs.schemas.get(name);
    if (schemas[name] || !schema) continue;
    schemas[name] = schema;
    for (const r of v3Defs.refs.get(name) ?? []) if (!schemas[r]) queue.push(r);
  }
  return {
    openapi: '3.0.0',
    info: { ...DEFAULT_INFO, ...info },
    paths,
    components: { schemas: sortKeys(schemas), securitySchemes: { BearerToken: BEARER } },
    security: [{ BearerToken: [] }],
  };
}

export interface OpenApiV3Root {
  paths: Record<string, { serverRelativeURL: string }>;
}

export interface OpenApiV3Set {
  root: OpenApiV3Root;
  /** Keyed by the root's path names: `api`, `api/v1`, `apis`, `apis/<g>`, `apis/<g>/<v>`, `version`. */
  documents: Map<string, { document: OpenApiDocument; serialized: SerializedDocument }>;
}

/** Every OpenAPI v3 document and the root that points at them with content hashes. The gateway
 *  serves `/openapi/v3/<key>` from `documents` and may cache responses carrying `?hash=` forever. */
export function openApiV3(source: OpenApiSource, info: OpenApiInfo = {}): OpenApiV3Set {
  const model = buildModel(source);
  const v3Defs: V3Defs = { schemas: new Map(), refs: new Map() };
  for (const [name, schema] of model.defs) {
    const converted = convertSchema(schema, 'v3');
    const refs = new Set<string>();
    collectRefs(converted, refs);
    v3Defs.schemas.set(name, converted);
    v3Defs.refs.set(name, refs);
  }
  const documents: OpenApiV3Set['documents'] = new Map();
  const add = (key: string, document: OpenApiDocument) => documents.set(key, { document, serialized: serializeDocument(document) });
  for (const [key, specs] of discoveryPaths(model)) add(key, v3Document(specs, v3Defs, [], info));
  for (const gv of model.gvs) {
    const key = gvKey(gv.group, gv.version);
    // Every kind of the group version, referenced or not, so `kubectl explain` finds them all.
    const own = [...model.defByGvk.entries()].filter(([k]) => k.startsWith(`${gv.group}/${gv.version}/`)).map(([, name]) => name);
    add(key, v3Document(model.paths.get(key) ?? [], v3Defs, own, info));
  }
  const paths: OpenApiV3Root['paths'] = {};
  for (const [key, { serialized }] of [...documents.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${serialized.hash}` };
  }
  return { root: { paths }, documents };
}

/** `/openapi/v3`. */
export function openApiV3Root(source: OpenApiSource, info: OpenApiInfo = {}): OpenApiV3Root {
  return openApiV3(source, info).root;
}

/** `/openapi/v3/api/v1` (group '') or `/openapi/v3/apis/<g>/<v>`; undefined when not served. */
export function openApiV3GroupVersion(source: OpenApiSource, group: string, version: string, info: OpenApiInfo = {}): OpenApiDocument | undefined {
  return openApiV3(source, info).documents.get(gvKey(group, version))?.document;
}
