// End to end: the beta versions the spec's reference release (1.24) still served, beside their
// stable ones, over HTTPS with upstream kubectl. One stored object behind every version; each
// response in the version its URL names (JSON, protobuf, lists, watches); a request to a deprecated
// version gets upstream's Warning header and sets apiserver_requested_deprecated_apis; a
// policy/v1beta1 empty PodDisruptionBudget selector keeps meaning "no pods" when read through v1;
// `--runtime-config` switches a beta version off.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { findKubectl, Kubectl } from '../support/kubectl.js';
import { decodeObject, encodeObject } from '../../shared/proto/envelope.js';
import { PDB_V1BETA1_LABEL } from '../../shared/registry/builtin/policy/pod-disruption-budget.js';
import { assertOk, assertStatus, createNamespace, openWatch, uniq } from './helpers.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const CRONJOB_WARNING = '299 - "batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob"';

const bin = findKubectl();

function cronJob(apiVersion: string, name: string) {
  return {
    apiVersion,
    kind: 'CronJob',
    metadata: { name },
    spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } } } },
  };
}

describe('API versions: beta versions beside stable ones', () => {
  let c: TestCluster;
  let ns: string;
  const cronjobs = (v: string) => `/apis/batch/${v}/namespaces/${ns}/cronjobs`;

  before(async () => {
    c = await startTestCluster();
    ns = uniq('versions');
    await createNamespace(c, ns);
  });
  after(async () => c?.stop());

  it('discovery lists both versions, the stable one preferred', async () => {
    const group = assertOk(await c.request('GET', '/apis/batch'));
    assert.deepEqual(
      group.versions.map((v: { version: string }) => v.version),
      ['v1', 'v1beta1'],
    );
    assert.equal(group.preferredVersion.version, 'v1');
    const beta = assertOk(await c.request('GET', '/apis/batch/v1beta1'));
    assert.deepEqual(
      beta.resources.map((r: { name: string }) => r.name),
      ['cronjobs', 'cronjobs/status'],
    );
  });

  it('an object written through v1beta1 is one object in both versions; each answer names its own version', async () => {
    const created = await c.request('POST', cronjobs('v1beta1'), { body: cronJob('batch/v1beta1', 'beta') });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.apiVersion, 'batch/v1beta1');
    assert.equal(created.headers.get('warning'), CRONJOB_WARNING);

    const viaV1 = assertOk(await c.request('GET', `${cronjobs('v1')}/beta`));
    assert.equal(viaV1.apiVersion, 'batch/v1');
    assert.equal(viaV1.metadata.uid, created.json.metadata.uid);
    assert.equal(viaV1.spec.schedule, '*/5 * * * *');
    assert.equal((await c.request('GET', `${cronjobs('v1')}/beta`)).headers.get('warning'), null, 'no warning on the stable version');

    // Updated through v1, read through v1beta1.
    viaV1.spec.suspend = true;
    assertOk(await c.request('PUT', `${cronjobs('v1')}/beta`, { body: viaV1 }));
    const list = assertOk(await c.request('GET', cronjobs('v1beta1')));
    assert.equal(list.apiVersion, 'batch/v1beta1');
    assert.equal(list.kind, 'CronJobList');
    const item = list.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'beta');
    assert.equal(item.apiVersion, 'batch/v1beta1');
    assert.equal(item.spec.suspend, true);
  });

  it('protobuf bodies and answers in v1beta1', async () => {
    const body = encodeObject(cronJob('batch/v1beta1', 'pb'))!;
    const r = await c.request('POST', cronjobs('v1beta1'), { rawBody: body, headers: { 'content-type': PROTOBUF, accept: PROTOBUF } });
    assert.equal(r.status, 201, r.text);
    const o = decodeObject(r.bytes) as any;
    assert.deepEqual([o.apiVersion, o.kind, o.metadata.name, o.spec.schedule], ['batch/v1beta1', 'CronJob', 'pb', '*/5 * * * *']);
    const v1 = decodeObject((await c.request('GET', `${cronjobs('v1')}/pb`, { headers: { accept: PROTOBUF } })).bytes) as any;
    assert.equal(v1.apiVersion, 'batch/v1');
  });

  it('a watch through v1beta1 sees writes made through v1 in v1beta1', async () => {
    const w = await openWatch(c, `${cronjobs('v1beta1')}?watch=true&fieldSelector=metadata.name=watched`);
    try {
      assertOk(await c.request('POST', cronjobs('v1'), { body: cronJob('batch/v1', 'watched') }), 201);
      const ev = await w.waitFor((e) => e.type === 'ADDED');
      assert.equal(ev.object.apiVersion, 'batch/v1beta1');
    } finally {
      w.close();
    }
  });

  it('/metrics records the deprecated API requested', async () => {
    const text = (await c.request('GET', '/metrics')).text;
    assert.match(text, /apiserver_requested_deprecated_apis\{group="batch",version="v1beta1",resource="cronjobs",subresource="",removed_release="1.25"\} 1/);
    assert.doesNotMatch(text, /apiserver_requested_deprecated_apis\{group="batch",version="v1",/);
  });

  it('policy/v1beta1 PodDisruptionBudget: an empty selector still selects no pods when read through v1', async () => {
    const path = (v: string) => `/apis/policy/${v}/namespaces/${ns}/poddisruptionbudgets`;
    const r = await c.request('POST', path('v1beta1'), { body: { apiVersion: 'policy/v1beta1', kind: 'PodDisruptionBudget', metadata: { name: 'none' }, spec: { minAvailable: 1, selector: {} } } });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.spec.selector, {});
    assert.match(r.headers.get('warning') ?? '', /policy\/v1beta1 PodDisruptionBudget is deprecated in v1.21\+, unavailable in v1.25\+; use policy\/v1 PodDisruptionBudget/);
    const v1 = assertOk(await c.request('GET', `${path('v1')}/none`));
    assert.deepEqual(v1.spec.selector, { matchExpressions: [{ key: PDB_V1BETA1_LABEL, operator: 'Exists' }] });
    // A v1 empty selector (every pod) reads through v1beta1 as its match-all form.
    assertOk(await c.request('POST', path('v1'), { body: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'all' }, spec: { minAvailable: 1, selector: {} } } }), 201);
    const beta = assertOk(await c.request('GET', `${path('v1beta1')}/all`));
    assert.deepEqual(beta.spec.selector, { matchExpressions: [{ key: PDB_V1BETA1_LABEL, operator: 'DoesNotExist' }] });
  });

  it('events.platform.io/v1beta1 Events are created with the lenient v1beta1 rules and read as core events', async () => {
    const r = await c.request('POST', `/apis/events.platform.io/v1beta1/namespaces/${ns}/events`, {
      body: { apiVersion: 'events.platform.io/v1beta1', kind: 'Event', metadata: { name: 'old-style' }, regarding: { kind: 'Pod', name: 'p', namespace: ns }, note: 'hello', type: 'Normal' },
    });
    assert.equal(r.status, 201, r.text);
    const core = assertOk(await c.request('GET', `/api/v1/namespaces/${ns}/events/old-style`));
    assert.deepEqual([core.involvedObject.name, core.message], ['p', 'hello']);
    // The same body is refused through v1, which needs eventTime and the reporting fields.
    assertStatus(
      await c.request('POST', `/apis/events.platform.io/v1/namespaces/${ns}/events`, {
        body: { apiVersion: 'events.platform.io/v1', kind: 'Event', metadata: { name: 'strict' }, regarding: { kind: 'Pod', name: 'p', namespace: ns }, type: 'Normal' },
      }),
      422,
      'Invalid',
    );
  });

  it('discovery.platform.io EndpointSlices: a v1beta1 topology map reads as v1 nodeName/zone and back', async () => {
    const path = (v: string) => `/apis/discovery.platform.io/${v}/namespaces/${ns}/endpointslices`;
    const topology = { 'topology.platform.io/zone': 'zone-a', 'platform.io/hostname': 'node-1', rack: 'r7' };
    const r = await c.request('POST', path('v1beta1'), {
      body: {
        apiVersion: 'discovery.platform.io/v1beta1',
        kind: 'EndpointSlice',
        metadata: { name: 'web-1' },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['10.1.0.7'], nodeName: 'node-1', topology }],
        ports: [{ port: 8080 }],
      },
    });
    assert.equal(r.status, 201, r.text);
    assert.match(r.headers.get('warning') ?? '', /discovery.platform.io\/v1beta1 EndpointSlice is deprecated in v1.21\+, unavailable in v1.25\+; use discovery.platform.io\/v1 EndpointSlice/);
    assert.deepEqual(r.json.endpoints[0].topology, topology);
    const v1 = assertOk(await c.request('GET', `${path('v1')}/web-1`));
    assert.deepEqual(v1.endpoints[0], { addresses: ['10.1.0.7'], conditions: {}, nodeName: 'node-1', zone: 'zone-a', deprecatedTopology: { rack: 'r7' } });
    assert.deepEqual(v1.ports, [{ port: 8080, name: '', protocol: 'TCP' }]);
    // Invalid through either version, with v1's field paths.
    const bad = await c.request('POST', path('v1beta1'), {
      body: { apiVersion: 'discovery.platform.io/v1beta1', kind: 'EndpointSlice', metadata: { name: 'bad' }, addressType: 'IPv4', endpoints: [{ addresses: ['::1'] }] },
    });
    assert.equal(assertStatus(bad, 422, 'Invalid').details.causes[0].field, 'endpoints[0].addresses[0]');
  });

  it('flowcontrol.apiserver.platform.io: priority levels and flow schemas in v1beta2, read through deprecated v1beta1', async () => {
    const g = '/apis/flowcontrol.apiserver.platform.io';
    const pl = await c.request('POST', `${g}/v1beta2/prioritylevelconfigurations`, {
      body: {
        apiVersion: 'flowcontrol.apiserver.platform.io/v1beta2',
        kind: 'PriorityLevelConfiguration',
        metadata: { name: 'batch-low' },
        spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 16 } } } },
      },
    });
    assert.equal(pl.status, 201, pl.text);
    assert.equal(pl.headers.get('warning'), null);
    assert.deepEqual(pl.json.spec.limited, { assuredConcurrencyShares: 30, limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 8, queueLengthLimit: 50 } } });
    const fs = await c.request('POST', `${g}/v1beta2/flowschemas`, {
      body: {
        apiVersion: 'flowcontrol.apiserver.platform.io/v1beta2',
        kind: 'FlowSchema',
        metadata: { name: 'batch-jobs' },
        spec: {
          priorityLevelConfiguration: { name: 'batch-low' },
          distinguisherMethod: { type: 'ByNamespace' },
          rules: [{ subjects: [{ kind: 'Group', group: { name: 'batch' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['batch'], resources: ['jobs'], namespaces: ['*'] }] }],
        },
      },
    });
    assert.equal(fs.status, 201, fs.text);
    assert.equal(fs.json.spec.matchingPrecedence, 1000);
    const beta = await c.request('GET', `${g}/v1beta1/flowschemas/batch-jobs`);
    assert.equal(assertOk(beta).apiVersion, 'flowcontrol.apiserver.platform.io/v1beta1');
    assert.equal(
      beta.headers.get('warning'),
      '299 - "flowcontrol.apiserver.platform.io/v1beta1 FlowSchema is deprecated in v1.23+, unavailable in v1.26+; use flowcontrol.apiserver.platform.io/v1beta2 FlowSchema"',
    );
    const exempt = await c.request('POST', `${g}/v1beta2/prioritylevelconfigurations`, {
      body: { apiVersion: 'flowcontrol.apiserver.platform.io/v1beta2', kind: 'PriorityLevelConfiguration', metadata: { name: 'not-exempt' }, spec: { type: 'Exempt' } },
    });
    assert.equal(assertStatus(exempt, 422, 'Invalid').details.causes[0].field, 'spec.type');
  });

  it('kubectl: a stock v1beta1 manifest applies with the deprecation warning, and lists through either version', { skip: bin ? false : 'kubectl not on PATH' }, async () => {
    const k = new Kubectl(bin!, c.kubeconfigPath);
    const manifest = JSON.stringify(cronJob('batch/v1beta1', 'from-kubectl'));
    const applied = await k.run(['apply', '-n', ns, '-f', '-'], { input: manifest });
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stderr, /Warning: batch\/v1beta1 CronJob is deprecated in v1.21\+, unavailable in v1.25\+; use batch\/v1 CronJob/);
    const beta = await k.run(['get', 'cronjobs.v1beta1.batch', 'from-kubectl', '-n', ns, '-o', 'jsonpath={.apiVersion}']);
    assert.equal(beta.code, 0, beta.stderr);
    assert.equal(beta.stdout, 'batch/v1beta1');
    const table = await k.run(['get', 'cronjobs', '-n', ns]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^NAME\s+SCHEDULE/);
    assert.match(table.stdout, /from-kubectl\s+\*\/5 \* \* \* \*/);
    assert.doesNotMatch(table.stderr, /deprecated/, 'the preferred version is the stable one');
    const slices = await k.run(['get', 'endpointslices', '-n', ns]);
    assert.equal(slices.code, 0, slices.stderr);
    assert.match(slices.stdout, /^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE/);
    assert.match(slices.stdout, /web-1\s+IPv4\s+8080\s+10.1.0.7/);
    const levels = await k.run(['get', 'prioritylevelconfigurations']);
    assert.equal(levels.code, 0, levels.stderr);
    assert.match(levels.stdout, /^NAME\s+TYPE\s+ASSUREDCONCURRENCYSHARES\s+QUEUES\s+HANDSIZE\s+QUEUELENGTHLIMIT\s+AGE/);
    assert.match(levels.stdout, /batch-low\s+Limited\s+30\s+16\s+8\s+50/);
    const schemas = await k.run(['get', 'flowschemas']);
    assert.match(schemas.stdout, /batch-jobs\s+batch-low\s+1000\s+ByNamespace\s+\S+\s+\?/);
  });
});

describe('API versions: --runtime-config switches a beta version off', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster({ runtimeConfig: 'batch/v1beta1=false,policy/v1beta1/poddisruptionbudgets=false' });
  });
  after(async () => c?.stop());

  it('the version is gone from discovery and its paths are 404; the stable one still serves', async () => {
    const group = assertOk(await c.request('GET', '/apis/batch'));
    assert.deepEqual(
      group.versions.map((v: { version: string }) => v.version),
      ['v1'],
    );
    assertStatus(await c.request('GET', '/apis/batch/v1beta1/cronjobs'), 404, 'NotFound');
    assertOk(await c.request('GET', '/apis/batch/v1/cronjobs'));
    assertStatus(await c.request('GET', '/apis/policy/v1beta1/poddisruptionbudgets'), 404, 'NotFound');
    assertOk(await c.request('GET', '/apis/policy/v1beta1/podsecuritypolicies'));
  });
});
