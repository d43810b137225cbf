// End to end: the audit log. A gateway started with a policy and a log file records, per request,
// the events an operator reads afterwards: who (and as whom), what, the decision, the objects at
// the level the policy asks, the stages of a watch, deprecated versions; the Audit-ID header names
// the request's events. Then the webhook backend against a real HTTPS receiver: batches by size
// and time, and a receiver that hangs or is gone neither fails nor slows requests (the events are
// counted as errors instead).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { parseOptions } from '../../shared/config/options.js';
import { silentLogger } from '../../shared/log.js';
import { createCA, issueServingCert } from '../../shared/local/pki.js';
import { kubeconfigYaml } from '../../shared/local/kubeconfig.js';
import { sendJson, startHttpsServer, type TestHttpsServer } from '../../shared/webhook/test/https-server.js';
import { gatewayOptionSpecs } from '../../services/gateway/options.js';
import { auditOptionsFrom, loadAudit } from '../../services/gateway/audit.js';
import { assertOk, assertStatus, configMap, createNamespace, eventually, openWatch, sleep, uniq } from './helpers.js';

const POLICY = `
apiVersion: audit.platform.io/v1
kind: Policy
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/livez*", "/readyz*", "/metrics"]
  - level: RequestResponse
    verbs: [create]
    resources: [{group: "", resources: [configmaps]}]
    omitManagedFields: true
  - level: RequestResponse
    verbs: [create]
    resources: [{group: "", resources: [secrets]}]
  - level: Metadata
`;

type AuditEvent = Record<string, any>;

async function auditGateway(dir: string, flags: string[]): Promise<Awaited<ReturnType<typeof loadAudit>>> {
  const policyFile = path.join(dir, 'policy.yaml');
  await writeFile(policyFile, POLICY);
  return loadAudit(auditOptionsFrom(parseOptions(gatewayOptionSpecs, ['--audit-policy-file', policyFile, ...flags])), silentLogger());
}

function cronJob(name: string) {
  return {
    apiVersion: 'batch/v1beta1',
    kind: 'CronJob',
    metadata: { name },
    spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } } } },
  };
}

