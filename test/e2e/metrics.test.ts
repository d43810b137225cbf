// End to end: /metrics as Prometheus scrapes it. The gateway's series for requests of each kind
// (create, dry-run create, get, list, a 404, a deprecated version, a watch) with upstream's names,
// labels and values; objects stored and watchers registered as they come and go; who may read it;
// and a service's own /metrics (storage, started as a user starts it) with its flags.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { cleanEnv, exitWithin, spawnProcess, tail, type Proc } from '../support/processes.js';
import { assertOk, assertStatus, configMap, eventually, openWatch, uniq } from './helpers.js';
import { parseExposition, type Sample } from '../support/exposition.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The value of the sample with exactly these labels; undefined when there is none. */
function value(samples: Sample[], name: string, labels: Record<string, string>): number | undefined {
  const want = Object.entries(labels);
  const found = samples.filter((s) => s.name === name && Object.keys(s.labels).length === want.length && want.every(([k, v]) => s.labels[k] === v));
  assert.ok(found.length <= 1, `${name} ${JSON.stringify(labels)} twice`);
  return found[0]?.value;
}

/** request_total / duration labels of a core-group configmaps request. */
function configMaps(verb: string, scope: string, extra: Record<string, string> = {}): Record<string, string> {
  return { verb, dry_run: '', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope, component: 'apiserver', ...extra };
}

