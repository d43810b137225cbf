// A remote APIService may not take over a group/version this server serves, as upstream refuses
// it: every built-in group/version has its Local APIService (`v1.apps`), and every group/version a
// CustomResourceDefinition serves gets one too (upstream's crdregistration), so a remote one of
// the same name is AlreadyExists. The CRD's Local APIService follows the definition: made when it
// serves a version, its spec put back when edited, deleted with the definition. One the server
// does not manage (a remote APIService made before the definition) is left alone.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { crdOf } from '../../shared/registry/test/crd-fixtures.js';
import { startCrdControllers, type CrdControllers } from '../support/crd-controllers.js';
import { assertOk, assertStatus, eventually } from './helpers.js';

const APISERVICES = '/apis/apiregistration.platform.io/v1/apiservices';
const CRDS = '/apis/apiextensions.platform.io/v1/customresourcedefinitions';
const GROUP = 'shadow.example.com';
const LABEL = 'platform-aggregator.platform.io/automanaged';

const version = (name: string) => ({ name, served: true, storage: name === 'v1', schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } });
const definition = (versions: string[]) => crdOf(GROUP, 'Widget', versions.map(version));
const remote = (name: string) => {
  const [v, ...g] = name.split('.');
  return {
    apiVersion: 'apiregistration.platform.io/v1',
    kind: 'APIService',
    metadata: { name },
    spec: { group: g.join('.'), version: v, groupPriorityMinimum: 100, versionPriority: 100, service: { namespace: 'default', name: 'backend', port: 443 }, insecureSkipTLSVerify: true },
  };
};

describe('APIServices: a remote one cannot shadow a built-in or custom resource group/version', { timeout: 120_000 }, () => {
  let c: TestCluster;
  let controllers: CrdControllers;

  before(async () => {
    c = await startTestCluster({ authorizationModes: ['Node', 'RBAC'], fullAuthn: true });
    controllers = await startCrdControllers(c, 'platform-shadowing-');
  });
  after(async () => {
    await controllers?.stop();
    await c?.stop();
  });

  it('built-in - a remote v1.apps is AlreadyExists, and apps/v1 is still served here', async () => {
    const refused = assertStatus(await c.request('POST', APISERVICES, { body: remote('v1.apps') }), 409, 'AlreadyExists');
    assert.equal(refused.message, 'apiservices.apiregistration.platform.io "v1.apps" already exists');
    assert.equal(assertOk(await c.request('GET', `${APISERVICES}/v1.apps`)).spec.service, undefined, 'still Local');
    assertOk(await c.request('GET', '/apis/apps/v1/deployments'));
  });

  it('custom resources - a served definition gets a Local APIService (priorities 1000/100, automanaged), and a remote one of that name is AlreadyExists', async () => {
    assertOk(await c.request('POST', CRDS, { body: definition(['v1']) }), 201);
    const local = await eventually('the Local APIService of the definition', async () => assertOk(await c.request('GET', `${APISERVICES}/v1.${GROUP}`)), { timeoutMs: 10_000, intervalMs: 100 });
    assert.deepEqual(local.spec, { group: GROUP, version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
    assert.equal(local.metadata.labels[LABEL], 'true');
    const available = local.status.conditions.find((x: { type: string }) => x.type === 'Available');
    assert.deepEqual([available.status, available.reason], ['True', 'Local']);
    assertStatus(await c.request('POST', APISERVICES, { body: remote(`v1.${GROUP}`) }), 409, 'AlreadyExists');
    await eventually('the custom resource is served here', async () => assertOk(await c.request('GET', `/apis/${GROUP}/v1/namespaces/default/widgets`)), { timeoutMs: 10_000, intervalMs: 100 });
  });

  it('custom resources - an edited spec is put back; a remote APIService made before a new version is left alone', async () => {
    // Made first, for a version no definition serves yet: nothing refuses it.
    assertOk(await c.request('POST', APISERVICES, { body: remote(`v2.${GROUP}`) }), 201);
    const current = assertOk(await c.request('GET', `${APISERVICES}/v1.${GROUP}`));
    assertOk(await c.request('PUT', `${APISERVICES}/v1.${GROUP}`, { body: { ...current, spec: { ...current.spec, versionPriority: 7 } } }));
    await eventually('v1 put back', async () => assert.equal(assertOk(await c.request('GET', `${APISERVICES}/v1.${GROUP}`)).spec.versionPriority, 100), { timeoutMs: 10_000, intervalMs: 100 });
    // The definition comes to serve v2 as well: the name is taken by an APIService the server does not own.
    const crd = assertOk(await c.request('GET', `${CRDS}/widgets.${GROUP}`));
    assertOk(await c.request('PUT', `${CRDS}/widgets.${GROUP}`, { body: { ...crd, spec: definition(['v1', 'v2']).spec } }));
    await eventually('v2 served here', async () => assertOk(await c.request('GET', `/apis/${GROUP}/v2/namespaces/default/widgets`)), { timeoutMs: 10_000, intervalMs: 100 });
    const v2 = assertOk(await c.request('GET', `${APISERVICES}/v2.${GROUP}`));
    assert.deepEqual(v2.spec.service, { namespace: 'default', name: 'backend', port: 443 }, 'not the server’s: left as its author wrote it');
    assert.equal(v2.metadata.labels?.[LABEL], undefined);
  });

  it('custom resources - deleting the definition deletes its Local APIService, not the remote one it does not own', async () => {
    assertOk(await c.request('DELETE', `${CRDS}/widgets.${GROUP}`));
    await eventually('gone', async () => assertStatus(await c.request('GET', `${APISERVICES}/v1.${GROUP}`), 404, 'NotFound'), { timeoutMs: 20_000, intervalMs: 200 });
    assertOk(await c.request('GET', `${APISERVICES}/v2.${GROUP}`));
    // With the definition gone, the name is free for a remote APIService.
    assertOk(await c.request('POST', APISERVICES, { body: remote(`v1.${GROUP}`) }), 201);
  });
});
