// OwnerReferencesPermissionEnforcement: ownership is a power over deletion, so it takes the rights
// deletion takes. Changing an object's ownerReferences needs `delete` on the object (the garbage
// collector will delete it when its owners go); creating one with owners does not, since its
// creator could as well not have created it. Making a reference block its owner's deletion (new,
// or turned from false to true) needs `update` on the owner's `finalizers` subresource, because
// it holds up a foreground deletion of the owner. The authz service (RBAC, …) decides each check.
// pods/status is exempt as upstream: the status strategy keeps ownerReferences unchanged there.

import { isDeepStrictEqual } from 'node:util';
import { brandSpelling } from '../../../../shared/api/groups.js';
import type { ApiObject, OwnerReference } from '../../../../shared/api/types.js';
import { AdmissionOperation, Decision, type AdmissionRequest, type AuthzAttributes, type AuthzReply } from '../../../../shared/bus/messages.js';
import type { ResourceType } from '../../../../shared/registry/types.js';
import { admissionForbidden } from '../../errors.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';

export const OWNER_REFERENCES_PERMISSION_ENFORCEMENT = 'OwnerReferencesPermissionEnforcement';

/** Every resource's creates and updates: any object may carry owner references. */
export const OWNER_REFERENCES_MATCH: PluginMatch = {
  operations: [AdmissionOperation.Create, AdmissionOperation.Update],
};

/** Requests the plugin leaves alone: group, resource, subresource. */
const EXEMPT: ReadonlyArray<readonly [string, string, string]> = [['', 'pods', 'status']];

// ---- what changed ---------------------------------------------------------------------------

const refsOf = (obj: ApiObject | null | undefined): OwnerReference[] => {
  const refs = obj?.metadata?.ownerReferences;
  return Array.isArray(refs) ? refs : [];
};

/** A reference as Go compares it: an absent field and null are the same nil; false is not nil. */
function canonical(ref: OwnerReference): Record<string, unknown> {
  return Object.fromEntries(Object.entries(ref).filter(([, v]) => v !== undefined && v !== null));
}

/** Whether the request sets, removes, reorders or alters any owner reference. */
export function isChangingOwnerReferences(object: ApiObject | null, oldObject: ApiObject | null): boolean {
  if (!object?.metadata) return false;
  const next = refsOf(object);
  if (!oldObject) return next.length > 0;
  if (!oldObject.metadata) return false;
  const old = refsOf(oldObject);
  if (old.length !== next.length) return true;
  return old.some((ref, i) => !isDeepStrictEqual(canonical(ref), canonical(next[i]!)));
}

/** References that block their owner's deletion and did not before (matched to the old ones by uid). */
export function newBlockingOwnerReferences(object: ApiObject | null, oldObject: ApiObject | null): OwnerReference[] {
  const blocking = refsOf(object).filter((r) => r.blockOwnerDeletion === true);
  if (!blocking.length || !oldObject?.metadata) return blocking;
  const old = new Map(refsOf(oldObject).map((r) => [r.uid, r]));
  return blocking.filter((r) => old.get(r.uid)?.blockOwnerDeletion !== true);
}

// ---- owners' resources ----------------------------------------------------------------------

export interface KindMapping {
  group: string;
  version: string;
  resource: string;
  namespaced: boolean;
}

/** The resources serving an owner's kind at its apiVersion; throws with upstream's wording when none does. */
export type KindResolver = (apiVersion: string, kind: string) => KindMapping[];

/** `group/version`, or a core `version`; anything else is malformed (Go's ParseGroupVersion). */
export function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0]! };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  throw new Error(`unexpected GroupVersion string: ${apiVersion}`);
}

/**
 * A resolver over the built-in types (every version they define). An owner written with
 * upstream's group spelling (`rbac.authorization.k8s.io/v1`) resolves to the branded group.
 */
