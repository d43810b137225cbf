// The volume rules of a PodSecurityPolicy (upstream's provider validatePodVolumes and psputil):
// each volume's type must be in `volumes` (`*` all); host paths must fall under an allowed
// prefix at a path-segment boundary, and a prefix marked readOnly makes every mount of the volume
// read-only; flex and inline CSI drivers must be listed when a list is given. The projected
// volume the ServiceAccount plugin mounts counts as a secret volume.

import { invalid, type PspFieldError } from './field-errors.js';
import { containersOf, type Json, type Pod } from './pod.js';

/** Volume source field (core v1 JSON) → the PSP's volume type name, in upstream's order. */
const VOLUME_TYPES: ReadonlyArray<[string, string]> = [
  ['hostPath', 'hostPath'],
  ['emptyDir', 'emptyDir'],
  ['gcePersistentDisk', 'gcePersistentDisk'],
  ['awsElasticBlockStore', 'awsElasticBlockStore'],
  ['gitRepo', 'gitRepo'],
  ['secret', 'secret'],
  ['nfs', 'nfs'],
  ['iscsi', 'iscsi'],
  ['glusterfs', 'glusterfs'],
  ['persistentVolumeClaim', 'persistentVolumeClaim'],
  ['rbd', 'rbd'],
  ['flexVolume', 'flexVolume'],
  ['cinder', 'cinder'],
  ['cephfs', 'cephFS'],
  ['flocker', 'flocker'],
  ['downwardAPI', 'downwardAPI'],
  ['fc', 'fc'],
  ['azureFile', 'azureFile'],
  ['configMap', 'configMap'],
  ['vsphereVolume', 'vsphereVolume'],
  ['quobyte', 'quobyte'],
  ['azureDisk', 'azureDisk'],
  ['photonPersistentDisk', 'photonPersistentDisk'],
  ['storageos', 'storageos'],
  ['projected', 'projected'],
  ['portworxVolume', 'portworxVolume'],
  ['scaleIO', 'scaleIO'],
  ['csi', 'csi'],
  ['ephemeral', 'ephemeral'],
];

/** The root CA config map the ServiceAccount plugin projects into every pod. */
export const ROOT_CA_CONFIG_MAP = 'platform-root-ca.crt';

export function volumeType(v: Json): string | undefined {
  for (const [field, type] of VOLUME_TYPES) if (v[field] !== undefined && v[field] !== null) return type;
  return undefined;
}

/** Whether a projected volume holds only what the bound service-account token volume holds. */
export function isOnlyServiceAccountTokenSources(projected: Json): boolean {
  for (const s of (projected.sources ?? []) as Json[]) {
    if (!s.serviceAccountToken && !s.configMap && !s.downwardAPI) return false;
    const t = s.serviceAccountToken as Json | undefined;
    if (t && (t.path !== 'token' || (t.audience ?? '') !== '')) return false;
    if (s.configMap && s.configMap.name !== ROOT_CA_CONFIG_MAP) return false;
    for (const d of ((s.downwardAPI as Json | undefined)?.items ?? []) as Json[]) {
      const ref = d.fieldRef as Json | undefined;
      if (d.path !== 'namespace' || !ref || ref.apiVersion !== 'v1' || ref.fieldPath !== 'metadata.namespace') return false;
    }
  }
  return true;
}

/** `s` equals `prefix` or continues it with a `/`, trailing slashes of both ignored. */
export function hasPathPrefix(s: string, prefix: string): boolean {
  const path = s.endsWith('/') ? s.slice(0, -1) : s;
  const pre = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  if (!path.startsWith(pre)) return false;
  return path.length === pre.length || path[pre.length] === '/';
}

/** Whether the path is allowed, and if only read-only (a writable match wins). */
export function allowsHostPath(allowedHostPaths: ReadonlyArray<{ pathPrefix?: string; readOnly?: boolean }> | undefined, path: string): { allowed: boolean; readOnly: boolean } {
  if (!allowedHostPaths?.length) return { allowed: true, readOnly: false };
  let allowed = false;
  for (const p of allowedHostPaths) {
    if (!hasPathPrefix(path, p.pathPrefix ?? '')) continue;
    if (!p.readOnly) return { allowed: true, readOnly: false };
    allowed = true;
  }
  return { allowed, readOnly: allowed };
}

export function validatePodVolumes(psp: Json, pod: Pod): PspFieldError[] {
  const volumes = pod.spec?.volumes;
  if (!Array.isArray(volumes) || !volumes.length) return [];
  const allowedTypes = new Set<string>((psp.volumes ?? []) as string[]);
  const allowsAll = allowedTypes.has('*');
  const errs: PspFieldError[] = [];
  volumes.forEach((v: Json, i: number) => {
    const path = `spec.volumes[${i}]`;
    const type = volumeType(v);
    if (!type) {
      errs.push(invalid(path, '', `unknown volume type for volume: ${JSON.stringify(v.name ?? '')}`));
      return;
    }
    const typeAllowed = allowedTypes.has(type) || (type === 'projected' && allowedTypes.has('secret') && isOnlyServiceAccountTokenSources(v.projected as Json));
    if (!allowsAll && !typeAllowed) {
      errs.push(invalid(path, type, `${type} volumes are not allowed to be used`));
      return;
    }
    switch (type) {
      case 'hostPath': {
        const hostPath = String((v.hostPath as Json).path ?? '');
        const { allowed, readOnly } = allowsHostPath(psp.allowedHostPaths, hostPath);
        if (!allowed) errs.push(invalid(`${path}.hostPath.pathPrefix`, hostPath, 'is not allowed to be used'));
        else if (readOnly) {
          for (const { container, path: cPath } of containersOf(pod)) {
            ((container.volumeMounts ?? []) as Json[]).forEach((m, j) => {
              if (m.name === v.name && !m.readOnly) errs.push(invalid(`${cPath}.volumeMounts[${j}].readOnly`, false, 'must be read-only'));
            });
          }
        }
        break;
      }
      case 'flexVolume': {
        const drivers = ((psp.allowedFlexVolumes ?? []) as Json[]).map((d) => d.driver);
        const driver = String((v.flexVolume as Json).driver ?? '');
        if (drivers.length && !drivers.includes(driver)) errs.push(invalid(`${path}.driver`, driver, 'Flexvolume driver is not allowed to be used'));
        break;
      }
      case 'csi': {
        const drivers = ((psp.allowedCSIDrivers ?? []) as Json[]).map((d) => d.name);
        const driver = String((v.csi as Json).driver ?? '');
        if (drivers.length && !drivers.includes(driver)) errs.push(invalid(`${path}.csi.driver`, driver, 'Inline CSI driver is not allowed to be used'));
        break;
      }
    }
  });
  return errs;
}
