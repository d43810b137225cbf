// Whether a connection is up, from nats.js's status events: down from a `disconnect` (the server
// went away, or pings went unanswered: shared/bus/connect.ts) until the next `reconnect`. A
// connection that stays down past a grace period is lost, not merely moving to another node (a
// node restart costs a second or so): requests then fail at once with 503 instead of each waiting
// out its timeout (shared/bus/client.ts), and a gateway ends its watches rather than leave them
// silent. One follower per connection, made on first use.

import type { NatsConnection, Status } from '@nats-io/nats-core';

/** How long a connection may be down (moving to another node) before it counts as lost. */
export const BUS_LOST_GRACE_MS = 3_000;

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
}

const links = new WeakMap<NatsConnection, Link>();

export function linkOf(nc: NatsConnection, graceMs = BUS_LOST_GRACE_MS): Link {
  let link = links.get(nc);
  if (!link) links.set(nc, (link = followLink(nc, graceMs)));
  return link;
}

function followLink(nc: NatsConnection, graceMs: number): Link {
  let up = true;
  let lost = false;
  let timer: NodeJS.Timeout | undefined;
  const listeners = new Set<LinkListener>();
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
        if (lost) {
          lost = false;
          for (const l of [...listeners]) l.onBack();
        }
      }
    }
    clearTimeout(timer);
  })();
  return {
    up: () => up && !nc.isClosed(),
    lost: () => lost,
    listen: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
}
