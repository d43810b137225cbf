// Every service started the way a user starts it — `services/<name>/main.ts` as a process, with
// only the flags it cannot start without — against a real nats-server. The other suites build the
// services in-process with hand-picked options; this one is what catches a default that breaks at
// run time (issue 9: the storage's '60s' purge interval became NaN and the idle service opened a
// consumer every millisecond, taking nats-server to 1.2 GB).

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { natsStorage } from '../../shared/bus/storage-client.js';
import { ServiceName } from '../../shared/bus/subjects.js';
import { freePort } from '../../shared/local/nats-server.js';
import { startTestNats, type TestNats } from '../support/nats.js';
import { cleanEnv, exitWithin, spawnProcess, tail, type Proc } from '../support/processes.js';
import { configMap, sleep } from './helpers.js';
import type { ObjectRef } from '../../shared/api/types.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The bucket every service uses by default, and the stream behind it. */
const STREAM = 'KV_objects';
const START_TIMEOUT_MS = 30_000;
/** serveUntilSignalled forces an exit after 5 s; a clean stop must come well before that. */
const STOP_TIMEOUT_MS = 4_500;

type Backend = keyof typeof ServiceName;

function startService(name: Backend | 'gateway', natsUrl: string, flags: string[] = [], ipc = false): Proc {
  return spawnProcess(['--import', 'tsx', `services/${name}/main.ts`, `--nats-url=${natsUrl}`, ...flags], { cwd: root, env: cleanEnv(), ipc });
}

async function ping(nc: NatsConnection, proc: Proc, service: string): Promise<{ name: string }> {
  const until = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`${service} exited with code ${proc.child.exitCode}:\n${tail(proc.output())}`);
    try {
      return (await nc.request(`$SRV.PING.${service}`, undefined, { timeout: 500 })).json<{ name: string }>();
    } catch (err) {
      if (Date.now() > until) throw new Error(`${service} did not answer $SRV.PING within ${START_TIMEOUT_MS} ms:\n${tail(proc.output())}`, { cause: err });
      await sleep(200);
    }
  }
}

function httpGet(url: string, token?: string, method = 'GET'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    // No keep-alive: an open connection would hold up the gateway's graceful stop.
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    if (method === 'POST') headers['content-type'] = 'application/json';
    const req = http.request(url, { method, agent: false, timeout: 2_000, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(method === 'POST' ? JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'anonymous-was-here' } }) : undefined);
  });
}

async function consumerCount(jsm: JetStreamManager): Promise<number> {
  return (await jsm.streams.info(STREAM)).state.consumer_count;
}

async function assertStopsOnSigterm(name: string, proc: Proc): Promise<void> {
  const t0 = Date.now();
  proc.child.kill('SIGTERM');
  const status = await exitWithin(proc, STOP_TIMEOUT_MS);
  console.log(`${name}: SIGTERM → ${status ? `exit ${status.signal ?? status.code} after ${Date.now() - t0} ms` : 'still running'}`);
  assert.ok(status, `${name} still runs ${STOP_TIMEOUT_MS} ms after SIGTERM:\n${tail(proc.output())}`);
  assert.deepEqual(status, { code: 0, signal: null }, `${name} exit status after SIGTERM:\n${tail(proc.output())}`);
}

