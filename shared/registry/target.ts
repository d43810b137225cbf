// Resolves the registry entry a resource request addresses and the conversions between the
// served version and the stored form (another version of the type, or another type altogether
// for `storedAs` entries such as events.platform.io Events kept in core events).

import type { ApiObject } from '../api/types.js';
import type { RequestInfo } from '../api/request-info.js';
import type { Registry } from './registry.js';
import type { ObjectConverter, ServedResource, Target } from './types.js';
import { resourceKey } from '../api/resource-key.js';
import { renameApiVersionGroup, upstreamSpelling } from '../api/groups.js';
import { renameGroupNameFields } from './group-name-fields.js';

export function gvString(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/**
 * An object in another spelling of its group: its apiVersion, the apiVersion of each
 * managedFields entry and the type's fields naming the group (a binding's roleRef). What a client reads through an alias shows the alias; what is stored shows
 * the canonical name.
 */
function respell(o: ApiObject, from: string, to: string, groupNameFields: readonly string[] | undefined): ApiObject {
  const out = { ...renameGroupNameFields(o, groupNameFields, from, to), apiVersion: renameApiVersionGroup(o.apiVersion ?? '', from, to) };
  const managed = o.metadata?.managedFields as Array<{ apiVersion?: unknown }> | undefined;
  const renamed = (e: { apiVersion?: unknown }) => typeof e?.apiVersion === 'string' && e.apiVersion.startsWith(`${from}/`);
  if (Array.isArray(managed) && managed.some(renamed)) {
    out.metadata = {
      ...o.metadata,
      managedFields: managed.map((e) => (renamed(e) ? { ...e, apiVersion: renameApiVersionGroup(e.apiVersion as string, from, to) } : e)),
    };
  }
  return out;
}

type AsyncConversions = Pick<Target, 'convertIn' | 'convertOut'>;

/**
 * The conversions of one version of a type an ObjectConverter converts (a conversion webhook): out
 * to this version on every version, in to the storage version on the others.
 */
function asyncConversions(converter: ObjectConverter, kind: string, apiVersion: string, hubApiVersion: string): AsyncConversions {
  const out: AsyncConversions = { convertOut: (objs) => converter.convert(objs, apiVersion) };
  if (apiVersion !== hubApiVersion) {
    // A request's object is this version's, whatever its body said (the decoder checked it).
    const own = (o: ApiObject) => (o.apiVersion === apiVersion && o.kind === kind ? o : { ...o, apiVersion, kind });
    out.convertIn = (objs) => converter.convert(objs.map(own), hubApiVersion);
  }
  return out;
}

/** The synchronous conversions of a version converted asynchronously: a caller that forgot `convertIn`/`convertOut` fails loudly. */
const convertedAsynchronously = (): never => {
  throw new Error('this version converts through its conversion webhook: use convertIn/convertOut');
};

export function resolveTarget(registry: Registry, served: ServedResource): Target {
  const { type } = served;
  const apiVersion = gvString(served.group, served.version.name);
  const storage = registry.storageRef(type);
  let fromStored: Target['fromStored'];
  let toStored: Target['toStored'];
  // Another version of the type: through its conversions to and from the storage version (the hub).
  const { toHub, fromHub } = served.version;
  const hubApiVersion = gvString(type.group, registry.storageVersion(type));
  if (type.storedAs) {
    const sa = type.storedAs;
    fromStored = fromHub ? (o) => ({ ...fromHub(sa.fromStored(o)), apiVersion, kind: type.kind }) : (o) => ({ ...sa.fromStored(o), apiVersion, kind: type.kind });
    toStored = toHub ? (o) => sa.toStored({ ...toHub(o), apiVersion: hubApiVersion }) : (o) => sa.toStored(o);
  } else {
    fromStored = fromHub ? (o) => ({ ...fromHub(o), apiVersion }) : hubApiVersion === apiVersion ? null : (o) => ({ ...o, apiVersion });
    const hub = toHub ?? ((o: ApiObject) => o);
    toStored = (o) => {
      const h = hub(o);
      return h.apiVersion === hubApiVersion ? h : { ...h, apiVersion: hubApiVersion };
    };
  }
  if (served.group !== type.group) {
    // An upstream alias of the type's group: the canonical target's conversions, in the alias's spelling.
    const [alias, canonical] = [served.group, type.group];
    const [fromCanonical, toCanonical] = [fromStored, toStored];
    fromStored = (o) => respell(fromCanonical ? fromCanonical(o) : o, canonical, alias, type.groupNameFields);
    toStored = (o) => toCanonical(respell(o, alias, canonical, type.groupNameFields));
  }
  // Custom resources with a conversion webhook (never stored as another type, never aliased).
  const conversions = type.conversion && !type.storedAs && served.group === type.group ? asyncConversions(type.conversion, type.kind, apiVersion, hubApiVersion) : undefined;
  if (conversions?.convertIn) fromStored = toStored = convertedAsynchronously;
  const twin = served.group !== type.group ? type.group : upstreamSpelling(type.group);
  const otherSpelling = twin && registry.lookup(twin, served.version.name, type.plural) ? gvString(twin, served.version.name) : undefined;
  return {
    served,
    type,
    apiVersion,
    ...(otherSpelling ? { otherSpelling } : {}),
    kind: type.kind,
    listKind: type.listKind ?? `${type.kind}List`,
    gr: { group: served.group, resource: type.plural },
    storage,
    cacheKey: resourceKey(storage.group, storage.resource),
    namespaced: type.scope === 'Namespaced',
    fromStored,
    toStored,
    ...conversions,
  };
}

export const Route = {
  /** The path is one of the type's routes. */
  Served: 'Served',
  /** No route of the type has this path: 404. */
  NotFound: 'NotFound',
  /** The path is a route of the type, but not for this method: 405. */
  MethodNotAllowed: 'MethodNotAllowed',
} as const;
export type Route = (typeof Route)[keyof typeof Route];

/**
 * Whether a request's path is a route of the type it names. The routes are kube-apiserver's: a
 * cluster-scoped type exists only at cluster paths (for namespaces, their own
 * `namespaces/<ns>[/status|/finalize]`), a namespaced type only inside `namespaces/<ns>/`, plus,
 * for a type that lists, its all-namespaces collection, which lists and watches and nothing else.
 * The gateway answers before authorization: a path that names nothing must never be authorized
 * against the namespace it happens to carry, or a grant in one namespace reaches every namespace
 * (`namespaces/<ns>/namespaces/<other>`) and every cluster-scoped object.
 */
export function routeOf(t: Target, info: RequestInfo): Route {
  if (t.namespaced === info.namespaced) return Route.Served;
  if (!t.namespaced) return Route.NotFound;
  const lists = t.type.verbs?.includes('list') ?? true;
  if (!lists || info.parts.length !== 1) return Route.NotFound;
  return info.verb === 'list' || info.verb === 'watch' ? Route.Served : Route.MethodNotAllowed;
}

/** Resolved targets, made once per served group/version/resource. */
export class Targets {
  // Only served targets are kept: names a client makes up must not grow the map.
  private readonly byKey = new Map<string, Target>();
  /** The registry generation the kept targets were resolved in (types added or removed since make them stale). */
  private generation: number;

  constructor(readonly registry: Registry) {
    this.generation = registry.generation;
  }

  /** The target of a served group/version/resource; undefined when it is not served. */
  of(group: string, version: string, resource: string): Target | undefined {
    if (this.generation !== this.registry.generation) {
      this.byKey.clear();
      this.generation = this.registry.generation;
    }
    const key = `${group}/${version}/${resource}`;
    let t = this.byKey.get(key);
    if (!t) {
      const served = this.registry.lookup(group, version, resource);
      if (!served) return undefined;
      t = resolveTarget(this.registry, served);
      this.byKey.set(key, t);
    }
    return t;
  }

  /** The target of a group/resource at the group's preferred served version. */
  preferred(group: string, resource: string): Target | undefined {
    const g = this.registry.group(group);
    if (!g) return undefined;
    for (const v of g.versions) {
      const t = this.of(group, v, resource);
      if (t) return t;
    }
    return undefined;
  }
}
