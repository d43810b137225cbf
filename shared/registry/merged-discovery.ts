// Discovery of every group the server lists, its own and those of remote APIServices, in
// upstream's order: groups by their highest groupPriorityMinimum (higher first; equal ones by the
// APIService's name), versions by versionPriority and then by kube-aware version order, the first
// version preferred. A local group/version takes the priorities of its Local APIService (the
// caller's `priority`); a remote one brings its own and the resources its backend last reported at
// `/apis/<group>/<version>`. With upstream aliases on, a group's upstream spelling takes its
// canonical group's place and the canonical spellings come after every group, so a client
// resolving a plural to the first group serving it lands on the name its own code knows
// (`kubectl describe role`, `kubectl certificate approve`). Pure:
// the gateway makes documents of these once per change and serves their bytes.

import { upstreamSpelling } from '../api/groups.js';
import {
  versionDiscovery,
  type APIGroup,
  type APIGroupDiscovery,
  type APIGroupDiscoveryList,
  type APIGroupList,
  type APIResource,
  type APIResourceDiscovery,
  type APIVersionDiscovery,
  type AggregatedDiscoveryVersion,
  type DiscoverySource,
} from './discovery.js';
import { compareVersions } from './versions.js';

export interface Priority {
  group: number;
  version: number;
}

/** A group/version a remote APIService serves, as discovery shows it. */
export interface RemoteGroupVersion {
  group: string;
  version: string;
  groupPriority: number;
  versionPriority: number;
  /** The backend's resources as it last answered; undefined before it ever did. */
  resources?: readonly APIResource[];
  /** The last fetch failed: aggregated discovery reports the version Stale. */
  stale: boolean;
}

interface MergedVersion {
  version: string;
  priority: Priority;
  remote?: RemoteGroupVersion;
}

/** A group with its versions in order, the preferred first. */
export interface MergedGroup {
  name: string;
  versions: MergedVersion[];
}

const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Upstream's ByVersionPriority: higher versionPriority first, then the kube-aware version order. */
function compareMergedVersions(a: MergedVersion, b: MergedVersion): number {
  return b.priority.version - a.priority.version || compareVersions(a.version, b.version);
}

/** Where a group sorts: its best APIService by (groupPriorityMinimum desc, name asc), as upstream's SortedByGroupAndVersion. */
function groupRank(g: MergedGroup): { priority: number; name: string } {
  let best: { priority: number; name: string } | undefined;
  for (const v of g.versions) {
    const candidate = { priority: v.priority.group, name: `${v.version}.${g.name}` };
    if (!best || candidate.priority > best.priority || (candidate.priority === best.priority && candidate.name < best.name)) best = candidate;
  }
  return best ?? { priority: 0, name: g.name };
}

function compareGroups(a: MergedGroup, b: MergedGroup): number {
  const ra = groupRank(a);
  const rb = groupRank(b);
  return rb.priority - ra.priority || compareStrings(ra.name, rb.name);
}

/** Every named group, local and remote, in discovery order; a local group/version hides a remote one of the same name. */
export function mergedGroups(source: DiscoverySource, priority: (group: string, version: string) => Priority, remote: readonly RemoteGroupVersion[]): MergedGroup[] {
  const byName = new Map<string, MergedGroup>();
  const local = new Set<string>();
  for (const g of source.groups()) {
    if (g.versions.length === 0) continue;
    local.add(g.name);
    byName.set(g.name, { name: g.name, versions: g.versions.map((version) => ({ version, priority: priority(g.name, version) })) });
  }
  for (const r of remote) {
    let group = byName.get(r.group);
    if (!group) byName.set(r.group, (group = { name: r.group, versions: [] }));
    if (group.versions.some((v) => v.version === r.version)) continue;
    group.versions.push({ version: r.version, priority: { group: r.groupPriority, version: r.versionPriority }, remote: r });
  }
  // A canonical group also served under its upstream spelling yields its place to it.
  const yields = (name: string) => {
    const upstream = upstreamSpelling(name);
    return local.has(name) && upstream !== undefined && local.has(upstream);
  };
  const groups = [...byName.values()];
  for (const g of groups) g.versions.sort(compareMergedVersions);
  const preferred = groups.filter((g) => !yields(g.name)).sort(compareGroups);
  const canonical = groups.filter((g) => yields(g.name)).sort(compareGroups);
  return [...preferred, ...canonical];
}