export function kindResolver(types: readonly ResourceType[]): KindResolver {
  const byKind = new Map<string, KindMapping[]>();
  for (const t of types) {
    for (const v of t.versions) {
      const key = `${t.group}/${v.name}/${t.kind}`;
      const list = byKind.get(key) ?? [];
      list.push({ group: t.group, version: v.name, resource: t.plural, namespaced: t.scope === 'Namespaced' });
      byKind.set(key, list);
    }
  }
  return (apiVersion, kind) => {
    const { group, version } = parseGroupVersion(apiVersion);
    const found = byKind.get(`${group}/${version}/${kind}`) ?? byKind.get(`${brandSpelling(group) ?? group}/${version}/${kind}`);
    if (!found) throw new Error(`no matches for kind ${JSON.stringify(kind)} in version ${JSON.stringify(group ? `${group}/${version}` : version)}`);
    return found;
  };
}

// ---- the plugin -----------------------------------------------------------------------------

export interface OwnerReferencesDeps {
  authorize(attrs: AuthzAttributes): Promise<AuthzReply>;
  resolveKind: KindResolver;
}

/** Upstream prints the authorizer's reason and error as Go would, nil included: `: , <nil>`. */
const because = (reply: AuthzReply): string => `${reply.reason ?? ''}, ${reply.evaluationError || '<nil>'}`;

interface Target {
  group: string;
  version: string;
  resource: string;
  subresource?: string;
  namespace?: string | undefined;
  name?: string;
}

function check(req: AdmissionRequest, verb: string, t: Target): AuthzAttributes {
  const a: AuthzAttributes = { user: req.userInfo, verb, isResourceRequest: true, path: '', apiGroup: t.group, apiVersion: t.version, resource: t.resource };
  if (t.subresource) a.subresource = t.subresource;
  if (t.namespace) a.namespace = t.namespace;
  if (t.name) a.name = t.name;
  return a;
}

/** Upstream's check that someone may update every finalizer, which spares a lookup per owner. */
const FINALIZE_ANYTHING: Target = { group: '*', version: '*', resource: '*', subresource: 'finalizers', name: '*' };

export function createOwnerReferencesPermissionEnforcement(deps: OwnerReferencesDeps): AdmissionPlugin {
  return {
    name: OWNER_REFERENCES_PERMISSION_ENFORCEMENT,
    match: OWNER_REFERENCES_MATCH,
    async validate(req) {
      const sub = req.subResource ?? '';
      if (EXEMPT.some(([g, r, s]) => req.resource.group === g && req.resource.resource === r && sub === s)) return;
      if (!isChangingOwnerReferences(req.object, req.oldObject)) return;

      if (req.operation !== AdmissionOperation.Create) {
        const { group, version, resource } = req.resource;
        const reply = await deps.authorize(check(req, 'delete', { group, version, resource, subresource: sub, namespace: req.namespace, name: req.name }));
        if (reply.decision !== Decision.Allow) throw admissionForbidden(req, `cannot set an ownerRef on a resource you can't delete: ${because(reply)}`);
      }

      const blocking = newBlockingOwnerReferences(req.object, req.oldObject);
      if (!blocking.length) return;
      if ((await deps.authorize(check(req, 'update', FINALIZE_ANYTHING))).decision === Decision.Allow) return;

      for (const ref of blocking) {
        let mappings: KindMapping[];
        try {
          mappings = deps.resolveKind(ref.apiVersion ?? '', ref.kind ?? '');
        } catch (err) {
          throw admissionForbidden(req, `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${ref.apiVersion} Kind ${ref.kind}: ${(err as Error).message}`);
        }
        // A kind served by several resources: the finalizers of each must be updatable.
        for (const m of mappings) {
          // An owner in a namespace is in the dependent's: references never cross namespaces.
          const namespace = m.namespaced ? req.namespace : undefined;
          const reply = await deps.authorize(check(req, 'update', { group: m.group, version: m.version, resource: m.resource, subresource: 'finalizers', namespace, name: ref.name }));
          if (reply.decision !== Decision.Allow) {
            throw admissionForbidden(req, `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${because(reply)}`);
          }
        }
      }
    },
  };
}

export const ownerReferencesPermissionEnforcementPlugin: PluginDefinition = {
  name: OWNER_REFERENCES_PERMISSION_ENFORCEMENT,
  defaultEnabled: false,
  create: async (deps) => {
    // Loaded only when the plugin is on: the type table is large and no other plugin here needs it.
    const { builtinTypes } = await import('../../../../shared/registry/builtin-types.js');
    return createOwnerReferencesPermissionEnforcement({ authorize: (a) => deps.authorize(a), resolveKind: kindResolver(builtinTypes) });
  },
};
