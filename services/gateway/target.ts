// Resolves the registry entry a resource request addresses and the conversions between the
// served version and the stored form (another version of the type, or another type altogether
// for `storedAs` entries such as events.platform.io Events kept in core events).

import type { ApiObject } from '../../shared/api/types.js';
import type { GroupResource } from '../../shared/api/status.js';
import type { Registry, ServedResource } from '../../shared/registry/registry.js';
import type { ResourceType } from '../../shared/registry/types.js';
import { resourceKey } from '../../shared/store/watch-cache.js';

export interface Target {
  served: ServedResource;
  type: ResourceType;
  /** `v1` or `<group>/<version>` of the served version. */
  apiVersion: string;
  kind: string;
  listKind: string;
  /** For error messages: the served group and plural. */
  gr: GroupResource;
  /** The storage identity (group/resource) and its watch-cache key. */
  storage: { group: string; resource: string };
  cacheKey: string;
  namespaced: boolean;
  /** Stored form → served form; null when they are the same. */
  fromStored: ((obj: ApiObject) => ApiObject) | null;
  /** Served form → stored form. */
  toStored(obj: ApiObject): ApiObject;
}

export function gvString(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

export function resolveTarget(registry: Registry, served: ServedResource): Target {
  const { type } = served;
  const apiVersion = gvString(served.group, served.version.name);
  const storage = registry.storageRef(type);
  let fromStored: Target['fromStored'];
  let toStored: Target['toStored'];
  if (type.storedAs) {
    const sa = type.storedAs;
    fromStored = (o) => ({ ...sa.fromStored(o), apiVersion, kind: type.kind });
    toStored = (o) => sa.toStored(o);
  } else {
    const storageApiVersion = gvString(type.group, registry.storageVersion(type));
    fromStored = storageApiVersion === apiVersion ? null : (o) => ({ ...o, apiVersion });
    toStored = (o) => (o.apiVersion === storageApiVersion ? o : { ...o, apiVersion: storageApiVersion });
  }
  return {
    served,
    type,
    apiVersion,
    kind: type.kind,
    listKind: type.listKind ?? `${type.kind}List`,
    gr: { group: served.group, resource: type.plural },
    storage,
    cacheKey: resourceKey(storage.group, storage.resource),
    namespaced: type.scope === 'Namespaced',
    fromStored,
    toStored,
  };
}