describe('audit log', () => {
  let c: TestCluster;
  let dir: string;
  let logFile: string;
  let ns: string;

  const logged = async (): Promise<AuditEvent[]> =>
    (await readFile(logFile, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as AuditEvent);
  /** The events of one request, once its last stage is in the log. */
  const eventsOf = (auditID: string, last = 'ResponseComplete') =>
    eventually(`audit events of ${auditID}`, async () => {
      const evs = (await logged()).filter((e) => e.auditID === auditID);
      assert.ok(
        evs.some((e) => e.stage === last),
        `no ${last} yet: ${JSON.stringify(evs.map((e) => e.stage))}`,
      );
      return evs;
    });
  const auditIdOf = (r: { headers: Headers }) => {
    const id = r.headers.get('audit-id');
    assert.ok(id, 'every response carries an Audit-ID header');
    return id;
  };

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'platform-audit-'));
    logFile = path.join(dir, 'log', 'audit.log');
    const audit = await auditGateway(dir, ['--audit-log-path', logFile]);
    c = await startTestCluster({ authorizationModes: ['RBAC'], gateway: { audit } });
    ns = uniq('audit');
    await createNamespace(c, ns);
  });
  after(async () => {
    await c?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('a create at RequestResponse: request and response objects, managedFields omitted when the rule says so', async () => {
    const r = await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('cm-1', { a: '1' }), headers: { 'user-agent': 'audit-e2e/1.0', 'x-forwarded-for': '203.0.113.7' } });
    const created = assertOk(r, 201);
    assert.ok(created.metadata.managedFields?.length, 'the object itself has managedFields');
    const evs = await eventsOf(auditIdOf(r));
    assert.deepEqual(
      evs.map((e) => e.stage),
      ['RequestReceived', 'ResponseComplete'],
    );
    const [received, done] = evs as [AuditEvent, AuditEvent];
    for (const e of evs) {
      assert.equal(e.kind, 'Event');
      assert.equal(e.apiVersion, 'audit.platform.io/v1');
      assert.equal(e.level, 'RequestResponse');
      assert.equal(e.verb, 'create');
      assert.equal(e.requestURI, `/api/v1/namespaces/${ns}/configmaps`);
      assert.equal(e.user.username, 'platform-admin');
      assert.ok(e.user.groups.includes('system:masters'));
      assert.deepEqual(e.sourceIPs, ['203.0.113.7', '127.0.0.1'], 'X-Forwarded-For first, then the peer');
      assert.equal(e.userAgent, 'audit-e2e/1.0');
      assert.match(e.requestReceivedTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      assert.match(e.stageTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    }
    assert.equal(received.requestObject, undefined, 'objects come with the last stage');
    assert.equal(received.stageTimestamp, received.requestReceivedTimestamp);
    assert.deepEqual(done.objectRef, { resource: 'configmaps', namespace: ns, name: 'cm-1', apiVersion: 'v1' });
    assert.deepEqual(done.responseStatus, { metadata: {}, code: 201 });
    assert.deepEqual(done.requestObject, configMap('cm-1', { a: '1' }));
    assert.equal(done.responseObject.metadata.uid, created.metadata.uid);
    assert.equal(done.responseObject.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.equal(done.responseObject.metadata.managedFields, undefined, 'omitManagedFields: true');
    assert.deepEqual(done.annotations, { 'authorization.platform.io/decision': 'allow', 'authorization.platform.io/reason': '' });
  });

  it('a create whose rule keeps managedFields logs them', async () => {
    const r = await c.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's-1' }, stringData: { k: 'v' } } });
    assertOk(r, 201);
    const done = (await eventsOf(auditIdOf(r))).at(-1)!;
    assert.equal(done.level, 'RequestResponse');
    assert.ok(done.responseObject.metadata.managedFields?.length, 'no omitManagedFields: kept');
  });

  it('a get at Metadata: no objects; a caller-chosen Audit-ID is kept', async () => {
    const r = await c.request('GET', `/api/v1/namespaces/${ns}/configmaps/cm-1`, { headers: { 'audit-id': 'caller-chosen-id-1' } });
    assertOk(r);
    assert.equal(auditIdOf(r), 'caller-chosen-id-1');
    const evs = await eventsOf('caller-chosen-id-1');
    assert.deepEqual(
      evs.map((e) => e.stage),
      ['RequestReceived', 'ResponseComplete'],
    );
    const done = evs[1]!;
    assert.equal(done.level, 'Metadata');
    assert.equal(done.verb, 'get');
    assert.deepEqual(done.objectRef, { resource: 'configmaps', namespace: ns, name: 'cm-1', apiVersion: 'v1' });
    assert.deepEqual(done.responseStatus, { metadata: {}, code: 200 });
    assert.equal(done.requestObject, undefined);
    assert.equal(done.responseObject, undefined);
  });

  it('a forbidden request: decision forbid, the 403 in responseStatus', async () => {
    const r = await c.request('GET', `/api/v1/namespaces/${ns}/secrets`, { token: c.userToken });
    assertStatus(r, 403, 'Forbidden');
    const done = (await eventsOf(auditIdOf(r))).at(-1)!;
    assert.equal(done.user.username, 'jane');
    assert.equal(done.verb, 'list');
    assert.equal(done.annotations['authorization.platform.io/decision'], 'forbid');
    assert.equal(done.responseStatus.code, 403);
    assert.equal(done.responseStatus.status, 'Failure');
    assert.equal(done.responseStatus.reason, 'Forbidden');
    assert.match(done.responseStatus.message, /User "jane" cannot list resource "secrets"/);
  });

  it('an impersonated request names both users', async () => {
    const r = await c.request('GET', `/api/v1/namespaces/${ns}/configmaps/cm-1`, { headers: { 'impersonate-user': 'alice', 'impersonate-group': 'system:masters' } });
    assertOk(r);
    const evs = await eventsOf(auditIdOf(r));
    const done = evs.at(-1)!;
    assert.equal(done.user.username, 'platform-admin', 'user: who authenticated');
    assert.deepEqual(done.impersonatedUser, { username: 'alice', groups: ['system:masters', 'system:authenticated'] });
    assert.equal(evs[0]!.impersonatedUser, undefined, 'RequestReceived is written before impersonation, as upstream');
  });

  it('a watch: RequestReceived, ResponseStarted when the stream starts, ResponseComplete when it ends', async () => {
    const w = await openWatch(c, `/api/v1/namespaces/${ns}/configmaps?watch=1&timeoutSeconds=1`);
    assert.equal(w.status, 200);
    const id = w.headers['audit-id'] as string;
    assert.ok(id);
    const started = await eventsOf(id, 'ResponseStarted');
    assert.deepEqual(
      started.map((e) => e.stage),
      ['RequestReceived', 'ResponseStarted'],
      'ResponseComplete only once the stream ends',
    );
    await w.ended;
    const evs = await eventsOf(id);
    assert.deepEqual(
      evs.map((e) => e.stage),
      ['RequestReceived', 'ResponseStarted', 'ResponseComplete'],
    );
    assert.equal(evs[1]!.verb, 'watch');
    assert.deepEqual(evs[1]!.responseStatus, { metadata: {}, code: 200 });
    assert.ok(evs[2]!.stageTimestamp > evs[1]!.stageTimestamp);
  });

  it('a deprecated version: platform.io/deprecated and the release that removes it', async () => {
    const r = await c.request('POST', `/apis/batch/v1beta1/namespaces/${ns}/cronjobs`, { body: cronJob('cj') });
    assertOk(r, 201);
    const done = (await eventsOf(auditIdOf(r))).at(-1)!;
    assert.equal(done.annotations['platform.io/deprecated'], 'true');
    assert.equal(done.annotations['platform.io/removed-release'], '1.25');
    assert.deepEqual(done.objectRef, { resource: 'cronjobs', namespace: ns, name: 'cj', apiGroup: 'batch', apiVersion: 'v1beta1' });
    const current = await c.request('GET', `/apis/batch/v1/namespaces/${ns}/cronjobs/cj`);
    assertOk(current);
    const plain = (await eventsOf(auditIdOf(current))).at(-1)!;
    assert.equal(plain.annotations['platform.io/deprecated'], undefined, 'v1 is not deprecated');
  });

  it('a failed authentication is recorded at ResponseStarted with no user, as upstream', async () => {
    const r = await c.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { token: 'not-a-token' });
    assertStatus(r, 401);
    const evs = await eventsOf(auditIdOf(r), 'ResponseStarted');
    assert.deepEqual(
      evs.map((e) => e.stage),
      ['ResponseStarted'],
    );
    assert.deepEqual(evs[0]!.user, {});
    assert.deepEqual(evs[0]!.responseStatus, { metadata: {}, message: 'Authentication failed, attempted: bearer', code: 401 });
  });

  it('requests the policy does not audit are not logged; the metrics count levels and events', async () => {
    const r = await c.request('GET', '/healthz');
    assert.equal(r.status, 200);
    const metrics = await c.request('GET', '/metrics');
    assert.match(metrics.text, /apiserver_audit_level_total\{level="None"\} [1-9]/);
    assert.match(metrics.text, /apiserver_audit_level_total\{level="RequestResponse"\} [1-9]/);
    assert.match(metrics.text, /apiserver_audit_event_total [1-9]/);
    await sleep(100);
    assert.equal((await logged()).filter((e) => e.auditID === auditIdOf(r)).length, 0);
  });
});

