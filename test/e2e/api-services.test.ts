// End to end: APIServices (apiregistration.platform.io/v1). The Local APIServices every cluster
// lists are written by every gateway before it is ready (services/gateway/local-api-services.ts);
// the test also runs that function itself, through the generic store over the cluster's own NATS,
// to see what a second run does, and reads the results back through the gateway as clients do
// (kubectl when on PATH). Remote APIServices are stored and validated.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { findKubectl, Kubectl } from '../support/kubectl.js';
import { pino } from 'pino';
import { silentLogger } from '../../shared/log.js';
import { localApiServices } from '../../shared/registry/builtin/apiregistration/local-api-services.js';
import type { InternalStore } from '../../shared/registry/rest/internal-store.js';
import { createInternalStore } from '../../services/authz/internal-store.js';
import { ensureLocalApiServices } from '../../services/gateway/local-api-services.js';
import { decodeObject, encodeObject } from '../../shared/proto/envelope.js';
import { assertOk, assertStatus, eventually } from './helpers.js';

const APISERVICES = '/apis/apiregistration.platform.io/v1/apiservices';
const LOCAL_AVAILABLE = { type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' };
const bin = findKubectl();

function remoteApiService(name: string, spec: Record<string, unknown> = {}) {
  const [version, ...group] = name.split('.');
  return {
    apiVersion: 'apiregistration.platform.io/v1',
    kind: 'APIService',
    metadata: { name },
    spec: { service: { namespace: 'platform-system', name: 'metrics-server' }, group: group.join('.'), version, groupPriorityMinimum: 100, versionPriority: 100, ...spec },
  };
}

type Listed = { metadata: { name: string; resourceVersion: string }; spec: Record<string, unknown>; status?: { conditions?: Array<Record<string, unknown>> } };

async function listed(c: TestCluster, prefix = '/apis/apiregistration.platform.io'): Promise<Map<string, Listed>> {
  const list = assertOk(await c.request('GET', `${prefix}/v1/apiservices`));
  return new Map((list.items as Listed[]).map((o) => [o.metadata.name, o]));
}

describe('APIServices', () => {
  let c: TestCluster;
  let internal: InternalStore;
  /** Runs it as the gateway would; returns the `<outcome> Local APIService` lines it logged, by name. */
  const ensure = async (): Promise<string[]> => {
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    await ensureLocalApiServices(internal.store, internal.targets, log, () => false);
    return lines.map((l) => JSON.parse(l) as { apiService?: string; msg: string }).map((l) => `${l.msg}: ${l.apiService ?? ''}`);
  };

  before(async () => {
    c = await startTestCluster();
    internal = createInternalStore({ nc: c.nc, registry: c.registry, log: silentLogger() });
  });
  after(async () => {
    internal?.stop();
    await c?.stop();
  });

  it('lists a Local APIService, Available, for every served built-in group/version', async () => {
    const want = localApiServices(c.registry).map((o) => o.metadata.name!);
    assert.ok(want.includes('v1.') && want.includes('v1.apps') && want.includes('v1.rbac.authorization.platform.io'), want.join(' '));
    const got = await eventually('the gateway lists them', async () => {
      const items = await listed(c);
      for (const name of want) assert.ok(items.has(name), `missing ${name}`);
      return items;
    });
    const core = got.get('v1.')!;
    assert.deepEqual(core.spec, { version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 }, 'the core group has no name to write');
    assert.deepEqual(got.get('v1.apps')!.spec, { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
    for (const name of want) {
      const { lastTransitionTime, ...condition } = got.get(name)!.status?.conditions?.[0] ?? {};
      assert.deepEqual(condition, LOCAL_AVAILABLE, name);
      assert.match(String(lastTransitionTime), /^\d{4}-\d\d-\d\dT/);
    }
  });

  it('running it again changes nothing; it puts back a changed spec and status', async () => {
    const before = await listed(c);
    assert.deepEqual(await ensure(), [], 'nothing to do');
    const again = await listed(c);
    for (const [name, o] of before) assert.equal(again.get(name)?.metadata.resourceVersion, o.metadata.resourceVersion, `${name} was rewritten`);

    const apps = assertOk(await c.request('GET', `${APISERVICES}/v1.apps`));
    apps.spec.groupPriorityMinimum = 5;
    assertOk(await c.request('PUT', `${APISERVICES}/v1.apps`, { body: apps }));
    const down = assertOk(await c.request('GET', `${APISERVICES}/v1.batch`));
    down.status = { conditions: [{ type: 'Available', status: 'False', reason: 'Broken', lastTransitionTime: '2024-01-01T00:00:00Z' }] };
    assertOk(await c.request('PUT', `${APISERVICES}/v1.batch/status`, { body: down }));

    assert.deepEqual((await ensure()).sort(), ['repaired Local APIService: v1.apps', 'repaired Local APIService: v1.batch']);
    const fixed = await eventually('the repairs are seen', async () => {
      const items = await listed(c);
      assert.equal(items.get('v1.apps')!.spec.groupPriorityMinimum, 17800);
      assert.equal(items.get('v1.batch')!.status?.conditions?.[0]?.status, 'True');
      return items;
    });
    assert.equal(fixed.get('v1.batch')!.status?.conditions?.[0]?.reason, 'Local');
  });

  it('a remote APIService is stored: port defaulted, no status until something judges it', async () => {
    const created = assertOk(await c.request('POST', APISERVICES, { body: remoteApiService('v1beta1.metrics.example.io', { insecureSkipTLSVerify: true }) }), 201);
    assert.deepEqual(created.spec.service, { namespace: 'platform-system', name: 'metrics-server', port: 443 });
    assert.equal(created.status?.conditions, undefined);
    const read = assertOk(await c.request('GET', `${APISERVICES}/v1beta1.metrics.example.io`));
    assert.equal(read.metadata.uid, created.metadata.uid);
    // A Local one created by a client is Available at once, as upstream's strategy makes it.
    const local = assertOk(
      await c.request('POST', APISERVICES, {
        body: { ...remoteApiService('v1.widgets.example.io'), spec: { group: 'widgets.example.io', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 } },
      }),
      201,
    );
    assert.equal(local.status.conditions[0].reason, 'Local');
  });

  it('protobuf: an APIService written and read as upstream clients encode it', async () => {
    const body = encodeObject(remoteApiService('v1.proto.example.io', { caBundle: Buffer.from('ca').toString('base64') }))!;
    const headers = { 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/vnd.kubernetes.protobuf' };
    const created = await c.request('POST', APISERVICES, { rawBody: body, headers });
    assert.equal(created.status, 201, created.text);
    const obj = decodeObject(created.bytes) as { kind: string; spec: Record<string, unknown> };
    assert.equal(obj.kind, 'APIService');
    assert.deepEqual(obj.spec, {
      service: { namespace: 'platform-system', name: 'metrics-server', port: 443 },
      group: 'proto.example.io',
      version: 'v1',
      caBundle: Buffer.from('ca').toString('base64'),
      groupPriorityMinimum: 100,
      versionPriority: 100,
    });
    const local = decodeObject((await c.request('GET', `${APISERVICES}/v1.apps`, { headers: { accept: 'application/vnd.kubernetes.protobuf' } })).bytes) as {
      status: { conditions: Array<{ reason: string }> };
    };
    assert.equal(local.status.conditions[0]!.reason, 'Local');
  });

  it('a bad APIService is 422 with upstream’s causes', async () => {
    const both = assertStatus(
      await c.request('POST', APISERVICES, { body: remoteApiService('v1.bad.example.io', { insecureSkipTLSVerify: true, caBundle: Buffer.from('ca').toString('base64') }) }),
      422,
      'Invalid',
    );
    assert.deepEqual(both.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: true: may not be true if caBundle is present', field: 'spec.insecureSkipTLSVerify' }]);
    const misnamed = assertStatus(await c.request('POST', APISERVICES, { body: { ...remoteApiService('v1.bad.example.io'), metadata: { name: 'v2.bad.example.io' } } }), 422, 'Invalid');
    assert.deepEqual(
      misnamed.details.causes.map((x: { field: string }) => x.field),
      ['metadata.name'],
    );
    assert.match(misnamed.message, /must be `spec.version\+"."\+spec.group`: "v1.bad.example.io"/);
    const port = assertStatus(await c.request('POST', APISERVICES, { body: remoteApiService('v1.bad.example.io', { service: { namespace: 'a', name: 'b', port: 0 } }) }), 422, 'Invalid');
    assert.equal(port.details.causes[0].field, 'spec.service.port');
    assert.equal((await c.request('GET', `${APISERVICES}/v1.bad.example.io`)).status, 404);
  });

  it('kubectl get apiservices: NAME SERVICE AVAILABLE AGE, the Local ones True', { skip: bin ? false : 'kubectl not on PATH' }, async () => {
    const kubectl = new Kubectl(bin!, c.kubeconfigPath);
    const r = await kubectl.run(['get', 'apiservices']);
    assert.equal(r.code, 0, r.stderr);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s+/));
    assert.deepEqual(rows[0], ['NAME', 'SERVICE', 'AVAILABLE', 'AGE']);
    const byName = new Map(rows.slice(1).map((row) => [row[0], row.slice(1, 3)]));
    assert.deepEqual(byName.get('v1.'), ['Local', 'True']);
    assert.deepEqual(byName.get('v1.apps'), ['Local', 'True']);
    assert.deepEqual(byName.get('v1.rbac.authorization.platform.io'), ['Local', 'True']);
    assert.deepEqual(byName.get('v1beta1.metrics.example.io'), ['platform-system/metrics-server', 'Unknown']);
    const one = await kubectl.run(['get', 'apiservice', 'v1.', '-o', 'jsonpath={.spec.groupPriorityMinimum}/{.status.conditions[0].message}']);
    assert.equal(one.stdout, '18000/Local APIServices are always available', one.stderr);
  });
});

describe('APIServices with upstream group aliases', () => {
  let c: TestCluster;

  before(async () => {
    c = await startTestCluster({ upstreamGroupAliases: true });
  });
  after(async () => {
    await c?.stop();
  });

  it('lists each group once, under its branded name, through either spelling of the registration group', async () => {
    const names = await eventually('the gateway lists them', async () => {
      const items = await listed(c, '/apis/apiregistration.k8s.io');
      assert.ok(items.has('v1.rbac.authorization.platform.io'));
      return [...items.keys()];
    });
    assert.ok(!names.some((n) => n.endsWith('.k8s.io')), names.join(' '));
    assert.deepEqual(
      names.sort(),
      localApiServices(c.registry).map((o) => o.metadata.name!),
    );
  });
});
