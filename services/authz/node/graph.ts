// The Node authorizer's view of which objects each node needs: built from pods (bound to a node),
// persistent volume claims, persistent volumes and volume attachments, and updated per event.
// A pod's update replaces only that pod's contributions (reference counts per node), so a node
// with thousands of pods costs nothing more per change; a question costs a few map lookups.
//
// Reachability, from a node N:
//   pod on N → its secrets, config maps, claims, service account
//   claim → the volume it is bound to (claim's spec.volumeName, and the volume's claimRef, when
//           set, must point back: a claim cannot pull in a volume bound to someone else's claim)
//   volume (reached through a claim of a pod on N) → its node-side secrets
//   volume attachment on N → the attachment and its volume (not the volume's secrets: those
//           follow only from a pod that mounts it, as upstream)

import type { ApiObject, ObjectRef } from '../../../shared/api/types.js';
import { attachmentReferences, podReferences, pvClaim, pvSecrets } from '../../../shared/api/node-references.js';

export const STORAGE_GROUP = 'storage.platform.io';

/** One change of a watched object; `object` is null when it was deleted (a FeedEvent fits). */
export interface GraphEvent {
  ref: ObjectRef;
  object: ApiObject | null;
}

const nsKey = (namespace: string, name: string) => `${namespace}/${name}`;

/** Reference counts: several pods on a node may use the same secret. */
class Counter {
  private readonly counts = new Map<string, number>();
  inc(k: string): void {
    this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
  }
  dec(k: string): void {
    const n = (this.counts.get(k) ?? 0) - 1;
    if (n > 0) this.counts.set(k, n);
    else this.counts.delete(k);
  }
  has(k: string): boolean {
    return this.counts.has(k);
  }
  keys(): IterableIterator<string> {
    return this.counts.keys();
  }
  get size(): number {
    return this.counts.size;
  }
}

/** What one pod contributes, in namespace/name keys. */
interface PodEdges {
  node: string;
  secrets: string[];
  configMaps: string[];
  claims: string[];
  serviceAccount: string;
}

/** Everything reachable from one node. */
class NodeEdges {
  readonly pods = new Set<string>();
  readonly secrets = new Counter();
  readonly configMaps = new Counter();
  readonly claims = new Counter();
  readonly serviceAccounts = new Counter();
  readonly attachments = new Set<string>();
  readonly attachedVolumes = new Counter();

  get empty(): boolean {
    return this.pods.size === 0 && this.attachments.size === 0;
  }
}

interface VolumeEdges {
  /** `spec.claimRef` as namespace/name. */
  claim?: string;
  secrets: Set<string>;
}

export class NodeGraph {
  private readonly pods = new Map<string, PodEdges>();
  private readonly nodes = new Map<string, NodeEdges>();
  /** Claim (namespace/name) → `spec.volumeName`. */
  private readonly claimVolumes = new Map<string, string>();
  private readonly volumes = new Map<string, VolumeEdges>();
  private readonly attachments = new Map<string, { node: string; volume?: string }>();

  apply(e: GraphEvent): void {
    const { ref, object } = e;
    if (ref.group === '' && ref.resource === 'pods' && ref.namespace) this.setPod(ref.namespace, ref.name, object);
    else if (ref.group === '' && ref.resource === 'persistentvolumeclaims' && ref.namespace) this.setClaim(ref.namespace, ref.name, object);
    else if (ref.group === '' && ref.resource === 'persistentvolumes') this.setVolume(ref.name, object);
    else if (ref.group === STORAGE_GROUP && ref.resource === 'volumeattachments') this.setAttachment(ref.name, object);
  }

  private edgesOf(node: string): NodeEdges {
    let n = this.nodes.get(node);
    if (!n) this.nodes.set(node, (n = new NodeEdges()));
    return n;
  }

  private dropIfEmpty(node: string): void {
    if (this.nodes.get(node)?.empty) this.nodes.delete(node);
  }

  private setPod(namespace: string, name: string, pod: ApiObject | null): void {
    const key = nsKey(namespace, name);
    const old = this.pods.get(key);
    if (old) {
      const n = this.edgesOf(old.node);
      n.pods.delete(key);
      for (const s of old.secrets) n.secrets.dec(s);
      for (const c of old.configMaps) n.configMaps.dec(c);
      for (const c of old.claims) n.claims.dec(c);
      n.serviceAccounts.dec(old.serviceAccount);
      this.pods.delete(key);
      this.dropIfEmpty(old.node);
    }
    const refs = pod && podReferences(pod);
    if (!refs) return;
    const edges: PodEdges = {
      node: refs.node,
      secrets: refs.secrets.map((s) => nsKey(namespace, s)),
      configMaps: refs.configMaps.map((c) => nsKey(namespace, c)),
      claims: refs.persistentVolumeClaims.map((c) => nsKey(namespace, c)),
      serviceAccount: nsKey(namespace, refs.serviceAccount),
    };
    const n = this.edgesOf(edges.node);
    n.pods.add(key);
    for (const s of edges.secrets) n.secrets.inc(s);
    for (const c of edges.configMaps) n.configMaps.inc(c);
    for (const c of edges.claims) n.claims.inc(c);
    n.serviceAccounts.inc(edges.serviceAccount);
    this.pods.set(key, edges);
  }

