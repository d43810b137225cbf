// What a client learns from discovery: every resource the server serves at each group's preferred
// version. Groups served twice (the brand's name and upstream's alias of it) are listed once, under
// the brand's name, since both name the same objects.

import { brandSpelling } from '../api/groups.js';
import type { ApiClient } from './rest.js';

export interface DiscoveredResource {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

interface ResourceList {
  resources: Array<{ name: string; kind: string; namespaced: boolean; verbs?: string[] }>;
}

interface GroupList {
  groups: Array<{ name: string; preferredVersion?: { version: string }; versions: Array<{ version: string }> }>;
}

/** Every resource (subresources excluded) at each group's preferred version. */
export async function discoverResources(client: ApiClient): Promise<DiscoveredResource[]> {
  const out: DiscoveredResource[] = [];
  const add = (group: string, version: string, list: ResourceList) => {
    for (const r of list.resources) {
      if (r.name.includes('/')) continue;
      out.push({ group, version, resource: r.name, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs ?? [] });
    }
  };
  add('', 'v1', await client.request<ResourceList>('GET', '/api/v1'));
  const groups = (await client.request<GroupList>('GET', '/apis')).groups;
  const names = new Set(groups.map((g) => g.name));
  const lists = await Promise.all(
    groups
      .filter((g) => !names.has(brandSpelling(g.name) ?? ''))
      .map(async (g) => {
        const version = g.preferredVersion?.version ?? g.versions[0]?.version ?? '';
        return { g: g.name, version, list: await client.request<ResourceList>('GET', `/apis/${g.name}/${version}`) };
      }),
  );
  for (const { g, version, list } of lists) add(g, version, list);
  return out;
}
