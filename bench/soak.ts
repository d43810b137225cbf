// `npm run soak`: the system as a deployment runs it — nats-server and two replicas of every
// service and gateway as processes (services/<name>/main.ts, their defaults) — under a steady load
// (creates, updates and deletes of config maps) with hundreds of watchers, at half of what that
// load reaches flat out with the watchers attached, for a long time. First every process is
// restarted one replica at a time (SIGTERM, as a rolling upgrade does) while the load runs; then
// the load goes on and the RSS of every process and the bucket's consumer count are sampled. It
// prints the figures and fails when a client request failed other than with a documented
// retryable answer (429, 503), when an acknowledged write is not stored as acknowledged, when the
// rolling restart left consumers behind, or when memory or consumers grow after the warm-up.
//
//   npm run soak                                  # 30 minutes, 500 watchers
//   npm run soak -- --duration=3m --watchers=100  # a short look

import http from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { parseDuration } from '../shared/config/options.js';
import { freePort, startLocalNats, type LocalNats } from '../shared/local/nats-server.js';
import { REPO_ROOT, rssMiBOf, spawnNode, type Child } from './procs.js';
import { isEntryPoint } from '../scripts/entry-point.js';
import { changeLogMaxAgeMs } from '../shared/store/change-log.js';
import { DEFAULT_WINDOW_MS } from '../shared/store/watch-cache.js';
import { natsHeapProfile, natsView } from './soak-nats.js';
import { startWatchers, type Watchers } from './soak-watchers.js';

const SERVICES = ['storage', 'authn', 'authz', 'admission'] as const;
type Role = (typeof SERVICES)[number] | 'gateway';
const NS = 'default';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
/** Names the load writes: a bounded pool, so the store's size stays flat. */
const POOL = 2_000;
/** Growth allowed after the warm-up before the soak fails. */
const MAX_RSS_GROWTH = 0.25;
/**
 * The gateways keep every change of the last --watch-cache-window (5 minutes by default) for
 * watches and continue tokens, and NATS keeps the bucket's change log for twice storage's
 * --watch-window and a minute (change-log.ts): memory rises until both are full. The warm-up lasts
 * at least that long and a minute more.
 */
const WINDOW_FILL_MS = changeLogMaxAgeMs(DEFAULT_WINDOW_MS) + 60_000;

interface Options {
  durationMs: number;
  watchers: number;
}

