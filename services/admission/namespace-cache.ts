// In-memory namespace states for admission decisions without a storage round trip per request.
// Fed from the object feed (namespace-feed.ts); a miss (a namespace created a moment ago that
// the feed has not delivered yet) costs exactly one live read before a rejection.
// Pure apart from the injected live reader, so its rules are unit-tested without a broker.

import type { FeedEvent } from '../../shared/store/object-feed.js';

export interface NamespaceState {
  name: string;
  uid?: string;
  phase: string;
  /** Phase Terminating, or a deletion already requested (deletionTimestamp set). */
  terminating: boolean;
  /** KV revision of the write this state came from (0 when unknown). */
  revision: number;
}

/** Reads one namespace from the store; null when it does not exist. */
export type LiveNamespaceReader = (name: string) => Promise<NamespaceState | null>;

/** Builds the state from a stored Namespace document; null when the value is not an object. */
export function namespaceStateFromObject(name: string, obj: unknown, revision: number): NamespaceState | null {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return null;
  const doc = obj as { metadata?: { uid?: unknown; deletionTimestamp?: unknown }; status?: { phase?: unknown } };
  const phase = typeof doc.status?.phase === 'string' && doc.status.phase ? doc.status.phase : 'Active';
  const state: NamespaceState = { name, phase, terminating: phase === 'Terminating' || Boolean(doc.metadata?.deletionTimestamp), revision };
  if (typeof doc.metadata?.uid === 'string') state.uid = doc.metadata.uid;
  return state;
}

export class NamespaceCache {
  private readonly byName = new Map<string, NamespaceState>();

  constructor(
    private readonly live: LiveNamespaceReader,
    private readonly onBadEntry?: (key: string) => void,
  ) {}

  /**
   * Applies one feed event. Ordering is judged per name, not globally: a restarted watch replays
   * every namespace (older revisions included) and its synthesized deletions carry no revision
   * of their own, so only a write older than the state already held for that name is stale.
   */
  apply(e: FeedEvent): void {
    const { ref } = e;
    if (ref.group !== '' || ref.resource !== 'namespaces' || ref.namespace !== undefined) return;
    const name = ref.name;
    if (e.object === null) {
      this.byName.delete(name);
      return;
    }
    const held = this.byName.get(name);
    if (held && e.revision < held.revision) return;
    const state = namespaceStateFromObject(name, e.object, e.revision);
    if (!state) {
      // Dropping it means a live read decides instead of a guess.
      this.byName.delete(name);
      this.onBadEntry?.(e.key);
      return;
    }
    this.byName.set(name, state);
  }

  get size(): number {
    return this.byName.size;
  }

  /** The cached state only (no I/O). */
  cached(name: string): NamespaceState | undefined {
    return this.byName.get(name);
  }

  /** The cached state, or on a miss (or when `forceLive`) one live read of the store. */
  async lookup(name: string, opts: { forceLive?: boolean } = {}): Promise<NamespaceState | null> {
    if (!opts.forceLive) {
      const hit = this.byName.get(name);
      if (hit) return hit;
    }
    return this.live(name);
  }
}
