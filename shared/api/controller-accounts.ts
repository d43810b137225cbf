// The identities the controllers service's controllers act as with
// `--use-service-account-credentials`, as upstream's controller manager names them: one
// ServiceAccount per controller in the system namespace, authorized by the bootstrap ClusterRole
// `system:controller:<account>`. The controllers service and the authz service's bootstrap policy
// both read this table, so a controller and its role cannot drift apart by name.

/** Where the controllers' service accounts live (upstream's kube-system). */
export const CONTROLLER_ACCOUNT_NAMESPACE = 'platform-system';

/** Prefix of every controller's bootstrap role and binding (upstream's `saRolePrefix`). */
export const CONTROLLER_ROLE_PREFIX = 'system:controller:';

/**
 * The service account each controller (by its `--controllers` name) runs as; controllers that
 * share an account (the three certificate controllers) share upstream's one. A controller missing
 * here keeps the service's own credentials (serviceaccount-token, as upstream's tokens controller:
 * it mints the credentials the others would need).
 */
export const CONTROLLER_ACCOUNTS: Readonly<Record<string, string>> = {
  namespace: 'namespace-controller',
  garbagecollector: 'generic-garbage-collector',
  serviceaccount: 'service-account-controller',
  'root-ca-cert-publisher': 'root-ca-cert-publisher',
  podgc: 'pod-garbage-collector',
  resourcequota: 'resourcequota-controller',
  'pvc-protection': 'pvc-protection-controller',
  'pv-protection': 'pv-protection-controller',
  csrsigning: 'certificate-controller',
  csrapproving: 'certificate-controller',
  csrcleaner: 'certificate-controller',
  tokencleaner: 'token-cleaner',
  bootstrapsigner: 'bootstrap-signer',
  customresourcedefinitions: 'customresourcedefinition-controller',
  'apiservice-availability': 'apiservice-availability-controller',
};
