// NATS security as `npm start` runs it (issue 15 §5): TLS required on every connection and one user
// per service with the permissions of shared/bus/permissions.ts. Each denial is proved against a
// real nats-server: a service holding another's credentials cannot answer that one's subjects,
// only storage may write the bucket, the gateway may not delete or purge its stream, a client
// without credentials or without TLS is turned away, and a server that verifies clients refuses
// one without a certificate. Then the whole system — storage, authn, authz, admission and gateway
// as the processes users run, each with only its own `--nats-*` flags — serves create, get, list
// and watch, and nats-server logs not a single permission violation while it does.

import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { nanos, type NatsConnection } from '@nats-io/nats-core';
import { NatsUser, STORE_MAX_CONSUMERS, type NatsUserRole } from '../../shared/bus/permissions.js';
import { ServiceName, SubjectGroup, Subjects, serviceSubjects } from '../../shared/bus/subjects.js';
import { freePort } from '../../shared/local/nats-server.js';
import { issueServingCert } from '../../shared/local/pki.js';
import { startSecureTestNats, type SecureTestNats } from '../support/nats.js';
import { cleanEnv, spawnProcess, tail, type Proc } from '../support/processes.js';
import { eventually, sleep } from './helpers.js';
import { ensureChangeLog, logChange, readChangeLog } from '../../shared/store/change-log.js';
import { changeLogStream, changeLogSubject } from '../../shared/bus/streams.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BUCKET = 'objects';
const STREAM = `KV_${BUCKET}`;
const SERVICES = ['storage', 'authn', 'authz', 'admission'] as const;

/** A ConfigMap as the storage service stores it, so the gateway started later reads the bucket as its own. */
function storedConfigMap(name: string): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', uid: `uid-${name}`, creationTimestamp: '2024-01-01T00:00:00Z' }, data: { from: 'storage' } });
}

/** Subscribes and reports how the server answered: undefined when allowed, else the violation's message. */
async function trySubscribe(nc: NatsConnection, subject: string, queue?: string): Promise<string | undefined> {
  const sub = nc.subscribe(subject, queue ? { queue } : {});
  // A permission violation closes the subscription with it; an allowed one stays open past a round trip.
  const outcome = await Promise.race([
    sub.closed.then((err) => (err instanceof Error ? err.message : 'closed')),
    nc
      .flush()
      .then(() => sleep(100))
      .then(() => undefined),
  ]);
  sub.unsubscribe();
  return outcome;
}

/** How the server took a request: refused by permissions, or let through (no responder here, or an answer). */
async function requestOutcome(nc: NatsConnection, subject: string, body = '{}'): Promise<'denied' | 'allowed'> {
  try {
    await nc.request(subject, body, { timeout: 1_000 });
    return 'allowed';
  } catch (err) {
    const text = `${(err as Error).message} ${String((err as { cause?: Error }).cause?.message ?? '')}`;
    return /Permissions Violation for Publish/i.test(text) ? 'denied' : 'allowed';
  }
}

const ALL_ROLES = ['storage', 'authn', 'authz', 'admission', 'gateway', 'monitor'] as const;
const READERS = ['authn', 'authz', 'admission', 'gateway'] as const;

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as Error).message;
  }
  assert.fail('expected a refusal');
}

