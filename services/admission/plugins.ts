// Every admission plugin, in the order the chain runs them: the mutating phase calls each enabled
// plugin's `mutate` in this order, the validating phase each `validate` in this order (the flags'
// order is irrelevant, as upstream). The known names, the default-enabled set, the run order and
// the factories all come from this one list.
//
// Adding a plugin: write one file under plugins/<what it acts on>/ exporting a PluginDefinition
// (name, defaultEnabled, create); import it here and put it in the list at its place in the run
// order. Nothing else registers it. test/admission-plugins.test.ts pins the list as shipped, so
// the change shows there as one more expected name.

import type { PluginDefinition } from './types.js';
import { certificateApprovalPlugin } from './plugins/certificates/certificate-approval.js';
import { certificateSigningPlugin } from './plugins/certificates/certificate-signing.js';
import { certificateSubjectRestrictionPlugin } from './plugins/certificates/certificate-subject-restriction.js';
import { eventRateLimitPlugin } from './plugins/events/event-rate-limit.js';
import { imagePolicyWebhookPlugin } from './plugins/image-policy/image-policy-webhook.js';
import { limitRangerPlugin } from './plugins/limits/limit-ranger.js';
import { resourceQuotaPlugin } from './plugins/limits/resource-quota.js';
import { namespaceAutoProvisionPlugin } from './plugins/namespaces/namespace-auto-provision.js';
import { namespaceExistsPlugin } from './plugins/namespaces/namespace-exists.js';
import { namespaceLifecyclePlugin } from './plugins/namespaces/namespace-lifecycle.js';
import { defaultIngressClassPlugin } from './plugins/networking/default-ingress-class.js';
import { denyServiceExternalIPsPlugin } from './plugins/networking/deny-service-external-ips.js';
import { nodeRestrictionPlugin } from './plugins/nodes/node-restriction.js';
import { taintNodesByConditionPlugin } from './plugins/nodes/taint-nodes-by-condition.js';
import { ownerReferencesPermissionEnforcementPlugin } from './plugins/ownership/owner-references.js';
import { podSecurityPolicyPlugin } from './plugins/pod-security-policy/admission.js';
import { podSecurityPlugin } from './plugins/pod-security/admission.js';
import { alwaysPullImagesPlugin } from './plugins/pods/always-pull-images.js';
import { defaultTolerationSecondsPlugin } from './plugins/pods/default-toleration-seconds.js';
import { denyEscalatingExecPlugin, denyExecOnPrivilegedPlugin } from './plugins/pods/deny-exec.js';
import { extendedResourceTolerationPlugin } from './plugins/pods/extended-resource-toleration.js';
import { limitPodHardAntiAffinityTopologyPlugin } from './plugins/pods/limit-pod-hard-anti-affinity-topology.js';
import { podNodeSelectorPlugin } from './plugins/pods/pod-node-selector.js';
import { podTolerationRestrictionPlugin } from './plugins/pods/pod-toleration-restriction.js';
import { priorityPlugin } from './plugins/pods/priority.js';
import { runtimeClassPlugin } from './plugins/pods/runtime-class.js';
import { securityContextDenyPlugin } from './plugins/pods/security-context-deny.js';
import { serviceAccountPlugin } from './plugins/pods/service-account.js';
import { alwaysAdmitPlugin } from './plugins/unconditional/always-admit.js';
import { alwaysDenyPlugin } from './plugins/unconditional/always-deny.js';
import { defaultStorageClassPlugin } from './plugins/volumes/default-storage-class.js';
import { persistentVolumeClaimResizePlugin } from './plugins/volumes/persistent-volume-claim-resize.js';
import { persistentVolumeLabelPlugin } from './plugins/volumes/persistent-volume-label.js';
import { storageObjectInUseProtectionPlugin } from './plugins/volumes/storage-object-in-use-protection.js';
import { mutatingWebhookPlugin, validatingWebhookPlugin } from './plugins/webhooks/plugin.js';

export const admissionPlugins: readonly PluginDefinition[] = [
  alwaysAdmitPlugin,
  namespaceAutoProvisionPlugin,
  namespaceLifecyclePlugin,
  namespaceExistsPlugin,
  securityContextDenyPlugin,
  limitPodHardAntiAffinityTopologyPlugin,
  limitRangerPlugin,
  serviceAccountPlugin,
  nodeRestrictionPlugin,
  taintNodesByConditionPlugin,
  alwaysPullImagesPlugin,
  imagePolicyWebhookPlugin,
  podSecurityPlugin,
  podSecurityPolicyPlugin,
  podNodeSelectorPlugin,
  priorityPlugin,
  defaultTolerationSecondsPlugin,
  podTolerationRestrictionPlugin,
  denyEscalatingExecPlugin,
  denyExecOnPrivilegedPlugin,
  eventRateLimitPlugin,
  extendedResourceTolerationPlugin,
  persistentVolumeLabelPlugin,
  defaultStorageClassPlugin,
  storageObjectInUseProtectionPlugin,
  ownerReferencesPermissionEnforcementPlugin,
  persistentVolumeClaimResizePlugin,
  runtimeClassPlugin,
  certificateApprovalPlugin,
  certificateSigningPlugin,
  certificateSubjectRestrictionPlugin,
  defaultIngressClassPlugin,
  denyServiceExternalIPsPlugin,
  mutatingWebhookPlugin,
  validatingWebhookPlugin,
  resourceQuotaPlugin,
  alwaysDenyPlugin,
];

const byName = new Map<string, PluginDefinition>();
for (const plugin of admissionPlugins) {
  // Two entries of one name would make the flags ambiguous: refuse to start rather than pick one.
  if (byName.has(plugin.name)) throw new Error(`admission plugin "${plugin.name}" is listed twice`);
  byName.set(plugin.name, plugin);
}

export function isKnownPlugin(name: string): boolean {
  return byName.has(name);
}

/** The definition of a known plugin (undefined for any other name). */
export function pluginDefinition(name: string): PluginDefinition | undefined {
  return byName.get(name);
}
