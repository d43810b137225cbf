// ExtendedResourceToleration: a pod that requests an extended resource (`example.com/gpu`) gets
// a toleration of the taint named after it (`example.com/gpu:NoSchedule`, any value), so nodes
// that carry such hardware can be tainted to keep every other pod away.

import { AdmissionOperation } from '../../../../shared/bus/messages.js';
import { qualifiedNameProblems } from '../../../../shared/api/validation.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';
import { addOrUpdateToleration, isMainResource, list, rec, specOf } from './pod-fields.js';

export const EXTENDED_RESOURCE_TOLERATION = 'ExtendedResourceToleration';

const PODS_CREATE_UPDATE: PluginMatch = {
  operations: [AdmissionOperation.Create, AdmissionOperation.Update],
  resources: [{ group: '', resource: 'pods' }],
};

/** Resource names in these domains are the platform's own (upstream's `kubernetes.io/`). */
const NATIVE_RESOURCE_DOMAINS = ['platform.io/', 'kubernetes.io/'];
/** The quota prefix (`requests.cpu`): no extended resource is named like that. */
const REQUESTS_PREFIX = 'requests.';

/** Upstream's IsExtendedResourceName: a domain-prefixed name outside the native domains that a quota could name. */
export function isExtendedResourceName(name: string): boolean {
  if (!name.includes('/') || NATIVE_RESOURCE_DOMAINS.some((d) => name.includes(d))) return false;
  if (name.startsWith(REQUESTS_PREFIX)) return false;
  return qualifiedNameProblems(`${REQUESTS_PREFIX}${name}`).length === 0;
}

export function createExtendedResourceToleration(): AdmissionPlugin {
  return {
    name: EXTENDED_RESOURCE_TOLERATION,
    match: PODS_CREATE_UPDATE,
    mutate(req) {
      if (!req.object || !isMainResource(req, '', 'pods')) return;
      const spec = specOf(req.object);
      const resources = new Set<string>();
      for (const c of [...list(spec.containers), ...list(spec.initContainers)]) {
        for (const name of Object.keys(rec(rec(rec(c)?.resources)?.requests) ?? {})) if (isExtendedResourceName(name)) resources.add(name);
      }
      // Sorted, as upstream, so the result does not depend on the order the containers list them.
      for (const key of [...resources].sort()) addOrUpdateToleration(spec, { key, operator: 'Exists', effect: 'NoSchedule' });
    },
  };
}

export const extendedResourceTolerationPlugin: PluginDefinition = {
  name: EXTENDED_RESOURCE_TOLERATION,
  defaultEnabled: false,
  create: () => createExtendedResourceToleration(),
};
