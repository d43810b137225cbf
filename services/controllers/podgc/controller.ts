// Pod garbage collection (podgc), the part a cluster without node agents needs: a pod bound to a
// node that does not exist — checked again after a quarantine, as upstream's 40 s — and a
// terminating pod that was never scheduled are deleted at once (grace period 0), since no agent
// will ever finish them.

import type { ApiObject } from '../../../shared/api/types.js';
import type { Logger } from '../../../shared/log.js';
import { Informer } from '../../../shared/client/informer.js';
import { ApiClient, isConflict, isNotFound } from '../../../shared/client/rest.js';
import type { Controller } from '../types.js';

export interface PodGcOptions {
  intervalMs: number;
  /** How long a node must have been missing before its pods go. */
  quarantineMs: number;
}

export const DEFAULT_POD_GC: PodGcOptions = { intervalMs: 20_000, quarantineMs: 40_000 };

const nodeOf = (p: ApiObject) => (p.spec as { nodeName?: string } | undefined)?.nodeName ?? '';

/** The pods to delete now: `missingSince` says since when each absent node has been seen missing. */
export function podsToCollect(pods: readonly ApiObject[], nodeExists: (name: string) => boolean, missingSince: Map<string, number>, now: number, quarantineMs: number): ApiObject[] {
  const out: ApiObject[] = [];
  for (const p of pods) {
    const node = nodeOf(p);
    if (!node) {
      if (p.metadata.deletionTimestamp) out.push(p);
      continue;
    }
    if (nodeExists(node)) {
      missingSince.delete(node);
      continue;
    }
    const since = missingSince.get(node) ?? now;
    missingSince.set(node, since);
    if (now - since >= quarantineMs) out.push(p);
  }
  return out;
}

export function podGarbageCollector(client: ApiClient, log: Logger, opts: PodGcOptions = DEFAULT_POD_GC): Controller {
  const pods = new Informer(client, { group: '', version: 'v1', resource: 'pods' }, { onError: (err) => log.warn({ err }, 'pod watch failed; retrying') });
  const nodes = new Informer(client, { group: '', version: 'v1', resource: 'nodes' }, { onError: (err) => log.warn({ err }, 'node watch failed; retrying') });
  const missingSince = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let running = false;

  async function nodeReallyGone(name: string): Promise<boolean> {
    try {
      await client.get({ group: '', version: 'v1', resource: 'nodes', name });
      return false;
    } catch (err) {
      if (isNotFound(err)) return true;
      throw err;
    }
  }

  async function sweep(): Promise<void> {
    if (running) return;
    running = true;
    try {
      const victims = podsToCollect(pods.list(), (n) => nodes.get(n) !== undefined, missingSince, Date.now(), opts.quarantineMs);
      for (const p of victims) {
        const node = nodeOf(p);
        if (node && !(await nodeReallyGone(node))) continue;
        try {
          await client.delete(
            { group: '', version: 'v1', resource: 'pods', namespace: p.metadata.namespace!, name: p.metadata.name! },
            { gracePeriodSeconds: 0, preconditions: { uid: p.metadata.uid } },
          );
          log.info({ pod: `${p.metadata.namespace}/${p.metadata.name}`, node: node || undefined }, node ? 'pod of a missing node deleted' : 'terminating unscheduled pod deleted');
        } catch (err) {
          if (!isNotFound(err) && !isConflict(err)) throw err;
        }
      }
    } catch (err) {
      log.warn({ err }, 'pod garbage collection failed; next round retries');
    } finally {
      running = false;
    }
  }

  return {
    name: 'podgc',
    async start() {
      nodes.start();
      pods.start();
      await Promise.all([nodes.synced, pods.synced]);
      await sweep();
      timer = setInterval(() => void sweep(), opts.intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await Promise.all([pods.stop(), nodes.stop()]);
    },
  };
}