function parseArgs(argv: string[]): Options {
  const opts: Options = { durationMs: 30 * 60_000, watchers: 500 };
  for (const a of argv) {
    const [k, v] = a.replace(/^--/, '').split('=');
    if (k === 'duration' && v) opts.durationMs = parseDuration(v);
    else if (k === 'watchers' && v) opts.watchers = Number(v);
    else throw new Error(`unknown argument ${a} (use --duration=30m --watchers=500)`);
  }
  return opts;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Reply {
  status: number;
  body: string;
}

class Soak {
  private nats!: LocalNats;
  private natsMonitor = 0;
  private natsProf = 0;
  private dir!: string;
  private readonly token = randomBytes(16).toString('hex');
  private readonly procs = new Map<string, { role: Role; child: Child }>();
  private gatewayPorts: number[] = [];
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  /** name → resourceVersion of the last acknowledged write; null once acknowledged deleted. */
  readonly acked = new Map<string, string | null>();
  /**
   * Whether a name exists as far as the answers tell, which picks the next step's verb. Kept apart
   * from `acked`, which forgets a name whenever an answer is not evidence of what is stored: a
   * name forgotten there but existing would otherwise be POSTed for ever (409 each time) and
   * never written again.
   */
  private readonly exists = new Map<string, boolean>();
  /** Steps in flight per name, and the names whose steps overlapped (their order is unknown). */
  private readonly busy = new Map<string, number>();
  private readonly overlapped = new Set<string>();
  readonly outcomes = new Map<string, number>();
  /** "<role>: <message>" → how often a process logged it at warn level or above. */
  readonly warnings = new Map<string, number>();
  ops = 0;
  stopped = false;
  private next = 0;

  constructor(readonly opts: Options) {}

  async start(): Promise<void> {
    this.dir = await mkdtemp(path.join(os.tmpdir(), 'platform-soak-'));
    await writeFile(path.join(this.dir, 'tokens.csv'), `${this.token},admin,admin-uid,"system:masters"\n`);
    this.natsMonitor = await freePort();
    this.natsProf = await freePort();
    this.nats = await startLocalNats(path.join(this.dir, 'nats'), { monitorPort: this.natsMonitor, profPort: this.natsProf });
    this.gatewayPorts = [await freePort(), await freePort()];
    for (const role of SERVICES) for (const i of [0, 1]) await this.spawn(role, i);
    for (const i of [0, 1]) await this.spawn('gateway', i);
  }

  private flags(role: Role, i: number): string[] {
    const common = [`--nats-url=${this.nats.url}`];
    if (role === 'authn') return [...common, `--token-auth-file=${path.join(this.dir, 'tokens.csv')}`];
    if (role === 'gateway') return [...common, `--secure-port=${this.gatewayPorts[i]}`];
    return common;
  }

  private async spawn(role: Role, i: number): Promise<void> {
    const child = spawnNode(`${role}-${i}`, `services/${role}/main.ts`, this.flags(role, i));
    this.procs.set(`${role}-${i}`, { role, child });
    // Warnings and errors of every process, counted by message for the summary.
    for (const stream of [child.proc.stdout!, child.proc.stderr!]) {
      stream.on('data', (buf: Buffer) => {
        for (const line of buf.toString().split('\n')) {
          const m = /"level":(\d+).*?"msg":"([^"]*)"/.exec(line);
          if (m && Number(m[1]) >= 40) this.warnings.set(`${role}: ${m[2]}`, (this.warnings.get(`${role}: ${m[2]}`) ?? 0) + 1);
        }
      });
    }
    await child.waitForLine(role === 'gateway' ? /gateway serving/ : /service started/, 60_000);
  }

  /** SIGTERM and start again, as a rolling upgrade replaces a replica. */
  async restart(name: string): Promise<void> {
    const held = this.procs.get(name)!;
    await held.child.stop();
    await this.spawn(held.role, Number(name.slice(-1)));
  }

  request(method: string, p: string, body?: unknown, gateway = this.next++ % 2): Promise<Reply> {
    const data = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: this.gatewayPorts[gateway],
          path: p,
          method,
          agent: this.agent,
          timeout: 30_000,
          headers: { authorization: `Bearer ${this.token}`, ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', reject);
      req.end(data);
    });
  }

  /**
   * One write as a client behind a load balancer makes it: a gateway that is not there (connection
   * refused while it restarts) is a balancer's cue to use the other one.
   */
  async write(method: string, p: string, body?: unknown): Promise<Reply> {
    const first = this.next++ % 2;
    try {
      return await this.request(method, p, body, first);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNREFUSED' && (err as NodeJS.ErrnoException).code !== 'ECONNRESET') throw err;
      this.count('rerouted');
      return this.request(method, p, body, 1 - first);
    }
  }

  count(outcome: string): void {
    this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1);
    if (outcome !== 'ok' && !this.firstSeen.has(outcome)) this.firstSeen.set(outcome, `${this.phase} at ${((Date.now() - this.t0) / 1000).toFixed(0)} s`);
  }

  /** What the soak is doing (which process is restarting), for the outcomes' first occurrence. */
  phase = 'starting';
  readonly t0 = Date.now();
  readonly firstSeen = new Map<string, string>();

  /** One step of the load: create, update or delete a name of the pool. */
  async step(): Promise<void> {
    const name = `soak-${Math.floor(Math.random() * POOL)}`;
    const exists = this.exists.get(name) ?? false;
    // Two steps on one name at once: both may be acknowledged, in either order, so neither answer
    // says what is stored.
    if (this.busy.get(name)) this.overlapped.add(name);
    this.busy.set(name, (this.busy.get(name) ?? 0) + 1);
    let r: Reply;
    let method: string;
    try {
      if (!exists) {
        method = 'POST';
        r = await this.write('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { n: String(this.ops) } });
      } else if (Math.random() < 0.1) {
        method = 'DELETE';
        r = await this.write('DELETE', `${CM}/${name}`);
      } else {
        method = 'PUT';
        r = await this.write('PUT', `${CM}/${name}`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { n: String(this.ops) } });
      }
    } catch (err) {
      this.count(`error ${(err as Error).message}`);
      this.acked.delete(name);
      return;
    } finally {
      const left = this.busy.get(name)! - 1;
      if (left) this.busy.set(name, left);
      else this.busy.delete(name);
    }
    this.ops++;
    if (r.status === 200 || r.status === 201) {
      this.acked.set(name, method === 'DELETE' ? null : JSON.parse(r.body).metadata.resourceVersion);
      this.exists.set(name, method !== 'DELETE');
      this.count('ok');
    } else if (r.status === 404 || r.status === 409) {
      // Another step raced for the same name, or a write whose answer was lost happened after all.
      this.count(`${r.status} (raced)`);
      this.acked.delete(name);
      // A create found it there; an update or delete found it gone.
      if (r.status === 409 && method === 'POST') this.exists.set(name, true);
      if (r.status === 404) this.exists.set(name, false);
    } else {
      this.count(String(r.status));
      // A 503/504 may hide a write that happened: what is stored is no longer known.
      this.acked.delete(name);
    }
    if (this.overlapped.has(name)) {
      this.acked.delete(name);
      if (!this.busy.has(name)) this.overlapped.delete(name);
    }
  }

  /** Steps at `rate` per second from `workers` concurrent clients until stopped. */
  load(rate: number, workers = 16): Promise<void> {
    const interval = (1000 * workers) / rate;
    return Promise.all(
      Array.from({ length: workers }, async () => {
        while (!this.stopped) {
          const t = Date.now();
          await this.step();
          const rest = interval - (Date.now() - t);
          if (rest > 0) await sleep(rest);
        }
      }),
    ).then(() => undefined);
  }

  /**
   * Steps/s of this load with `workers` clients flat out for `ms`: the capacity it is soaked at
   * half of. Measured with the watchers attached, so their events count against it as they do
   * in the soak.
   */
  async capacity(ms: number, workers = 16): Promise<number> {
    const before = this.ops;
    const until = Date.now() + ms;
    await Promise.all(
      Array.from({ length: workers }, async () => {
        while (Date.now() < until) await this.step();
      }),
    );
    return ((this.ops - before) * 1000) / ms;
  }

  /** Watchers that resume from their last version and relist after 410, as informers do. */
  watchers(n: number): Watchers {
    return startWatchers(n, { ports: this.gatewayPorts, token: this.token, path: CM });
  }

  rss(): Record<string, number> {
    const out: Record<string, number> = { 'nats-server': rssMiBOf(this.nats.process.pid!) };
    for (const [name, { child }] of this.procs) out[name] = child.rssMiB();
    return out;
  }

  /** What nats-server says it holds: its own memory figure, JetStream's, its connections and subscriptions. */
  natsView(): Promise<string> {
    return natsView(this.natsMonitor, path.join(this.dir, 'nats'));
  }

  /** nats-server's Go heap profile (go tool pprof -top <file>), kept after the run. */
  natsHeapProfile(label: string): Promise<string> {
    return natsHeapProfile(this.natsProf, label);
  }

  async consumers(): Promise<number> {
    const nc = await connect({ servers: this.nats.url });
    try {
      return (await (await jetstreamManager(nc)).streams.info('KV_objects')).state.consumer_count;
    } finally {
      await nc.close();
    }
  }

  /** Every acknowledged write is stored as acknowledged. */
  async verify(): Promise<string[]> {
    const list = JSON.parse((await this.request('GET', CM)).body);
    const stored = new Map<string, string>(list.items.map((o: { metadata: { name: string; resourceVersion: string } }) => [o.metadata.name, o.metadata.resourceVersion]));
    const wrong: string[] = [];
    for (const [name, rv] of this.acked) {
      const have = stored.get(name);
      if (rv === null ? have !== undefined : have !== rv) wrong.push(`${name}: acknowledged ${rv ?? 'deleted'}, stored ${have ?? 'nothing'}`);
    }
    return wrong;
  }

  processNames(): string[] {
    return [...this.procs.keys()];
  }

  async stop(): Promise<void> {
    this.agent.destroy();
    await Promise.all([...this.procs.values()].map((p) => p.child.stop()));
    await this.nats?.stop();
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }
}

