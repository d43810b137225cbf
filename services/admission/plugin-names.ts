// Every admission plugin the spec names, in the fixed order the chain runs them (the flags'
// order is irrelevant, as upstream), and which are on by default. Kept apart from the
// implemented set so a flag naming a plugin that is not built yet fails with a clear message.

export interface KnownPlugin {
  name: string;
  /** In the spec's default-enabled list. */
  defaultEnabled: boolean;
}

const order: Array<[string, boolean]> = [
  ['AlwaysAdmit', false],
  ['NamespaceAutoProvision', false],
  ['NamespaceLifecycle', true],
  ['NamespaceExists', false],
  ['SecurityContextDeny', false],
  ['LimitPodHardAntiAffinityTopology', false],
  ['LimitRanger', true],
  ['ServiceAccount', true],
  ['NodeRestriction', false],
  ['TaintNodesByCondition', true],
  ['AlwaysPullImages', false],
  ['ImagePolicyWebhook', false],
  ['PodSecurity', true],
  ['PodSecurityPolicy', false],
  ['PodNodeSelector', false],
  ['Priority', true],
  ['DefaultTolerationSeconds', true],
  ['PodTolerationRestriction', false],
  ['DenyEscalatingExec', false],
  ['DenyExecOnPrivileged', false],
  ['EventRateLimit', false],
  ['ExtendedResourceToleration', false],
  ['PersistentVolumeLabel', false],
  ['DefaultStorageClass', true],
  ['StorageObjectInUseProtection', true],
  ['OwnerReferencesPermissionEnforcement', false],
  ['PersistentVolumeClaimResize', true],
  ['RuntimeClass', true],
  ['CertificateApproval', true],
  ['CertificateSigning', true],
  ['CertificateSubjectRestriction', true],
  ['DefaultIngressClass', true],
  ['DenyServiceExternalIPs', false],
  ['MutatingAdmissionWebhook', true],
  ['ValidatingAdmissionWebhook', true],
  ['ResourceQuota', true],
  ['AlwaysDeny', false],
];

export const knownPlugins: readonly KnownPlugin[] = order.map(([name, defaultEnabled]) => ({ name, defaultEnabled }));

export function isKnownPlugin(name: string): boolean {
  return knownPlugins.some((p) => p.name === name);
}
