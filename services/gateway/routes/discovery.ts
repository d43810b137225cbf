// Serves discovery (/api, /apis, group and group-version resource lists, aggregated discovery),
// /version and OpenAPI v2/v3. Every document is generated from the registry (and the remote
// APIServices' groups, merged in upstream's priority order) once per change of either and served
// from its serialized form with an ETag.

import type { Registry } from '../../../shared/registry/registry.js';
import { negotiate, type Offer } from '../../../shared/api/negotiate.js';
import {
  AGGREGATED_DISCOVERY_GROUPS,
  aggregatedDiscovery,
  apiResourceList,
  apiVersions,
  serializeDocument,
  versionInfo,
  type SerializedDocument,
  type VersionInfo,
} from '../../../shared/registry/discovery.js';
import { openApiV2, openApiV3, type OpenApiV3Set } from '../../../shared/registry/openapi.js';
import { mergedAggregatedDiscovery, mergedApiGroup, mergedApiGroupList, mergedGroups, type RemoteGroupVersion } from '../../../shared/registry/merged-discovery.js';
import { discoveryPriority } from '../../../shared/registry/builtin/apiregistration/local-api-services.js';
import type { Response } from '../respond.js';
import { mergeOpenApiV2, mergeOpenApiV3, type RemoteOpenApiPart } from './openapi-merge.js';
import { encodeOpenApiV2, OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_ACCEPTED } from '../../../shared/proto/openapi-v2.js';

const AGGREGATED_AS = 'APIGroupDiscoveryList';
// Plain documents come first: no Accept header (or */*) means the legacy lists; the aggregated
// form is served only to clients that name it.
const DISCOVERY_OFFERS: Offer[] = [
  { mediaType: 'application/json' },
  { mediaType: 'application/yaml' },
  ...AGGREGATED_DISCOVERY_GROUPS.flatMap((group) => (['v2', 'v2beta1'] as const).map((version) => ({ mediaType: 'application/json', as: AGGREGATED_AS, group, version }))),
];

// /openapi/v2 is JSON unless the client names gnostic's protobuf (either spelling) before it, as
// kube-openapi decides; /openapi/v3 is JSON. Nothing else is offered (406, as kube-openapi): the
// documents are served from their serialized form, and re-encoding them per request (YAML: 3 s
// of event loop for v2) would let any user hold the gateway.
const OPENAPI_V2_OFFERS: Offer[] = [{ mediaType: 'application/json' }, ...OPENAPI_V2_PROTOBUF_ACCEPTED.map((mediaType) => ({ mediaType }))];
const OPENAPI_V3_OFFERS: Offer[] = [{ mediaType: 'application/json' }];
const PROTOBUF_V2: readonly string[] = OPENAPI_V2_PROTOBUF_ACCEPTED;
const VARY_ACCEPT = { vary: 'Accept' };

/** Whether the client asked for protobuf; throws 406 when it accepts neither encoding. */
function wantsProtobufV2(accept: string | undefined): boolean {
  return PROTOBUF_V2.includes(negotiate(accept, OPENAPI_V2_OFFERS).mediaType);
}

/** The groups of remote APIServices (services/gateway/aggregation/api-services.ts). */
export interface RemoteGroups {
  /** Moves whenever what groupVersions returns changed. */
  generation(): number;
  groupVersions(): RemoteGroupVersion[];
  /** Discovery was read (old answers of backends may be asked for again). */
  discoveryRead(): void;
  /** Moves whenever what openApiDocuments returns changed. */
  openApiGeneration(): number;
  /** The backends' OpenAPI, merged into the gateway's (openapi-merge.ts). */
  openApiDocuments(): RemoteOpenApiPart[];
  /** OpenAPI was read (old answers of backends may be asked for again). */
  openApiRead(): void;
}

const NO_REMOTE_GROUPS: RemoteGroups = {
  generation: () => 0,
  groupVersions: () => [],
  discoveryRead: () => undefined,
  openApiGeneration: () => 0,
  openApiDocuments: () => [],
  openApiRead: () => undefined,
};

export class Discovery {
  private docs = new Map<string, SerializedDocument>();
  private aggregated = new Map<string, SerializedDocument>();
  private v2: SerializedDocument | undefined;
  /** `v2` in protobuf, made on first request: it belongs to the serialized document it was made from. */
  private v2Protobuf: { from: SerializedDocument; bytes: Buffer } | undefined;
  /** The v2 JSON as bytes, sent as they are (no `?pretty` or Accept re-encodes 15 MB per request). */
  private v2Json: { from: SerializedDocument; bytes: Buffer } | undefined;
  private v3: OpenApiV3Set | undefined;
  private v3Root: SerializedDocument | undefined;
  /** The registry generation the documents were made from: types added or removed since make them stale. */
  private generation = -1;
  private remoteGeneration = -1;
  private remoteOpenApiGeneration = -1;

  constructor(
    private readonly registry: Registry,
    private readonly remote: RemoteGroups = NO_REMOTE_GROUPS,
    /** What /version says (and OpenAPI's info.version): `--emulated-version` may name another release. */
    private readonly version: VersionInfo = versionInfo(),
  ) {
    this.refresh();
  }

