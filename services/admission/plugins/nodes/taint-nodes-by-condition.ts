// TaintNodesByCondition (on by default): a Node is created with the not-ready NoSchedule taint,
// so nothing is scheduled to it before its agent has reported it ready (the node lifecycle
// controller removes the taint then), rather than in the moment before the taint would arrive.

import { AdmissionOperation } from '../../../../shared/bus/messages.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';
import { isMainResource, list, rec, specOf, TAINT_NODE_NOT_READY } from '../pods/pod-fields.js';

export const TAINT_NODES_BY_CONDITION = 'TaintNodesByCondition';

const NODES_CREATE: PluginMatch = { operations: [AdmissionOperation.Create], resources: [{ group: '', resource: 'nodes' }] };

export function createTaintNodesByCondition(): AdmissionPlugin {
  return {
    name: TAINT_NODES_BY_CONDITION,
    match: NODES_CREATE,
    mutate(req) {
      const node = req.object;
      if (!node || !isMainResource(req, '', 'nodes')) return;
      const spec = specOf(node);
      const taints = list(spec.taints);
      // A taint is identified by key and effect; the agent may have registered with it already.
      if (taints.some((t) => rec(t)?.key === TAINT_NODE_NOT_READY && rec(t)?.effect === 'NoSchedule')) return;
      spec.taints = [...taints, { key: TAINT_NODE_NOT_READY, effect: 'NoSchedule' }];
    },
  };
}

export const taintNodesByConditionPlugin: PluginDefinition = {
  name: TAINT_NODES_BY_CONDITION,
  defaultEnabled: true,
  create: () => createTaintNodesByCondition(),
};
