// A stand-in for the registry in discovery/OpenAPI tests: serves every version of every fixture
// type, in the given order, with each group's first version preferred unless groups are given.

import type { OpenApiSource } from '../openapi.js';
import type { ApiGroupInfo, ServedResource } from '../discovery.js';
import { objectSchemaFor } from '../object-meta.js';
import type { ResourceType } from '../types.js';

export function fixtureSource(types: ResourceType[], groups?: ApiGroupInfo[]): OpenApiSource {
  return {
    groups() {
      if (groups) return groups;
      const out: ApiGroupInfo[] = [];
      for (const t of types) {
        if (!t.group) continue;
        let g = out.find((x) => x.name === t.group);
        if (!g) out.push((g = { name: t.group, versions: [], preferredVersion: t.versions[0]!.name }));
        for (const v of t.versions) if (!g.versions.includes(v.name)) g.versions.push(v.name);
      }
      return out;
    },
    resources(group, version) {
      const out: ServedResource[] = [];
      for (const t of types) {
        const v = t.versions.find((x) => x.name === version);
        if (t.group === group && v) out.push({ type: t, group, version: v });
      }
      return out;
    },
    objectSchema(served) {
      return objectSchemaFor(served.version.schema);
    },
  };
}
