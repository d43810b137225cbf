// Small helpers shared by the end-to-end suites: unique names, object builders, Status
// assertions and a streaming watch client that reads the gateway's chunked watch responses.

import assert from 'node:assert/strict';
import https from 'node:https';
import type { IncomingMessage, ClientRequest } from 'node:http';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import type { TestCluster } from '../support/cluster.js';

export function uniq(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Polls `check` until it stops throwing and returns its value. A check that is not yet true must
 * throw (e.g. an assert), so its message says what was still wrong. Sleeps between attempts
 * rather than spinning: the cluster under test shares this event loop. On timeout, throws an
 * Error naming `what`, the timeout and the last failure (kept as `cause`).
 */
export async function eventually<T>(what: string, check: () => Promise<T> | T, opts: { timeoutMs?: number; intervalMs?: number } = {}): Promise<T> {
  const { timeoutMs = 2_000, intervalMs = 50 } = opts;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() >= deadline) {
        const msg = err instanceof Error ? err.message : String(err);
        throw new Error(`${what}: not reached in ${timeoutMs} ms: ${msg}`, { cause: err });
      }
    }
    await sleep(intervalMs);
  }
}

export function configMap(name: string, data: Record<string, string> = {}, labels?: Record<string, string>, extraMeta: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}), ...extraMeta }, data };
}

export function deployment(name: string, replicas = 1, app = name) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app } },
      template: { metadata: { labels: { app } }, spec: { containers: [{ name: 'main', image: 'registry.example/app:1' }] } },
    },
  };
}

type Res = { status: number; headers: Headers; text: string; json: any };

/** Asserts a Status body with the code and reason; shows the body on failure. */
export function assertStatus(res: Res, code: number, reason?: string): any {
  assert.equal(res.status, code, `expected HTTP ${code}, got ${res.status}: ${res.text.slice(0, 500)}`);
  assert.equal(res.json?.kind, 'Status', `expected a Status body, got: ${res.text.slice(0, 500)}`);
  assert.equal(res.json.apiVersion, 'v1');
  assert.equal(res.json.code, code);
  if (reason !== undefined) assert.equal(res.json.reason, reason, `reason of ${res.text.slice(0, 500)}`);
  return res.json;
}

export function assertOk(res: Res, code = 200): any {
  assert.equal(res.status, code, `expected HTTP ${code}, got ${res.status}: ${res.text.slice(0, 500)}`);
  return res.json;
}

export interface WatchEvent {
  type: string;
  object: any;
}

export interface WatchStream {
  status: number;
  headers: IncomingMessage['headers'];
  events: WatchEvent[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  isEnded(): boolean;
  /** Waits until an event matching `pred` has arrived (searching from the start) and returns it. */
  waitFor(pred: (e: WatchEvent) => boolean, timeoutMs?: number, what?: string): Promise<WatchEvent>;
  /** Waits until at least `n` events have arrived. */
  waitForCount(n: number, timeoutMs?: number): Promise<WatchEvent[]>;
  close(): void;
  res: IncomingMessage;
  req: ClientRequest;
}

/**
 * Opens a watch (or any streaming GET) and parses newline-delimited JSON events as they arrive.
 * Resolves once the response headers are in. A non-200 answer is returned with its body parsed
 * into `events[0]` as `{ type: 'HTTP', object: body }` after the stream ends.
 */
export function openWatch(c: TestCluster, path: string, opts: { token?: string | null; paused?: boolean; accept?: string } = {}): Promise<WatchStream> {
  const headers: Record<string, string> = { accept: opts.accept ?? 'application/json' };
  const token = opts.token === undefined ? c.adminToken : opts.token;
  if (token) headers.authorization = `Bearer ${token}`;
  return new Promise((resolve, reject) => {
    const req = https.request(c.url + path, { method: 'GET', headers, ca: c.caPem, agent: false });
    req.on('error', reject);
    req.on('response', (res) => {
      const events: WatchEvent[] = [];
      const waiters = new Set<() => void>();
      let buf = '';
      let ended = false;
      let endResolve!: () => void;
      const endedP = new Promise<void>((r) => (endResolve = r));
      const notify = () => {
        for (const w of [...waiters]) w();
      };
      const finish = () => {
        if (ended) return;
        ended = true;
        if (res.statusCode !== 200 && buf.trim()) {
          try {
            events.push({ type: 'HTTP', object: JSON.parse(buf) });
          } catch {
            events.push({ type: 'HTTP', object: buf });
          }
          buf = '';
        }
        endResolve();
        notify();
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        if (res.statusCode !== 200) return;
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i).trim();
          buf = buf.slice(i + 1);
          if (!line) continue;
          try {
            events.push(JSON.parse(line) as WatchEvent);
          } catch {
            events.push({ type: 'UNPARSABLE', object: line });
          }
        }
        notify();
      });
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      if (opts.paused) res.pause();

      const waitUntil = <T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> =>
        new Promise((ok, fail) => {
          const tryIt = () => {
            const v = check();
            if (v !== undefined) {
              cleanup();
              ok(v);
              return true;
            }
            if (ended) {
              cleanup();
              fail(new Error(`watch ended before ${what}; events so far: ${summary(events)}`));
              return true;
            }
            return false;
          };
          const timer = setTimeout(() => {
            cleanup();
            fail(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; events so far: ${summary(events)}`));
          }, timeoutMs);
          const w = () => void tryIt();
          const cleanup = () => {
            clearTimeout(timer);
            waiters.delete(w);
          };
          if (!tryIt()) waiters.add(w);
        });

      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        ended: endedP,
        isEnded: () => ended,
        waitFor: (pred, timeoutMs = 5000, what = 'a matching event') => waitUntil(() => events.find(pred), timeoutMs, what),
        waitForCount: (n, timeoutMs = 5000) => waitUntil(() => (events.length >= n ? events.slice() : undefined), timeoutMs, `${n} events`),
        close: () => {
          req.destroy();
          res.destroy();
        },
        res,
        req,
      });
    });
    req.end();
  });
}

/** Fails with `message` unless the stream ends within `ms`; the timer is cleared either way (left running, it would keep the test file's process alive). */
export async function endsWithin(w: WatchStream, ms: number, message: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new assert.AssertionError({ message })), ms)));
  try {
    await Promise.race([w.ended, late]);
  } finally {
    clearTimeout(timer);
  }
}

export function summary(events: WatchEvent[]): string {
  return JSON.stringify(events.map((e) => `${e.type}:${e.object?.metadata?.name ?? e.object?.code ?? ''}@${e.object?.metadata?.resourceVersion ?? ''}`)).slice(0, 1500);
}

export function names(list: any): string[] {
  return (list?.items ?? []).map((i: any) => i.metadata.name).sort();
}

/** Creates a namespace and waits for it to be usable. */
export async function createNamespace(c: TestCluster, name: string): Promise<void> {
  const r = await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
  assert.equal(r.status, 201, `creating namespace ${name}: ${r.text.slice(0, 300)}`);
}

/** This machine's first non-loopback IPv4 address: Endpoints may not hold loopback, and the proxies refuse it. */
export function hostAddress(): string | undefined {
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return undefined;
}

/** Writes `<dir>/admission.yaml`, an AdmissionConfiguration of `plugins` (their `path`s are relative to `dir`), and returns its path. */
export async function writeAdmissionConfig(dir: string, plugins: object[]): Promise<string> {
  const file = path.join(dir, 'admission.yaml');
  await writeFile(file, YAML.stringify({ apiVersion: 'apiserver.config.platform.io/v1', kind: 'AdmissionConfiguration', plugins }));
  return file;
}