type Log = (m: string) => void;

/**
 * Every process restarted one replica at a time while the load runs (after the watchers' initial
 * lists and the load settle); `ok` false when the restarts left consumers behind.
 */
async function rollingRestart(s: Soak, log: Log): Promise<{ ok: boolean; rollingDone: number }> {
  let ok = true;
  await sleep(10_000);
  const consumersBefore = await s.consumers();
  for (const name of s.processNames()) {
    s.phase = `restarting ${name}`;
    await s.restart(name);
    log(`restarted ${name}`);
    s.phase = `after restarting ${name}`;
    await sleep(2_000);
  }
  s.phase = 'steady load';
  const afterRolling = new Map(s.outcomes);
  const rollingDone = Date.now();
  log(`rolling restart done: ${[...afterRolling].map(([k, v]) => `${k} ${v}`).join(', ')}`);
  // A stopped replica deletes its consumers; one left behind costs nats-server CPU on every
  // write until the inactivity threshold (five minutes) removes it. Counted once the last
  // replica's watches have handed over from their replay (5 s after it ends).
  await sleep(10_000);
  const consumersAfter = await s.consumers();
  log(`bucket consumers ${consumersBefore} before the rolling restart, ${consumersAfter} after`);
  if (consumersAfter > consumersBefore) {
    ok = false;
    log(`FAIL: the rolling restart left ${consumersAfter - consumersBefore} consumers behind`);
  }
  return { ok, rollingDone };
}

