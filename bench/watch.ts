// Watch delivery: N HTTP watchers on the same collection (an audience), then creates. Latency of
// each delivery = time the watcher's chunk arrived − time just before the create was sent, so it
// covers the whole write path (gateway → admission → storage → KV), the KV watch feeding the
// gateway's cache, and the fan-out to every socket. All clocks are this process's.
// Two servers are compared write by write: both audiences stay open and the servers take turns
// (`alternate`), so drift on the machine falls on both alike, as the load figures' interleaved
// rounds do. An idle audience's sockets cost nothing while the other server writes.
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
}

export interface AudienceOptions {
  /** The server the watchers connect to; `writer` must write to the same one. */
  url: string;
  caPem: string;
  token: string;
  namespace: string;
  watchers: number;
}

/** Open watchers on one server, and the writes whose deliveries they time. */
export interface Audience {
  readonly watchers: number;
  /** Creates `name` through the writer; the latency of each watcher's delivery, once all arrived or 5 s passed. */
  deliver(name: string): Promise<number[]>;
  close(): void;
}

interface Watcher {
  res: IncomingMessage;
  pending: string;
}

/** How long a write's deliveries are waited for before the rest count as missed. */
const DELIVERY_WAIT_MS = 5_000;

/**
 * Opens `opts.watchers` watches like informers do (list, then watch from the list's
 * resourceVersion, no synthetic initial events), in batches of 50: 1,000 simultaneous TLS
 * handshakes would only measure handshake queueing.
 */
export async function openAudience(writer: HttpClient, opts: AudienceOptions): Promise<Audience> {
  const u = new URL(opts.url);
  // Watchers each hold their own connection; no pooling limit, no keep-alive reuse needed.
  const agent = new https.Agent({ ca: opts.caPem, keepAlive: false, maxSockets: Infinity });
  const listed = await writer.json<{ metadata: { resourceVersion: string } }>('GET', `/api/v1/namespaces/${opts.namespace}/configmaps`);
  const path = `/api/v1/namespaces/${opts.namespace}/configmaps?watch=true&timeoutSeconds=600&resourceVersion=${listed.metadata.resourceVersion}`;
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

  const close = () => {
    for (const w of watchers) w.res.destroy();
    agent.destroy();
  };
  try {
    for (let i = 0; i < opts.watchers; i += 50) watchers.push(...(await Promise.all(Array.from({ length: Math.min(50, opts.watchers - i) }, open))));
  } catch (err) {
    close();
    throw err;
  }
  // The server registers a watcher before it sends the headers just received; the pause lets the
  // last sockets' handshakes finish their bookkeeping on both sides.
  await sleep(300);
  return {
    watchers: watchers.length,
    async deliver(name) {
      const got: number[] = [];
      arrivals.set(name, got);
      sentAt.set(name, performance.now());
      await writer.json('POST', `/api/v1/namespaces/${opts.namespace}/configmaps`, configMapBody(opts.namespace, name), [201]);
      const until = performance.now() + DELIVERY_WAIT_MS;
      while (got.length < watchers.length && performance.now() < until) await sleep(5);
      arrivals.delete(name);
      return got;
    },
    close,
  };
}

/**
 * `writes` creates to each audience, the audiences taking turns (which goes first alternates too),
 * with `pauseMs` after each write's deliveries so that writes never overlap and both sides go
 * idle in between. `prefix` makes the names unique per run against one namespace.
 */
export async function alternate<K extends string>(audiences: Record<K, Audience>, writes: number, pauseMs: number, prefix: string): Promise<Record<K, FanoutResult>> {
  const keys = Object.keys(audiences) as K[];
  const got = Object.fromEntries(keys.map((k) => [k, [] as number[][]])) as Record<K, number[][]>;
  for (let i = 0; i < writes; i++) {
    for (const k of i % 2 === 0 ? keys : [...keys].reverse()) {
      got[k].push(await audiences[k].deliver(`${prefix}-${k}-${i}`));
      await sleep(pauseMs);
    }
  }
  return Object.fromEntries(keys.map((k) => [k, summarize(audiences[k].watchers, got[k])])) as Record<K, FanoutResult>;
}

function summarize(watchers: number, perWrite: number[][]): FanoutResult {
  const all = perWrite.flat().sort((a, b) => a - b);
  return {
    watchers,
    writes: perWrite.length,
    p50Ms: percentile(all, 0.5),
    p99Ms: percentile(all, 0.99),
    minMs: all[0] ?? NaN,
    maxMs: all[all.length - 1] ?? NaN,
    missed: perWrite.reduce((a, got) => a + watchers - got.length, 0),
    perWriteP99Ms: perWrite.map((got) =>
      percentile(
        [...got].sort((a, b) => a - b),
        0.99,
      ),
    ),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