describe('nats security', { timeout: 120_000 }, () => {
  let nats: SecureTestNats;
  let storage: NatsConnection;
  let kv: KV;

  before(async () => {
    nats = await startSecureTestNats({ bucket: BUCKET });
    storage = await nats.connectAs('storage');
    kv = await new Kvm(storage).create(BUCKET, { history: 1 });
    await kv.put('core.configmaps.default.seed', storedConfigMap('seed'));
  });
  after(async () => {
    await nats?.stop();
  });

  test("nats security - a service with another service's credentials cannot answer that service's subjects", async () => {
    for (const as of [...SERVICES, 'gateway'] as const) {
      const nc = await nats.connectAs(as);
      for (const other of SERVICES) {
        if (other === as) continue;
        const name = ServiceName[other];
        for (const [subject, queue] of [
          [`${SubjectGroup[other]}.>`, name],
          [`${SubjectGroup[other]}.${other === 'storage' ? 'create' : 'interest'}`, name],
          [serviceSubjects.ping(name), undefined],
          [`${serviceSubjects.info(name)}.someid`, undefined],
        ] as const) {
          const refused = await trySubscribe(nc, subject, queue);
          assert.match(refused ?? 'allowed', /Permissions Violation for Subscription/, `${NatsUser[as]} answering ${subject}`);
        }
      }
      // Nor may it read another user's replies.
      assert.match((await trySubscribe(nc, '_INBOX.>')) ?? 'allowed', /Permissions Violation/, `${NatsUser[as]} reading every inbox`);
      await nc.close();
    }
    assert.match(nats.log(), /Subscription Violation - User "platform-authn", Subject "platform\.v1\.storage\.>", Queue: "platform-storage"/);
    // Its own subjects it may answer.
    const authn = await nats.connectAs('authn');
    assert.equal(await trySubscribe(authn, `${SubjectGroup.authn}.authenticate`, ServiceName.authn), undefined);
    assert.equal(await trySubscribe(authn, serviceSubjects.ping(ServiceName.authn)), undefined);
  });

  test('nats security - only storage writes the bucket: every other user is refused a put on $KV.objects', async () => {
    const before = (await (await jetstreamManager(storage, { checkAPI: false })).streams.info(STREAM)).state.last_seq;
    for (const as of ['gateway', 'authn', 'authz', 'admission', 'monitor'] as const) {
      const nc = await nats.connectAs(as);
      const message = await failure(jetstream(nc).publish(`$KV.${BUCKET}.core.configmaps.default.${as}`, '{"forged":true}'));
      assert.match(message, new RegExp(`Permissions Violation for Publish to "\\$KV\\.${BUCKET}\\.core\\.configmaps\\.default\\.${as}"`), as);
      await nc.close();
    }
    // Readers bind to the bucket and watch it, but its put is refused just the same.
    const gw = await nats.connectAs('gateway');
    const bound = await new Kvm(gw).open(BUCKET, { bindOnly: true });
    assert.match(await failure(bound.put('core.configmaps.default.x', '{}')), /Permissions Violation for Publish/);
    const after = (await (await jetstreamManager(storage, { checkAPI: false })).streams.info(STREAM)).state.last_seq;
    assert.equal(after, before, 'nothing reached the stream');
    // Storage itself may.
    assert.ok((await kv.put('core.configmaps.default.by-storage', storedConfigMap('by-storage'))) > before);
  });

  test('nats security - the gateway can read the stream but not delete it, purge it or change its configuration', async () => {
    const gw = await nats.connectAs('gateway');
    const jsm = await jetstreamManager(gw, { checkAPI: false });
    const info = await jsm.streams.info(STREAM);
    assert.ok(info.state.messages > 0);
    assert.match(await failure(jsm.streams.delete(STREAM)), /Permissions Violation for Publish to "\$JS\.API\.STREAM\.DELETE\.KV_objects"/);
    assert.match(await failure(jsm.streams.purge(STREAM)), /Permissions Violation for Publish to "\$JS\.API\.STREAM\.PURGE\.KV_objects"/);
    assert.match(await failure(jsm.streams.update(STREAM, { ...info.config, max_msgs_per_subject: 5 })), /Permissions Violation for Publish to "\$JS\.API\.STREAM\.UPDATE\.KV_objects"/);
    const bound = await new Kvm(gw).open(BUCKET, { bindOnly: true });
    assert.match(await failure(bound.purge('core.configmaps.default.seed')), /Permissions Violation for Publish/);
    assert.match(await failure(bound.destroy()), /Permissions Violation for Publish to "\$JS\.API\.STREAM\.DELETE/);
    // A stream of its own is refused too.
    assert.match(await failure(jsm.streams.add({ name: 'STOLEN', subjects: ['stolen.>'] })), /Permissions Violation for Publish to "\$JS\.API\.STREAM\.CREATE\.STOLEN"/);
    const still = await (await jetstreamManager(storage, { checkAPI: false })).streams.info(STREAM);
    assert.equal(still.state.messages, info.state.messages, 'the stream and its messages are intact');
    // What it may do: watch the bucket with an ordered consumer.
    const watch = await bound.watch({ key: 'core.configmaps.>' });
    const first = await watch[Symbol.asyncIterator]().next();
    assert.equal(first.done, false);
    watch.stop();
  });

  test('nats security - only storage writes the change log; the gateway reads it and cannot delete or purge it', async () => {
    await ensureChangeLog(storage, BUCKET, { windowMs: 60_000, replicas: 1 });
    const log = changeLogStream(BUCKET);
    logChange(storage, BUCKET, { key: 'core.configmaps.default.seed', revision: 1, data: Buffer.from(storedConfigMap('seed')), replaced: 'none' });
    const storageJsm = await jetstreamManager(storage, { checkAPI: false });
    await eventually('the entry is logged', async () => assert.equal((await storageJsm.streams.info(log)).state.messages, 1));
    for (const as of ['gateway', 'authn', 'authz', 'admission', 'monitor'] as const) {
      const nc = await nats.connectAs(as);
      const message = await failure(jetstream(nc).publish(changeLogSubject(BUCKET, 'core.configmaps.default.forged'), '{"forged":true}'));
      assert.match(message, /Permissions Violation for Publish to "platform\.changes\./, as);
      await nc.close();
    }
    const gw = await nats.connectAs('gateway');
    const read = await readChangeLog(gw, { bucket: BUCKET, through: 10 });
    assert.deepEqual(
      read.changes.map((c) => [c.key, c.revision, c.replaced]),
      [['core.configmaps.default.seed', 1, 'none']],
    );
    const jsm = await jetstreamManager(gw, { checkAPI: false });
    assert.match(await failure(jsm.streams.delete(log)), /Permissions Violation for Publish to "\$JS\.API\.STREAM\.DELETE\.CHANGES_objects"/);
    assert.match(await failure(jsm.streams.purge(log)), /Permissions Violation for Publish to "\$JS\.API\.STREAM\.PURGE\.CHANGES_objects"/);
    assert.equal((await storageJsm.streams.info(log)).state.messages, 1, "only storage's entry is there");
    assert.equal((await storageJsm.streams.info(log)).state.consumer_count, 0, 'the gateway deleted its reader');
    await gw.close();
  });

  test('nats security - each user may call exactly the endpoints its service uses and no other', async () => {
    // What each service calls, read from its code (services/*, shared/bus, the generic store):
    // the spec of this test, written out rather than taken from shared/bus/permissions.ts.
    const endpoints = [
      Subjects.storageCreate,
      Subjects.storageUpdate,
      Subjects.storageDelete,
      Subjects.storageGet,
      Subjects.authnAuthenticate,
      Subjects.authnInterest,
      Subjects.authnIssueToken,
      Subjects.authzAuthorize,
      Subjects.authzRules,
      Subjects.authzEscalation,
      Subjects.admissionAdmit,
      Subjects.admissionInterest,
      Subjects.admissionInterestChanged,
    ];
    const expected: Record<(typeof ALL_ROLES)[number], string[]> = {
      storage: [],
      authn: [Subjects.storageGet],
      authz: [Subjects.storageCreate, Subjects.storageUpdate, Subjects.storageDelete, Subjects.storageGet, Subjects.admissionAdmit, Subjects.admissionInterest],
      admission: [Subjects.storageCreate, Subjects.storageUpdate, Subjects.storageGet, Subjects.authzAuthorize, Subjects.admissionInterestChanged],
      gateway: endpoints.filter((s) => s !== Subjects.admissionInterestChanged),
      monitor: [],
    };
    const actual = {} as Record<(typeof ALL_ROLES)[number], string[]>;
    for (const as of ALL_ROLES) {
      const nc = await nats.connectAs(as);
      const outcomes = await Promise.all(endpoints.map(async (s) => [s, await requestOutcome(nc, s)] as const));
      actual[as] = outcomes.filter(([, o]) => o === 'allowed').map(([s]) => s);
      await nc.close();
    }
    assert.deepEqual(actual, expected);
    // The write that started this: authn's credentials cannot store an object.
    assert.match(nats.log(), /Publish Violation - User "platform-authn", Subject "platform\.v1\.storage\.create"/);
  });

  test("nats security - a consumer pointed at another user's inbox or at a service's subject delivers nothing there", async () => {
    // The monitor may not read the bucket (it may look at the stream's statistics), and publishing
    // to its inbox directly is refused. Its last request's answer is in before it listens.
    const monitor = await nats.connectAs('monitor');
    assert.ok((await (await jetstreamManager(monitor, { checkAPI: false })).streams.info(STREAM)).state.messages > 0);
    const toMonitor: string[] = [];
    monitor.subscribe('_INBOX.platform-monitor.>', { callback: (_err, m) => void toMonitor.push(m.subject) });
    const storageSide = await nats.connectAs('storage');
    const toStorage: string[] = [];
    storageSide.subscribe(Subjects.storageCreate, { callback: (_err, m) => void toStorage.push(m.subject) });
    await Promise.all([monitor.flush(), storageSide.flush()]);
    const cleanup: Array<() => Promise<unknown>> = [];
    try {
      for (const as of READERS) {
        const nc = await nats.connectAs(as);
        cleanup.push(() => nc.close());
        assert.match(await failure(jetstream(nc).publish('_INBOX.platform-monitor.x', 'x')), /Permissions Violation for Publish/);
        const jsm = await jetstreamManager(nc, { checkAPI: false });
        for (const target of ['_INBOX.platform-monitor.x', Subjects.storageCreate]) {
          // Either the server refuses such a consumer or its pushes go nowhere: both keep the bucket in.
          const made = await jsm.consumers
            .add(STREAM, { deliver_subject: target, ack_policy: AckPolicy.None, deliver_policy: DeliverPolicy.All, inactive_threshold: nanos(5_000) })
            .catch(() => undefined);
          if (made) cleanup.push(() => jsm.consumers.delete(STREAM, made.name).catch(() => undefined));
        }
      }
      await sleep(500);
      assert.deepEqual(toMonitor, [], 'nothing of the bucket reached the monitor');
      assert.deepEqual(toStorage, [], "nothing of the bucket reached storage's create subject");
    } finally {
      for (const c of cleanup.reverse()) await c();
      await monitor.close();
      await storageSide.close();
    }
  });

  test('nats security - consumers are limited: past the limit the server refuses another', async () => {
    const gw = await nats.connectAs('gateway');
    const jsm = await jetstreamManager(gw, { checkAPI: false });
    const names: string[] = [];
    let refused: string | undefined;
    try {
      for (let i = 0; i <= STORE_MAX_CONSUMERS + 5 && refused === undefined; i++) {
        try {
          names.push((await jsm.consumers.add(STREAM, { ack_policy: AckPolicy.None, inactive_threshold: nanos(60_000) })).name);
        } catch (err) {
          refused = (err as Error).message;
        }
      }
      assert.match(refused ?? `all ${names.length} accepted`, /maximum consumers limit reached/);
      assert.ok(names.length <= STORE_MAX_CONSUMERS, `${names.length} consumers`);
    } finally {
      for (const n of names) await jsm.consumers.delete(STREAM, n).catch(() => undefined);
      await gw.close();
    }
  });

  test('nats security - no user but storage may delete, purge or reconfigure the streams, create a durable consumer or a stream', async () => {
    const log = changeLogStream(BUCKET);
    const subjects = [
      ...[STREAM, log].flatMap((s) => [`$JS.API.STREAM.DELETE.${s}`, `$JS.API.STREAM.PURGE.${s}`, `$JS.API.STREAM.UPDATE.${s}`]),
      `$JS.API.CONSUMER.DURABLE.CREATE.${STREAM}.stolen`,
      `$JS.API.CONSUMER.DURABLE.CREATE.${log}.stolen`,
      '$JS.API.STREAM.CREATE.STOLEN',
      `$KV.${BUCKET}.core.secrets.default.forged`,
    ];
    for (const as of [...READERS, 'monitor'] as const) {
      const nc = await nats.connectAs(as);
      for (const s of subjects) assert.equal(await requestOutcome(nc, s), 'denied', `${as} sending ${s}`);
      await nc.close();
    }
    // Storage creates and changes its own streams, but deletes none and makes no durable consumer.
    for (const s of [`$JS.API.STREAM.DELETE.${STREAM}`, `$JS.API.STREAM.DELETE.${log}`, `$JS.API.CONSUMER.DURABLE.CREATE.${STREAM}.stolen`, '$JS.API.STREAM.CREATE.STOLEN']) {
      assert.equal(await requestOutcome(storage, s), 'denied', `storage sending ${s}`);
    }
    assert.ok((await (await jetstreamManager(storage, { checkAPI: false })).streams.info(STREAM)).state.messages > 0, 'the bucket is intact');
  });

  test('nats security - a connection without credentials or with a wrong password is refused', async () => {
    const tls = { caFile: nats.caFile };
    assert.match(await failure(nats.connectWith({ tls })), /Authorization Violation/);
    assert.match(await failure(nats.connectWith({ tls, user: NatsUser.storage, password: nats.users.authn.password })), /Authorization Violation/);
    assert.match(await failure(nats.connectWith({ tls, user: 'nobody', password: 'nothing' })), /Authorization Violation/);
    assert.match(nats.log(), /authentication error - User "platform-storage"/);
  });

  test('nats security - a connection without TLS is refused by the server', async () => {
    // Below any client library: a plaintext CONNECT with valid credentials after the INFO that demands TLS.
    const port = Number(new URL(nats.url).port);
    const { info, rest, closed } = await new Promise<{ info: string; rest: string; closed: boolean }>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      let out = '';
      let sent = false;
      const done = (closed: boolean) => {
        clearTimeout(timer);
        const [info = '', ...more] = out.split('\r\n');
        resolve({ info, rest: more.join('\r\n'), closed });
        s.destroy();
      };
      const timer = setTimeout(() => done(false), 5_000);
      s.on('data', (d) => {
        out += d.toString();
        if (!sent && out.includes('\r\n')) {
          sent = true;
          s.write(
            `CONNECT ${JSON.stringify({ verbose: false, pedantic: false, user: NatsUser.storage, pass: nats.users.storage.password, lang: 'raw', version: '0' })}\r\nSUB platform.v1.storage.get 1\r\nPING\r\n`,
          );
        }
      });
      s.on('close', () => done(true));
      s.on('error', () => undefined);
    });
    assert.match(info, /^INFO .*"tls_required":true/);
    assert.equal(closed, true, 'the server hung up');
    assert.doesNotMatch(rest, /PONG|\+OK/, 'nothing was accepted in plaintext');
    assert.match(nats.log(), /TLS handshake error/);
    // nats.js without the CA refuses the server's certificate rather than talk in the clear.
    assert.match(await failure(nats.connectWith({ user: NatsUser.storage, password: nats.users.storage.password, tls: {} })), /self[- ]signed|unable to verify|certificate/i);
  });

  test('nats security - a server that verifies clients refuses one without a client certificate', async () => {
    const strict = await startSecureTestNats({ bucket: BUCKET, verifyClients: true });
    try {
      const creds = { user: NatsUser.authn, password: strict.users.authn.password };
      await failure(strict.connectWith({ ...creds, tls: { caFile: strict.caFile }, timeoutMs: 1_500 }));
      const nc = await strict.connectWith({ ...creds, tls: { caFile: strict.caFile, ...strict.clientCert! } });
      assert.equal(nc.isClosed(), false);
      // The certificate authenticates the transport; the user still decides the permissions.
      assert.match((await trySubscribe(nc, `${SubjectGroup.storage}.>`)) ?? 'allowed', /Permissions Violation/);
    } finally {
      await strict.stop();
    }
  });

  describe('the whole system with TLS and per-service users', () => {
    const procs: Proc[] = [];
    let url: string;
    let caPem: string;
    const token = 'nats-security-admin-token';

    const start = (name: string, role: NatsUserRole, flags: string[]) => {
      const p = spawnProcess(['--import', 'tsx', `services/${name}/main.ts`, ...nats.flags(role), '--log-level=warn', ...flags], { cwd: root, env: cleanEnv() });
      procs.push(p);
      return p;
    };

    before(async () => {
      const tokens = path.join(nats.dir, 'tokens.csv');
      await writeFile(tokens, `${token},platform-admin,platform-admin,"system:masters"\n`);
      const serving = await issueServingCert(nats.ca);
      caPem = nats.ca.certPem;
      const cert = path.join(nats.dir, 'serving.crt');
      const key = path.join(nats.dir, 'serving.key');
      await writeFile(cert, serving.certPem);
      await writeFile(key, serving.keyPem);
      const port = await freePort();
      url = `https://127.0.0.1:${port}`;
      start('storage', 'storage', []);
      start('authn', 'authn', [`--token-auth-file=${tokens}`, '--enable-bootstrap-token-auth=true']);
      start('authz', 'authz', ['--authorization-mode=Node,RBAC']);
      start('admission', 'admission', []);
      start('gateway', 'gateway', [`--secure-port=${port}`, `--tls-cert-file=${cert}`, `--tls-private-key-file=${key}`]);
      const until = Date.now() + 60_000;
      for (;;) {
        const r = await request('GET', '/readyz?verbose').catch((err: Error) => ({ status: 0, text: err.message }));
        if (r.status === 200) break;
        const dead = procs.find((p) => p.child.exitCode !== null);
        if (dead || Date.now() > until) throw new Error(`not ready (${r.status} ${r.text}):\n${procs.map((p) => tail(p.output(), 10)).join('\n---\n')}`);
        await sleep(250);
      }
    });
    after(async () => {
      await Promise.all(procs.filter((p) => p.child.exitCode === null).map((p) => (p.child.kill('SIGTERM'), p.exited)));
    });

    function request(method: string, p: string, body?: unknown): Promise<{ status: number; text: string; json: any }> {
      return new Promise((resolve, reject) => {
        const req = https.request(`${url}${p}`, { method, ca: caPem, agent: false, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => {
            let json: unknown;
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode ?? 0, text, json });
          });
        });
        req.on('error', reject);
        if (body !== undefined) req.write(JSON.stringify(body));
        req.end();
      });
    }

    test('nats security - storage, authn, authz, admission and gateway as processes serve create, get, list and watch with no permission violation', async () => {
      const ns = 'default';
      const created = await request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'secure-a' }, data: { k: 'v' } });
      assert.equal(created.status, 201, created.text);
      const got = await request('GET', `/api/v1/namespaces/${ns}/configmaps/secure-a`);
      assert.equal(got.status, 200, got.text);
      assert.equal(got.json.data.k, 'v');
      const list = await request('GET', `/api/v1/namespaces/${ns}/configmaps`);
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(list.json.items.map((i: any) => i.metadata.name).sort(), ['by-storage', 'secure-a', 'seed'], 'what storage wrote before and through the gateway');

      // A watch from the list's revision sees the next create.
      const events: any[] = [];
      const watchReq = https.get(`${url}/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${list.json.metadata.resourceVersion}`, {
        ca: caPem,
        agent: false,
        headers: { authorization: `Bearer ${token}` },
      });
      const added = new Promise<any>((resolve, reject) => {
        watchReq.on('response', (res) => {
          let buf = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => {
            buf += d;
            let nl: number;
            while ((nl = buf.indexOf('\n')) >= 0) {
              const line = buf.slice(0, nl);
              buf = buf.slice(nl + 1);
              if (!line.trim()) continue;
              const e = JSON.parse(line);
              events.push(e);
              if (e.type === 'ADDED' && e.object.metadata.name === 'secure-b') resolve(e);
            }
          });
        });
        watchReq.on('error', reject);
        setTimeout(() => reject(new Error(`no ADDED event for secure-b; got ${JSON.stringify(events)}`)), 10_000).unref();
      });
      await sleep(200);
      assert.equal((await request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'secure-b' }, data: { k: 'w' } })).status, 201);
      const e = await added;
      watchReq.destroy();
      assert.equal(e.object.data.k, 'w');
      assert.equal((await request('DELETE', `/api/v1/namespaces/${ns}/configmaps/secure-a`)).status, 200);

      // RBAC (authz's bootstrap policy written through storage and admission) and the services'
      // own readiness pings all ran on their users' permissions: nats-server refused nothing.
      const violations = nats
        .log()
        .split('\n')
        .filter((l) => /Violation/.test(l) && !/nats\.js:test/.test(l));
      assert.deepEqual(violations, [], `permission violations of the running services:\n${violations.join('\n')}`);
      for (const p of procs) assert.equal(p.child.exitCode, null, tail(p.output()));
    });

    test("nats security - each service's exec probe (scripts/ping-service.ts, as the Helm chart runs it) passes with that service's own user", async () => {
      const probes = SERVICES.map(
        (s) =>
          new Promise<{ service: string; code: number; out: string }>((resolve) => {
            const p = spawnProcess(['--import', 'tsx', 'scripts/ping-service.ts', s, '--timeout=5s', ...nats.flags(s)], { cwd: root, env: cleanEnv() });
            void p.exited.then((e) => resolve({ service: s, code: e.code ?? -1, out: p.output() }));
          }),
      );
      for (const r of await Promise.all(probes)) assert.equal(r.code, 0, `${r.service}: ${r.out}`);
      const violations = nats
        .log()
        .split('\n')
        .filter((l) => /Violation/.test(l) && /probe/.test(l));
      assert.deepEqual(violations, []);
    });
  });
});
