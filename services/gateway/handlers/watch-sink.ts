// A watch's HTTP response as a WatchSink, and the gateway-wide budget of bytes written to watch
// responses but not yet taken by their clients. Node buffers whatever a socket cannot take yet,
// so without these a client that opens watches and never reads them grows the gateway at will.

import type { ServerResponse } from 'node:http';
import type { WatchSink } from '../../../shared/store/watch-cache.js';
import type { WatchCells } from '../metrics.js';

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
 * One event as an HTTP/1.1 chunk, encoded once for every watcher it goes to: a fan-out writes the
 * same event string to each of its watchers in a row, so remembering the last one is enough.
 */
let lastChunk: string | Buffer | undefined;
let lastFrame: Buffer = Buffer.alloc(0);
function frame(chunk: string | Buffer): Buffer {
  if (chunk !== lastChunk) {
    const body = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    lastFrame = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`, 'latin1'), body, CRLF]);
    lastChunk = chunk;
  }
  return lastFrame;
}
const CRLF = Buffer.from('\r\n', 'latin1');

/**
 * Writes events to `res`, whose chunked headers are sent. Catching up (initial state, history)
 * goes through `res.write` at the pace the client reads: the cache produces those events only
 * while the response is below its high-water mark, so they are never "slow". A live event goes to
 * the socket as one framed chunk (see `frame`): through `res.write` it would be framed, converted
 * and encrypted per watcher in three writes, and every watcher's bytes would wait for the whole
 * fan-out loop (the response corks its socket until the next tick). Both keep the chunked framing
 * `res.end()` closes. A watcher is slow (and closed) when its unsent bytes exceed `bufferLimit`, or
 * when it is already a high-water mark behind while the budget is spent.
 */
export function responseSink(res: ServerResponse, budget: WatchBudget, bufferLimit: number, counted?: Pick<WatchCells, 'events' | 'sizes'>): WatchSink {
  const socket = res.socket;
  let closed = false;
  let charged = 0;
  // The response's unsent bytes, its socket's included.
  const unsent = () => (res.destroyed ? 0 : res.writableLength);
  // The budget follows them: exact after each write and on drain, and an overestimate of at most
  // one high-water mark in between.
  const settle = () => {
    const now = unsent();
    budget.used += now - charged;
    charged = now;
  };
  res.on('drain', settle);
  socket?.on('drain', settle);
  res.once('close', () => {
    closed = true;
    socket?.off('drain', settle);
    budget.used -= charged;
    charged = 0;
  });
  return {
    write(chunk, live) {
      if (closed) return false;
      if (counted) {
        counted.events.inc();
        // A string's length: its bytes for the ASCII of JSON events (counting UTF-8 would cost a pass).
        counted.sizes.observe(chunk.length);
      }
      const behind = unsent() >= res.writableHighWaterMark;
      if (live && socket && !socket.destroyed) socket.write(frame(chunk));
      else res.write(chunk);
      settle();
      return unsent() <= bufferLimit && !(behind && budget.spent);
    },
    ready() {
      return closed || unsent() < res.writableHighWaterMark;
    },
    onReady(fn) {
      res.once('drain', fn);
    },
    close() {
      if (closed) return;
      closed = true;
      res.end();
      // A client that never reads would otherwise keep the unsent bytes as long as it stays connected.
      if (unsent() > 0) setTimeout(() => res.destroy(), CLOSE_GRACE_MS).unref();
    },
  };
}
