// LimitRanger (upstream plugin/pkg/admission/limitranger): the LimitRanges of a pod's namespace
// fill in container requests and limits it does not set (mutating phase, pod creation) and bound
// what pods and persistent volume claims ask for (validating phase: pod creation, claim creation
// and update). Pods cannot change their containers' resources after creation, so a pod update is
// not looked at, as upstream's; nor is anything being deleted.

import { cachedMatches } from './cached-matches.js';
import type { ApiObject } from '../../../../shared/api/types.js';
import type { AdmissionRequest } from '../../../../shared/bus/messages.js';
import { admissionForbidden } from '../../errors.js';
import type { AdmissionPlugin, PluginDefinition, PluginDeps, PluginMatch } from '../../types.js';
import { applyContainerDefaults, limitRangeTypes, validateClaimLimits, validatePodLimits } from './limits.js';

export const LIMIT_RANGER = 'LimitRanger';

const PODS_AND_CLAIMS = [
  { group: '', resource: 'pods' },
  { group: '', resource: 'persistentvolumeclaims' },
];

function isPod(req: AdmissionRequest): boolean {
  return req.resource.group === '' && req.resource.resource === 'pods';
}

function isClaim(req: AdmissionRequest): boolean {
  return req.resource.group === '' && req.resource.resource === 'persistentvolumeclaims';
}

/** Upstream's SupportsAttributes: pods on create, claims on create and update, never a subresource. */
function supported(req: AdmissionRequest): boolean {
  if (req.subResource || !req.namespace || !req.object) return false;
  if (req.operation !== 'CREATE' && req.operation !== 'UPDATE') return false;
  if (isPod(req)) return req.operation === 'CREATE';
  if (!isClaim(req)) return false;
  return !req.oldObject?.metadata?.deletionTimestamp;
}

function createLimitRanger(deps: PluginDeps): AdmissionPlugin {
  const cache = deps.objects('', 'limitranges');
  // Claim updates are wanted only while some LimitRange bounds claims (or before that is known).
  const CREATE: PluginMatch = { operations: ['CREATE'], resources: PODS_AND_CLAIMS };
  const CREATE_UPDATE: PluginMatch = { operations: ['CREATE', 'UPDATE'], resources: PODS_AND_CLAIMS };
  const boundingClaims = cachedMatches(cache, (lr) => limitRangeTypes(lr).has('PersistentVolumeClaim'));

  async function rangesFor(req: AdmissionRequest): Promise<ApiObject[]> {
    await cache.ready();
    return cache.list(req.namespace).sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  }

  return {
    name: LIMIT_RANGER,
    get match(): PluginMatch {
      return boundingClaims.possible() ? CREATE_UPDATE : CREATE;
    },
    async mutate(req) {
      if (!supported(req) || !isPod(req)) return;
      for (const lr of await rangesFor(req)) applyContainerDefaults(lr, req.object!);
    },
    async validate(req) {
      if (!supported(req)) return;
      for (const lr of await rangesFor(req)) {
        const why = isPod(req) ? validatePodLimits(lr, req.object!) : validateClaimLimits(lr, req.object!);
        if (why) throw admissionForbidden(req, why);
      }
    },
    stop() {
      boundingClaims.stop();
      return Promise.resolve();
    },
  };
}

export const limitRangerPlugin: PluginDefinition = {
  name: LIMIT_RANGER,
  defaultEnabled: true,
  create: createLimitRanger,
};
