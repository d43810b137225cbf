// DefaultTolerationSeconds (on by default): a pod that does not tolerate the not-ready and
// unreachable NoExecute taints gets a toleration of each for a bounded time
// (--default-not-ready-toleration-seconds, --default-unreachable-toleration-seconds), so the
// node lifecycle controller evicts it from a lost node after that long instead of never.

import { AdmissionOperation } from '../../../../shared/bus/messages.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';
import { isMainResource, specOf, TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE, tolerationsOf, type Toleration } from './pod-fields.js';

export const DEFAULT_TOLERATION_SECONDS = 'DefaultTolerationSeconds';

const PODS_CREATE_UPDATE: PluginMatch = {
  operations: [AdmissionOperation.Create, AdmissionOperation.Update],
  resources: [{ group: '', resource: 'pods' }],
};

/** A toleration with an empty key or effect covers that taint too. */
const tolerates = (t: Toleration, key: string) => (!t.key || t.key === key) && (!t.effect || t.effect === 'NoExecute');

export function createDefaultTolerationSeconds(notReadySeconds: number, unreachableSeconds: number): AdmissionPlugin {
  return {
    name: DEFAULT_TOLERATION_SECONDS,
    match: PODS_CREATE_UPDATE,
    mutate(req) {
      const pod = req.object;
      if (!pod || !isMainResource(req, '', 'pods')) return;
      const spec = specOf(pod);
      const current = tolerationsOf(spec);
      const add: Toleration[] = [];
      if (!current.some((t) => tolerates(t, TAINT_NODE_NOT_READY))) {
        add.push({ key: TAINT_NODE_NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: notReadySeconds });
      }
      if (!current.some((t) => tolerates(t, TAINT_NODE_UNREACHABLE))) {
        add.push({ key: TAINT_NODE_UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: unreachableSeconds });
      }
      if (add.length) spec.tolerations = [...(Array.isArray(spec.tolerations) ? spec.tolerations : []), ...add];
    },
  };
}

export const defaultTolerationSecondsPlugin: PluginDefinition = {
  name: DEFAULT_TOLERATION_SECONDS,
  defaultEnabled: true,
  create: (deps) => createDefaultTolerationSeconds(deps.options.defaultNotReadyTolerationSeconds, deps.options.defaultUnreachableTolerationSeconds),
};
