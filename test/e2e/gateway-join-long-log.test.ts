// A gateway joining a system whose change log is long (issue 35 §5): it is ready once the bucket's
// state is loaded, not once its watch window is rebuilt from the log, and serves consistent reads
// at once; a watch from a revision older than its start, and an Exact list at one, opened while the
// window is still being rebuilt wait for it and then get every change since (no 410). The services
// run as processes with their defaults. The log's long past (create/delete pairs of filler objects,
// at revisions the bucket's stream was moved past before storage started) is published as storage
// publishes its entries; the recent changes are real writes through a first gateway.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { freePort } from '../../shared/local/nats-server.js';
import { startTestNats, type TestNats } from '../support/nats.js';
import { tail, type Proc } from '../support/processes.js';
import { ServiceSet } from '../support/service-set.js';
import { plainRequest, type PlainReply } from '../support/plain-http.js';
import { openObjectBucket } from '../../shared/store/kv-bucket.js';
import { ensureChangeLog, logChange, prevHeader } from '../../shared/store/change-log.js';
import { encodeKey } from '../../shared/store/key-codec.js';
import { changeLogStream, streamName } from '../../shared/bus/streams.js';
import { DEFAULT_BUCKET } from '../../shared/api/groups.js';
import { sleep, uniq } from './helpers.js';

/** Filler writes in the log before the recent ones: long enough that reading it takes the joining gateway seconds. */
const FILLER = 400_000;
const RESTORED = /watch window restored from the change log/;
const cmPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

type Reply = PlainReply;

/** The log's long past: `FILLER` writes at revisions 1.. (a create and a delete of each filler object), none of them in the bucket. */
async function fillLog(nc: NatsConnection): Promise<void> {
  await openObjectBucket(nc, { bucket: DEFAULT_BUCKET, create: true });
  await ensureChangeLog(nc, DEFAULT_BUCKET, { windowMs: 5 * 60_000, replicas: 1 });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.purge(streamName(DEFAULT_BUCKET), { seq: FILLER + 1 });
  const body = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'filler', namespace: 'filler' }, data: { v: 'x'.repeat(200) } }));
  for (let r = 1; r <= FILLER; r += 2) {
    const key = encodeKey({ group: '', resource: 'configmaps', namespace: 'filler', name: `f${r}` });
    logChange(nc, DEFAULT_BUCKET, { key, revision: r, data: body, replaced: prevHeader(null) });
    logChange(nc, DEFAULT_BUCKET, { key, revision: r + 1, data: new Uint8Array(), replaced: prevHeader({ revision: r }), operation: 'DEL' });
    if (r % 5_000 === 1) await nc.flush();
  }
  await nc.flush();
  for (let until = Date.now() + 60_000; (await jsm.streams.info(changeLogStream(DEFAULT_BUCKET))).state.messages < FILLER; await sleep(200)) {
    if (Date.now() > until) throw new Error('the change log did not take the filler writes');
  }
}

