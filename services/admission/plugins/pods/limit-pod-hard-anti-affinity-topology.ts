// LimitPodHardAntiAffinityTopology: a pod's required anti-affinity may only spread it across
// hosts (topologyKey platform.io/hostname); a required anti-affinity over a whole zone or region
// could keep every other replica out of it, which this plugin leaves to administrators.

import { AdmissionOperation } from '../../../../shared/bus/messages.js';
import { admissionForbidden } from '../../errors.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';
import { isMainResource, LABEL_HOSTNAME, list, rec } from './pod-fields.js';

export const LIMIT_POD_HARD_ANTI_AFFINITY_TOPOLOGY = 'LimitPodHardAntiAffinityTopology';

const PODS_CREATE_UPDATE: PluginMatch = {
  operations: [AdmissionOperation.Create, AdmissionOperation.Update],
  resources: [{ group: '', resource: 'pods' }],
};

export function createLimitPodHardAntiAffinityTopology(): AdmissionPlugin {
  return {
    name: LIMIT_POD_HARD_ANTI_AFFINITY_TOPOLOGY,
    match: PODS_CREATE_UPDATE,
    validate(req) {
      if (!req.object || !isMainResource(req, '', 'pods')) return;
      const terms = list(rec(rec(rec(req.object.spec)?.affinity)?.podAntiAffinity)?.requiredDuringSchedulingIgnoredDuringExecution);
      for (const term of terms) {
        const key = rec(term)?.topologyKey ?? '';
        if (key !== LABEL_HOSTNAME) {
          throw admissionForbidden(req, `affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey ${String(key)} but only key ${LABEL_HOSTNAME} is allowed`);
        }
      }
    },
  };
}

export const limitPodHardAntiAffinityTopologyPlugin: PluginDefinition = {
  name: LIMIT_POD_HARD_ANTI_AFFINITY_TOPOLOGY,
  defaultEnabled: false,
  create: () => createLimitPodHardAntiAffinityTopology(),
};
