// The default roles and bindings every cluster starts with, mirroring upstream's bootstrap policy
// with the platform's group names, and the start-up job that writes them (see reconcile.ts for
// how existing copies are updated without undoing an administrator's additions). The Roles and
// RoleBindings of single namespaces are in bootstrap-namespace-policy.ts.

import type { ApiObject } from '../../../shared/api/types.js';
import type { PolicyRule } from '../../../shared/bus/messages.js';
import type { Logger } from '../../../shared/log.js';
import type { InternalStore } from '../../../shared/registry/rest/internal-store.js';
import { reconcileAll, type ReconcileTarget } from './reconcile.js';
import { AUTHENTICATION_GROUP, AUTHORIZATION_GROUP, CONTROLLER_MANAGER_USER, RBAC_GROUP } from '../../../shared/api/groups.js';
import { CONTROLLER_ROLE_PREFIX } from '../../../shared/api/controller-accounts.js';
import { aggregatingRole, AUTOUPDATE_ANNOTATION, clusterRole, clusterRoleBinding, controllerAccount, group, READ, READ_WRITE, rule, urls, user, WRITE } from './bootstrap-objects.js';
import { bootstrapRoleBindings, bootstrapRoles, controllerNamespacedRoleRules } from './bootstrap-namespace-policy.js';
import { PLATFORM_NAMES, type WellKnownNames } from '../../../shared/api/well-known-names.js';

export { AUTOUPDATE_ANNOTATION, BOOTSTRAP_LABEL } from './bootstrap-objects.js';
export { bootstrapRoleBindings, bootstrapRoles } from './bootstrap-namespace-policy.js';

export const AGGREGATE_TO_ADMIN = `${RBAC_GROUP}/aggregate-to-admin`;
export const AGGREGATE_TO_EDIT = `${RBAC_GROUP}/aggregate-to-edit`;
export const AGGREGATE_TO_VIEW = `${RBAC_GROUP}/aggregate-to-view`;
/** The Lease the controllers service elects its leader on. */
export const CONTROLLER_MANAGER_LEASE = 'platform-controller-manager';
/**
 * What the controllers service's own identity needs on top of its role to run every controller
 * itself (without `--use-service-account-credentials`, the default): every controller role's rules.
 */
export const CONTROLLER_MANAGER_CONTROLLERS_ROLE = `${CONTROLLER_MANAGER_USER}:controllers`;

const core = '';
const apps = 'apps';
const autoscaling = 'autoscaling';
const batch = 'batch';
const extensions = 'extensions';
const policy = 'policy';
const networking = 'networking.platform.io';
const discovery = 'discovery.platform.io';
const coordination = 'coordination.platform.io';
const storage = 'storage.platform.io';
const nodeGroup = 'node.platform.io';
const APIEXTENSIONS = 'apiextensions.platform.io';
const APIREGISTRATION = 'apiregistration.platform.io';
const certificates = 'certificates.platform.io';

/** What a node agent needs (the Node authorizer and NodeRestriction narrow it to its own objects). */
const NODE_RULES: PolicyRule[] = [
  rule(['create'], [AUTHENTICATION_GROUP], ['tokenreviews']),
  rule(['create'], [AUTHORIZATION_GROUP], ['subjectaccessreviews', 'localsubjectaccessreviews']),
  rule(READ, [core], ['services']),
  rule(['create', 'get', 'list', 'watch'], [core], ['nodes']),
  rule(['patch', 'update'], [core], ['nodes/status']),
  rule(['patch', 'update'], [core], ['nodes']),
  rule(['create', 'patch', 'update'], [core, 'events.platform.io'], ['events']),
  rule(READ, [core], ['pods']),
  rule(['create', 'delete'], [core], ['pods']),
  rule(['patch', 'update'], [core], ['pods/status']),
  rule(['create'], [core], ['pods/eviction']),
  rule(READ, [core], ['configmaps', 'secrets']),
  rule(['get'], [core], ['persistentvolumeclaims', 'persistentvolumes']),
  rule(['get'], [core], ['endpoints']),
  rule(['create', 'get', 'list', 'watch'], [certificates], ['certificatesigningrequests']),
  rule(['create', 'delete', 'get', 'patch', 'update'], [coordination], ['leases']),
  rule(['get'], [storage], ['volumeattachments']),
  rule(['create'], [core], ['serviceaccounts/token']),
  rule(['get', 'patch', 'update'], [core], ['persistentvolumeclaims/status']),
  rule(READ, [storage], ['csidrivers']),
  rule(['create', 'delete', 'get', 'patch', 'update'], [storage], ['csinodes']),
  rule(READ, [nodeGroup], ['runtimeclasses']),
];

