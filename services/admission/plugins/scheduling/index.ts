// The plugins of this folder by name: the pod scheduling and small restriction plugins (tolerations, node selectors, taints, images, exec, external IPs, namespaces).

import type { PluginFactory } from '../../types.js';
import { DEFAULT_TOLERATION_SECONDS, defaultTolerationSecondsPlugin } from './default-toleration-seconds.js';
import { EXTENDED_RESOURCE_TOLERATION, extendedResourceTolerationPlugin } from './extended-resource-toleration.js';
import { POD_NODE_SELECTOR, podNodeSelectorPlugin } from './pod-node-selector.js';
import { POD_TOLERATION_RESTRICTION, podTolerationRestrictionPlugin } from './pod-toleration-restriction.js';
import { TAINT_NODES_BY_CONDITION, taintNodesByConditionPlugin } from './taint-nodes-by-condition.js';

export const plugins: Readonly<Record<string, PluginFactory>> = {
  [DEFAULT_TOLERATION_SECONDS]: defaultTolerationSecondsPlugin,
  [TAINT_NODES_BY_CONDITION]: taintNodesByConditionPlugin,
  [POD_NODE_SELECTOR]: podNodeSelectorPlugin,
  [POD_TOLERATION_RESTRICTION]: podTolerationRestrictionPlugin,
  [EXTENDED_RESOURCE_TOLERATION]: extendedResourceTolerationPlugin,
};