describe('metrics', { timeout: 120_000 }, () => {
  let c: TestCluster;
  const scrape = async (): Promise<{ text: string; samples: Sample[] }> => {
    const r = await c.request('GET', '/metrics');
    assert.equal(r.status, 200, r.text);
    return { text: r.text, samples: parseExposition(r.text) };
  };

  before(async () => {
    // RBAC, so that who may read /metrics is the bootstrap policy's answer; the hidden metrics of
    // the reference release shown, as an operator who needs apiserver_registered_watchers would.
    c = await startTestCluster({ authorizationModes: ['RBAC'], gateway: { metrics: { showHiddenMetricsForVersion: '1.23' } } });
    // The authz service writes the default policy (system:monitoring among it) once it is up.
    await eventually('the default policy binds system:monitoring', async () => assertOk(await c.request('GET', '/apis/rbac.authorization.platform.io/v1/clusterrolebindings/system:monitoring')), {
      timeoutMs: 15_000,
    });
  });
  after(async () => c?.stop());

  it('requests of each kind are counted with their verb, dry run, scope and code', async () => {
    const ns = uniq('metrics');
    assertOk(await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } }), 201);
    const before = (await scrape()).samples;
    const name = uniq('cm');
    assertOk(await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(name, { a: '1' }) }), 201);
    assertOk(await c.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, { body: configMap(uniq('dry')) }), 201);
    assertOk(await c.request('GET', `/api/v1/namespaces/${ns}/configmaps/${name}`));
    const list = assertOk(await c.request('GET', `/api/v1/namespaces/${ns}/configmaps`));
    assert.equal(list.items.length, 1, 'the dry-run create stored nothing');
    assertStatus(await c.request('GET', `/api/v1/namespaces/${ns}/configmaps/missing`), 404, 'NotFound');
    assertOk(await c.request('GET', `/apis/batch/v1beta1/namespaces/${ns}/cronjobs`));
    const { text, samples } = await scrape();

    const delta = (labels: Record<string, string>, name = 'apiserver_request_total') => (value(samples, name, labels) ?? 0) - (value(before, name, labels) ?? 0);
    assert.equal(delta(configMaps('POST', 'namespace', { code: '201' })), 1, 'create');
    assert.equal(delta(configMaps('POST', 'namespace', { dry_run: 'All', code: '201' })), 1, 'dry-run create');
    assert.equal(delta(configMaps('GET', 'resource', { code: '200' })), 1, 'get');
    assert.equal(delta(configMaps('LIST', 'namespace', { code: '200' })), 1, 'list');
    assert.equal(delta(configMaps('GET', 'resource', { code: '404' })), 1, '404');
    assert.equal(
      delta({ verb: 'LIST', dry_run: '', group: 'batch', version: 'v1beta1', resource: 'cronjobs', subresource: '', scope: 'namespace', component: 'apiserver', code: '200' }),
      1,
      'deprecated version',
    );
    assert.equal(value(samples, 'apiserver_requested_deprecated_apis', { group: 'batch', version: 'v1beta1', resource: 'cronjobs', subresource: '', removed_release: '1.25' }), 1);

    // Latency per verb without the code; response sizes for GET and LIST only, without dry_run.
    assert.equal(delta(configMaps('GET', 'resource'), 'apiserver_request_duration_seconds_count'), 2);
    assert.equal(delta(configMaps('POST', 'namespace', { dry_run: 'All' }), 'apiserver_request_duration_seconds_count'), 1);
    const sizes = (labels: Record<string, string>) => value(samples, 'apiserver_response_sizes_count', labels);
    // Exact label sets: response sizes have no dry_run label.
    const { dry_run: _, ...listLabels } = configMaps('LIST', 'namespace');
    assert.ok((sizes(listLabels) ?? 0) >= 1, 'LIST response size observed');
    assert.ok((value(samples, 'apiserver_response_sizes_sum', listLabels) ?? 0) > 0);
    assert.equal(sizes({ ...listLabels, verb: 'POST' }), undefined, 'no response size for a create');
    assert.ok((value(samples, 'apiserver_request_duration_seconds_bucket', { ...configMaps('POST', 'namespace'), le: '+Inf' }) ?? 0) >= 1);

    // Upstream's stability levels at the head of the HELP text.
    assert.match(
      text,
      /^# HELP apiserver_request_total \[STABLE\] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code\.$/m,
    );
    assert.match(text, /^# TYPE apiserver_request_duration_seconds histogram$/m);
    assert.match(text, /^# HELP apiserver_dropped_requests_total \[ALPHA\] \(Deprecated since 1\.24\.0\) /m);
    assert.match(text, /^# HELP apiserver_registered_watchers \[ALPHA\] \(Deprecated since 1\.23\.0\) /m, 'hidden at 1.24, shown with --show-hidden-metrics-for-version=1.23');
    // The gateway's NATS round trips per contract; authentication as the filter sees it.
    assert.ok((value(samples, 'platform_bus_request_duration_seconds_count', { subject: 'platform.v1.storage.create', outcome: 'ok' }) ?? 0) >= 1, 'storage create round trips');
    assert.ok((value(samples, 'authentication_attempts', { result: 'success' }) ?? 0) >= 7);
  });

  it('apiserver_storage_objects follows the objects stored; a watch is counted while it runs (1 → 0)', async () => {
    const ns = uniq('watched');
    assertOk(await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } }), 201);
    const objects = async () => value((await scrape()).samples, 'apiserver_storage_objects', { resource: 'configmaps' });
    const stored = async () => assertOk(await c.request('GET', '/api/v1/configmaps')).items.length as number;
    assert.equal(await objects(), await stored());

    const gvk = { group: '', version: 'v1', kind: 'ConfigMap' };
    const watching = { verb: 'WATCH', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace', component: 'apiserver' };
    const before = (await scrape()).samples;
    assert.equal(value(before, 'apiserver_registered_watchers', gvk) ?? 0, 0);
    const w = await openWatch(c, `/api/v1/namespaces/${ns}/configmaps?watch=true`);
    try {
      assertOk(await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('one') }), 201);
      assertOk(await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('two') }), 201);
      await w.waitForCount(2);
      const during = (await scrape()).samples;
      assert.equal(value(during, 'apiserver_registered_watchers', gvk), 1);
      assert.equal(value(during, 'apiserver_longrunning_requests', watching), 1);
      assert.equal(value(during, 'apiserver_longrunning_gauge', watching), 1, 'the hidden name, shown as asked');
      assert.equal((value(during, 'apiserver_watch_events_total', gvk) ?? 0) - (value(before, 'apiserver_watch_events_total', gvk) ?? 0), 2);
      assert.equal((value(during, 'apiserver_watch_events_sizes_count', gvk) ?? 0) - (value(before, 'apiserver_watch_events_sizes_count', gvk) ?? 0), 2);
      assert.equal(await objects(), await stored(), 'two more');
    } finally {
      w.close();
    }
    await eventually('the watch is no longer counted', async () => {
      const after = (await scrape()).samples;
      assert.equal(value(after, 'apiserver_registered_watchers', gvk), 0);
      assert.equal(value(after, 'apiserver_longrunning_requests', watching), 0);
      // A finished watch is a request like any other.
      assert.equal(
        (value(after, 'apiserver_request_total', { ...watching, dry_run: '', code: '200' }) ?? 0) - (value(before, 'apiserver_request_total', { ...watching, dry_run: '', code: '200' }) ?? 0),
        1,
      );
    });
    assertOk(await c.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/one`));
    assert.equal(await objects(), await stored(), 'one fewer');
    const cache = (await scrape()).samples;
    assert.ok((value(cache, 'apiserver_watch_cache_events_dispatched_total', { resource: 'configmaps' }) ?? 0) >= 3);
    assert.equal(value(cache, 'apiserver_watch_cache_watch_cache_initializations_total', { resource: 'configmaps' }), 1);
  });

  it('system:monitoring may read /metrics; a plain user and anonymous get 403', async () => {
    const monitoring = await c.request('GET', '/metrics', { headers: { 'impersonate-user': 'prometheus', 'impersonate-group': 'system:monitoring' } });
    assert.equal(monitoring.status, 200, monitoring.text);
    assert.match(monitoring.text, /^apiserver_request_total\{/m);
    const jane = await c.request('GET', '/metrics', { token: c.userToken });
    assert.equal(assertStatus(jane, 403, 'Forbidden').message, 'forbidden: User "jane" cannot get path "/metrics"');
    const anonymous = await c.request('GET', '/metrics', { token: null });
    assert.equal(assertStatus(anonymous, 403, 'Forbidden').message, 'forbidden: User "system:anonymous" cannot get path "/metrics"');
  });
});

describe('a service’s own /metrics', { timeout: 120_000 }, () => {
  let c: TestCluster;
  let storage: Proc | undefined;
  const startStorage = (args: string[]) => spawnProcess(['--import', 'tsx', 'services/storage/main.ts', ...args], { cwd: root, env: cleanEnv() });

  before(async () => {
    c = await startTestCluster();
  });
  after(async () => {
    if (storage && storage.child.exitCode === null) {
      storage.child.kill('SIGTERM');
      if (!(await exitWithin(storage, 10_000))) storage.child.kill('SIGKILL');
    }
    await c?.stop();
  });

  it('storage: --metrics-bind-address serves its operations, bucket and process metrics to anyone on loopback', async () => {
    // A second storage replica beside the cluster's own: the queue group shares the requests.
    storage = startStorage([`--nats-url=${c.nats.url}`, '--metrics-bind-address=127.0.0.1:0']);
    const url = (await storage.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+\/metrics)"/, 30_000))[1]!;
    await storage.waitFor(/storage service started/, 30_000);
    const ns = uniq('replicas');
    assertOk(await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } }), 201);
    // Enough writes that the replica takes some (each goes to one of the two at random).
    for (let i = 0; i < 24; i++) assertOk(await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(`cm-${i}`) }), 201);

    const res = await fetch(url);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    const samples = parseExposition(text);
    assert.match(text, /^# HELP platform_storage_operation_duration_seconds \[ALPHA\] Storage operation latency in seconds for each operation and object type/m);
    const creates = value(samples, 'platform_storage_operation_duration_seconds_count', { operation: 'create', type: 'configmaps' }) ?? 0;
    assert.ok(
      creates >= 1 && creates < 24,
      `the replica took some of the creates, not all: ${creates}\n${text
        .split('\n')
        .filter((l) => l.startsWith('platform_storage'))
        .join('\n')}\n${tail(storage.output())}`,
    );
    assert.ok((value(samples, 'platform_storage_bucket_values', { bucket: 'objects' }) ?? 0) >= 24);
    assert.ok((value(samples, 'platform_storage_bucket_size_bytes', { bucket: 'objects' }) ?? 0) > 0);
    assert.ok(
      samples.some((s) => s.name === 'process_cpu_user_seconds_total'),
      'process metrics',
    );
    assert.equal((await fetch(url.replace('/metrics', '/healthz'))).status, 404);
    assert.equal((await fetch(url, { method: 'POST' })).status, 405);
  });

  it('--show-hidden-metrics-for-version takes only the previous minor release: any other value stops the start', async () => {
    const p = startStorage([`--nats-url=${c.nats.url}`, '--show-hidden-metrics-for-version=1.22']);
    const status = await exitWithin(p, 30_000);
    assert.equal(status?.code, 2, p.output());
    assert.match(p.output(), /--show-hidden-metrics-for-version must be omitted or have the value '1\.23'\. Only the previous minor version is allowed/);
  });
});