const AGGREGATE_TO_ADMIN_RULES: PolicyRule[] = [rule(['create'], [AUTHORIZATION_GROUP], ['localsubjectaccessreviews']), rule(READ_WRITE, [RBAC_GROUP], ['rolebindings', 'roles'])];

const AGGREGATE_TO_EDIT_RULES: PolicyRule[] = [
  // Reading these is as good as using them (secrets hold credentials, exec runs as the pod).
  rule(READ, [core], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy']),
  rule(['impersonate'], [core], ['serviceaccounts']),
  rule(WRITE, [core], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy']),
  rule(['create'], [core], ['pods/eviction']),
  rule(WRITE, [core], ['configmaps', 'events', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets', 'serviceaccounts', 'services', 'services/proxy']),
  rule(['create'], [core], ['serviceaccounts/token']),
  rule(WRITE, [apps], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale']),
  rule(WRITE, [autoscaling], ['horizontalpodautoscalers']),
  rule(WRITE, [batch], ['cronjobs', 'jobs']),
  rule(
    WRITE,
    [extensions],
    ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'ingresses', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale'],
  ),
  rule(WRITE, [policy], ['poddisruptionbudgets']),
  rule(WRITE, [networking], ['ingresses', 'networkpolicies']),
  rule(READ_WRITE, [coordination], ['leases']),
];

const AGGREGATE_TO_VIEW_RULES: PolicyRule[] = [
  rule(
    READ,
    [core],
    [
      'configmaps',
      'endpoints',
      'persistentvolumeclaims',
      'persistentvolumeclaims/status',
      'pods',
      'replicationcontrollers',
      'replicationcontrollers/scale',
      'serviceaccounts',
      'services',
      'services/status',
    ],
  ),
  rule(READ, [core], ['bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log', 'pods/status', 'replicationcontrollers/status', 'resourcequotas', 'resourcequotas/status']),
  // At namespace scope this reads the namespace itself: how a user learns which namespaces they may use.
  rule(READ, [core], ['namespaces']),
  rule(READ, [discovery], ['endpointslices']),
  rule(
    READ,
    [apps],
    [
      'controllerrevisions',
      'daemonsets',
      'daemonsets/status',
      'deployments',
      'deployments/scale',
      'deployments/status',
      'replicasets',
      'replicasets/scale',
      'replicasets/status',
      'statefulsets',
      'statefulsets/scale',
      'statefulsets/status',
    ],
  ),
  rule(READ, [autoscaling], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
  rule(READ, [batch], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
  rule(
    READ,
    [extensions],
    [
      'daemonsets',
      'daemonsets/status',
      'deployments',
      'deployments/scale',
      'deployments/status',
      'ingresses',
      'ingresses/status',
      'networkpolicies',
      'replicasets',
      'replicasets/scale',
      'replicasets/status',
      'replicationcontrollers/scale',
    ],
  ),
  rule(READ, [policy], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
  rule(READ, [networking], ['ingresses', 'ingresses/status', 'networkpolicies']),
];

const CSR = 'certificatesigningrequests';
const SIGNERS: Array<[role: string, signer: string]> = [
  ['apiserver-client-approver', 'platform.io/apiserver-client'],
  ['apiserver-client-agent-approver', 'platform.io/apiserver-client-agent'],
  ['agent-serving-approver', 'platform.io/agent-serving'],
  ['legacy-unknown-approver', 'platform.io/legacy-unknown'],
];

// ---- The controllers service -------------------------------------------------------------------
// Upstream's split: with `--use-service-account-credentials` each controller acts as its own
// service account and holds only its role below; the service's own identity keeps only what
// upstream's system:kube-controller-manager holds (the election, making those accounts and their
// tokens, and the serviceaccount-token controller, which never changes identity). Run without the
// flag, that identity runs every controller and so needs every controller role's rules too:
// CONTROLLER_MANAGER_CONTROLLERS_ROLE, bound to it by default so the default mode works. A cluster
// whose controllers all run with the flag may empty that binding's subjects (annotated
// `autoupdate: "false"`) and its controller manager keeps only upstream's rights.

/**
 * Each controller's cluster-wide rules, by its service account: exactly what it reads through its
 * informers and writes (informers list and watch with the controller's own client, so those verbs
 * are here, where upstream's shared informers use the manager's identity instead).
 */
export function controllerClusterRoleRules(): Record<string, PolicyRule[]> {
  return {
    // Empties a deleted namespace of every namespaced type, then finalizes it.
    'namespace-controller': [rule(READ, [core], ['namespaces']), rule(['update'], [core], ['namespaces/finalize', 'namespaces/status']), rule(['list', 'delete', 'deletecollection'], ['*'], ['*'])],
    // Metadata of every deletable type; owner references and its finalizers are merge-patched.
    'generic-garbage-collector': [rule(['get', 'list', 'watch', 'patch', 'delete'], ['*'], ['*'])],
    'service-account-controller': [rule(['list', 'watch'], [core], ['namespaces']), rule(['create', 'list', 'watch'], [core], ['serviceaccounts'])],
    'root-ca-cert-publisher': [rule(['list', 'watch'], [core], ['namespaces']), rule(['create', 'update', 'list', 'watch'], [core], ['configmaps'])],
    // A missing node is looked up once more before its pods go.
    'pod-garbage-collector': [rule(['list', 'watch', 'delete'], [core], ['pods']), rule(['get', 'list', 'watch'], [core], ['nodes'])],
    // Counts anything a quota may name, and writes only quotas' status.
    'resourcequota-controller': [rule(['list', 'watch'], ['*'], ['*']), rule(['update'], [core], ['resourcequotas/status'])],
    // Takes its finalizer off a claim no pod uses (pods listed live to be sure) and puts it on one that lacks it.
    'pvc-protection-controller': [rule(['get', 'list', 'watch', 'update'], [core], ['persistentvolumeclaims']), rule(['list', 'watch', 'get'], [core], ['pods'])],
    // The same for volumes, by their phase alone.
    'pv-protection-controller': [rule(['get', 'list', 'watch', 'update'], [core], ['persistentvolumes'])],
    // Definitions' finalizer and status (upstream runs these as the API server itself); deleting a
    // definition deletes every object of its resource, whatever group it names.
    'customresourcedefinition-controller': [
      rule(['get', 'list', 'watch', 'update'], [APIEXTENSIONS], ['customresourcedefinitions']),
      rule(['update'], [APIEXTENSIONS], ['customresourcedefinitions/status']),
      rule(['list', 'delete'], ['*'], ['*']),
    ],
    // APIServices' Available condition, from their Services and Endpoints (upstream runs it as the API server).
    'apiservice-availability-controller': [rule(READ, [APIREGISTRATION], ['apiservices']), rule(['update'], [APIREGISTRATION], ['apiservices/status']), rule(READ, [core], ['services', 'endpoints'])],
    // csrsigning, csrapproving and csrcleaner: the built-in signers only.
    'certificate-controller': [
      rule(['list', 'watch', 'delete'], [certificates], [CSR]),
      rule(['update'], [certificates], [`${CSR}/status`, `${CSR}/approval`]),
      rule(['approve'], [certificates], ['signers'], ['platform.io/apiserver-client-agent']),
      rule(['sign'], [certificates], ['signers'], ['platform.io/legacy-unknown', 'platform.io/apiserver-client', 'platform.io/apiserver-client-agent', 'platform.io/agent-serving']),
      rule(['create'], [AUTHORIZATION_GROUP], ['subjectaccessreviews']),
    ],
  };
}

/** What the service's own identity needs in either mode (upstream's system:kube-controller-manager). */
const CONTROLLER_MANAGER_RULES: PolicyRule[] = [
  // Leader election.
  rule(['create'], [coordination], ['leases']),
  rule(['get', 'update'], [coordination], ['leases'], [CONTROLLER_MANAGER_LEASE]),
  // --use-service-account-credentials: each controller's account, made when missing, and its tokens.
  rule(['create', 'get'], [core], ['serviceaccounts']),
  rule(['create'], [core], ['serviceaccounts/token']),
  // serviceaccount-token keeps these credentials (it mints tokens of its own).
  rule(['list', 'watch'], [core], ['serviceaccounts']),
  rule(['list', 'watch', 'update', 'delete'], [core], ['secrets']),
  // Delegated authentication and authorization of its /metrics.
  rule(['create'], [AUTHENTICATION_GROUP], ['tokenreviews']),
  rule(['create'], [AUTHORIZATION_GROUP], ['subjectaccessreviews']),
];

/** Every controller role's rules, once each (CONTROLLER_MANAGER_CONTROLLERS_ROLE). */
function allControllerRules(): PolicyRule[] {
  const all = [...Object.values(controllerClusterRoleRules()).flat(), ...controllerNamespacedRoleRules().flatMap(([, , rules]) => rules)];
  const seen = new Set<string>();
  return all.filter((r) => {
    const key = JSON.stringify(r);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The default ClusterRoles, in a fixed order. */
export function bootstrapClusterRoles(): ApiObject[] {
  return [
    clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), urls(['*'], '*')]),
    clusterRole('system:discovery', [urls(['get'], '/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/')]),
    clusterRole('system:monitoring', [urls(['get'], '/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*')]),
    clusterRole('system:basic-user', [
      rule(['create'], [AUTHORIZATION_GROUP], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule(['create'], [AUTHENTICATION_GROUP], ['selfsubjectreviews']),
    ]),
    clusterRole('system:public-info-viewer', [urls(['get'], '/healthz', '/livez', '/readyz', '/version', '/version/')]),
    aggregatingRole('admin', AGGREGATE_TO_ADMIN),
    aggregatingRole('edit', AGGREGATE_TO_EDIT, { [AGGREGATE_TO_ADMIN]: 'true' }),
    aggregatingRole('view', AGGREGATE_TO_VIEW, { [AGGREGATE_TO_EDIT]: 'true' }),
    clusterRole('system:aggregate-to-admin', AGGREGATE_TO_ADMIN_RULES, { [AGGREGATE_TO_ADMIN]: 'true' }),
    clusterRole('system:aggregate-to-edit', AGGREGATE_TO_EDIT_RULES, { [AGGREGATE_TO_EDIT]: 'true' }),
    clusterRole('system:aggregate-to-view', AGGREGATE_TO_VIEW_RULES, { [AGGREGATE_TO_VIEW]: 'true' }),
    clusterRole('system:node', NODE_RULES),
    clusterRole('system:node-bootstrapper', [rule(['create', 'get', 'list', 'watch'], [certificates], [CSR])]),
    clusterRole('system:auth-delegator', [rule(['create'], [AUTHENTICATION_GROUP], ['tokenreviews']), rule(['create'], [AUTHORIZATION_GROUP], ['subjectaccessreviews'])]),
    clusterRole('system:service-account-issuer-discovery', [urls(['get'], '/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/')]),
    clusterRole(`system:certificates.platform.io:${CSR}:nodeclient`, [rule(['create'], [certificates], [`${CSR}/nodeclient`])]),
    clusterRole(`system:certificates.platform.io:${CSR}:selfnodeclient`, [rule(['create'], [certificates], [`${CSR}/selfnodeclient`])]),
    ...SIGNERS.map(([role, signer]) => clusterRole(`system:certificates.platform.io:${role}`, [rule(['approve'], [certificates], ['signers'], [signer])])),
    clusterRole(CONTROLLER_MANAGER_USER, CONTROLLER_MANAGER_RULES),
    clusterRole(CONTROLLER_MANAGER_CONTROLLERS_ROLE, allControllerRules()),
    ...Object.entries(controllerClusterRoleRules()).map(([account, rules]) => clusterRole(`${CONTROLLER_ROLE_PREFIX}${account}`, rules)),
  ];
}

/** The default ClusterRoleBindings. */
export function bootstrapClusterRoleBindings(): ApiObject[] {
  return [
    clusterRoleBinding('cluster-admin', 'cluster-admin', [group('system:masters')]),
    clusterRoleBinding('system:discovery', 'system:discovery', [group('system:authenticated')]),
    clusterRoleBinding('system:monitoring', 'system:monitoring', [group('system:monitoring')]),
    clusterRoleBinding('system:basic-user', 'system:basic-user', [group('system:authenticated')]),
    clusterRoleBinding('system:public-info-viewer', 'system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
    clusterRoleBinding('system:service-account-issuer-discovery', 'system:service-account-issuer-discovery', [group('system:serviceaccounts')]),
    clusterRoleBinding(CONTROLLER_MANAGER_USER, CONTROLLER_MANAGER_USER, [user(CONTROLLER_MANAGER_USER)]),
    clusterRoleBinding(CONTROLLER_MANAGER_CONTROLLERS_ROLE, CONTROLLER_MANAGER_CONTROLLERS_ROLE, [user(CONTROLLER_MANAGER_USER)]),
    ...Object.keys(controllerClusterRoleRules()).map((account) => clusterRoleBinding(`${CONTROLLER_ROLE_PREFIX}${account}`, `${CONTROLLER_ROLE_PREFIX}${account}`, [controllerAccount(account)])),
  ];
}

/** Roles first, so a binding never points at a role that is still being written; upstream's namespaces' objects too when `names` are upstream's. */
export function bootstrapPolicy(names: WellKnownNames = PLATFORM_NAMES): ReconcileTarget[] {
  return [
    ...bootstrapClusterRoles().map((object) => ({ resource: 'clusterroles' as const, object })),
    ...bootstrapClusterRoleBindings().map((object) => ({ resource: 'clusterrolebindings' as const, object })),
    ...bootstrapRoles(names).map((object) => ({ resource: 'roles' as const, object })),
    ...bootstrapRoleBindings(names).map((object) => ({ resource: 'rolebindings' as const, object })),
  ];
}

export interface BootstrapPolicyDeps {
  internal: InternalStore;
  log: Logger;
  /** The well-known names the server takes (`--upstream-group-aliases`): upstream's namespaces get their Roles too. */
  names: WellKnownNames;
  /** First pause before retrying when the storage service does not answer (doubles up to 5 s). */
  retryMs?: number;
}

export interface BootstrapPolicyJob {
  /** Resolves once every default object is in place (or the job was stopped). */
  readonly done: Promise<void>;
  stop(): void;
}

/**
 * Writes the bootstrap policy through the generic store, retrying until storage and admission
 * answer (they may start after authz). Runs in the background; never rejects.
 */
export function startBootstrapPolicy(deps: BootstrapPolicyDeps): BootstrapPolicyJob {
  const controller = new AbortController();
  const done = reconcileAll(
    { internal: deps.internal, log: deps.log, signal: controller.signal, retryMs: deps.retryMs ?? 250, autoupdateAnnotation: AUTOUPDATE_ANNOTATION },
    bootstrapPolicy(deps.names),
  ).then(
    () => deps.log.info('RBAC bootstrap policy reconciled'),
    (err: unknown) => {
      if (!controller.signal.aborted) deps.log.error({ err }, 'RBAC bootstrap policy failed');
    },
  );
  return { done, stop: () => controller.abort() };
}