  /** Makes the documents again when the registry's types changed since they were made (OpenAPI on first use). */
  private refresh(): void {
    const registry = this.registry;
    const remoteGeneration = this.remote.generation();
    const remoteOpenApi = this.remote.openApiGeneration();
    // A backend's OpenAPI changed: the documents are made again on next use.
    if (this.remoteOpenApiGeneration !== remoteOpenApi) this.v2 = this.v3 = this.v3Root = undefined;
    this.remoteOpenApiGeneration = remoteOpenApi;
    if (this.generation === registry.generation && this.remoteGeneration === remoteGeneration) return;
    const typesChanged = this.generation !== registry.generation;
    this.generation = registry.generation;
    this.remoteGeneration = remoteGeneration;
    this.docs = new Map();
    this.aggregated = new Map();
    // OpenAPI changes with the server's types and with the backends' documents (above), not with discovery.
    if (typesChanged) this.v2 = this.v3 = this.v3Root = undefined;
    this.docs.set('/api', serializeDocument(apiVersions()));
    this.docs.set('/version', serializeDocument(this.version));
    const core = apiResourceList(registry, '', 'v1');
    if (core) this.docs.set('/api/v1', serializeDocument(core));
    const groups = mergedGroups(registry, discoveryPriority, this.remote.groupVersions());
    this.docs.set('/apis', serializeDocument(mergedApiGroupList(groups)));
    for (const g of groups) {
      if (g.versions.length) this.docs.set(`/apis/${g.name}`, serializeDocument(mergedApiGroup(g)));
      // A remote version's resource list is its backend's own: the request is proxied there.
      for (const v of g.versions.filter((x) => !x.remote)) {
        const list = apiResourceList(registry, g.name, v.version);
        if (list) this.docs.set(`/apis/${g.name}/${v.version}`, serializeDocument(list));
      }
    }
    for (const g of AGGREGATED_DISCOVERY_GROUPS) {
      for (const v of ['v2', 'v2beta1'] as const) {
        this.aggregated.set(`api:${g}/${v}`, serializeDocument(aggregatedDiscovery(registry, 'api', v, g)));
        this.aggregated.set(`apis:${g}/${v}`, serializeDocument(mergedAggregatedDiscovery(registry, groups, v, g)));
      }
    }
  }

  /** The document at `path`, or null when the path is not a discovery/OpenAPI path. */
  document(path: string, accept: string | undefined): Response | null {
    const p = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    if (p.startsWith('/apis')) this.remote.discoveryRead();
    if (p.startsWith('/openapi/')) this.remote.openApiRead();
    this.refresh();
    if (p === '/api' || p === '/apis') {
      const offer = negotiate(accept, DISCOVERY_OFFERS);
      if (offer.as === AGGREGATED_AS) {
        const doc = this.aggregated.get(`${p.slice(1)}:${offer.group}/${offer.version}`)!;
        return { code: 200, body: { kind: 'json', text: doc.body }, etag: doc.etag, contentType: `application/json;g=${offer.group};v=${offer.version};as=${AGGREGATED_AS}` };
      }
    }
    const doc = this.docs.get(p);
    if (doc) return { code: 200, body: { kind: 'json', text: doc.body }, etag: doc.etag };
    if (p === '/openapi/v2') {
      const protobuf = wantsProtobufV2(accept);
      this.v2 ??= serializeDocument(mergeOpenApiV2(openApiV2(this.registry, { version: this.version.gitVersion }), this.remote.openApiDocuments()));
      const body = { kind: 'json', text: this.v2.body } as const;
      // Both encodings carry the JSON's ETag, as upstream's: Vary tells caches they differ.
      if (!protobuf) {
        if (this.v2Json?.from !== this.v2) this.v2Json = { from: this.v2, bytes: Buffer.from(this.v2.body) };
        return { code: 200, body, raw: this.v2Json.bytes, contentType: 'application/json', etag: this.v2.etag, headers: VARY_ACCEPT };
      }
      if (this.v2Protobuf?.from !== this.v2) this.v2Protobuf = { from: this.v2, bytes: encodeOpenApiV2(JSON.parse(this.v2.body) as Record<string, unknown>) };
      return { code: 200, body, raw: this.v2Protobuf.bytes, contentType: OPENAPI_V2_PROTOBUF, etag: this.v2.etag, headers: VARY_ACCEPT };
    }
    if (p === '/openapi/v3' || p.startsWith('/openapi/v3/')) negotiate(accept, OPENAPI_V3_OFFERS);
    if (p === '/openapi/v3') {
      this.v3 ??= mergeOpenApiV3(openApiV3(this.registry, { version: this.version.gitVersion }), this.remote.openApiDocuments());
      this.v3Root ??= serializeDocument(this.v3.root);
      return { code: 200, body: { kind: 'json', text: this.v3Root.body }, contentType: 'application/json', etag: this.v3Root.etag };
    }
    if (p.startsWith('/openapi/v3/')) {
      this.v3 ??= mergeOpenApiV3(openApiV3(this.registry, { version: this.version.gitVersion }), this.remote.openApiDocuments());
      const entry = this.v3.documents.get(p.slice('/openapi/v3/'.length));
      if (!entry) return null;
      return { code: 200, body: { kind: 'json', text: entry.serialized.body }, contentType: 'application/json', etag: entry.serialized.etag };
    }
    return null;
  }
}
