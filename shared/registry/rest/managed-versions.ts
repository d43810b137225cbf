// The versions of a type as field management sees them (shared/fieldmanager/versions.ts): which
// entries of managedFields must be read in the request's version, and the conversion that reads
// them: a custom resource's conversion webhook, or a built-in type's conversions through its
// storage version. Versions that only differ in apiVersion (a definition with strategy None, most
// built-in versions) convert nothing, so their entries are compared as they are.

import type { ApiObject } from '../../api/types.js';
import { ManagedFieldsInVersion, type VersionedFields } from '../../fieldmanager/versions.js';
import type { Registry } from '../registry.js';
import { resolveTarget } from '../target.js';
import type { ServedResource, Target } from '../types.js';

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

const reshapes = (s: ServedResource) => Boolean(s.version.toHub || s.version.fromHub);

/** The versions of `t`'s type for field management of a write through `t`. */
export function versionedFields(registry: Registry, t: Target): VersionedFields {
  const targets = new Map<string, Target | undefined>();
  const servedOf = (apiVersion: string): ServedResource | undefined => {
    const { group, version } = splitApiVersion(apiVersion);
    if (group !== t.served.group) return undefined;
    const s = registry.lookup(group, version, t.type.plural);
    return s?.type === t.type ? s : undefined;
  };
  const targetOf = (apiVersion: string): Target | undefined => {
    if (!targets.has(apiVersion)) {
      const s = servedOf(apiVersion);
      targets.set(apiVersion, s && resolveTarget(registry, s));
    }
    return targets.get(apiVersion);
  };
  /** A built-in conversion: to the storage version through the object's own version, then out to `apiVersion`. */
  const inProcess = (o: ApiObject, apiVersion: string): ApiObject => {
    const from = targetOf(o.apiVersion ?? '');
    const to = targetOf(apiVersion);
    if (!from || !to) throw new Error(`no conversion from ${o.apiVersion} to ${apiVersion}`);
    const hub = from.toStored(o);
    return to.fromStored ? to.fromStored(hub) : hub;
  };
  return {
    apiVersion: t.apiVersion,
    converts(apiVersion) {
      if (t.type.storedAs) return false;
      const s = servedOf(apiVersion);
      return !!s && (!!t.type.conversion || reshapes(s) || reshapes(t.served));
    },
    schema(apiVersion) {
      const s = servedOf(apiVersion);
      return s && registry.fieldSchema(s);
    },
    async convert(objs, apiVersion) {
      if (t.type.conversion) return t.type.conversion.convert(objs, apiVersion);
      return objs.map((o) => inProcess(o, apiVersion));
    },
  };
}

/** Field management of one write through `t` over `live`, with every entry read in `t`'s version. */
export function managedInVersion(registry: Registry, t: Target, live: ApiObject): ManagedFieldsInVersion {
  return new ManagedFieldsInVersion(versionedFields(registry, t), live);
}
