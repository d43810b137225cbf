// API group names, well-known label and annotation keys, and defaults several services share.

export const CORE_GROUP = '';
export const RBAC_GROUP = 'rbac.authorization.platform.io';
export const AUTHENTICATION_GROUP = 'authentication.platform.io';
export const AUTHORIZATION_GROUP = 'authorization.platform.io';
export const POLICY_GROUP = 'policy';

/** The break-glass group: allowed everything whatever the authorization modes, never throttled. */
export const SYSTEM_MASTERS = 'system:masters';

/** The controllers service's user (upstream's `system:kube-controller-manager`); the bootstrap policy binds its role. */
export const CONTROLLER_MANAGER_USER = 'system:platform-controller-manager';

/** The KV bucket objects live in, unless a service is told otherwise. */
export const DEFAULT_BUCKET = 'objects';

/** Label every namespace carries with its own name (upstream `kubernetes.io/metadata.name`). */
export const NAMESPACE_NAME_LABEL = 'platform.io/metadata.name';

// ---- Upstream spellings ------------------------------------------------------------------------
// With `--upstream-group-aliases`, every group carrying the brand (`*.platform.io`) also answers to
// upstream's spelling of it (`*.k8s.io`), so stock manifests and kubectl's typed commands work.
// The brand's spelling is the group's canonical name: storage keys, authorization, admission and
// everything stored use it; only what a client sees follows the spelling of its request's URL.

export const BRAND_GROUP_SUFFIX = '.platform.io';
export const UPSTREAM_GROUP_SUFFIX = '.k8s.io';

/** Upstream's spelling of a branded group (`rbac.authorization.k8s.io`); undefined for any other group. */
export function upstreamSpelling(group: string): string | undefined {
  return group.endsWith(BRAND_GROUP_SUFFIX) ? group.slice(0, -BRAND_GROUP_SUFFIX.length) + UPSTREAM_GROUP_SUFFIX : undefined;
}

/** The branded group an upstream spelling stands for (`rbac.authorization.platform.io`); undefined for any other name. */
export function brandSpelling(group: string): string | undefined {
  return group.endsWith(UPSTREAM_GROUP_SUFFIX) ? group.slice(0, -UPSTREAM_GROUP_SUFFIX.length) + BRAND_GROUP_SUFFIX : undefined;
}

/**
 * Whether a binding's `roleRef.apiGroup` or a User/Group subject's `apiGroup` names the RBAC API
 * group. Either spelling does, whatever `--upstream-group-aliases` says: the field has one
 * meaningful value and stock manifests write upstream's. Written through an alias it is stored
 * canonical (the type's `groupNameFields`); written through the canonical URL, as written.
 */
export function isRbacGroupName(group: unknown): boolean {
  return group === RBAC_GROUP || group === upstreamSpelling(RBAC_GROUP);
}

/** The group a name means: with aliases on, an upstream spelling means its branded group; otherwise the name itself. */
export type CanonicalGroup = (group: string) => string;

export const exactGroupNames: CanonicalGroup = (g) => g;

export function canonicalGroupNames(aliases: boolean): CanonicalGroup {
  return aliases ? (g) => brandSpelling(g) ?? g : exactGroupNames;
}

/** `group/version` with the group renamed by `rename`; the core group's `v1` unchanged. */
export function renameApiVersionGroup(apiVersion: string, from: string, to: string): string {
  const slash = apiVersion.lastIndexOf('/');
  return slash >= 0 && apiVersion.slice(0, slash) === from ? `${to}${apiVersion.slice(slash)}` : apiVersion;
}
