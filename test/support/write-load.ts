// A steady write load and informer-style watchers against a running API server (HTTPS, bearer
// token), for the suites that break the system under them: what was acknowledged, what failed and
// how, the longest stretch without an acknowledged write, and whether each watcher ended with
// exactly what is stored.

import http from 'node:http';
import https from 'node:https';

/** Where the API is: `https://…` verified with `ca`, or plain `http://…` (a gateway behind TLS termination). */
export interface Endpoint {
  url: string;
  token: string;
  ca?: string;
  /** The name the server's certificate is checked against, when the URL names it otherwise (an IP). */
  servername?: string;
}

/** The module and options for one request to `e`, on a connection of its own. */
function transport(e: Endpoint): { get: typeof https.get; request: typeof https.request; tls: { ca?: string; servername?: string } } {
  const tls = { ...(e.ca ? { ca: e.ca } : {}), ...(e.servername ? { servername: e.servername } : {}) };
  return e.url.startsWith('https:') ? { get: https.get, request: https.request, tls } : { get: http.get, request: http.request, tls: {} };
}

export interface Reply {
  status: number;
  body: string;
}

/** One request on a connection of its own (so a balancer places each one afresh); -1 when no answer came. */
export function send(e: Endpoint, method: string, path: string, body?: unknown, timeoutMs = 20_000): Promise<Reply> {
  return new Promise((resolve) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const t = transport(e);
    const req = t.request(
      e.url + path,
      {
        method,
        ...t.tls,
        agent: false,
        timeout: timeoutMs,
        headers: { authorization: `Bearer ${e.token}`, ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', (err) => resolve({ status: -1, body: err.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in ${timeoutMs} ms`)));
    req.on('error', (err) => resolve({ status: -1, body: err.message }));
    req.end(data);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface LoadResult {
  /** name → resourceVersion of every acknowledged create. */
  acked: Map<string, string>;
  /** Status of every failed attempt (-1: no answer). */
  failures: number[];
  /** The longest time between two acknowledged writes, in ms. */
  longestGapMs: number;
  /** The slowest answer of any kind, in ms. */
  slowestMs: number;
  /** Answers that took over 5 s: when each was sent (ms since the load started), how long it took, what came. */
  slow: { sentAtMs: number; ms: number; status: number; body: string }[];
}

/** Creates config maps named `<prefix>-<worker>-<i>` in `namespace` from `workers` loops until stopped. */
export function startWriteLoad(e: Endpoint, namespace: string, prefix: string, workers = 3): { acked(): number; stop(): Promise<LoadResult> } {
  const acked = new Map<string, string>();
  const failures: number[] = [];
  let stopped = false;
  let lastAck = performance.now();
  let longestGapMs = 0;
  let slowestMs = 0;
  const slow: LoadResult['slow'] = [];
  const began = performance.now();
  const loops = Array.from({ length: workers }, async (_, w) => {
    for (let i = 0; !stopped; i++) {
      const name = `${prefix}-${w}-${i}`;
      const t = performance.now();
      const r = await send(e, 'POST', `/api/v1/namespaces/${namespace}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { i: String(i) } });
      const now = performance.now();
      slowestMs = Math.max(slowestMs, now - t);
      if (now - t > 5_000) slow.push({ sentAtMs: Math.round(t - began), ms: Math.round(now - t), status: r.status, body: r.body.slice(0, 300) });
      if (r.status === 201) {
        acked.set(name, JSON.parse(r.body).metadata.resourceVersion);
        longestGapMs = Math.max(longestGapMs, now - lastAck);
        lastAck = now;
      } else {
        failures.push(r.status);
        // A client backs off; without an answer (no connection) a little longer.
        await sleep(r.status === -1 ? 200 : 50);
      }
    }
  });
  return {
    acked: () => acked.size,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
      return { acked, failures, longestGapMs, slowestMs, slow };
    },
  };
}

/**
 * A watcher as client-go's informers run one: list, watch from the list's version, resume from the
 * last event's version when the stream ends or errs, relist after 410. `seen` is its view.
 */
export class Informer {
  readonly seen = new Map<string, string>();
  rv = '';
  relists = 0;
  /** Codes of the ERROR events it was sent (410 included). */
  readonly errors: number[] = [];
  private stopped = false;
  private current: { destroy(): void } | undefined;
  private readonly loop: Promise<void>;

  constructor(
    private readonly e: Endpoint,
    private readonly path: string,
  ) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      if (!this.rv) {
        const list = await send(this.e, 'GET', this.path, undefined, 10_000);
        if (list.status !== 200) {
          await sleep(300);
          continue;
        }
        const l = JSON.parse(list.body);
        this.seen.clear();
        for (const o of l.items) this.seen.set(o.metadata.name, o.metadata.resourceVersion);
        this.rv = l.metadata.resourceVersion;
        this.relists++;
      }
      const gone = await this.watchOnce();
      if (gone) this.rv = '';
      else await sleep(200);
    }
  }

  /** One watch request; true when it ended with 410 (relist). */
  private watchOnce(): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const t = transport(this.e);
      const req = t.get(
        `${this.e.url}${this.path}?watch=1&allowWatchBookmarks=true&resourceVersion=${this.rv}&timeoutSeconds=60`,
        { ...t.tls, agent: false, headers: { authorization: `Bearer ${this.e.token}` } },
        (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            return resolve(res.statusCode === 410);
          }
          let buf = '';
          res.on('data', (d: Buffer) => {
            buf += d.toString();
            for (let i; (i = buf.indexOf('\n')) >= 0;) {
              const line = buf.slice(0, i);
              buf = buf.slice(i + 1);
              if (!line.trim()) continue;
              const ev = JSON.parse(line);
              if (ev.type === 'ERROR') {
                this.errors.push(ev.object.code);
                req.destroy();
                return resolve(ev.object.code === 410);
              }
              this.rv = ev.object.metadata.resourceVersion;
              if (ev.type === 'DELETED') this.seen.delete(ev.object.metadata.name);
              else if (ev.type !== 'BOOKMARK') this.seen.set(ev.object.metadata.name, this.rv);
            }
          });
          res.on('end', () => resolve(false));
          res.on('error', () => resolve(false));
        },
      );
      this.current = req;
      req.on('error', () => resolve(false));
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.current?.destroy();
    await this.loop;
  }
}
