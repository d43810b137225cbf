// A watch's HTTP response as a WatchSink, and the gateway-wide budget of bytes written to watch
// responses but not yet taken by their clients. Node buffers whatever a socket cannot take yet,
// so without these a client that opens watches and never reads them grows the gateway at will.

import type { ServerResponse } from 'node:http';
import type { WatchSink } from '../../../shared/store/watch-cache.js';
import type { WatchCells } from '../filters/metrics.js';

/** Unsent watch bytes of every response of one gateway; new watches are refused once it is spent. */
export class WatchBudget {
  used = 0;
  constructor(readonly limit: number) {}

  get spent(): boolean {
    return this.used >= this.limit;
  }
}

/** How long a closed watch may keep unsent bytes for a client that does not read them. */
const CLOSE_GRACE_MS = 10_000;

/**
 * Writes events to `res`. The cache produces catch-up events (initial state, history) only while
 * the response is below its high-water mark, so they are never "slow". A watcher is slow (and
 * closed) when its unsent bytes exceed `bufferLimit`, or when it is already a high-water mark
 * behind while the budget is spent.
 */
export function responseSink(res: ServerResponse, budget: WatchBudget, bufferLimit: number, counted?: Pick<WatchCells, 'events' | 'sizes'>): WatchSink {
  let closed = false;
  let charged = 0;
  // The budget follows the response's unsent bytes: exact after each write and on drain, and
  // an overestimate of at most one high-water mark in between.
  const settle = () => {
    const now = res.destroyed ? 0 : res.writableLength;
    budget.used += now - charged;
    charged = now;
  };
  res.on('drain', settle);
  res.once('close', () => {
    closed = true;
    budget.used -= charged;
    charged = 0;
  });
  return {
    write(chunk) {
      if (closed) return false;
      if (counted) {
        counted.events.inc();
        // A string's length: its bytes for the ASCII of JSON events (counting UTF-8 would cost a pass).
        counted.sizes.observe(chunk.length);
      }
      const behind = res.writableLength >= res.writableHighWaterMark;
      res.write(chunk);
      settle();
      return res.writableLength <= bufferLimit && !(behind && budget.spent);
    },
    ready() {
      return closed || res.writableLength < res.writableHighWaterMark;
    },
    onReady(fn) {
      res.once('drain', fn);
    },
    close() {
      if (closed) return;
      closed = true;
      res.end();
      // A client that never reads would otherwise keep the unsent bytes as long as it stays connected.
      if (res.writableLength > 0) setTimeout(() => res.destroy(), CLOSE_GRACE_MS).unref();
    },
  };
}