interface Sample {
  at: number;
  rss: Record<string, number>;
  consumers: number;
  ops: number;
}

/** The soak itself: a sample every 30 s (less on a short run) until `end`, with nats-server's heap profiled once warm. */
async function sampleSteadyLoad(s: Soak, log: Log, watchers: Watchers, at: { end: number; warmUntil: number }): Promise<Sample[]> {
  const samples: Sample[] = [];
  const every = Math.min(30_000, Math.max(5_000, s.opts.durationMs / 20));
  let lastOps = s.ops;
  let warmProfile: string | undefined;
  while (Date.now() < at.end) {
    await sleep(every);
    const sample = { at: Date.now(), rss: s.rss(), consumers: await s.consumers(), ops: s.ops };
    samples.push(sample);
    log(
      `${(((sample.ops - lastOps) * 1000) / every).toFixed(0)} writes/s, ${watchers.events()} watch events, consumers ${sample.consumers}, RSS MiB ${Object.entries(sample.rss)
        .map(([k, v]) => `${k} ${v.toFixed(0)}`)
        .join(' ')}`,
    );
    log(`  nats-server: ${await s.natsView()}`);
    if (!warmProfile && sample.at >= at.warmUntil) warmProfile = await s.natsHeapProfile('warm');
    lastOps = sample.ops;
  }
  if (warmProfile) log(`nats-server heap profiles: ${warmProfile} (end of warm-up), ${await s.natsHeapProfile('end')} (end)`);
  return samples;
}

/** Requests failed only with a retryable answer, and every acknowledged write is stored as acknowledged. */
async function judgeRequests(s: Soak, log: Log): Promise<boolean> {
  let ok = true;
  const failures = [...s.outcomes].filter(([k]) => !['ok', '404 (raced)', '409 (raced)', 'rerouted', '429', '503'].includes(k));
  log(`outcomes: ${[...s.outcomes].map(([k, v]) => `${k} ${v}${s.firstSeen.has(k) ? ` (first ${s.firstSeen.get(k)})` : ''}`).join(', ')}`);
  if (failures.length) {
    ok = false;
    log(`FAIL: requests failed other than with 429/503: ${failures.map(([k, v]) => `${k} ×${v}`).join(', ')}`);
  }
  const wrong = await s.verify();
  if (wrong.length) {
    ok = false;
    log(`FAIL: ${wrong.length} acknowledged writes not stored as acknowledged, e.g. ${wrong.slice(0, 5).join('; ')}`);
  } else log(`all ${s.acked.size} acknowledged writes stored as acknowledged`);
  return ok;
}

