// The plugins of this folder by name: the pod scheduling and small restriction plugins (tolerations, node selectors, taints, images, exec, external IPs, namespaces).

import type { PluginFactory } from '../../types.js';
import { ALWAYS_PULL_IMAGES, alwaysPullImagesPlugin } from './always-pull-images.js';
import { DEFAULT_TOLERATION_SECONDS, defaultTolerationSecondsPlugin } from './default-toleration-seconds.js';
import { DENY_ESCALATING_EXEC, DENY_EXEC_ON_PRIVILEGED, denyEscalatingExecPlugin, denyExecOnPrivilegedPlugin } from './deny-exec.js';
import { DENY_SERVICE_EXTERNAL_IPS, denyServiceExternalIPsPlugin } from './deny-service-external-ips.js';
import { EXTENDED_RESOURCE_TOLERATION, extendedResourceTolerationPlugin } from './extended-resource-toleration.js';
import { LIMIT_POD_HARD_ANTI_AFFINITY_TOPOLOGY, limitPodHardAntiAffinityTopologyPlugin } from './limit-pod-hard-anti-affinity-topology.js';
import { NAMESPACE_AUTO_PROVISION, namespaceAutoProvisionPlugin } from './namespace-auto-provision.js';
import { NAMESPACE_EXISTS, namespaceExistsPlugin } from './namespace-exists.js';
import { PERSISTENT_VOLUME_LABEL, persistentVolumeLabelPlugin } from './persistent-volume-label.js';
import { POD_NODE_SELECTOR, podNodeSelectorPlugin } from './pod-node-selector.js';
import { POD_TOLERATION_RESTRICTION, podTolerationRestrictionPlugin } from './pod-toleration-restriction.js';
import { SECURITY_CONTEXT_DENY, securityContextDenyPlugin } from './security-context-deny.js';
import { TAINT_NODES_BY_CONDITION, taintNodesByConditionPlugin } from './taint-nodes-by-condition.js';

export const plugins: Readonly<Record<string, PluginFactory>> = {
  [DEFAULT_TOLERATION_SECONDS]: defaultTolerationSecondsPlugin,
  [TAINT_NODES_BY_CONDITION]: taintNodesByConditionPlugin,
  [POD_NODE_SELECTOR]: podNodeSelectorPlugin,
  [POD_TOLERATION_RESTRICTION]: podTolerationRestrictionPlugin,
  [EXTENDED_RESOURCE_TOLERATION]: extendedResourceTolerationPlugin,
  [LIMIT_POD_HARD_ANTI_AFFINITY_TOPOLOGY]: limitPodHardAntiAffinityTopologyPlugin,
  [ALWAYS_PULL_IMAGES]: alwaysPullImagesPlugin,
  [SECURITY_CONTEXT_DENY]: securityContextDenyPlugin,
  [DENY_SERVICE_EXTERNAL_IPS]: denyServiceExternalIPsPlugin,
  [DENY_ESCALATING_EXEC]: denyEscalatingExecPlugin,
  [DENY_EXEC_ON_PRIVILEGED]: denyExecOnPrivilegedPlugin,
  [PERSISTENT_VOLUME_LABEL]: persistentVolumeLabelPlugin,
  [NAMESPACE_EXISTS]: namespaceExistsPlugin,
  [NAMESPACE_AUTO_PROVISION]: namespaceAutoProvisionPlugin,
};
