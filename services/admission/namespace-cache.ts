// In-memory namespace states for admission decisions without a storage round trip per request.
// Fed in revision order from a KV watch (namespace-feed.ts); a miss (a namespace created a moment
// ago that the watch has not delivered yet) costs exactly one live read before a rejection.
// Pure apart from the injected live reader, so its rules are unit-tested without a broker.

import { decodeKey } from '../../shared/store/key-codec.js';

export interface NamespaceState {
  name: string;
  uid?: string;
  phase: string;
  /** Phase Terminating, or a deletion already requested (deletionTimestamp set). */
  terminating: boolean;
  /** KV revision of the write this state came from (0 when unknown). */
  revision: number;
}

/** One change from the watch, as the KV delivers it. */
export interface NamespaceEntry {
  key: string;
  revision: number;
  operation: 'PUT' | 'DEL' | 'PURGE';
  value: Uint8Array;
}

/** Reads one namespace from the store; null when it does not exist. */
export type LiveNamespaceReader = (name: string) => Promise<NamespaceState | null>;

const decoder = new TextDecoder();

/** Builds the state from a stored Namespace document; null when the bytes are not one. */
export function namespaceStateFromJson(name: string, value: Uint8Array, revision: number): NamespaceState | null {
  let doc: { metadata?: { uid?: unknown; deletionTimestamp?: unknown }; status?: { phase?: unknown } };
  try {
    doc = JSON.parse(decoder.decode(value)) as typeof doc;
  } catch {
    return null;
  }
  if (typeof doc !== 'object' || doc === null) return null;
  const phase = typeof doc.status?.phase === 'string' && doc.status.phase ? doc.status.phase : 'Active';
  const state: NamespaceState = { name, phase, terminating: phase === 'Terminating' || Boolean(doc.metadata?.deletionTimestamp), revision };
  if (typeof doc.metadata?.uid === 'string') state.uid = doc.metadata.uid;
  return state;
}

export class NamespaceCache {
  private readonly byName = new Map<string, NamespaceState>();
  private lastRevision = 0;

  constructor(
    private readonly live: LiveNamespaceReader,
    private readonly onBadEntry?: (key: string) => void,
  ) {}

  /** Applies one watch entry; entries at or below the last applied revision are redeliveries. */
  apply(e: NamespaceEntry): void {
    if (e.revision <= this.lastRevision) return;
    this.lastRevision = e.revision;
    let name: string;
    try {
      const ref = decodeKey(e.key);
      if (ref.group !== '' || ref.resource !== 'namespaces' || ref.namespace !== undefined) return;
      name = ref.name;
    } catch {
      this.onBadEntry?.(e.key);
      return;
    }
    if (e.operation !== 'PUT') {
      this.byName.delete(name);
      return;
    }
    const state = namespaceStateFromJson(name, e.value, e.revision);
    if (!state) {
      // Dropping it means a live read decides instead of a guess.
      this.byName.delete(name);
      this.onBadEntry?.(e.key);
      return;
    }
    this.byName.set(name, state);
  }

  /** Forgets everything, for a watch that restarts from scratch. */
  reset(): void {
    this.byName.clear();
    this.lastRevision = 0;
  }

  get size(): number {
    return this.byName.size;
  }

  get revision(): number {
    return this.lastRevision;
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
