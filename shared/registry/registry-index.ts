// The registry's lookup tables, built from its types as one value: when types are added or removed
// while the server runs, a new index replaces the old one whole, so a request sees either the old
// set of types or the new one, never half of a change.

import { upstreamSpelling } from '../api/groups.js';
import type { RuntimeConfig } from './runtime-config.js';
import type { ResourceType, ServedResource, VersionDef } from './types.js';
import { compareVersions } from './versions.js';

export interface ApiGroupInfo {
  name: string;
  /** Served versions, preferred first. */
  versions: string[];
  preferredVersion: string;
}

export interface RegistryIndex {
  /** Types in registration order, each type's versions preferred-first; no alias entries. */
  readonly served: ServedResource[];
  readonly byResource: Map<string, ServedResource>;
  readonly byKind: Map<string, ServedResource>;
  readonly byGroupVersion: Map<string, ServedResource[]>;
  readonly byShortName: Map<string, ServedResource[]>;
  readonly servedByType: Map<ResourceType, Map<string, ServedResource>>;
  readonly groupInfos: Map<string, ApiGroupInfo>;
}

export function gvKey(group: string, version: string): string {
  return `${group}/${version}`;
}

export interface IndexInput {
  types: readonly ResourceType[];
  runtime: RuntimeConfig;
  /** Groups that are also served under upstream's spelling (the built-in branded groups, with aliases on). */
  aliased: (group: string) => boolean;
  /** The one ServedResource object of a type's version under a group name (stable across rebuilds). */
  servedAs: (type: ResourceType, group: string, version: VersionDef) => ServedResource;
}

export function buildIndex({ types, runtime, aliased, servedAs }: IndexInput): RegistryIndex {
  const index: RegistryIndex = {
    served: [],
    byResource: new Map(),
    byKind: new Map(),
    byGroupVersion: new Map(),
    byShortName: new Map(),
    servedByType: new Map(),
    groupInfos: new Map(),
  };
  const versionsByGroup = new Map<string, Set<string>>();
  for (const type of types) {
    const sorted = [...type.versions].sort((a, b) => compareVersions(a.name, b.name));
    for (const version of sorted) {
      if (version.served === false || !runtime.resourceEnabled(type.group, version.name, type.plural)) continue;
      const served = servedAs(type, type.group, version);
      index.served.push(served);
      addLookups(index, served);
      const perType = index.servedByType.get(type) ?? new Map<string, ServedResource>();
      perType.set(version.name, served);
      index.servedByType.set(type, perType);
      const set = versionsByGroup.get(type.group) ?? new Set<string>();
      set.add(version.name);
      versionsByGroup.set(type.group, set);
    }
    const preferred = index.servedByType.get(type)?.values().next().value;
    for (const short of preferred ? (type.shortNames ?? []) : []) {
      const list = index.byShortName.get(short) ?? [];
      list.push(preferred!);
      index.byShortName.set(short, list);
    }
  }
  for (const [name, set] of versionsByGroup) {
    const versions = [...set].sort(compareVersions);
    index.groupInfos.set(name, { name, versions, preferredVersion: versions[0]! });
  }
  serveAliases(index, aliased, servedAs);
  return index;
}

function addLookups(index: RegistryIndex, served: ServedResource): void {
  const gv = gvKey(served.group, served.version.name);
  index.byResource.set(`${gv}/${served.type.plural}`, served);
  index.byKind.set(`${gv}/${served.type.kind}`, served);
  const list = index.byGroupVersion.get(gv) ?? [];
  list.push(served);
  index.byGroupVersion.set(gv, list);
}

/**
 * The upstream spelling of each aliased group, in its canonical group's place, the canonical
 * spellings after every group: clients resolving a plural to the first group serving it land on
 * the name their own code knows. Alias entries serve the same types: they are found by URL, kind
 * and group/version, never in `served` or `servedByType`, which name each type once.
 */
function serveAliases(index: RegistryIndex, aliased: (group: string) => boolean, servedAs: IndexInput['servedAs']): void {
  const order: ApiGroupInfo[] = [];
  const yielding: ApiGroupInfo[] = [];
  for (const info of index.groupInfos.values()) {
    const alias = upstreamSpelling(info.name);
    if (!alias || !aliased(info.name) || index.groupInfos.has(alias)) {
      order.push(info);
      continue;
    }
    for (const v of info.versions) {
      for (const s of index.byGroupVersion.get(gvKey(info.name, v)) ?? []) addLookups(index, servedAs(s.type, alias, s.version));
    }
    order.push({ name: alias, versions: [...info.versions], preferredVersion: info.preferredVersion });
    yielding.push(info);
  }
  index.groupInfos.clear();
  for (const info of [...order, ...yielding]) index.groupInfos.set(info.name, info);
}
