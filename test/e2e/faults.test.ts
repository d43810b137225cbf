// The fault suite: every service run as users run it (services/<name>/main.ts as processes, their
// defaults) under a steady write load with a watcher, each killed with SIGKILL in turn while it is
// the only replica. While none is left the client gets clear 503/504 Status answers (never a hang,
// never another code); once it is started again writes succeed; no acknowledged write is missing
// afterwards; and the watcher, resuming from its last resourceVersion (relisting on 410), ends with
// exactly the stored state: a gap would show as a missing or stale object.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../shared/local/nats-server.js';
import { startTestNats, type TestNats } from '../support/nats.js';
import { cleanEnv, spawnProcess, tail, type Proc } from '../support/processes.js';
import { sleep } from './helpers.js';
import { Informer } from '../support/write-load.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SERVICES = ['storage', 'authn', 'authz', 'admission', 'gateway'] as const;
type Service = (typeof SERVICES)[number];
const NS = 'default';
const CM = `/api/v1/namespaces/${NS}/configmaps`;

interface Reply {
  status: number;
  body: string;
}

describe('faults: each service killed while it is the only replica', { timeout: 240_000 }, () => {
  let nats: TestNats;
  let dir: string;
  let port: number;
  const token = randomBytes(16).toString('hex');
  const procs = new Map<Service, Proc>();
  const url = () => `http://127.0.0.1:${port}`;

  const send = (method: string, p: string, body?: unknown, timeoutMs = 20_000): Promise<Reply> =>
    new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = http.request(
        url() + p,
        { method, agent: false, timeout: timeoutMs, headers: { authorization: `Bearer ${token}`, ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}) } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${p} hung for ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(data);
    });

  const flags = (name: Service): string[] => {
    switch (name) {
      case 'authn':
        return [`--token-auth-file=${path.join(dir, 'tokens.csv')}`];
      case 'gateway':
        return [`--secure-port=${port}`];
      default:
        return [];
    }
  };

  async function start(name: Service): Promise<void> {
    const p = spawnProcess(['--import', 'tsx', `services/${name}/main.ts`, `--nats-url=${nats.url}`, ...flags(name)], { cwd: root, env: cleanEnv() });
    procs.set(name, p);
    if (name === 'gateway') await p.waitFor(/gateway serving/, 60_000);
    else await p.waitFor(/service started/, 60_000);
  }

  async function kill(name: Service): Promise<void> {
    const p = procs.get(name)!;
    p.child.kill('SIGKILL');
    await p.exited;
  }

  /** Waits until a write goes through again (the restarted service answers). */
  async function writable(tag: string): Promise<void> {
    for (let until = Date.now() + 60_000; ; await sleep(250)) {
      const r = await send('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: `probe-${tag}-` } }).catch(() => null);
      if (r?.status === 201) return;
      if (Date.now() > until) throw new Error(`no write succeeded after ${tag} came back: ${r?.status} ${r?.body}\n${tail(procs.get(tag as Service)?.output() ?? '')}`);
    }
  }

  before(async () => {
    nats = await startTestNats();
    dir = await mkdtemp(path.join(os.tmpdir(), 'platform-faults-'));
    await writeFile(path.join(dir, 'tokens.csv'), `${token},admin,admin-uid,"system:masters"\n`);
    port = await freePort();
    await start('storage');
    await Promise.all((['authn', 'authz', 'admission'] as const).map(start));
    await start('gateway');
    await writable('start');
  });

  after(async () => {
    for (const p of procs.values()) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all([...procs.values()].map((p) => p.exited));
    await nats?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('clear 503/504 while a service is gone, recovery after restart, nothing acknowledged lost, no silent watch gap', async () => {
    const acked = new Map<string, string>(); // name → resourceVersion acknowledged
    const outage: number[] = [];
    let stop = false;

    // A watcher as an informer runs it: list, watch from the list's version, resume from the
    // last event's version after a broken connection, relist after 410.
    const watcher = new Informer({ url: url(), token }, CM);

    const writers = [0, 1, 2].map(async (w) => {
      for (let i = 0; !stop; i++) {
        const name = `w${w}-${i}`;
        const r = await send('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { i: String(i) } }).catch((err: Error) => ({ status: -1, body: err.message }));
        if (r.status === 201) acked.set(name, JSON.parse(r.body).metadata.resourceVersion);
        else {
          outage.push(r.status);
          // Connection refused while the gateway is gone: the client backs off.
          await sleep(r.status === -1 ? 200 : 50);
        }
      }
    });

    for (const name of SERVICES) {
      const before = acked.size;
      await sleep(700);
      await kill(name);
      await sleep(1_500);
      await start(name);
      await writable(name);
      await sleep(500);
      assert.ok(acked.size > before, `writes were acknowledged around the ${name} outage`);
    }
    stop = true;
    await Promise.all(writers);
    const final = JSON.parse((await send('GET', CM)).body);
    for (let until = Date.now() + 15_000; Number(watcher.rv) < Number(final.metadata.resourceVersion) && Date.now() < until;) await sleep(100);
    await watcher.stop();

    // Every failure was a clear retryable answer: 503/504 from the gateway, or no connection while it was down.
    const unexpected = outage.filter((s) => ![503, 504, -1].includes(s));
    assert.deepEqual(unexpected, [], `unexpected answers during outages: ${outage.join(',')}`);
    assert.ok(outage.length > 0, 'the outages were noticed');

    const stored = new Map<string, string>(final.items.map((o: any) => [o.metadata.name, o.metadata.resourceVersion]));
    for (const [name, rv] of acked) assert.equal(stored.get(name), rv, `acknowledged ${name} is stored at its acknowledged version`);

    // The watcher's view matches what is stored as of its last event (all writes have stopped).
    const watched = [...watcher.seen].filter(([n]) => !n.startsWith('probe-')).sort();
    const expected = [...stored].filter(([n]) => !n.startsWith('probe-')).sort();
    assert.deepEqual(watched, expected, 'the watcher ends with the stored state');
    console.log(`faults: ${acked.size} writes acknowledged, ${outage.length} refused during outages (${[...new Set(outage)].join(',')}), watcher relisted ${watcher.relists - 1} time(s)`);
  });
});
