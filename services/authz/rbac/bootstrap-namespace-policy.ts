// The bootstrap policy's Roles and RoleBindings, each in one namespace, as upstream's namespace
// policy: the controllers that act in one namespace only, and the reader of the
// `extension-apiserver-authentication` ConfigMap that aggregated API servers bind their own
// service accounts to (each server's install makes that binding; the default one only names the
// controller manager, as upstream's names its controller manager and scheduler). With upstream's
// names served, what upstream keeps in `kube-system` and `kube-public` is there too, beside the
// spec's copy: the reader Role and its binding, and the bootstrap signer's Role over `cluster-info`.

import type { ApiObject } from '../../../shared/api/types.js';
import type { PolicyRule } from '../../../shared/bus/messages.js';
import { CONTROLLER_MANAGER_USER } from '../../../shared/api/groups.js';
import { CONTROLLER_ACCOUNT_NAMESPACE, CONTROLLER_ROLE_PREFIX } from '../../../shared/api/controller-accounts.js';
import { PLATFORM_NAMES, type WellKnownNames } from '../../../shared/api/well-known-names.js';
import { controllerAccount, namespacedRole, READ, roleBinding, rule, user, type SubjectSpec } from './bootstrap-objects.js';

const core = '';

/** The ConfigMap the gateway publishes in each `authenticationInfoNamespaces` for aggregated API servers (services/gateway/authentication-info.ts). */
export const AUTHENTICATION_INFO_CONFIGMAP = 'extension-apiserver-authentication';
/** The Role that reads it, and nothing else. */
export const AUTHENTICATION_READER_ROLE = 'extension-apiserver-authentication-reader';

/**
 * The controllers that act in one namespace each get Roles there, as upstream's: [namespace, account, rules].
 * The bootstrap signer signs `cluster-info` in every public namespace of `names`.
 */
export function controllerNamespacedRoleRules(names: WellKnownNames = PLATFORM_NAMES): Array<[namespace: string, account: string, rules: PolicyRule[]]> {
  return [
    // Expired bootstrap-token secrets.
    [CONTROLLER_ACCOUNT_NAMESPACE, 'token-cleaner', [rule(['list', 'watch', 'delete'], [core], ['secrets'])]],
    // Reads the bootstrap tokens, signs cluster-info with them.
    [CONTROLLER_ACCOUNT_NAMESPACE, 'bootstrap-signer', [rule(['list', 'watch'], [core], ['secrets'])]],
    ...names.publicNamespaces.map((namespace): [string, string, PolicyRule[]] => [
      namespace,
      'bootstrap-signer',
      [rule(['list', 'watch'], [core], ['configmaps']), rule(['update'], [core], ['configmaps'], ['cluster-info'])],
    ]),
  ];
}

/** The namespaced roles that are not a controller's: [namespace, role, rules, binding name, subjects]; the reader in every namespace the gateway publishes the ConfigMap in. */
function otherNamespacedRoles(names: WellKnownNames): Array<[namespace: string, role: string, rules: PolicyRule[], binding: string, subjects: SubjectSpec[]]> {
  return names.authenticationInfoNamespaces.map((namespace) => [
    namespace,
    AUTHENTICATION_READER_ROLE,
    [rule(READ, [core], ['configmaps'], [AUTHENTICATION_INFO_CONFIGMAP])],
    `system::${AUTHENTICATION_READER_ROLE}`,
    [user(CONTROLLER_MANAGER_USER)],
  ]);
}

/** The default Roles, each in its namespace (`kube-system`'s and `kube-public`'s too when `names` are upstream's). */
export function bootstrapRoles(names: WellKnownNames = PLATFORM_NAMES): ApiObject[] {
  return [
    ...controllerNamespacedRoleRules(names).map(([namespace, account, rules]) => namespacedRole(namespace, `${CONTROLLER_ROLE_PREFIX}${account}`, rules)),
    ...otherNamespacedRoles(names).map(([namespace, role, rules]) => namespacedRole(namespace, role, rules)),
  ];
}

/** The default RoleBindings, as `bootstrapRoles`. */
export function bootstrapRoleBindings(names: WellKnownNames = PLATFORM_NAMES): ApiObject[] {
  return [
    ...controllerNamespacedRoleRules(names).map(([namespace, account]) =>
      roleBinding(namespace, `${CONTROLLER_ROLE_PREFIX}${account}`, `${CONTROLLER_ROLE_PREFIX}${account}`, [controllerAccount(account)]),
    ),
    ...otherNamespacedRoles(names).map(([namespace, role, , binding, subjects]) => roleBinding(namespace, binding, role, subjects)),
  ];
}