describe('a gateway joining a long change log is ready before its window is rebuilt', { timeout: 240_000 }, () => {
  let nats: TestNats;
  let nc: NatsConnection;
  const token = randomBytes(16).toString('hex');
  let services: ServiceSet | undefined;
  const ns = uniq('join');

  const send = (port: number, method: string, p: string, body?: unknown, contentType = 'application/json'): Promise<Reply> => plainRequest(port, token, method, p, body, contentType, 60_000);
  const ok = async (r: Promise<Reply>, code = 200): Promise<any> => {
    const res = await r;
    assert.equal(res.status, code, res.body.slice(0, 400));
    return res.json;
  };

  const startService = (name: string, args: string[], ready: RegExp): Promise<Proc> => services!.start(name, args, ready);

  /** A watch's events as `TYPE name@rv v=…` lines, pushed as they arrive. */
  function watchLines(port: number, p: string): { lines: string[]; status: Promise<number>; close(): void } {
    const lines: string[] = [];
    let buf = '';
    let res: http.IncomingMessage | undefined;
    const req = http.get(`http://127.0.0.1:${port}${p}`, { agent: false, headers: { authorization: `Bearer ${token}` } });
    const status = new Promise<number>((resolve, reject) => {
      req.on('response', (r) => {
        res = r;
        resolve(r.statusCode ?? 0);
        r.setEncoding('utf8');
        r.on('data', (chunk: string) => {
          buf += chunk;
          for (let i; (i = buf.indexOf('\n')) >= 0; buf = buf.slice(i + 1)) {
            const e = JSON.parse(buf.slice(0, i));
            lines.push(e.type === 'ERROR' ? `ERROR ${e.object.code}` : `${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion} v=${e.object.data?.v}`);
          }
        });
        r.on('error', () => undefined);
      });
      req.on('error', reject);
    });
    return { lines, status, close: () => (req.destroy(), res?.destroy()) };
  }

  let portA: number;
  let portB: number;
  let gatewayB: Proc;
  /** The state of the namespace at R0, and every change after it as a watch from R0 shows it. */
  let r0 = 0;
  let state0: string[] = [];
  const changes: string[] = [];

  const line = (type: string, o: any) => `${type} ${o.metadata.name}@${o.metadata.resourceVersion} v=${o.data?.v}`;

  before(async () => {
    nats = await startTestNats();
    nc = await nats.connect('join-test');
    await fillLog(nc);
    [portA, portB] = [await freePort(), await freePort()];
    services = new ServiceSet(nats.url, token);
    await services.startBackends();
    await startService('gateway', [`--secure-port=${portA}`], /gateway serving/);
    await ok(send(portA, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }), 201);
    for (const n of ['a', 'b', 'c']) await ok(send(portA, 'POST', cmPath(ns), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n }, data: { v: '1' } }), 201);
    const list0 = await ok(send(portA, 'GET', cmPath(ns)));
    r0 = Number(list0.metadata.resourceVersion);
    state0 = list0.items.map((o: any) => `${o.metadata.name}@${o.metadata.resourceVersion}`);
    const a = await ok(send(portA, 'PATCH', `${cmPath(ns)}/a`, { data: { v: '2' } }, 'application/merge-patch+json'));
    changes.push(line('MODIFIED', a));
    const d = await ok(send(portA, 'POST', cmPath(ns), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'd' }, data: { v: '1' } }), 201);
    changes.push(line('ADDED', d));
    const b = await ok(send(portA, 'PATCH', `${cmPath(ns)}/b`, { data: { v: '2' } }, 'application/merge-patch+json'));
    changes.push(line('MODIFIED', b));
  });

  after(async () => {
    await services?.stop();
    await nc?.close();
    await nats?.stop();
  });

  it('ready and serving consistent reads before the window is rebuilt; a watch and an Exact list from an older revision wait for it, then get every change', async () => {
    gatewayB = await startService('gateway', [`--secure-port=${portB}`], /gateway serving/);
    const rebuilt = () => RESTORED.test(gatewayB.output());
    assert.equal((await send(portB, 'GET', '/readyz')).status, 200);
    assert.ok(!rebuilt(), `ready before the window is rebuilt:\n${tail(gatewayB.output(), 10)}`);
    // A consistent read at once: the state A wrote, and a write through B read back through B.
    const listed = await ok(send(portB, 'GET', cmPath(ns)));
    assert.deepEqual(
      listed.items.map((o: any) => `${o.metadata.name} v=${o.data.v}`),
      ['a v=2', 'b v=2', 'c v=1', 'd v=1'],
    );
    const e = await ok(send(portB, 'POST', cmPath(ns), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'e' }, data: { v: '1' } }), 201);
    changes.push(line('ADDED', e));
    assert.equal((await ok(send(portB, 'GET', `${cmPath(ns)}/e`))).metadata.resourceVersion, e.metadata.resourceVersion);
    // From an older revision, asked for while the window is still being rebuilt.
    const watch = watchLines(portB, `${cmPath(ns)}?watch=1&resourceVersion=${r0}`);
    const exact = send(portB, 'GET', `${cmPath(ns)}?resourceVersion=${r0}&resourceVersionMatch=Exact`);
    await sleep(200);
    assert.ok(!rebuilt(), `the reads from ${r0} were made during the rebuild (make FILLER larger if this machine reads the log faster):\n${tail(gatewayB.output(), 10)}`);
    try {
      assert.equal(await watch.status, 200);
      const exactList = await exact;
      assert.equal(exactList.status, 200, `Exact list at ${r0}: ${exactList.body.slice(0, 300)}`);
      // The gateway logs the rebuild before it answers the waiting reads, but its log comes through
      // a pipe of its own: the reply may be read here first.
      for (let until = Date.now() + 5_000; !rebuilt() && Date.now() < until;) await sleep(20);
      assert.ok(rebuilt(), 'answered once the window was rebuilt');
      assert.deepEqual(
        exactList.json.items.map((o: any) => `${o.metadata.name}@${o.metadata.resourceVersion}`),
        state0,
      );
      const f = await ok(send(portB, 'PATCH', `${cmPath(ns)}/c`, { data: { v: '2' } }, 'application/merge-patch+json'));
      changes.push(line('MODIFIED', f));
      for (let until = Date.now() + 10_000; watch.lines.length < changes.length && Date.now() < until;) await sleep(50);
      assert.deepEqual(watch.lines, changes, `the watch from ${r0}`);
      const restored = /"restored":(\d+)/.exec(
        gatewayB
          .output()
          .split('\n')
          .find((l) => RESTORED.test(l)) ?? '',
      );
      assert.ok(Number(restored?.[1]) >= FILLER, `the whole log is in the window: ${restored?.[0]}`);
    } finally {
      watch.close();
    }
  });
});
