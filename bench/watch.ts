// Watch fan-out: N HTTP watchers on the same collection, then a few creates. Latency of each
// delivery = time the watcher's chunk arrived − time just before the create was sent, so it
// covers the whole write path (gateway → admission → storage → KV), the KV watch feeding the
// gateway's cache, and the fan-out to every socket. All clocks are this process's.
// Caveat: the receiving side is this one Node process too; 1,000 TLS sockets delivering at once
// are read one after another, which is part of the tail measured here.

import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { HttpClient } from './http.js';
import { percentile } from './load.js';
import { configMapBody } from './objects.js';

export interface FanoutResult {
  watchers: number;
  writes: number;
  p50Ms: number;
  p99Ms: number;
  /** Fastest delivery: the write path plus the KV watch into the cache, with no fan-out queueing. */
  minMs: number;
  maxMs: number;
  /** Deliveries that never arrived (watchers × writes − received). */
  missed: number;
  /** p99 of each write separately, to show the spread between repeats. */
  perWriteP99Ms: number[];
  connectMs: number;
}

export interface FanoutOptions {
  url: string;
  caPem: string;
  token: string;
  namespace: string;
  watchers: number;
  writes: number;
  /** Pause after each write's deliveries (default 200 ms: both sides go idle, writes do not overlap). */
  pauseMs?: number;
  /** Prefix of the created names (default `fanout`); unique per run against one namespace. */
  prefix?: string;
}

interface Watcher {
  res: IncomingMessage;
  pending: string;
}

// eslint-disable-next-line max-lines-per-function -- the scenario in the order it runs (start, watch, write, measure, stop); its steps share the watchers and the clock
export async function watchFanout(writer: HttpClient, opts: FanoutOptions): Promise<FanoutResult> {
  const u = new URL(opts.url);
  // Watchers each hold their own connection; no pooling limit, no keep-alive reuse needed.
  const agent = new https.Agent({ ca: opts.caPem, keepAlive: false, maxSockets: Infinity });
  // Like an informer: list, then watch from the list's resourceVersion (no synthetic initial events).
  const listed = await writer.json<{ metadata: { resourceVersion: string } }>('GET', `/api/v1/namespaces/${opts.namespace}/configmaps`);
  const path = `/api/v1/namespaces/${opts.namespace}/configmaps?watch=true&timeoutSeconds=300&resourceVersion=${listed.metadata.resourceVersion}`;
  const sentAt = new Map<string, number>();
  const arrivals = new Map<string, number[]>();
  const watchers: Watcher[] = [];

  const onLine = (line: string, at: number) => {
    const ev = JSON.parse(line) as { type: string; object: { metadata?: { name?: string } } };
    const name = ev.object.metadata?.name;
    const sent = name === undefined ? undefined : sentAt.get(name);
    if (ev.type === 'ADDED' && sent !== undefined) arrivals.get(name!)!.push(at - sent);
  };

  const open = () =>
    new Promise<Watcher>((resolve, reject) => {
      const req = https.request({ host: u.hostname, port: Number(u.port), path, headers: { authorization: `Bearer ${opts.token}` }, agent }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`watch → ${res.statusCode}`));
        const w: Watcher = { res, pending: '' };
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const at = performance.now(); // before any parsing: parsing cost is ours, not the server's
          w.pending += chunk;
          let nl: number;
          while ((nl = w.pending.indexOf('\n')) >= 0) {
            const line = w.pending.slice(0, nl);
            w.pending = w.pending.slice(nl + 1);
            if (line) onLine(line, at);
          }
        });
        res.on('error', () => undefined);
        resolve(w);
      });
      req.on('error', reject);
      req.end();
    });

  try {
    // Opened in batches: 1,000 simultaneous TLS handshakes only measure handshake queueing.
    const t0 = performance.now();
    for (let i = 0; i < opts.watchers; i += 50) {
      watchers.push(...(await Promise.all(Array.from({ length: Math.min(50, opts.watchers - i) }, open))));
    }
    const connectMs = performance.now() - t0;
    // The gateway registers a watcher before it sends the headers we just received; the pause
    // lets the last sockets' handshakes finish their bookkeeping on both sides.
    await sleep(300);

    const all: number[] = [];
    const perWriteP99Ms: number[] = [];
    let missed = 0;
    for (let k = 0; k < opts.writes; k++) {
      const name = `${opts.prefix ?? 'fanout'}-${k}`;
      const got: number[] = [];
      arrivals.set(name, got);
      sentAt.set(name, performance.now());
      await writer.json('POST', `/api/v1/namespaces/${opts.namespace}/configmaps`, configMapBody(opts.namespace, name), [201]);
      const until = performance.now() + 5_000;
      while (got.length < opts.watchers && performance.now() < until) await sleep(5);
      missed += opts.watchers - got.length;
      all.push(...got);
      perWriteP99Ms.push(
        percentile(
          [...got].sort((a, b) => a - b),
          0.99,
        ),
      );
      await sleep(opts.pauseMs ?? 200);
    }
    all.sort((a, b) => a - b);
    return {
      watchers: watchers.length,
      writes: opts.writes,
      p50Ms: percentile(all, 0.5),
      p99Ms: percentile(all, 0.99),
      minMs: all[0] ?? NaN,
      maxMs: all[all.length - 1] ?? NaN,
      missed,
      perWriteP99Ms,
      connectMs,
    };
  } finally {
    for (const w of watchers) w.res.destroy();
    agent.destroy();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