describe('audit webhook', () => {
  let c: TestCluster;
  let dir: string;
  let receiver: TestHttpsServer;
  let mode: 'ok' | 'hang' = 'ok';
  let ns: string;
  const batches = () => receiver.received.map((r) => JSON.parse(r.body) as { kind: string; apiVersion: string; items: AuditEvent[] });
  const errors = async (plugin: string) =>
    Number(/(\d+)$/.exec((await c.request('GET', '/metrics')).text.split('\n').find((l) => l.startsWith(`apiserver_audit_error_total{plugin="${plugin}"}`)) ?? '0')?.[1]);
  const get = async () => {
    const t = performance.now();
    assertOk(await c.request('GET', `/api/v1/namespaces/${ns}/configmaps`));
    return performance.now() - t;
  };

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'platform-audit-hook-'));
    const ca = await createCA('audit-receiver-ca');
    receiver = await startHttpsServer(await issueServingCert(ca, { ipAddresses: ['127.0.0.1'] }), (_req, res) => {
      if (mode === 'hang') return; // never answers
      sendJson(res, 200, {});
    });
    const hookConfig = path.join(dir, 'audit-webhook.yaml');
    await writeFile(hookConfig, kubeconfigYaml({ server: receiver.url, caPem: ca.certPem, token: 'audit-receiver-token' }));
    const audit = await auditGateway(dir, [
      '--audit-webhook-config-file',
      hookConfig,
      '--audit-webhook-batch-max-size',
      '3',
      '--audit-webhook-batch-max-wait',
      '1s',
      '--audit-webhook-batch-buffer-size',
      '20',
      // One call at a time, so a hanging receiver backs the buffer up.
      '--audit-webhook-batch-throttle-burst',
      '1',
      '--audit-webhook-batch-throttle-qps',
      '100',
      '--audit-webhook-initial-backoff',
      '50ms',
    ]);
    c = await startTestCluster({ gateway: { audit } });
    ns = uniq('audit-hook');
    await createNamespace(c, ns);
    // Only the gets below are counted from here on.
    await eventually('the namespace events delivered', () => assert.ok(receiver.received.length > 0), { timeoutMs: 5000 });
    receiver.received.length = 0;
  });
  after(async () => {
    await c?.stop();
    await receiver?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('events are posted as EventLists: a full batch at once, a smaller one after the batch wait', async () => {
    // 3 requests = 6 events (RequestReceived, ResponseComplete): two full batches, sent without waiting.
    const t0 = performance.now();
    for (let i = 0; i < 3; i++) await get();
    await eventually('two full batches', () => assert.equal(batches().length, 2), { timeoutMs: 900 });
    assert.ok(performance.now() - t0 < 1000, 'full batches do not wait for the batch timer');
    for (const b of batches()) {
      assert.equal(b.kind, 'EventList');
      assert.equal(b.apiVersion, 'audit.platform.io/v1');
      assert.equal(b.items.length, 3);
    }
    assert.deepEqual(
      batches().flatMap((b) => b.items.map((e) => e.stage)),
      ['RequestReceived', 'ResponseComplete', 'RequestReceived', 'ResponseComplete', 'RequestReceived', 'ResponseComplete'],
    );
    assert.equal(receiver.received[0]!.headers['content-type'], 'application/json');
    assert.equal(receiver.received[0]!.headers.authorization, 'Bearer audit-receiver-token', 'the credentials of the configuration file');
    // One request = 2 events: sent when the batch wait is over.
    const t1 = performance.now();
    await get();
    await sleep(500);
    assert.equal(batches().length, 2, 'a smaller batch waits');
    await eventually('the smaller batch', () => assert.equal(batches().length, 3), { timeoutMs: 3000 });
    assert.ok(performance.now() - t1 >= 900, 'sent after the batch wait');
    assert.equal(batches()[2]!.items.length, 2);
  });

  it('a receiver that hangs neither fails nor slows requests; a full buffer is counted', async () => {
    mode = 'hang';
    const before = await errors('buffered');
    const times: number[] = [];
    // The first batch hangs in flight; the buffer (20 events) fills and the rest are dropped.
    for (let i = 0; i < 20; i++) times.push(await get());
    assert.ok(Math.max(...times) < 1000, `requests stay fast: ${times.map((t) => t.toFixed(0)).join(',')} ms`);
    await eventually('dropped events counted', async () => assert.ok((await errors('buffered')) - before >= 10, `buffered errors: ${await errors('buffered')}`), { timeoutMs: 3000 });
  });

  it('a receiver that is gone: requests go on, the lost batches are counted after the retries', async () => {
    await receiver.close(); // the hanging call fails too: it is retried against a closed port
    const before = await errors('webhook');
    const times: number[] = [];
    for (let i = 0; i < 5; i++) times.push(await get());
    assert.ok(Math.max(...times) < 1000, `requests stay fast: ${times.map((t) => t.toFixed(0)).join(',')} ms`);
    await eventually('lost batches counted', async () => assert.ok((await errors('webhook')) > before, `webhook errors: ${await errors('webhook')}`), { timeoutMs: 10_000, intervalMs: 200 });
  });
});