/** Memory and consumers do not grow from the first sample after the warm-up to the last. */
function judgeGrowth(samples: Sample[], warmUntil: number, t0: number, log: Log): boolean {
  let ok = true;
  const warm = samples.find((x) => x.at >= warmUntil);
  const last = samples.at(-1);
  if (!warm || !last || warm === last) {
    log(`too short to judge growth: memory and consumers are compared from ${((warmUntil - t0) / 60_000).toFixed(1)} min on (the watch window filling), run longer`);
    return ok;
  }
  for (const [name, mib] of Object.entries(last.rss)) {
    const base = warm.rss[name] ?? 0;
    // A restarted process's figure starts over; only a clear rise counts.
    if (base > 0 && mib > base * (1 + MAX_RSS_GROWTH) && mib - base > 20) {
      ok = false;
      log(`FAIL: ${name} grew from ${base.toFixed(0)} MiB to ${mib.toFixed(0)} MiB after the warm-up`);
    }
  }
  if (last.consumers > warm.consumers) {
    ok = false;
    log(`FAIL: the bucket's consumers grew from ${warm.consumers} to ${last.consumers}`);
  }
  log(
    `after warm-up: RSS ${Object.keys(last.rss)
      .map((k) => `${k} ${warm.rss[k]!.toFixed(0)}→${last.rss[k]!.toFixed(0)}`)
      .join(', ')} MiB; consumers ${warm.consumers}→${last.consumers}`,
  );
  return ok;
}

export async function soak(opts: Options): Promise<boolean> {
  const s = new Soak(opts);
  const t0 = Date.now();
  const log = (m: string) => console.log(`[${((Date.now() - t0) / 1000).toFixed(0).padStart(5)} s] ${m}`);
  let ok = true;
  // Interrupted (Ctrl-C): stop what was started rather than leave nats-server and services behind.
  const onSignal = () => void s.stop().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await s.start();
    log(`started nats-server and two replicas of ${[...SERVICES, 'gateway'].join(', ')} (${REPO_ROOT})`);
    const watchers = s.watchers(opts.watchers);
    // The watchers list (an empty pool) and settle before the capacity is measured.
    await sleep(5_000);
    const capacity = await s.capacity(10_000);
    const rate = Math.max(1, Math.round(capacity / 2));
    log(`capacity ${capacity.toFixed(0)} writes/s with ${opts.watchers} watchers; soaking at ${rate} writes/s for ${(opts.durationMs / 60_000).toFixed(1)} min`);
    const load = s.load(rate);

    const rolling = await rollingRestart(s, log);
    if (!rolling.ok) ok = false;

    // The soak: the warm-up is the first third, and at least until the gateways' watch windows are full.
    const end = Date.now() + Math.max(opts.durationMs - (Date.now() - t0), 60_000);
    const warmUntil = Math.max(t0 + opts.durationMs / 3, rolling.rollingDone + WINDOW_FILL_MS);
    const samples = await sampleSteadyLoad(s, log, watchers, { end, warmUntil });
    s.stopped = true;
    await load;
    watchers.stop();

    if (!(await judgeRequests(s, log))) ok = false;
    if (!judgeGrowth(samples, warmUntil, t0, log)) ok = false;
    log(`warnings and errors logged: ${s.warnings.size === 0 ? 'none' : [...s.warnings].map(([k, v]) => `${k} ×${v}`).join('; ')}`);
    log(ok ? 'soak passed' : 'soak FAILED');
  } finally {
    await s.stop();
  }
  return ok;
}

if (isEntryPoint(import.meta.url)) {
  soak(parseArgs(process.argv.slice(2))).then(
    (ok) => process.exit(ok ? 0 : 1),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
