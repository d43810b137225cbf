// What a pod or a persistent volume makes a node agent need: the secrets, config maps, claims
// and service account a pod on the node uses, the secrets a volume's driver gets from the agent.
// Pure extraction from stored objects, which are untyped JSON: anything malformed is skipped
// rather than trusted, since a missing reference only ever withholds access. Shared by the Node
// authorizer (what a node may read) and NodeRestriction (a mirror pod may reference nothing).

import type { ApiObject } from './types.js';

export interface PodReferences {
  /** `spec.nodeName`; pods not bound to a node give nothing. */
  node: string;
  secrets: string[];
  configMaps: string[];
  persistentVolumeClaims: string[];
  serviceAccount: string;
}

export interface NamespacedName {
  namespace: string;
  name: string;
}

type Json = Record<string, unknown>;

const rec = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.map(rec).filter((x): x is Json => x !== undefined) : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
/** `obj.a.b.c` as a non-empty string, if every step is an object. */
const at = (v: unknown, ...path: string[]): string | undefined => {
  let cur: unknown = v;
  for (const p of path) cur = rec(cur)?.[p];
  return str(cur);
};

// Volume sources whose secret the agent reads to mount a pod volume (same namespace as the pod).
const POD_VOLUME_SECRET_PATHS: ReadonlyArray<readonly string[]> = [
  ['secret', 'secretName'],
  ['azureFile', 'secretName'],
  ['cephfs', 'secretRef', 'name'],
  ['cinder', 'secretRef', 'name'],
  ['flexVolume', 'secretRef', 'name'],
  ['rbd', 'secretRef', 'name'],
  ['scaleIO', 'secretRef', 'name'],
  ['iscsi', 'secretRef', 'name'],
  ['storageos', 'secretRef', 'name'],
  ['csi', 'nodePublishSecretRef', 'name'],
];

function containersOf(spec: Json): Json[] {
  return [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)];
}

/** The service account a pod runs as: the one it names, else `default` (what admission gives it). */
export function podServiceAccount(pod: ApiObject): string {
  const spec = rec(pod.spec);
  return str(spec?.serviceAccountName) ?? str(spec?.serviceAccount) ?? 'default';
}

/** The references of a pod bound to a node, or null when it is not bound (nobody runs it yet). */
export function podReferences(pod: ApiObject): PodReferences | null {
  const node = str(rec(pod.spec)?.nodeName);
  return node ? { node, ...podObjectReferences(pod) } : null;
}

/**
 * The objects a pod's spec names, bound or not: what a mirror pod may not reference
 * (ServiceAccount admission) is decided before any node runs it.
 */
export function podObjectReferences(pod: ApiObject): Omit<PodReferences, 'node'> {
  const spec = rec(pod.spec) ?? {};
  const podName = pod.metadata?.name ?? '';
  const secrets = new Set<string>();
  const configMaps = new Set<string>();
  const claims = new Set<string>();
  const add = (set: Set<string>, v: string | undefined) => v && set.add(v);

  for (const s of list(spec.imagePullSecrets)) add(secrets, str(s.name));
  for (const c of containersOf(spec)) {
    for (const e of list(c.envFrom)) {
      add(secrets, at(e, 'secretRef', 'name'));
      add(configMaps, at(e, 'configMapRef', 'name'));
    }
    for (const e of list(c.env)) {
      add(secrets, at(e, 'valueFrom', 'secretKeyRef', 'name'));
      add(configMaps, at(e, 'valueFrom', 'configMapKeyRef', 'name'));
    }
  }
  for (const v of list(spec.volumes)) {
    for (const path of POD_VOLUME_SECRET_PATHS) add(secrets, at(v, ...path));
    add(configMaps, at(v, 'configMap', 'name'));
    for (const src of list(rec(v.projected)?.sources)) {
      add(secrets, at(src, 'secret', 'name'));
      add(configMaps, at(src, 'configMap', 'name'));
    }
    add(claims, at(v, 'persistentVolumeClaim', 'claimName'));
    // A generic ephemeral volume's claim is named after the pod and the volume.
    const volName = str(v.name);
    if (rec(v.ephemeral) && volName && podName) claims.add(`${podName}-${volName}`);
  }
  return {
    secrets: [...secrets],
    configMaps: [...configMaps],
    persistentVolumeClaims: [...claims],
    serviceAccount: podServiceAccount(pod),
  };
}

/** The claim a volume is bound to (`spec.claimRef`), if any. */
export function pvClaim(pv: ApiObject): NamespacedName | undefined {
  const ref = rec(rec(pv.spec)?.claimRef);
  const namespace = str(ref?.namespace);
  const name = str(ref?.name);
  return namespace && name ? { namespace, name } : undefined;
}

/**
 * Secrets of a persistent volume that the node agent itself uses (mount, stage, expand). The
 * controller-side secrets of CSI (`controllerPublishSecretRef`, `controllerExpandSecretRef`) are
 * left out on purpose: only the controllers need them, and a node must not read them.
 * An in-tree source without a secret namespace uses the bound claim's namespace, else `default`.
 */
export function pvSecrets(pv: ApiObject): NamespacedName[] {
  const spec = rec(pv.spec);
  if (!spec) return [];
  const fallbackNs = pvClaim(pv)?.namespace ?? 'default';
  const out: NamespacedName[] = [];
  const push = (name: string | undefined, namespace: string | undefined) => {
    if (name) out.push({ namespace: namespace ?? fallbackNs, name });
  };
  push(at(spec, 'azureFile', 'secretName'), at(spec, 'azureFile', 'secretNamespace'));
  for (const src of ['cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos']) {
    push(at(spec, src, 'secretRef', 'name'), at(spec, src, 'secretRef', 'namespace'));
  }
  const csi = rec(spec.csi);
  for (const ref of ['nodePublishSecretRef', 'nodeStageSecretRef', 'nodeExpandSecretRef']) {
    // CSI secret references always carry their namespace; one without it names nothing.
    const name = at(csi, ref, 'name');
    const namespace = at(csi, ref, 'namespace');
    if (name && namespace) out.push({ namespace, name });
  }
  return out;
}

/** A VolumeAttachment's node and, for a persistent volume source, the volume. */
export function attachmentReferences(va: ApiObject): { node: string; persistentVolume?: string } | null {
  const spec = rec(va.spec);
  const node = spec && str(spec.nodeName);
  if (!spec || !node) return null;
  const pv = at(spec, 'source', 'persistentVolumeName');
  return pv ? { node, persistentVolume: pv } : { node };
}
