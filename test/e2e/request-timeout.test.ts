// The request deadline (`--request-timeout`, `?timeout=`), with every service a real process as a
// user starts it: a write whose storage service has stopped answering (SIGSTOP: its subscriptions
// stay, no reply ever comes) is answered 504 with upstream's Timeout Status when the deadline
// passes, not after each hop has waited out its own timeout. No hop of the request is sent once
// the deadline has passed (watched on the bus), a hop's late answer is not acted on, and a
// consistent read whose cache cannot catch up ends at the deadline too.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { ServiceName, SubjectGroup, Subjects } from '../../shared/bus/subjects.js';
import { freePort } from '../../shared/local/nats-server.js';
import { startTestNats, type TestNats } from '../support/nats.js';
import { cleanEnv, exitWithin, spawnProcess, tail, type Proc } from '../support/processes.js';
import { configMap, eventually, sleep } from './helpers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const START_TIMEOUT_MS = 30_000;
const WRITE_TIMEOUT = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
  reason: 'Timeout',
  details: {},
  code: 504,
};
const READ_TIMEOUT = { ...WRITE_TIMEOUT, message: 'Timeout: request did not complete within the allotted timeout' };
/** The bucket's stream; a subject added to it takes a sequence no bucket watch delivers. */
const STREAM = 'KV_objects';
const STALL_SUBJECT = 'request-timeout-test.stall';

/** JSON bodies decoded; text (health checks) as it is. */
function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

interface Answer {
  status: number;
  body: unknown;
  text: string;
  ms: number;
}

/** A request seen on the bus: its subject, when (performance.now()), and its body. */
interface BusRequest {
  subject: string;
  at: number;
  text: string;
}