function groupEntry(g: MergedGroup): APIGroup {
  const versions = g.versions.map((v) => ({ groupVersion: `${g.name}/${v.version}`, version: v.version }));
  return { name: g.name, versions, preferredVersion: versions[0]! };
}

/** `/apis`. */
export function mergedApiGroupList(groups: readonly MergedGroup[]): APIGroupList {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.filter((g) => g.versions.length > 0).map(groupEntry) };
}

/** `/apis/<group>`. */
export function mergedApiGroup(group: MergedGroup): APIGroup {
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(group) };
}

/**
 * A backend's resources in the aggregated form (upstream's conversion of a legacy resource list):
 * `<resource>/<sub>` entries become subresources of their resource. Unknown before the first
 * answer, or after a failed fetch, the version is Stale (with no resources when none is known).
 */
export function remoteVersionDiscovery(r: RemoteGroupVersion): APIVersionDiscovery {
  const resources: APIResourceDiscovery[] = [];
  const byName = new Map<string, APIResourceDiscovery>();
  const all = r.resources ?? [];
  for (const x of all) {
    if (x.name.includes('/')) continue;
    const entry: APIResourceDiscovery = {
      resource: x.name,
      responseKind: { group: x.group ?? '', version: x.version ?? '', kind: x.kind },
      scope: x.namespaced ? 'Namespaced' : 'Cluster',
      singularResource: x.singularName,
      verbs: [...x.verbs],
    };
    if (x.shortNames?.length) entry.shortNames = [...x.shortNames];
    if (x.categories?.length) entry.categories = [...x.categories];
    resources.push(entry);
    byName.set(x.name, entry);
  }
  for (const x of all) {
    const slash = x.name.indexOf('/');
    const parent = slash > 0 ? byName.get(x.name.slice(0, slash)) : undefined;
    if (!parent) continue;
    (parent.subresources ??= []).push({ subresource: x.name.slice(slash + 1), responseKind: { group: x.group ?? '', version: x.version ?? '', kind: x.kind }, verbs: [...x.verbs] });
  }
  resources.sort((a, b) => compareStrings(a.resource, b.resource));
  return { version: r.version, resources, freshness: r.stale || !r.resources ? 'Stale' : 'Current' };
}

/** Aggregated discovery of `/apis`: local versions with no resources are left out, remote ones never are (upstream). */
export function mergedAggregatedDiscovery(source: DiscoverySource, groups: readonly MergedGroup[], apiVersion: AggregatedDiscoveryVersion, discoveryGroup: string): APIGroupDiscoveryList {
  const items: APIGroupDiscovery[] = [];
  for (const g of groups) {
    const versions = g.versions
      .map((v) => (v.remote ? remoteVersionDiscovery(v.remote) : versionDiscovery(source, g.name, v.version)))
      .filter((v, i) => g.versions[i]!.remote || v.resources.length > 0);
    if (versions.length) items.push({ metadata: { name: g.name }, versions });
  }
  return { kind: 'APIGroupDiscoveryList', apiVersion: `${discoveryGroup}/${apiVersion}`, metadata: {}, items };
}

const strings = (v: unknown): string[] | undefined => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined);

/** The resources of a backend's APIResourceList, each field checked (a backend is not trusted to send the shape); undefined when it is not one. */
export function parseApiResourceList(body: unknown): APIResource[] | undefined {
  const list = body as { kind?: unknown; resources?: unknown } | null;
  if (typeof list !== 'object' || list === null || !Array.isArray(list.resources)) return undefined;
  const out: APIResource[] = [];
  for (const raw of list.resources as unknown[]) {
    const r = raw as Record<string, unknown> | null;
    if (typeof r !== 'object' || r === null || typeof r.name !== 'string' || !r.name || typeof r.kind !== 'string') continue;
    const entry: APIResource = { name: r.name, singularName: typeof r.singularName === 'string' ? r.singularName : '', namespaced: r.namespaced === true, kind: r.kind, verbs: strings(r.verbs) ?? [] };
    if (typeof r.group === 'string') entry.group = r.group;
    if (typeof r.version === 'string') entry.version = r.version;
    const shortNames = strings(r.shortNames);
    if (shortNames?.length) entry.shortNames = shortNames;
    const categories = strings(r.categories);
    if (categories?.length) entry.categories = categories;
    out.push(entry);
  }
  return out;
}
