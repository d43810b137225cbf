// Discovery documents (/api, /apis, /apis/<g>, /api/v1, /apis/<g>/<v>, aggregated discovery and
// /version) built from the registry. Pure: the gateway calls these once at boot, serializes each
// document with `serializeDocument` and serves the cached bytes with their ETag.

import { createHash } from 'node:crypto';
import { DEFAULT_VERBS } from './types.js';
import type { ApiGroupInfo } from './registry.js';
import type { ServedResource } from './types.js';
import type { ResourceType } from './types.js';
import { UPDATE_SUBRESOURCE_VERBS } from './subresources.js';
import { versionSubresources } from './version-parts.js';
import { storageVersionOf as typeStorageVersion } from './conversion.js';
import { gitVersionOf, SERVED_RELEASE } from '../api/version.js';
import { upstreamSpelling } from '../api/groups.js';

export type { ApiGroupInfo, ServedResource };

/** What discovery needs from the registry; `Registry` satisfies it structurally. */
export interface DiscoverySource {
  /** Named groups only; the core group '' is excluded. */
  groups(): ApiGroupInfo[];
  resources(group: string, version: string): ServedResource[];
  /** The version objects of a type are stored in; defaults to `storageVersion` or the first version. */
  storageVersion?(type: ResourceType): string;
}

export const CORE_VERSION = 'v1';

// ---------------------------------------------------------------------------------------------
// Serialized forms

export interface SerializedDocument {
  body: string;
  /** Upper-case hex SHA-512 of `body`; stable across processes for the same content. */
  hash: string;
  /** Strong ETag (quoted hash) for If-None-Match handling. */
  etag: string;
}

export function contentHash(body: string): string {
  return createHash('sha512').update(body).digest('hex').toUpperCase();
}

export function serializeDocument(doc: unknown): SerializedDocument {
  const body = JSON.stringify(doc);
  const hash = contentHash(body);
  return { body, hash, etag: `"${hash}"` };
}

// ---------------------------------------------------------------------------------------------
// Shared helpers

