// What the webhook plugins need to know of the API's types, from the same registry the gateway
// serves: which group/version/resources hold the same objects as a request's (matchPolicy
// Equivalent: other versions of the type, or another group's type stored with it, as
// events.platform.io Events and core events), conversion of an object between them through the
// storage version, and the defaults a version gives an object a webhook has patched.
//
// The registry is the service's (served-types.ts: built-in types and custom resources), built the
// first time a webhook configuration needs it rather than when the service starts: it compiles
// every type's schema, which takes the better part of a second.

import type { ApiObject, GroupVersionKind, GroupVersionResource } from '../../../../shared/api/types.js';
import type { ResourceMatch } from '../../../../shared/api/admission-match.js';
import type { Registry } from '../../../../shared/registry/registry.js';
import { Targets } from '../../../../shared/registry/target.js';
import { servedAsync, storedAsync } from '../../../../shared/registry/rest/stored-form.js';
import { type Target } from '../../../../shared/registry/types.js';
import { versionSubresources } from '../../../../shared/registry/version-parts.js';

export interface Equivalent {
  resource: GroupVersionResource;
  kind: GroupVersionKind;
}

export interface ApiTypes {
  /**
   * The served group/version/resources holding the same objects as `resource`, the request's own
   * excluded, preferred versions first. `kind` is the kind a request's object takes there: the
   * type's own for the main resource and for subresources taking the type's kind (status), the
   * request's kind unchanged for the others (Scale, Eviction, connect options).
   */
  equivalents(resource: GroupVersionResource, subResource: string, requestKind: GroupVersionKind): Equivalent[];
  /** Group/resources an equivalent of (group, resource) is served under; `resource` `*` stands for every resource of the group. */
  related(group: string, resource: string): ResourceMatch[];
  /** `obj`, an object of `from`, as `to` shows it (both must hold the same objects); a promise only when a conversion webhook converts it. */
  convert(obj: ApiObject, from: GroupVersionResource, to: GroupVersionResource): ApiObject | Promise<ApiObject>;
  /** Fills the defaults `resource`'s version gives an object of its kind, in place (after a webhook's patch); other kinds are left alone. */
  defaults(resource: GroupVersionResource, obj: ApiObject): void;
}

/** The storage identity two served resources share when they hold the same objects. */
const storageKey = (t: Target) => `${t.storage.group}/${t.storage.resource}`;

export function registryApiTypes(registry: Registry): ApiTypes {
  const targets = new Targets(registry);
  // Served resources by storage identity, each type's versions preferred first; made again when
  // the registry's types change (types added while the server runs).
  let byStorage = new Map<string, Target[]>();
  let generation = -1;
  const storageGroups = (): Map<string, Target[]> => {
    if (generation === registry.generation) return byStorage;
    generation = registry.generation;
    byStorage = new Map();
    for (const served of registry.all()) {
      const t = targets.of(served.group, served.version.name, served.type.plural);
      if (!t) continue;
      const list = byStorage.get(storageKey(t)) ?? [];
      list.push(t);
      byStorage.set(storageKey(t), list);
    }
    return byStorage;
  };
  const target = (r: GroupVersionResource): Target | undefined => targets.of(r.group, r.version, r.resource);

  return {
    equivalents(resource, subResource, requestKind) {
      const own = target(resource);
      if (!own) return [];
      // Only an object of the type itself changes shape between versions.
      const ofType = requestKind.group === own.type.group && requestKind.kind === own.kind;
      const out: Equivalent[] = [];
      for (const t of storageGroups().get(storageKey(own)) ?? []) {
        const r = { group: t.type.group, version: t.served.version.name, resource: t.type.plural };
        if (r.group === resource.group && r.version === resource.version && r.resource === resource.resource) continue;
        if (subResource && !hasSubresource(t, subResource)) continue;
        out.push({ resource: r, kind: ofType ? { group: r.group, version: r.version, kind: t.kind } : requestKind });
      }
      return out;
    },
    related(group, resource) {
      const out = new Map<string, ResourceMatch>();
      for (const list of storageGroups().values()) {
        if (list.length < 2) continue;
        if (!list.some((t) => t.type.group === group && (resource === '*' || t.type.plural === resource))) continue;
        for (const t of list) out.set(`${t.type.group}/${t.type.plural}`, { group: t.type.group, resource: t.type.plural });
      }
      return [...out.values()];
    },
    convert(obj, from, to) {
      const a = target(from);
      const b = target(to);
      if (!a || !b) throw new Error(`cannot convert between ${from.group}/${from.version}/${from.resource} and ${to.group}/${to.version}/${to.resource}`);
      if (a.convertIn || b.convertOut) return convertAsync(obj, a, b);
      const hub = a.toStored(obj);
      return b.fromStored ? b.fromStored(hub) : hub;
    },
    defaults(resource, obj) {
      const t = target(resource);
      // Only an object of the type itself: not the Scale, Eviction or connect options of its subresources.
      if (t && obj.kind === t.kind) registry.defaults(t.served, obj);
    },
  };
}

/** Through the storage version when either side converts through a conversion webhook. */
async function convertAsync(obj: ApiObject, from: Target, to: Target): Promise<ApiObject> {
  return servedAsync(to, await storedAsync(from, obj));
}

/** Whether `t`'s version serves `name` (upstream registers a definition's status and scale per version). */
function hasSubresource(t: Target, name: string): boolean {
  const s = versionSubresources(t.type, t.served.version);
  if (!s) return false;
  if (name === 'status') return Boolean(s.status);
  if (name === 'scale') return Boolean(s.scale);
  return Boolean(s.others?.some((o) => o.name === name));
}

const byRegistry = new WeakMap<Registry, ApiTypes>();

/** The ApiTypes of `registry`, made once for it (the two webhook plugins share them). */
export function apiTypesOf(registry: Registry): ApiTypes {
  let types = byRegistry.get(registry);
  if (!types) byRegistry.set(registry, (types = registryApiTypes(registry)));
  return types;
}
