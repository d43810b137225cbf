// `npm start` as a user runs it — its own nats-server, every service with the flags local-up gives
// it — after a few writes, left alone for a minute. An idle API server must stay idle: no consumers
// piling up on the bucket's stream, nats-server's memory flat, next to no CPU (issue 9: a purge
// timer on a NaN interval made 15,483 consumers and a 1.2 GB nats-server in a minute, at 100 % CPU).
// Then `npm start` is killed outright and must leave no process behind.

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { freePort } from '../../shared/local/nats-server.js';
import { NatsUser, userInboxPrefix } from '../../shared/bus/permissions.js';
import { clockTicksPerSecond, cpuTicks, descendants, exitWithin, isRunning, killIfSame, rssKiB, spawnProcess, tail, cleanEnv, type Proc, type ProcessId } from '../support/processes.js';
import { configMap, deployment, sleep, uniq } from './helpers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const STREAM = 'KV_objects';
const SERVICES = ['storage', 'authn', 'authz', 'admission', 'gateway'] as const;
const IDLE_MS = 60_000;
const SAMPLE_EVERY_MS = 5_000;
/** The assertions look at the end of the idle minute: start-up and the writes are settled by then. */
const WINDOW_MS = 45_000;
const MAX_RSS_GROWTH_KIB = 20 * 1024;
const MAX_CPU_SHARE = 0.05;

interface Sample {
  atMs: number;
  consumers: number;
  natsRssKiB: number;
  /** utime + stime of nats-server and every service, in clock ticks. */
  cpuTicks: number;
  /** The same per process. */
  ticksOf: Map<string, number>;
}