export function groupVersionString(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** Verbs a resource serves: its own list, `create` for virtual types, else the stored default. */
export function resourceVerbs(type: ResourceType): string[] {
  if (type.verbs) return [...type.verbs];
  if (type.virtual) return ['create'];
  return [...DEFAULT_VERBS];
}

/** Upstream's storage version hash: base64 of the first 8 bytes of sha256("<group>/<version>/<kind>")
 *  of the storage version. Clients only compare it for equality to detect storage migrations. */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

function storageVersionOf(source: DiscoverySource, type: ResourceType): string {
  return source.storageVersion?.(type) || typeStorageVersion(type) || CORE_VERSION;
}

/** Subresource kinds that live in another group version than their parent. `others` entries may
 *  also name `group`/`version` explicitly; this table covers the upstream built-ins when they do not. */
const CROSS_GROUP_SUBRESOURCE_KINDS: Record<string, { group: string; version: string }> = {
  Scale: { group: 'autoscaling', version: 'v1' },
  Eviction: { group: 'policy', version: 'v1' },
  TokenRequest: { group: 'authentication.platform.io', version: 'v1' },
};

export interface SubresourceInfo {
  /** Subresource name, e.g. `status`. */
  name: string;
  /** Response kind; group/version are '' when it is the parent's group version. */
  group: string;
  version: string;
  kind: string;
  verbs: string[];
}

/** Every subresource of a served resource (of its version: a definition's versions may differ), sorted by name. */
export function subresourcesOf(served: ServedResource): SubresourceInfo[] {
  const { type } = served;
  const subs = versionSubresources(type, served.version) ?? {};
  const out: SubresourceInfo[] = [];
  if (subs.status) out.push({ name: 'status', group: '', version: '', kind: type.kind, verbs: [...UPDATE_SUBRESOURCE_VERBS] });
  if (subs.scale) out.push({ name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: [...UPDATE_SUBRESOURCE_VERBS] });
  for (const other of subs.others ?? []) {
    if (out.some((s) => s.name === other.name)) continue;
    const explicit = other as { group?: string; version?: string };
    let group = '';
    let version = '';
    if (explicit.group !== undefined || explicit.version !== undefined) {
      group = explicit.group ?? served.group;
      version = explicit.version ?? served.version.name;
    } else if (other.kind !== type.kind && CROSS_GROUP_SUBRESOURCE_KINDS[other.kind]) {
      ({ group, version } = CROSS_GROUP_SUBRESOURCE_KINDS[other.kind]!);
    }
    // Same group version as the parent is expressed as empty strings, like upstream.
    if (group === served.group && version === served.version.name) group = version = '';
    out.push({ name: other.name, group, version, kind: other.kind, verbs: [...other.verbs] });
  }
  return out.sort((a, b) => compareStrings(a.name, b.name));
}

/**
 * Whether a group is listed under a spelling that is not its preferred one: a canonical group
 * whose upstream alias is served too. Only the preferred spelling carries short names and
 * categories, so `kubectl get csr` and `kubectl get all` name each resource once, without kubectl's
 * warning about a lower-priority match.
 */
function yieldsToAlias(source: DiscoverySource, group: string): boolean {
  const upstream = upstreamSpelling(group);
  return upstream !== undefined && source.groups().some((g) => g.name === upstream);
}

function addNames(entry: { shortNames?: string[]; categories?: string[] }, type: ResourceType): void {
  if (type.shortNames?.length) entry.shortNames = [...type.shortNames];
  if (type.categories?.length) entry.categories = [...type.categories];
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Legacy (unaggregated) discovery

export interface ServerAddressByClientCIDR {
  clientCIDR: string;
  serverAddress: string;
}

export interface APIVersions {
  kind: 'APIVersions';
  versions: string[];
  serverAddressByClientCIDRs: ServerAddressByClientCIDR[];
}

/** `/api`. `serverAddress` is host:port clients should use (kubectl ignores it; in-cluster clients
 *  on old versions read it). */
export function apiVersions(serverAddress?: string): APIVersions {
  return {
    kind: 'APIVersions',
    versions: [CORE_VERSION],
    serverAddressByClientCIDRs: serverAddress ? [{ clientCIDR: '0.0.0.0/0', serverAddress }] : [],
  };
}

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

export interface APIGroup {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

export interface APIGroupList {
  kind: 'APIGroupList';
  apiVersion: 'v1';
  groups: APIGroup[];
}

function groupEntry(info: ApiGroupInfo): APIGroup {
  // Preferred first, as clients pick versions[0] when preferredVersion is missing.
  const ordered = [info.preferredVersion, ...info.versions.filter((v) => v !== info.preferredVersion)];
  const versions = ordered.map((v) => ({ groupVersion: `${info.name}/${v}`, version: v }));
  return { name: info.name, versions, preferredVersion: { groupVersion: `${info.name}/${info.preferredVersion}`, version: info.preferredVersion } };
}

/** `/apis`. */
export function apiGroupList(source: DiscoverySource): APIGroupList {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: source
      .groups()
      .filter((g) => g.versions.length > 0)
      .map(groupEntry),
  };
}

/** `/apis/<group>`, or undefined when the group is not served. */
export function apiGroup(source: DiscoverySource, name: string): APIGroup | undefined {
  const info = source.groups().find((g) => g.name === name);
  if (!info || info.versions.length === 0) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(info) };
}

export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

export interface APIResourceList {
  kind: 'APIResourceList';
  apiVersion: 'v1';
  groupVersion: string;
  resources: APIResource[];
}

/** `/api/v1` (group '') and `/apis/<g>/<v>`; undefined when the group version serves nothing. */
export function apiResourceList(source: DiscoverySource, group: string, version: string): APIResourceList | undefined {
  const served = source.resources(group, version);
  if (served.length === 0) return undefined;
  const yielding = yieldsToAlias(source, group);
  const resources: APIResource[] = [];
  for (const s of served) {
    const { type } = s;
    const namespaced = type.scope === 'Namespaced';
    const entry: APIResource = { name: type.plural, singularName: type.singular, namespaced, kind: type.kind, verbs: resourceVerbs(type) };
    if (!yielding) addNames(entry, type);
    // Virtual types are never stored, so they have no storage version to hash (as upstream reviews).
    if (!type.virtual) entry.storageVersionHash = storageVersionHash(type.group, storageVersionOf(source, type), type.kind);
    resources.push(entry);
    for (const sub of subresourcesOf(s)) {
      const subEntry: APIResource = { name: `${type.plural}/${sub.name}`, singularName: '', namespaced, kind: sub.kind, verbs: sub.verbs };
      if (sub.group || sub.version) {
        subEntry.group = sub.group;
        subEntry.version = sub.version;
      }
      resources.push(subEntry);
    }
  }
  resources.sort((a, b) => compareStrings(a.name, b.name));
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersionString(group, version), resources };
}

// ---------------------------------------------------------------------------------------------
// Aggregated discovery (Accept: application/json;g=apidiscovery.platform.io;v=v2;as=APIGroupDiscoveryList)

export const AGGREGATED_DISCOVERY_GROUP = 'apidiscovery.platform.io';
/** The group spellings a client may ask aggregated discovery in (kubectl and client-go send upstream's). */
export const AGGREGATED_DISCOVERY_GROUPS = [AGGREGATED_DISCOVERY_GROUP, 'apidiscovery.k8s.io'] as const;
export type AggregatedDiscoveryVersion = 'v2' | 'v2beta1';

