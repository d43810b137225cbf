// API group names, well-known label and annotation keys, and defaults several services share.

export const CORE_GROUP = '';
export const RBAC_GROUP = 'rbac.authorization.platform.io';
export const AUTHENTICATION_GROUP = 'authentication.platform.io';
export const AUTHORIZATION_GROUP = 'authorization.platform.io';
export const POLICY_GROUP = 'policy';

/** The KV bucket objects live in, unless a service is told otherwise. */
export const DEFAULT_BUCKET = 'objects';

/** Label every namespace carries with its own name (upstream `kubernetes.io/metadata.name`). */
export const NAMESPACE_NAME_LABEL = 'platform.io/metadata.name';
