// The Local APIServices a cluster lists: one per built-in group/version this server serves, as
// upstream's kube-apiserver registers one per group/version it installs (its autoregistration), with
// the priorities of upstream's table so that `kubectl get apiservices` and any client ordering
// groups by them see what they would see upstream. A branded group takes the numbers of its
// upstream twin (`rbac.authorization.platform.io` those of `rbac.authorization.k8s.io`).

import { upstreamSpelling } from '../../../api/groups.js';
import type { ApiObject } from '../../../api/types.js';
import { BUILTIN_TYPES, type Registry } from '../../registry.js';
import { APIREGISTRATION_GROUP, apiservices } from './api-service.js';
import { apiServiceName } from './api-service-validation.js';

export interface ApiServicePriority {
  /** Orders the group among groups, highest first. */
  group: number;
  /** Orders the version within its group, highest first. */
  version: number;
}

/**
 * Upstream's priorities (kube-apiserver's apiVersionPriorities, generic and kube-specific merged),
 * by upstream group name and version. Versions this server does not serve are kept so the table
 * reads as upstream's and a version switched on later needs no edit here.
 */
const UPSTREAM_PRIORITIES: Readonly<Record<string, Readonly<Record<string, readonly [group: number, version: number]>>>> = {
  '': { v1: [18000, 1] },
  apps: { v1: [17800, 15] },
  'events.k8s.io': { v1: [17750, 15], v1beta1: [17750, 5] },
  'authentication.k8s.io': { v1: [17700, 15], v1beta1: [17700, 9], v1alpha1: [17700, 1] },
  'authorization.k8s.io': { v1: [17600, 15] },
  autoscaling: { v2: [17500, 30], v1: [17500, 15], v2beta1: [17500, 9], v2beta2: [17500, 1] },
  batch: { v1: [17400, 15], v1beta1: [17400, 9], v2alpha1: [17400, 9] },
  'certificates.k8s.io': { v1: [17300, 15], v1alpha1: [17300, 1] },
  'networking.k8s.io': { v1: [17200, 15], v1beta1: [17200, 9] },
  policy: { v1: [17100, 15], v1beta1: [17100, 9] },
  'rbac.authorization.k8s.io': { v1: [17000, 15] },
  'storage.k8s.io': { v1: [16800, 15], v1beta1: [16800, 9], v1alpha1: [16800, 1] },
  'apiextensions.k8s.io': { v1: [16700, 15] },
  'admissionregistration.k8s.io': { v1: [16700, 15], v1beta1: [16700, 12], v1alpha1: [16700, 9] },
  'scheduling.k8s.io': { v1: [16600, 15] },
  'coordination.k8s.io': { v1: [16500, 15] },
  'node.k8s.io': { v1: [16300, 15], v1beta1: [16300, 9], v1alpha1: [16300, 1] },
  'discovery.k8s.io': { v1: [16200, 15], v1beta1: [16200, 12] },
  'flowcontrol.apiserver.k8s.io': { v1: [16100, 21], v1beta3: [16100, 18], v1beta2: [16100, 15], v1beta1: [16100, 12], v1alpha1: [16100, 9] },
  'internal.apiserver.k8s.io': { v1alpha1: [16000, 9] },
  'storagemigration.k8s.io': { v1alpha1: [15800, 9] },
};

/**
 * What upstream gives a local group/version missing from its table: the priorities its CRD
 * registration gives every custom resource group ("relatively low": below every built-in group).
 */
export const DEFAULT_LOCAL_PRIORITY: ApiServicePriority = { group: 1000, version: 100 };

/** Marks the APIServices the server keeps itself (upstream's `kube-aggregator.kubernetes.io/automanaged`). */
export const AUTOMANAGED_LABEL = 'platform-aggregator.platform.io/automanaged';
/** The label's value for those registered when the server starts, as upstream's `onstart`. */
export const AUTOMANAGED_ON_START = 'onstart';

/** The priorities of a served group/version, read under its upstream twin's name. */
export function apiServicePriority(group: string, version: string): ApiServicePriority {
  const entry = UPSTREAM_PRIORITIES[upstreamSpelling(group) ?? group]?.[version];
  return entry ? { group: entry[0], version: entry[1] } : DEFAULT_LOCAL_PRIORITY;
}

/** Above every APIService's maximum: the registration group is listed first, as upstream's discovery lists it. */
const REGISTRATION_GROUP_PRIORITY = 20_001;

/** Where a group/version this server serves sorts in discovery: its Local APIService's priorities. */
export function discoveryPriority(group: string, version: string): ApiServicePriority {
  if (group === APIREGISTRATION_GROUP || group === upstreamSpelling(APIREGISTRATION_GROUP)) return { group: REGISTRATION_GROUP_PRIORITY, version: 0 };
  return apiServicePriority(group, version);
}

/** The Local APIService of one served group/version. */
export function localApiService(group: string, version: string): ApiObject {
  const priority = apiServicePriority(group, version);
  return {
    apiVersion: `${APIREGISTRATION_GROUP}/v1`,
    kind: apiservices.kind,
    metadata: { name: apiServiceName(group, version), labels: { [AUTOMANAGED_LABEL]: AUTOMANAGED_ON_START } },
    // The core group's empty name is left out, as Go's omitempty writes it (and reads it back).
    spec: { ...(group ? { group } : {}), version, groupPriorityMinimum: priority.group, versionPriority: priority.version },
  };
}

/**
 * One Local APIService per built-in group/version the registry serves (after `--runtime-config`),
 * each group under its own (branded) name only: with upstream aliases on, `rbac.authorization.k8s.io`
 * is the same group and is not listed twice. The registration group itself is not listed, as
 * upstream lists no APIService for `apiregistration.k8s.io`. Sorted by name, as a list answers.
 */
export function localApiServices(registry: Registry): ApiObject[] {
  const groupVersions = new Map<string, ApiObject>();
  for (const type of registry.definedBy(BUILTIN_TYPES)) {
    if (type.group === APIREGISTRATION_GROUP) continue;
    for (const served of registry.servedVersions(type)) {
      const name = apiServiceName(served.group, served.version.name);
      if (!groupVersions.has(name)) groupVersions.set(name, localApiService(served.group, served.version.name));
    }
  }
  return [...groupVersions.values()].sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
}