export interface GroupVersionKindRef {
  group: string;
  version: string;
  kind: string;
}

export interface APISubresourceDiscovery {
  subresource: string;
  responseKind: GroupVersionKindRef;
  verbs: string[];
}

export interface APIResourceDiscovery {
  resource: string;
  responseKind: GroupVersionKindRef;
  scope: 'Namespaced' | 'Cluster';
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: APISubresourceDiscovery[];
}

export interface APIVersionDiscovery {
  version: string;
  resources: APIResourceDiscovery[];
  freshness: 'Current' | 'Stale';
}

export interface APIGroupDiscovery {
  metadata: { name?: string };
  versions: APIVersionDiscovery[];
}

export interface APIGroupDiscoveryList {
  kind: 'APIGroupDiscoveryList';
  apiVersion: string;
  metadata: Record<string, never>;
  items: APIGroupDiscovery[];
}

/** One group version in the aggregated form (its resources sorted by name). */
export function versionDiscovery(source: DiscoverySource, group: string, version: string): APIVersionDiscovery {
  const yielding = yieldsToAlias(source, group);
  const resources: APIResourceDiscovery[] = source
    .resources(group, version)
    .map((s) => {
      const { type } = s;
      // Empty group/version mean "this group version", as upstream emits for the resource itself.
      const entry: APIResourceDiscovery = {
        resource: type.plural,
        responseKind: { group: '', version: '', kind: type.kind },
        scope: type.scope,
        singularResource: type.singular,
        verbs: resourceVerbs(type),
      };
      if (!yielding) addNames(entry, type);
      const subs = subresourcesOf(s);
      if (subs.length) {
        entry.subresources = subs.map((sub) => ({
          subresource: sub.name,
          responseKind: { group: sub.group, version: sub.version, kind: sub.kind },
          verbs: sub.verbs,
        }));
      }
      return entry;
    })
    .sort((a, b) => compareStrings(a.resource, b.resource));
  return { version, resources, freshness: 'Current' };
}

/** Aggregated discovery for `/api` (the core group only) or `/apis` (every named group). */
export function aggregatedDiscovery(source: DiscoverySource, which: 'api' | 'apis', apiVersion: AggregatedDiscoveryVersion = 'v2', group: string = AGGREGATED_DISCOVERY_GROUP): APIGroupDiscoveryList {
  const items: APIGroupDiscovery[] = [];
  if (which === 'api') {
    const v = versionDiscovery(source, '', CORE_VERSION);
    if (v.resources.length) items.push({ metadata: {}, versions: [v] });
  } else {
    for (const info of source.groups()) {
      const ordered = [info.preferredVersion, ...info.versions.filter((v) => v !== info.preferredVersion)];
      const versions = ordered.map((v) => versionDiscovery(source, info.name, v)).filter((v) => v.resources.length > 0);
      if (versions.length) items.push({ metadata: { name: info.name }, versions });
    }
  }
  return { kind: 'APIGroupDiscoveryList', apiVersion: `${group}/${apiVersion}`, metadata: {}, items };
}

// ---------------------------------------------------------------------------------------------
// /version

export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

/** The Kubernetes API level this server implements (`--emulated-version` may report another); kubectl compares major.minor for skew warnings. */
export const DEFAULT_GIT_VERSION = gitVersionOf(SERVED_RELEASE);

const NODE_ARCH: Record<string, string> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' };

/** `/version`. major/minor are derived from gitVersion when not given (semver with a leading `v`;
 *  build metadata after `+` names this implementation without affecting version precedence). */
export function versionInfo(opts: Partial<VersionInfo> = {}): VersionInfo {
  const gitVersion = opts.gitVersion ?? DEFAULT_GIT_VERSION;
  const m = /^v?(\d+)\.(\d+)/.exec(gitVersion);
  const proc = (globalThis as { process?: { version?: string; platform?: string; arch?: string } }).process;
  return {
    major: opts.major ?? m?.[1] ?? '',
    minor: opts.minor ?? m?.[2] ?? '',
    gitVersion,
    gitCommit: opts.gitCommit ?? '',
    gitTreeState: opts.gitTreeState ?? (opts.gitCommit ? 'clean' : ''),
    buildDate: opts.buildDate ?? '1970-01-01T00:00:00Z',
    goVersion: opts.goVersion ?? `node${(proc?.version ?? '').replace(/^v/, '')}`,
    compiler: opts.compiler ?? 'tsc',
    platform: opts.platform ?? `${proc?.platform ?? 'linux'}/${NODE_ARCH[proc?.arch ?? ''] ?? proc?.arch ?? 'amd64'}`,
  };
}