// The suite's own bound covers the waits its tests are built from: start-up, the 60 s idle window,
// the burst, up to 150 s for the memory to come back, and the kill. At 150 s in all it cut the
// reclaim short on a busy machine and failed as a timeout rather than on what the test measures.
describe('npm start left idle', { timeout: 360_000 }, () => {
  let dir: string;
  let port: number;
  let up: Proc;
  let natsPid: number;
  const servicePids = new Map<string, number>();
  /** Everything local-up started (nats-server, services, reaper, their helpers), for the kill test and cleanup. */
  let started: ProcessId[] = [];
  let nc: NatsConnection | undefined;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'platform-idle-soak-'));
    port = await freePort();
    // What `npm start` runs; node directly so that the pid is local-up's own, not npm's.
    up = spawnProcess(['--import', 'tsx', 'scripts/local-up.ts'], {
      cwd: root,
      env: cleanEnv({ PLATFORM_LOCAL_DIR: dir, PLATFORM_PORT: String(port), NATS_URL: '' }),
      detached: true,
    });
    await up.waitFor(/Ctrl-C stops everything/, 60_000);
    const out = up.output();
    natsPid = Number(/\(nats-server pid (\d+)/.exec(out)?.[1]);
    assert.ok(natsPid > 0, `no nats-server pid in the banner:\n${tail(out)}`);
    for (const name of SERVICES) {
      const pid = Number(new RegExp(`^ +${name} +pid (\\d+)$`, 'm').exec(out)?.[1]);
      assert.ok(pid > 0, `no ${name} pid in the banner:\n${tail(out)}`);
      servicePids.set(name, pid);
    }
    started = descendants(up.pid);
  });

  after(async () => {
    await nc?.close().catch(() => undefined);
    if (up) {
      try {
        process.kill(-up.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    // The services, nats-server and the reaper each run in a process group of their own.
    for (const p of started) killIfSame(p);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('idle soak - after a few writes, a minute idle: consumers, nats-server memory and CPU stay flat', async () => {
    const ca = await readFile(path.join(dir, 'pki', 'ca.crt'), 'utf8');
    const token = (await readFile(path.join(dir, 'admin-token'), 'utf8')).trim();
    const api = (method: string, p: string, body?: unknown, contentType = 'application/json') => request(`https://127.0.0.1:${port}${p}`, method, ca, token, body, contentType);

    const ns = uniq('soak');
    const nsPath = `/api/v1/namespaces/${ns}`;
    await expectStatus(api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }), 201);
    await expectStatus(api('POST', `${nsPath}/configmaps`, configMap('settings', { a: '1' })), 201);
    await expectStatus(api('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, deployment('web')), 201);
    await expectStatus(api('PATCH', `${nsPath}/configmaps/settings`, { data: { b: '2' } }, 'application/merge-patch+json'), 200);
    await expectStatus(api('DELETE', `${nsPath}/configmaps/settings`), 200);

    const natsPort = Number((await readFile(path.join(dir, 'nats-port'), 'utf8')).trim());
    // As npm start's own monitor user (TLS, stream statistics and pings only).
    const monitorPassword = (await readFile(path.join(dir, 'nats-auth', 'monitor.password'), 'utf8')).trim();
    nc = await connect({
      servers: `nats://127.0.0.1:${natsPort}`,
      name: 'idle-soak-sampler',
      maxReconnectAttempts: 0,
      user: NatsUser.monitor,
      pass: monitorPassword,
      tls: { caFile: path.join(dir, 'pki', 'ca.crt') },
      inboxPrefix: userInboxPrefix(NatsUser.monitor),
    });
    // Stream info only: the sampler must not add consumers of its own.
    const jsm = await jetstreamManager(nc, { checkAPI: false });
    const pids = new Map([['nats-server', natsPid], ...servicePids]);
    const sample = async (atMs: number): Promise<Sample> => {
      const consumers = (await jsm.streams.info(STREAM)).state.consumer_count;
      const natsRssKiB = rssKiB(natsPid);
      assert.ok(natsRssKiB !== undefined, 'nats-server is gone');
      const ticksOf = new Map<string, number>();
      for (const [name, pid] of pids) {
        const t = cpuTicks(pid);
        assert.ok(t !== undefined, `${name} (pid ${pid}) is gone:\n${tail(up.output())}`);
        ticksOf.set(name, t);
      }
      return { atMs, consumers, natsRssKiB, cpuTicks: [...ticksOf.values()].reduce((a, b) => a + b, 0), ticksOf };
    };

    const t0 = performance.now();
    const samples: Sample[] = [await sample(0)];
    while (samples.at(-1)!.atMs < IDLE_MS) {
      const next = samples.length * SAMPLE_EVERY_MS;
      await sleep(Math.max(0, next - (performance.now() - t0)));
      samples.push(await sample(Math.round(performance.now() - t0)));
    }
    const hz = clockTicksPerSecond();
    console.log('  t(s)  consumers  nats RSS (MiB)  CPU nats+services (s, cumulative)');
    for (const s of samples)
      console.log(`${(s.atMs / 1000).toFixed(1).padStart(6)}  ${String(s.consumers).padStart(9)}  ${(s.natsRssKiB / 1024).toFixed(1).padStart(14)}  ${(s.cpuTicks / hz).toFixed(2).padStart(8)}`);

    const window = samples.filter((s) => s.atMs >= IDLE_MS - WINDOW_MS - SAMPLE_EVERY_MS / 2);
    const first = window[0]!;
    const last = window.at(-1)!;
    const seconds = (last.atMs - first.atMs) / 1000;
    const consumerGrowth = Math.max(...window.map((s) => s.consumers)) - first.consumers;
    const rssGrowthKiB = last.natsRssKiB - first.natsRssKiB;
    const cpuShare = (last.cpuTicks - first.cpuTicks) / hz / seconds;
    console.log(
      `last ${seconds.toFixed(1)} s: consumers ${first.consumers} → ${last.consumers} (max growth ${consumerGrowth}), ` +
        `nats-server RSS +${(rssGrowthKiB / 1024).toFixed(1)} MiB, CPU of nats-server + services ${(cpuShare * 100).toFixed(2)} % of one core ` +
        `(${[...pids.keys()].map((n) => `${n} ${(((last.ticksOf.get(n)! - first.ticksOf.get(n)!) / hz / seconds) * 100).toFixed(2)} %`).join(', ')})`,
    );

    assert.doesNotMatch(up.output(), /exited unexpectedly/, `a process died while idle:\n${tail(up.output())}`);
    // Each service runs as its own NATS user: one that sends what its permissions refuse fails
    // silently for itself and fills nats-server's log with errors.
    const refused = up
      .output()
      .split('\n')
      .filter((l) => /Violation/.test(l));
    assert.deepEqual(refused.slice(0, 5), [], `nats-server refused ${refused.length} operations of the services:\n${refused.slice(0, 5).join('\n')}`);
    // Storage's scan for expired delete markers holds a consumer while it reads (it deletes it after),
    // so a sample may catch one more; anything beyond that is a leak.
    assert.ok(consumerGrowth <= 1, `consumers on ${STREAM} grew by ${consumerGrowth} while idle`);
    assert.ok(rssGrowthKiB < MAX_RSS_GROWTH_KIB, `nats-server RSS grew by ${(rssGrowthKiB / 1024).toFixed(1)} MiB while idle`);
    assert.ok(cpuShare < MAX_CPU_SHARE, `idle nats-server + services used ${(cpuShare * 100).toFixed(1)} % of one core`);
  });

  test('idle soak - after a burst of large bodies and lists, the idle gateway gives its memory back (within 100 MB of before)', async () => {
    const ca = await readFile(path.join(dir, 'pki', 'ca.crt'), 'utf8');
    const token = (await readFile(path.join(dir, 'admin-token'), 'utf8')).trim();
    const api = (method: string, p: string, body?: unknown) => request(`https://127.0.0.1:${port}${p}`, method, ca, token, body, 'application/json');
    const gateway = servicePids.get('gateway')!;
    const before = rssKiB(gateway)!;
    const ns = uniq('burst');
    await expectStatus(api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }), 201);
    // 20 objects of 900 KB, then 80 lists of all of them (18 MB each), 10 at a time, then deletes.
    const big = 'x'.repeat(900_000);
    for (let i = 0; i < 20; i++) await expectStatus(api('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap(`big-${i}`, { a: big })), 201);
    for (let round = 0; round < 8; round++) await Promise.all(Array.from({ length: 10 }, () => expectStatus(api('GET', `/api/v1/namespaces/${ns}/configmaps`), 200)));
    const peak = rssKiB(gateway)!;
    for (let i = 0; i < 20; i++) await expectStatus(api('DELETE', `/api/v1/namespaces/${ns}/configmaps/big-${i}`), 200);
    // The idle reclaim looks every 30 s; the deleted objects stay in the watch window meanwhile.
    const t0 = Date.now();
    let now = rssKiB(gateway)!;
    while (now - before > 100 * 1024 && Date.now() - t0 < 150_000) {
      await sleep(5_000);
      now = rssKiB(gateway)!;
    }
    console.log(
      `gateway RSS: ${(before / 1024).toFixed(0)} MiB before, ${(peak / 1024).toFixed(0)} MiB at the burst's peak, ${(now / 1024).toFixed(0)} MiB ${((Date.now() - t0) / 1000).toFixed(0)} s after it`,
    );
    assert.ok(now - before <= 100 * 1024, `the idle gateway kept ${((now - before) / 1024).toFixed(0)} MiB more than before the burst`);
  });

  test('idle soak - npm start killed outright (SIGKILL) leaves no process behind', async () => {
    await nc?.close().catch(() => undefined);
    nc = undefined;
    const expected = [{ name: 'nats-server', pid: natsPid }, ...[...servicePids].map(([name, pid]) => ({ name, pid }))];
    for (const p of expected) assert.ok(isRunning(p.pid), `${p.name} (pid ${p.pid}) is not running before the kill`);
    // Only local-up itself: its children must notice on their own (IPC lifeline, scripts/reaper.mjs).
    process.kill(up.pid, 'SIGKILL');
    assert.ok(await exitWithin(up, 5_000), 'local-up survived SIGKILL');
    const t0 = Date.now();
    // Whatever else local-up had started (the reaper, helpers) must go as well.
    const watched = [...expected, ...started.filter((s) => !expected.some((e) => e.pid === s.pid))];
    let left = watched.filter((p) => isRunning(p.pid));
    while (left.length && Date.now() - t0 < 15_000) {
      await sleep(250);
      left = left.filter((p) => isRunning(p.pid));
    }
    console.log(
      left.length
        ? `after SIGKILL of local-up, still running after 15 s: ${left.map((p) => `${p.name} (${p.pid})`).join(', ')}`
        : `after SIGKILL of local-up, all ${watched.length} processes gone in ${Date.now() - t0} ms`,
    );
    assert.deepEqual(
      left.map((p) => `${p.name} (pid ${p.pid})`),
      [],
      'processes left running 15 s after local-up was killed',
    );
  });
});

function request(url: string, method: string, ca: string, token: string, body: unknown, contentType: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(
      url,
      {
        method,
        ca,
        agent: false,
        timeout: 10_000,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(data ? { 'content-type': contentType, 'content-length': Buffer.byteLength(data) } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${url} timed out`)));
    req.on('error', reject);
    req.end(data);
  });
}

async function expectStatus(res: Promise<{ status: number; text: string }>, status: number): Promise<void> {
  const r = await res;
  assert.equal(r.status, status, r.text);
}
