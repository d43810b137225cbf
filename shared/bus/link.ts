// Whether a connection is up, from nats.js's status events: down from a `disconnect` (the server
// went away, or pings went unanswered: shared/bus/connect.ts) until the next `reconnect`. A
// connection that stays down past a grace period is lost, not merely moving to another node (a
// node restart costs a second or so): requests then fail at once with 503 instead of each waiting
// out its timeout (shared/bus/client.ts), and a gateway ends its watches rather than leave them
// silent. One follower per connection, made on first use.
//
// Pings notice a connection into a partition only after two of them went unanswered (10-15 s,
// shared/bus/connect.ts), and meanwhile every request sent into it waits out its own timeout:
// hops of one API request added up past 20 s. So a request that goes unanswered has the link
// probed at once: a connection that does not answer a ping within a second is moved to another
// node then and there.

import type { NatsConnection, Status } from '@nats-io/nats-core';

/** How long a connection may be down (moving to another node) before it counts as lost. */
export const BUS_LOST_GRACE_MS = 3_000;

/** How long a probed connection has to answer a ping before it is moved to another node. */
export const BUS_PROBE_TIMEOUT_MS = 1_000;

export interface LinkListener {
  onLost(): void;
  /** Called on the reconnect that ends a loss. */
  onBack(): void;
}

export interface Link {
  /** Connected (not reconnecting). */
  up(): boolean;
  /** Down for longer than the grace period. */
  lost(): boolean;
  listen(l: LinkListener): () => void;
  /**
   * Something sent on the connection went unanswered: ping the server, and reconnect (to another
   * node when there is one) unless it answers within BUS_PROBE_TIMEOUT_MS. Concurrent calls share
   * one probe; resolves once the connection answered, or is back on another node (at most the
   * grace period after it was told to reconnect).
   */
  probe(): Promise<void>;
}

const links = new WeakMap<NatsConnection, Link>();

export function linkOf(nc: NatsConnection, graceMs = BUS_LOST_GRACE_MS, probeTimeoutMs = BUS_PROBE_TIMEOUT_MS): Link {
  let link = links.get(nc);
  if (!link) links.set(nc, (link = followLink(nc, graceMs, probeTimeoutMs)));
  return link;
}

/** Whether `nc`'s server answers a ping within `ms`. */
async function answers(nc: NatsConnection, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    // A flush that fails (the connection dropped meanwhile) is not a silent one: nats.js is on it.
    return await Promise.race([
      nc.flush().then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function followLink(nc: NatsConnection, graceMs: number, probeTimeoutMs: number): Link {
  let up = true;
  let lost = false;
  let timer: NodeJS.Timeout | undefined;
  const listeners = new Set<LinkListener>();
  /** Resolved at the next `reconnect` (a probe waits for the connection it moved). */
  let waitingForBack: (() => void)[] = [];
  void (async () => {
    // Ends when the connection closes.
    for await (const s of nc.status() as AsyncIterable<Status>) {
      if (s.type === 'disconnect' && up) {
        up = false;
        timer = setTimeout(() => {
          lost = true;
          for (const l of [...listeners]) l.onLost();
        }, graceMs);
        timer.unref();
      } else if (s.type === 'reconnect') {
        up = true;
        clearTimeout(timer);
        for (const resolve of waitingForBack.splice(0)) resolve();
        if (lost) {
          lost = false;
          for (const l of [...listeners]) l.onBack();
        }
      }
    }
    clearTimeout(timer);
    for (const resolve of waitingForBack.splice(0)) resolve();
  })();
  /** Until the connection is back, or `ms` passed (then it is lost or about to be). */
  const back = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      waitingForBack.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  let probing: Promise<void> | undefined;
  const probe = async (): Promise<void> => {
    if (!up || nc.isClosed() || nc.isDraining()) return; // already reconnecting, or going away
    if (await answers(nc, probeTimeoutMs)) return;
    if (!up || nc.isClosed() || nc.isDraining()) return;
    // Resolved only once moved: something published while nats.js closes the silent socket (it
    // still counts as connected until the close is handled) would be written to it and lost.
    const moved = back(graceMs);
    await nc.reconnect().catch(() => undefined);
    await moved;
  };
  return {
    up: () => up && !nc.isClosed(),
    lost: () => lost,
    listen: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    probe: () =>
      (probing ??= probe().finally(() => {
        probing = undefined;
      })),
  };
}
