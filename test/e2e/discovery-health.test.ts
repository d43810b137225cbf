// End to end: discovery (legacy and aggregated), /version, OpenAPI v2/v3, health endpoints and
// metrics, as clients such as kubectl and client libraries read them.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { assertOk, assertStatus, configMap, uniq } from './helpers.js';

const AGGREGATED = 'application/json;g=apidiscovery.platform.io;v=v2;as=APIGroupDiscoveryList';

let c: TestCluster;

before(async () => {
  c = await startTestCluster();
});

after(async () => {
  await c?.stop();
});

describe('discovery', () => {
  it('discovery - /api lists v1', async () => {
    const body = assertOk(await c.request('GET', '/api', { headers: { accept: 'application/json' } }));
    assert.equal(body.kind, 'APIVersions');
    assert.deepEqual(body.versions, ['v1']);
    assert.ok(Array.isArray(body.serverAddressByClientCIDRs));
  });

  it('discovery - /api/v1 describes configmaps, namespaces and subresources', async () => {
    const body = assertOk(await c.request('GET', '/api/v1'));
    assert.equal(body.kind, 'APIResourceList');
    assert.equal(body.groupVersion, 'v1');
    const cm = body.resources.find((r: any) => r.name === 'configmaps');
    assert.ok(cm, 'configmaps listed');
    assert.equal(cm.namespaced, true);
    assert.equal(cm.kind, 'ConfigMap');
    assert.equal(cm.singularName, 'configmap');
    assert.deepEqual(cm.shortNames, ['cm']);
    assert.deepEqual([...cm.verbs].sort(), ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    const ns = body.resources.find((r: any) => r.name === 'namespaces');
    assert.equal(ns.namespaced, false);
    assert.deepEqual(ns.shortNames, ['ns']);
    assert.ok(
      body.resources.some((r: any) => r.name === 'namespaces/status'),
      'namespaces/status listed',
    );
    assert.ok(!body.resources.some((r: any) => r.name === 'configmaps/status'), 'configmaps have no status subresource');
  });

  it('discovery - /apis lists apps and rbac with preferred versions', async () => {
    const body = assertOk(await c.request('GET', '/apis', { headers: { accept: 'application/json' } }));
    assert.equal(body.kind, 'APIGroupList');
    const apps = body.groups.find((g: any) => g.name === 'apps');
    assert.ok(apps, 'apps group listed');
    assert.deepEqual(apps.preferredVersion, { groupVersion: 'apps/v1', version: 'v1' });
    assert.ok(apps.versions.some((v: any) => v.groupVersion === 'apps/v1' && v.version === 'v1'));
    const rbac = body.groups.find((g: any) => g.name === 'rbac.authorization.platform.io');
    assert.ok(rbac, 'rbac group listed');
    assert.deepEqual(rbac.preferredVersion, { groupVersion: 'rbac.authorization.platform.io/v1', version: 'v1' });
    assert.ok(!body.groups.some((g: any) => g.name === ''), 'the core group is not in /apis');
    const group = assertOk(await c.request('GET', '/apis/apps'));
    assert.equal(group.kind, 'APIGroup');
    assert.equal(group.name, 'apps');
  });

  it('discovery - /apis/apps/v1 has deployments with status and scale', async () => {
    const body = assertOk(await c.request('GET', '/apis/apps/v1'));
    assert.equal(body.kind, 'APIResourceList');
    assert.equal(body.groupVersion, 'apps/v1');
    const d = body.resources.find((r: any) => r.name === 'deployments');
    assert.ok(d);
    assert.equal(d.namespaced, true);
    assert.equal(d.kind, 'Deployment');
    assert.ok(d.shortNames.includes('deploy'));
    const status = body.resources.find((r: any) => r.name === 'deployments/status');
    assert.ok(status, 'deployments/status listed');
    assert.equal(status.kind, 'Deployment');
    assert.deepEqual([...status.verbs].sort(), ['get', 'patch', 'update']);
    const scale = body.resources.find((r: any) => r.name === 'deployments/scale');
    assert.ok(scale, 'deployments/scale listed');
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.group, 'autoscaling');
    assert.equal(scale.version, 'v1');
  });

  it('discovery - aggregated discovery when asked for apidiscovery.platform.io v2', async () => {
    const r = await c.request('GET', '/apis', { headers: { accept: AGGREGATED } });
    const body = assertOk(r);
    assert.match(r.headers.get('content-type') ?? '', /g=apidiscovery\.platform\.io/);
    assert.equal(body.kind, 'APIGroupDiscoveryList');
    assert.equal(body.apiVersion, 'apidiscovery.platform.io/v2');
    const apps = body.items.find((i: any) => i.metadata?.name === 'apps');
    assert.ok(apps, 'apps in aggregated discovery');
    const v1 = apps.versions.find((v: any) => v.version === 'v1');
    const d = v1.resources.find((x: any) => x.resource === 'deployments');
    assert.equal(d.responseKind.kind, 'Deployment');
    assert.ok(['', 'apps'].includes(d.responseKind.group), JSON.stringify(d.responseKind));
    const scale = d.subresources.find((s: any) => s.subresource === 'scale');
    assert.deepEqual(scale.responseKind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    assert.equal(d.scope, 'Namespaced');
    assert.deepEqual(d.subresources.map((s: any) => s.subresource).sort(), ['scale', 'status']);

    const core = assertOk(await c.request('GET', '/api', { headers: { accept: AGGREGATED } }));
    assert.equal(core.kind, 'APIGroupDiscoveryList');
    const cm = core.items[0].versions.find((v: any) => v.version === 'v1').resources.find((x: any) => x.resource === 'configmaps');
    assert.ok(cm);
    assert.deepEqual(cm.shortNames, ['cm']);
  });

  it('discovery - /api and /apis without an Accept header are the plain lists', async () => {
    // Clients that send no Accept (or only */*) must get the legacy documents, as upstream.
    const api = await c.request('GET', '/api');
    assert.equal(assertOk(api).kind, 'APIVersions', api.headers.get('content-type') ?? '');
    const apis = await c.request('GET', '/apis');
    assert.equal(assertOk(apis).kind, 'APIGroupList', apis.headers.get('content-type') ?? '');
    assert.equal(assertOk(await c.request('GET', '/apis', { headers: { accept: '*/*' } })).kind, 'APIGroupList');
  });

  it('discovery - the upstream spelling kubectl sends gets aggregated discovery in that group', async () => {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
    const r = await c.request('GET', '/apis', { headers: { accept } });
    const body = assertOk(r);
    assert.equal(body.kind, 'APIGroupDiscoveryList');
    assert.equal(body.apiVersion, 'apidiscovery.k8s.io/v2');
    assert.ok(body.items.some((g: any) => g.metadata.name === 'apps'));
    assert.match(r.headers.get('content-type') ?? '', /^application\/json;g=apidiscovery\.k8s\.io;v=v2;as=APIGroupDiscoveryList/);
    const beta = assertOk(await c.request('GET', '/api', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList' } }));
    assert.equal(beta.apiVersion, 'apidiscovery.k8s.io/v2beta1');
  });

  it('version - /version reports the server version', async () => {
    const body = assertOk(await c.request('GET', '/version'));
    assert.match(body.gitVersion, /^v\d+\.\d+\.\d+/);
    assert.match(body.major, /^\d+$/);
    assert.match(body.minor, /^\d+\+?$/);
    assert.equal(typeof body.platform, 'string');
    assert.equal(typeof body.goVersion, 'string');
  });

  it('openapi - /openapi/v2 has a definition tagged with the ConfigMap kind', async () => {
    const body = assertOk(await c.request('GET', '/openapi/v2'));
    assert.equal(body.swagger, '2.0');
    const entry = Object.entries(body.definitions as Record<string, any>).find(([, d]) =>
      (d['x-kubernetes-group-version-kind'] ?? []).some((g: any) => g.group === '' && g.version === 'v1' && g.kind === 'ConfigMap'),
    );
    assert.ok(entry, 'a definition tagged group "" version v1 kind ConfigMap');
    const [, def] = entry;
    assert.ok(def.properties.data, 'ConfigMap has data');
    assert.ok(def.properties.metadata, 'ConfigMap has metadata');
    assert.ok(body.paths['/api/v1/namespaces/{namespace}/configmaps'], 'configmaps path present');
  });

  it('openapi - /openapi/v3 lists api/v1 and every group version, and each document loads', async () => {
    const root = assertOk(await c.request('GET', '/openapi/v3'));
    const paths = root.paths as Record<string, { serverRelativeURL: string }>;
    assert.ok(paths['api/v1'], 'api/v1 listed');
    assert.ok(paths['apis/apps/v1'], 'apis/apps/v1 listed');
    assert.ok(paths['apis/rbac.authorization.platform.io/v1'], 'rbac listed');
    const groups = assertOk(await c.request('GET', '/apis', { headers: { accept: 'application/json' } }));
    for (const g of groups.groups) for (const v of g.versions) assert.ok(paths[`apis/${v.groupVersion}`], `apis/${v.groupVersion} listed in /openapi/v3`);
    for (const [key, { serverRelativeURL }] of Object.entries(paths)) {
      assert.match(serverRelativeURL, new RegExp(`^/openapi/v3/${key.replace(/\./g, '\\.')}\\?hash=`));
      const doc = assertOk(await c.request('GET', serverRelativeURL));
      assert.match(doc.openapi, /^3\./, key);
      assert.ok(doc.components?.schemas && Object.keys(doc.components.schemas).length > 0, `${key} has schemas`);
    }
    const core = assertOk(await c.request('GET', paths['api/v1']!.serverRelativeURL));
    const cmSchema = Object.values(core.components.schemas as Record<string, any>).find((s) => (s['x-kubernetes-group-version-kind'] ?? []).some((g: any) => g.group === '' && g.kind === 'ConfigMap'));
    assert.ok(cmSchema, 'ConfigMap schema in api/v1');
    assertStatus(await c.request('GET', '/openapi/v3/apis/nope.example.com/v1'), 404);
  });
});

describe('health and metrics', () => {
  for (const endpoint of ['healthz', 'livez', 'readyz']) {
    it(`health - /${endpoint} is 200 ok`, async () => {
      const r = await c.request('GET', `/${endpoint}`);
      assert.equal(r.status, 200);
      assert.equal(r.text, 'ok');
    });
  }

  it('health - ?verbose lists each check and the final line', async () => {
    const r = await c.request('GET', '/readyz?verbose');
    assert.equal(r.status, 200);
    const lines = r.text.trim().split('\n');
    assert.ok(lines.includes('[+]ping ok'), r.text);
    assert.ok(
      lines.slice(0, -1).every((l) => /^\[\+\][\w.:/-]+ ok$/.test(l)),
      r.text,
    );
    assert.equal(lines.at(-1), 'readyz check passed');
    const live = await c.request('GET', '/livez?verbose');
    assert.equal(live.text.trim().split('\n').at(-1), 'livez check passed');
  });

  it('health - ?exclude marks the check excluded', async () => {
    const r = await c.request('GET', '/readyz?verbose&exclude=ping');
    assert.equal(r.status, 200);
    assert.match(r.text, /^\[\+\]ping excluded: ok$/m);
    assert.match(r.text, /readyz check passed\n?$/);
  });

  it('health - /readyz/<check> answers for one check; an unknown check is 404', async () => {
    const verbose = await c.request('GET', '/readyz?verbose');
    const checks = [...verbose.text.matchAll(/^\[\+\](\S+) ok$/gm)].map((m) => m[1]!);
    assert.ok(checks.length >= 2, verbose.text);
    for (const check of checks) {
      const r = await c.request('GET', `/readyz/${check}`);
      assert.equal(r.status, 200, `${check}: ${r.text}`);
      assert.equal(r.text, 'ok');
    }
    assert.equal((await c.request('GET', '/livez/ping')).status, 200);
    assert.equal((await c.request('GET', '/readyz/no-such-check')).status, 404);
  });

  it('metrics - /metrics serves apiserver_request_total for requests made', async () => {
    const name = uniq('m');
    assertOk(await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap(name) }), 201);
    assertOk(await c.request('GET', '/api/v1/namespaces/default/configmaps'));
    const r = await c.request('GET', '/metrics');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(r.text, /^# TYPE apiserver_request_total counter$/m);
    const lines = r.text.split('\n').filter((l) => l.startsWith('apiserver_request_total{') && l.includes('resource="configmaps"'));
    assert.ok(
      lines.some((l) => l.includes('verb="LIST"') && l.includes('code="200"')),
      lines.join('\n'),
    );
    // Upstream reports creates with the HTTP verb POST.
    assert.ok(
      lines.some((l) => l.includes('verb="POST"') && l.includes('code="201"')),
      lines.join('\n'),
    );
  });
});
