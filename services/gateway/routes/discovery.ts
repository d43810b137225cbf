// Serves discovery (/api, /apis, group and group-version resource lists, aggregated discovery),
// /version and OpenAPI v2/v3. Every document is generated from the registry once per change of
// its types and served from its serialized form with an ETag.

import type { Registry } from '../../../shared/registry/registry.js';
import { negotiate, type Offer } from '../../../shared/api/negotiate.js';
import {
  AGGREGATED_DISCOVERY_GROUPS,
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  serializeDocument,
  versionInfo,
  type SerializedDocument,
} from '../../../shared/registry/discovery.js';
import { openApiV2, openApiV3, type OpenApiV3Set } from '../../../shared/registry/openapi.js';
import type { Response } from '../respond.js';

const AGGREGATED_AS = 'APIGroupDiscoveryList';
// Plain documents come first: no Accept header (or */*) means the legacy lists; the aggregated
// form is served only to clients that name it.
const DISCOVERY_OFFERS: Offer[] = [
  { mediaType: 'application/json' },
  { mediaType: 'application/yaml' },
  ...AGGREGATED_DISCOVERY_GROUPS.flatMap((group) => (['v2', 'v2beta1'] as const).map((version) => ({ mediaType: 'application/json', as: AGGREGATED_AS, group, version }))),
];

export class Discovery {
  private docs = new Map<string, SerializedDocument>();
  private aggregated = new Map<string, SerializedDocument>();
  private v2: SerializedDocument | undefined;
  private v3: OpenApiV3Set | undefined;
  private v3Root: SerializedDocument | undefined;
  /** The registry generation the documents were made from: types added or removed since make them stale. */
  private generation = -1;

  constructor(private readonly registry: Registry) {
    this.refresh();
  }

  /** Makes the documents again when the registry's types changed since they were made (OpenAPI on first use). */
  private refresh(): void {
    const registry = this.registry;
    if (this.generation === registry.generation) return;
    this.generation = registry.generation;
    this.docs = new Map();
    this.aggregated = new Map();
    this.v2 = this.v3 = this.v3Root = undefined;
    this.docs.set('/api', serializeDocument(apiVersions()));
    this.docs.set('/apis', serializeDocument(apiGroupList(registry)));
    this.docs.set('/version', serializeDocument(versionInfo()));
    const core = apiResourceList(registry, '', 'v1');
    if (core) this.docs.set('/api/v1', serializeDocument(core));
    for (const g of registry.groups()) {
      const group = apiGroup(registry, g.name);
      if (group) this.docs.set(`/apis/${g.name}`, serializeDocument(group));
      for (const v of g.versions) {
        const list = apiResourceList(registry, g.name, v);
        if (list) this.docs.set(`/apis/${g.name}/${v}`, serializeDocument(list));
      }
    }
    for (const which of ['api', 'apis'] as const) {
      for (const g of AGGREGATED_DISCOVERY_GROUPS) {
        for (const v of ['v2', 'v2beta1'] as const) this.aggregated.set(`${which}:${g}/${v}`, serializeDocument(aggregatedDiscovery(registry, which, v, g)));
      }
    }
  }

  /** The document at `path`, or null when the path is not a discovery/OpenAPI path. */
  document(path: string, accept: string | undefined): Response | null {
    this.refresh();
    const p = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
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
      this.v2 ??= serializeDocument(openApiV2(this.registry));
      return { code: 200, body: { kind: 'json', text: this.v2.body }, etag: this.v2.etag };
    }
    if (p === '/openapi/v3') {
      this.v3 ??= openApiV3(this.registry);
      this.v3Root ??= serializeDocument(this.v3.root);
      return { code: 200, body: { kind: 'json', text: this.v3Root.body }, etag: this.v3Root.etag };
    }
    if (p.startsWith('/openapi/v3/')) {
      this.v3 ??= openApiV3(this.registry);
      const entry = this.v3.documents.get(p.slice('/openapi/v3/'.length));
      if (!entry) return null;
      return { code: 200, body: { kind: 'json', text: entry.serialized.body }, etag: entry.serialized.etag };
    }
    return null;
  }
}