describe('request deadline', { timeout: 120_000 }, () => {
  let nats: TestNats;
  let nc: NatsConnection;
  let dir: string;
  let port: number;
  const token = randomBytes(16).toString('hex');
  const procs: Proc[] = [];
  let storage: Proc;
  let admission: Proc;
  // Every storage and admission request any service sends, as a monitor connection sees it.
  const bus: BusRequest[] = [];
  const sentFor = (name: string, subjectPrefix: string) => bus.filter((r) => r.subject.startsWith(subjectPrefix) && r.text.includes(`"name":"${name}"`));

  const start = (name: string, flags: string[] = []): Proc => {
    const p = spawnProcess(['--import', 'tsx', `services/${name}/main.ts`, `--nats-url=${nats.url}`, ...flags], { cwd: root, env: cleanEnv() });
    procs.push(p);
    return p;
  };

  const send = (method: string, p: string, body?: unknown): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const t0 = performance.now();
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const req = http.request(`http://127.0.0.1:${port}${p}`, { method, agent: false, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: parse(text), text, ms: performance.now() - t0 }));
      });
      req.on('error', reject);
      req.setTimeout(20_000, () => req.destroy(new Error(`${method} ${p}: no answer in 20 s`)));
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });

  before(async () => {
    nats = await startTestNats();
    nc = await nats.connect('request-timeout-test');
    const decoder = new TextDecoder();
    for (const subject of [`${SubjectGroup.storage}.>`, Subjects.admissionAdmit]) {
      nc.subscribe(subject, { callback: (_, m) => void bus.push({ subject: m.subject, at: performance.now(), text: decoder.decode(m.data) }) });
    }
    await nc.flush();
    dir = await mkdtemp(path.join(os.tmpdir(), 'request-timeout-'));
    await writeFile(path.join(dir, 'tokens.csv'), `${token},admin,admin,"system:masters"\n`);
    storage = start('storage');
    start('authn', [`--token-auth-file=${path.join(dir, 'tokens.csv')}`]);
    start('authz');
    admission = start('admission');
    for (const name of [ServiceName.storage, ServiceName.authn, ServiceName.authz, ServiceName.admission]) {
      const until = Date.now() + START_TIMEOUT_MS;
      for (;;) {
        try {
          await nc.request(`$SRV.PING.${name}`, undefined, { timeout: 500 });
          break;
        } catch (err) {
          if (Date.now() > until) throw new Error(`${name} did not start:\n${procs.map((p) => tail(p.output(), 10)).join('\n')}`, { cause: err });
          await sleep(200);
        }
      }
    }
    port = await freePort();
    const gateway = start('gateway', [`--secure-port=${port}`, '--request-timeout=3s']);
    await gateway.waitFor(/gateway serving/, START_TIMEOUT_MS);
    const until = Date.now() + START_TIMEOUT_MS;
    while ((await send('GET', '/readyz')).status !== 200) {
      if (Date.now() > until) throw new Error(`the gateway did not get ready:\n${tail(gateway.output())}`);
      await sleep(250);
    }
  });
  after(async () => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await nc?.close();
    await nats?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const cm = (name: string) => ({ ...configMap(name, { a: '1' }), metadata: { name } });

  test('request deadline - a malformed ?timeout= is 400 in upstream words; a good one leaves a healthy write alone', async () => {
    const bad = await send('POST', '/api/v1/namespaces/default/configmaps?timeout=abc', cm('bad-timeout'));
    assert.equal(bad.status, 400);
    assert.equal((bad.body as { message: string }).message, 'invalid timeout specified in the request URL - time: invalid duration "abc"');
    const fine = await send('POST', '/api/v1/namespaces/default/configmaps?timeout=10s', cm('in-time'));
    assert.equal(fine.status, 201, JSON.stringify(fine.body));
  });

  test('request deadline - with the storage service stopped, ?timeout=1s is 504 after about 1 s; without it --request-timeout (3s) bounds the write', async () => {
    storage.child.kill('SIGSTOP');
    try {
      const quick = await send('POST', '/api/v1/namespaces/default/configmaps?timeout=1s', cm('stuck-1'));
      console.log(`?timeout=1s with storage stopped: ${quick.status} after ${Math.round(quick.ms)} ms`);
      assert.equal(quick.status, 504, JSON.stringify(quick.body));
      assert.deepEqual(quick.body, WRITE_TIMEOUT);
      assert.ok(quick.ms >= 950 && quick.ms < 2_000, `answered after ${quick.ms} ms`);
      // Longer than the server allows: capped at --request-timeout (3s), under the 5 s a hop would wait.
      const capped = await send('POST', '/api/v1/namespaces/default/configmaps?timeout=30s', cm('stuck-2'));
      console.log(`?timeout=30s under --request-timeout=3s: ${capped.status} after ${Math.round(capped.ms)} ms`);
      assert.equal(capped.status, 504);
      assert.deepEqual(capped.body, WRITE_TIMEOUT);
      assert.ok(capped.ms >= 2_950 && capped.ms < 4_500, `answered after ${capped.ms} ms`);
    } finally {
      storage.child.kill('SIGCONT');
    }
  });

  test('request deadline - a create whose storage hop outlives the deadline: 504 at it, no storage request after it, and once storage resumes the write lands once', async () => {
    const name = 'lands-late';
    const before = await send('GET', '/api/v1/namespaces/default/configmaps');
    assert.equal(before.status, 200);
    const rv = (before.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    storage.child.kill('SIGSTOP');
    const stoppedAt = performance.now();
    let deadlineAt: number;
    try {
      const sentAt = performance.now();
      deadlineAt = sentAt + 1_000;
      const r = await send('POST', '/api/v1/namespaces/default/configmaps?timeout=1s', cm(name));
      assert.equal(r.status, 504, JSON.stringify(r.body));
      assert.deepEqual(r.body, WRITE_TIMEOUT);
      assert.ok(r.ms >= 950 && r.ms < 2_000, `answered after ${r.ms} ms`);
      // Storage stays stopped for 3 s: a hop sent meanwhile would be seen on the bus.
      await sleep(Math.max(0, stoppedAt + 3_000 - performance.now()));
    } finally {
      storage.child.kill('SIGCONT');
    }
    const sent = sentFor(name, SubjectGroup.storage);
    assert.deepEqual(
      sent.map((m) => m.subject),
      [Subjects.storageCreate],
      'one storage request, the create',
    );
    assert.ok(sent[0]!.at < deadlineAt, `the create was sent ${Math.round(sent[0]!.at - deadlineAt)} ms after the deadline`);
    // As upstream: a write whose deadline passed after it was sent may still land, once.
    const landed = await eventually(
      'the create lands once storage resumes',
      async () => {
        const got = await send('GET', `/api/v1/namespaces/default/configmaps/${name}`);
        assert.equal(got.status, 200, JSON.stringify(got.body));
        return got.body as { metadata: { resourceVersion: string } };
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    const events = await send('GET', `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3D${name}&timeoutSeconds=2`);
    const seen = events.text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; object: { metadata: { resourceVersion: string } } });
    assert.deepEqual(
      seen.map((e) => [e.type, e.object.metadata.resourceVersion]),
      [['ADDED', landed.metadata.resourceVersion]],
      'written once, never again',
    );
    assert.equal(sentFor(name, SubjectGroup.storage).length, 1, 'no storage request after storage resumed either');
  });

  test('request deadline - admission answering after the deadline (within its own hop timeout) is not acted on: no further hop is sent', async () => {
    // Pods are admitted by the admission service (their service account); with it answering, a pod is created.
    const sa = await send('POST', '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
    assert.ok(sa.status === 201 || sa.status === 409, JSON.stringify(sa.body));
    const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    const inTime = await send('POST', '/api/v1/namespaces/default/pods?timeout=10s', pod('admitted-in-time'));
    assert.equal(inTime.status, 201, JSON.stringify(inTime.body));
    assert.ok(sentFor('admitted-in-time', Subjects.admissionAdmit).length >= 1, 'admission is asked for a pod');
    const name = 'admitted-late';
    admission.child.kill('SIGSTOP');
    let r: Answer;
    const deadlineAt = performance.now() + 1_000;
    try {
      r = await send('POST', '/api/v1/namespaces/default/pods?timeout=1s', pod(name));
      // Resumed before the 5 s a hop waits without a deadline: a hop still waiting would now get its answer.
      await sleep(1_000);
    } finally {
      admission.child.kill('SIGCONT');
    }
    assert.equal(r.status, 504, JSON.stringify(r.body));
    assert.deepEqual(r.body, WRITE_TIMEOUT);
    assert.ok(r.ms >= 950 && r.ms < 2_000, `answered after ${r.ms} ms`);
    // Past the hop's own 5 s: the write went no further, not even to its validating phase.
    await sleep(5_000);
    const admitted = sentFor(name, Subjects.admissionAdmit);
    assert.deepEqual(
      admitted.map((m) => (JSON.parse(m.text) as { phase: string }).phase),
      ['mutating'],
      'admission was asked once, for the mutating phase, before the deadline',
    );
    assert.ok(admitted[0]!.at < deadlineAt, `admission was asked ${Math.round(admitted[0]!.at - deadlineAt)} ms after the deadline`);
    assert.deepEqual(sentFor(name, SubjectGroup.storage), [], 'no storage request');
    assert.equal((await send('GET', `/api/v1/namespaces/default/pods/${name}`)).status, 404);
  });

  test('request deadline - a consistent list and get whose cache cannot catch up (the feed stalled) are 504 at the deadline', async () => {
    const jsm = await jetstreamManager(nc);
    const { subjects } = (await jsm.streams.info(STREAM)).config;
    // A sequence the bucket watch never delivers: the stream's last revision runs ahead of the cache.
    await jsm.streams.update(STREAM, { subjects: [...subjects, STALL_SUBJECT] });
    try {
      await jetstream(nc).publish(STALL_SUBJECT, 'stall');
      const quick = await send('GET', '/api/v1/namespaces/default/configmaps?timeout=1s');
      console.log(`consistent list, feed stalled, ?timeout=1s: ${quick.status} after ${Math.round(quick.ms)} ms`);
      assert.equal(quick.status, 504, JSON.stringify(quick.body));
      assert.deepEqual(quick.body, READ_TIMEOUT);
      assert.ok(quick.ms >= 950 && quick.ms < 2_000, `answered after ${quick.ms} ms`);
      const one = await send('GET', '/api/v1/namespaces/default/configmaps/in-time?timeout=1s');
      assert.equal(one.status, 504, JSON.stringify(one.body));
      assert.deepEqual(one.body, READ_TIMEOUT);
      // The cache's own wait (5 s) is longer than --request-timeout (3s): the request's deadline ends it.
      const capped = await send('GET', '/api/v1/namespaces/default/configmaps');
      assert.equal(capped.status, 504);
      assert.deepEqual(capped.body, READ_TIMEOUT);
      assert.ok(capped.ms >= 2_950 && capped.ms < 4_500, `answered after ${capped.ms} ms`);
      // A read that does not ask for the latest state is served from the cache as it is.
      assert.equal((await send('GET', '/api/v1/namespaces/default/configmaps?resourceVersion=0&timeout=1s')).status, 200);
    } finally {
      // A write the watch delivers takes the cache past the stalled sequence.
      assert.equal((await send('POST', '/api/v1/namespaces/default/configmaps', cm('unstall'))).status, 201);
      await jsm.streams.purge(STREAM, { filter: STALL_SUBJECT });
      await jsm.streams.update(STREAM, { subjects });
    }
    const after = await send('GET', '/api/v1/namespaces/default/configmaps?timeout=1s');
    assert.equal(after.status, 200, JSON.stringify(after.body));
  });

  test('request deadline - --request-timeout of 0 or less is refused at start with a clear message', async () => {
    for (const [value, message] of [
      ['0s', /--request-timeout must be positive/],
      ['-1s', /--request-timeout: "-1s" can not be negative value/],
    ] as const) {
      const p = start('gateway', [`--secure-port=${await freePort()}`, `--request-timeout=${value}`]);
      const exit = await exitWithin(p, 20_000);
      assert.equal(exit?.code, 2, `--request-timeout=${value}: ${tail(p.output())}`);
      assert.match(p.output(), message);
    }
  });
});