describe('entry points with default options', { timeout: 150_000 }, () => {
  let nats: TestNats;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  const procs = new Map<Backend | 'gateway', Proc>();
  const extra: Proc[] = [];
  let port = 0;

  before(async () => {
    nats = await startTestNats();
    nc = await nats.connect('entry-points-test');
    jsm = await jetstreamManager(nc, { checkAPI: false });
  });
  after(async () => {
    for (const p of [...procs.values(), ...extra]) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await nats?.stop();
  });

  test('entry points - storage starts with its defaults, answers $SRV.PING, and after a write and a delete idle opens no consumers', async () => {
    const storage = startService('storage', nats.url);
    procs.set('storage', storage);
    const info = await ping(nc, storage, ServiceName.storage);
    assert.equal(info.name, ServiceName.storage);

    // A compaction pass over an empty bucket opens no consumer: give it an object and a delete marker.
    const ref: ObjectRef = { group: '', resource: 'configmaps', namespace: 'default', name: 'entry-points' };
    const storageClient = natsStorage(nc);
    await storageClient.create(ref, { ...configMap(ref.name, { a: '1' }), metadata: { name: ref.name, namespace: 'default' } });
    await storageClient.delete(ref);

    // Idle for ~5 s. A purge timer spinning on a NaN interval opens a consumer per pass (thousands
    // here); a healthy one opens one a minute (left to expire), so at most one more may show.
    const counts = [await consumerCount(jsm)];
    for (let i = 0; i < 5; i++) {
      await sleep(1_000);
      counts.push(await consumerCount(jsm));
    }
    console.log(`storage idle: ${STREAM} consumer count every second: ${counts.join(', ')}`);
    assert.ok(storage.child.exitCode === null, `storage exited:\n${tail(storage.output())}`);
    assert.ok(Math.max(...counts) <= 3, `consumer count should stay small: ${counts.join(', ')}`);
    assert.ok(counts.at(-1)! <= counts[0]! + 1, `consumer count grew while idle: ${counts.join(', ')}`);
  });

  test('entry points - authn, authz and admission start with their defaults and answer $SRV.PING', async () => {
    const names = ['authn', 'authz', 'admission'] as const;
    for (const name of names) procs.set(name, startService(name, nats.url));
    for (const name of names) {
      const info = await ping(nc, procs.get(name)!, ServiceName[name]);
      assert.equal(info.name, ServiceName[name]);
    }
  });

  test('entry points - with every default (anonymous-auth on, AlwaysAllow) no anonymous request gets through: 401, as upstream turns anonymous off under AlwaysAllow', async () => {
    port = await freePort();
    const gateway = startService('gateway', nats.url, [`--secure-port=${port}`]);
    procs.set('gateway', gateway);
    await gateway.waitFor(/gateway serving/, START_TIMEOUT_MS);
    for (const [method, p] of [
      ['GET', '/livez'],
      ['GET', '/api/v1/namespaces'],
      ['POST', '/api/v1/namespaces'],
    ] as const) {
      const r = await httpGet(`http://127.0.0.1:${port}${p}`, undefined, method);
      assert.equal(r.status, 401, `${method} ${p}: ${r.body}`);
      assert.deepEqual(JSON.parse(r.body), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    }
  });

  test('entry points - the gateway with only --secure-port serves plain HTTP: /livez, then /readyz once it sees every service', async () => {
    // Credentials are the one thing added: without anonymous access no one else gets an answer.
    const dir = await mkdtemp(path.join(os.tmpdir(), 'entry-points-'));
    const token = randomBytes(16).toString('hex');
    await writeFile(path.join(dir, 'tokens.csv'), `${token},admin,admin,"system:masters"\n`);
    const defaultAuthn = procs.get('authn')!;
    defaultAuthn.child.kill('SIGTERM');
    assert.ok(await exitWithin(defaultAuthn, STOP_TIMEOUT_MS), tail(defaultAuthn.output()));
    const authn = startService('authn', nats.url, [`--token-auth-file=${path.join(dir, 'tokens.csv')}`]);
    procs.set('authn', authn);
    await ping(nc, authn, ServiceName.authn);
    const livez = await httpGet(`http://127.0.0.1:${port}/livez`, token);
    assert.equal(livez.status, 200, livez.body);
    // /readyz pings every backend over NATS and needs the watch cache synced from the bucket: the
    // gateway's proof that it joined NATS (it is no $SRV service itself).
    const until = Date.now() + START_TIMEOUT_MS;
    let readyz = await httpGet(`http://127.0.0.1:${port}/readyz?verbose`, token);
    while (readyz.status !== 200 && Date.now() < until) {
      await sleep(250);
      readyz = await httpGet(`http://127.0.0.1:${port}/readyz?verbose`, token);
    }
    assert.equal(readyz.status, 200, readyz.body);
    await rm(dir, { recursive: true, force: true });
  });

  test('entry points - SIGTERM stops each service with exit code 0 within a few seconds', async () => {
    // Reverse start order, as `npm start` stops them.
    for (const name of ['gateway', 'authn', 'authz', 'admission', 'storage'] as const) {
      const p = procs.get(name);
      assert.ok(p, `${name} was not started`);
      await assertStopsOnSigterm(name, p);
    }
  });

  test('entry points - a service started with an IPC channel exits by itself when the parent closes it', async () => {
    const storage = startService('storage', nats.url, [], true);
    extra.push(storage);
    await ping(nc, storage, ServiceName.storage);
    const t0 = Date.now();
    storage.child.disconnect();
    const status = await exitWithin(storage, STOP_TIMEOUT_MS);
    console.log(`storage: IPC channel closed → ${status ? `exit ${status.signal ?? status.code} after ${Date.now() - t0} ms` : 'still running'}`);
    assert.ok(status, `storage still runs ${STOP_TIMEOUT_MS} ms after its parent closed the IPC channel:\n${tail(storage.output())}`);
    assert.deepEqual(status, { code: 0, signal: null }, tail(storage.output()));
  });
});