  private setClaim(namespace: string, name: string, pvc: ApiObject | null): void {
    const key = nsKey(namespace, name);
    const volume = pvc && (pvc.spec as { volumeName?: unknown } | undefined)?.volumeName;
    if (typeof volume === 'string' && volume) this.claimVolumes.set(key, volume);
    else this.claimVolumes.delete(key);
  }

  private setVolume(name: string, pv: ApiObject | null): void {
    if (!pv) {
      this.volumes.delete(name);
      return;
    }
    const claim = pvClaim(pv);
    const edges: VolumeEdges = { secrets: new Set(pvSecrets(pv).map((s) => nsKey(s.namespace, s.name))) };
    if (claim) edges.claim = nsKey(claim.namespace, claim.name);
    this.volumes.set(name, edges);
  }

  private setAttachment(name: string, va: ApiObject | null): void {
    const old = this.attachments.get(name);
    if (old) {
      const n = this.edgesOf(old.node);
      n.attachments.delete(name);
      if (old.volume) n.attachedVolumes.dec(old.volume);
      this.attachments.delete(name);
      this.dropIfEmpty(old.node);
    }
    const refs = va && attachmentReferences(va);
    if (!refs) return;
    const n = this.edgesOf(refs.node);
    n.attachments.add(name);
    const entry: { node: string; volume?: string } = { node: refs.node };
    if (refs.persistentVolume) {
      entry.volume = refs.persistentVolume;
      n.attachedVolumes.inc(refs.persistentVolume);
    }
    this.attachments.set(name, entry);
  }

  /** The volume a claim is bound to, when both sides agree (or the volume names no claim yet). */
  private boundVolume(claimKey: string): string | undefined {
    const volume = this.claimVolumes.get(claimKey);
    if (!volume) return undefined;
    const pv = this.volumes.get(volume);
    if (!pv || (pv.claim !== undefined && pv.claim !== claimKey)) return undefined;
    return volume;
  }

  // ---- questions ------------------------------------------------------------------------------

  /** The pod exists and is bound to `node`. */
  podOnNode(node: string, namespace: string, name: string): boolean {
    return this.pods.get(nsKey(namespace, name))?.node === node;
  }

  canGetSecret(node: string, namespace: string, name: string): boolean {
    const n = this.nodes.get(node);
    if (!n) return false;
    const key = nsKey(namespace, name);
    if (n.secrets.has(key)) return true;
    for (const claim of n.claims.keys()) {
      const volume = this.boundVolume(claim);
      if (volume && this.volumes.get(volume)!.secrets.has(key)) return true;
    }
    return false;
  }

  canGetConfigMap(node: string, namespace: string, name: string): boolean {
    return this.nodes.get(node)?.configMaps.has(nsKey(namespace, name)) ?? false;
  }

  canGetClaim(node: string, namespace: string, name: string): boolean {
    return this.nodes.get(node)?.claims.has(nsKey(namespace, name)) ?? false;
  }

  canGetVolume(node: string, name: string): boolean {
    const n = this.nodes.get(node);
    if (!n) return false;
    if (n.attachedVolumes.has(name) && this.volumes.has(name)) return true;
    for (const claim of n.claims.keys()) if (this.boundVolume(claim) === name) return true;
    return false;
  }

  /** A pod on the node runs as this service account (TokenRequest). */
  usesServiceAccount(node: string, namespace: string, name: string): boolean {
    return this.nodes.get(node)?.serviceAccounts.has(nsKey(namespace, name)) ?? false;
  }

  canGetAttachment(node: string, name: string): boolean {
    return this.attachments.get(name)?.node === node;
  }

  /** Sizes, for logs and tests. */
  stats(): { pods: number; nodes: number; claims: number; volumes: number; attachments: number } {
    return { pods: this.pods.size, nodes: this.nodes.size, claims: this.claimVolumes.size, volumes: this.volumes.size, attachments: this.attachments.size };
  }
}
