// The restricted level's checks of the Pod Security Standards (upstream's pod-security-admission
// 1.24), each named by the policy version it first applied at. Restricted runs the baseline checks
// too, less those a restricted check replaces (checks.ts).

import { containerList, containers, joinQuote, list, pluralize, podSC, rec, sortedSet, str, type CheckFn } from './check-support.js';
import { seccompSetters } from './baseline-checks.js';

export const allowPrivilegeEscalation_1_8: CheckFn = (_meta, spec) => {
  const bad = containers(spec)
    .filter((c) => c.sc?.allowPrivilegeEscalation !== false)
    .map((c) => c.name);
  if (!bad.length) return undefined;
  return { reason: 'allowPrivilegeEscalation != false', detail: `${containerList(bad)} must set securityContext.allowPrivilegeEscalation=false` };
};

export const capabilitiesRestricted_1_22: CheckFn = (_meta, spec) => {
  const missingDropAll: string[] = [];
  const addingForbidden: string[] = [];
  const forbidden: string[] = [];
  for (const c of containers(spec)) {
    const capabilities = rec(c.sc?.capabilities);
    if (!capabilities) {
      missingDropAll.push(c.name);
      continue;
    }
    if (!list(capabilities.drop).includes('ALL')) missingDropAll.push(c.name);
    let adds = false;
    for (const cap of list(capabilities.add)) {
      if (cap !== 'NET_BIND_SERVICE') {
        adds = true;
        forbidden.push(str(cap));
      }
    }
    if (adds) addingForbidden.push(c.name);
  }
  const details: string[] = [];
  if (missingDropAll.length) details.push(`${containerList(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  if (addingForbidden.length) details.push(`${containerList(addingForbidden)} must not include ${joinQuote(sortedSet(forbidden))} in securityContext.capabilities.add`);
  return details.length ? { reason: 'unrestricted capabilities', detail: details.join('; ') } : undefined;
};

const ALLOWED_VOLUME_SOURCES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];
/** Upstream's order of precedence when naming a forbidden volume's type. */
const RESTRICTED_VOLUME_SOURCES = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'nfs',
  'iscsi',
  'glusterfs',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'fc',
  'azureFile',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'portworxVolume',
  'scaleIO',
  'storageos',
];

export const restrictedVolumes_1_0: CheckFn = (_meta, spec) => {
  const bad: string[] = [];
  const types: string[] = [];
  for (const v of list(spec.volumes)) {
    const vol = rec(v);
    if (!vol) continue;
    const has = (source: string): boolean => vol[source] !== undefined && vol[source] !== null;
    if (ALLOWED_VOLUME_SOURCES.some(has)) continue;
    bad.push(str(vol.name));
    types.push(RESTRICTED_VOLUME_SOURCES.find(has) ?? 'unknown');
  }
  if (!bad.length) return undefined;
  const sorted = sortedSet(types);
  return {
    reason: 'restricted volume types',
    detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', sorted.length)} ${joinQuote(sorted)}`,
  };
};

export const runAsNonRoot_1_0: CheckFn = (_meta, spec) => {
  const setters: string[] = [];
  let podNonRoot = false;
  const podValue = podSC(spec)?.runAsNonRoot;
  if (typeof podValue === 'boolean') {
    if (podValue) podNonRoot = true;
    else setters.push('pod');
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containers(spec)) {
    const v = c.sc?.runAsNonRoot;
    if (typeof v === 'boolean') {
      if (!v) explicit.push(c.name);
    } else if (!podNonRoot) implicit.push(c.name);
  }
  if (explicit.length) setters.push(containerList(explicit));
  if (setters.length) return { reason: 'runAsNonRoot != true', detail: `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false` };
  if (implicit.length) return { reason: 'runAsNonRoot != true', detail: `pod or ${containerList(implicit)} must set securityContext.runAsNonRoot=true` };
  return undefined;
};

export const runAsUser_1_23: CheckFn = (_meta, spec) => {
  const setters: string[] = [];
  if (podSC(spec)?.runAsUser === 0) setters.push('pod');
  const bad = containers(spec)
    .filter((c) => c.sc?.runAsUser === 0)
    .map((c) => c.name);
  if (bad.length) setters.push(containerList(bad));
  return setters.length ? { reason: 'runAsUser=0', detail: `${setters.join(' and ')} must not set runAsUser=0` } : undefined;
};

export const seccompProfileRestricted_1_19: CheckFn = (_meta, spec) => {
  const { setters, values, podValid, unset } = seccompSetters(spec);
  if (setters.length) return { reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(values)}` };
  if (!podValid && unset.length) {
    return { reason: 'seccompProfile', detail: `pod or ${containerList(unset)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"` };
  }
  return undefined;
};
