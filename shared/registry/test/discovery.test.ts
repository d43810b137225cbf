import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { aggregatedDiscovery, apiGroup, apiGroupList, apiResourceList, apiVersions, serializeDocument, storageVersionHash, versionInfo } from '../discovery.js';
import type { ResourceType } from '../types.js';
import { fixtureSource } from './fixture-source.js';

const schema = { type: 'object', properties: { spec: { type: 'object' } } };
const v1 = { name: 'v1', schema };

const pods: ResourceType = {
  group: '',
  versions: [v1],
  kind: 'Pod',
  plural: 'pods',
  singular: 'pod',
  scope: 'Namespaced',
  shortNames: ['po'],
  categories: ['all'],
  subresources: {
    status: true,
    others: [
      { name: 'log', kind: 'Pod', verbs: ['get'] },
      { name: 'eviction', kind: 'Eviction', verbs: ['create'] },
      { name: 'exec', kind: 'PodExecOptions', verbs: ['create', 'get'] },
    ],
  },
};
const namespaces: ResourceType = {
  group: '',
  versions: [v1],
  kind: 'Namespace',
  plural: 'namespaces',
  singular: 'namespace',
  scope: 'Cluster',
  shortNames: ['ns'],
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: { status: true, others: [{ name: 'finalize', kind: 'Namespace', verbs: ['update'] }] },
};
const configmaps: ResourceType = { group: '', versions: [v1], kind: 'ConfigMap', plural: 'configmaps', singular: 'configmap', scope: 'Namespaced', shortNames: ['cm'] };
const deployments: ResourceType = {
  group: 'apps',
  versions: [v1, { name: 'v1beta1', schema, deprecation: { since: '1.20' } }],
  storageVersion: 'v1',
  kind: 'Deployment',
  plural: 'deployments',
  singular: 'deployment',
  scope: 'Namespaced',
  shortNames: ['deploy'],
  categories: ['all'],
  subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
};
const sar: ResourceType = {
  group: 'authorization.platform.io',
  versions: [v1],
  kind: 'SubjectAccessReview',
  plural: 'subjectaccessreviews',
  singular: 'subjectaccessreview',
  scope: 'Cluster',
  virtual: true,
};
const clusterroles: ResourceType = {
  group: 'rbac.authorization.platform.io',
  versions: [v1],
  kind: 'ClusterRole',
  plural: 'clusterroles',
  singular: 'clusterrole',
  scope: 'Cluster',
};

const source = fixtureSource;

const all = [pods, namespaces, configmaps, deployments, sar, clusterroles];
const src = source(all);

test('discovery - /api lists v1 and the server address', () => {
  assert.deepEqual(apiVersions('10.0.0.1:6443'), {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }],
  });
  assert.deepEqual(apiVersions().serverAddressByClientCIDRs, []);
});

test('discovery - core resource list has one entry per resource and subresource, ordered by name', () => {
  const list = apiResourceList(src, '', 'v1')!;
  assert.equal(list.kind, 'APIResourceList');
  assert.equal(list.apiVersion, 'v1');
  assert.equal(list.groupVersion, 'v1');
  assert.deepEqual(
    list.resources.map((r) => r.name),
    ['configmaps', 'namespaces', 'namespaces/finalize', 'namespaces/status', 'pods', 'pods/eviction', 'pods/exec', 'pods/log', 'pods/status'],
  );
  const byName = Object.fromEntries(list.resources.map((r) => [r.name, r]));
  assert.deepEqual(byName['pods'], {
    name: 'pods',
    singularName: 'pod',
    namespaced: true,
    kind: 'Pod',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['po'],
    categories: ['all'],
    storageVersionHash: storageVersionHash('', 'v1', 'Pod'),
  });
  assert.deepEqual(byName['pods/status'], { name: 'pods/status', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch', 'update'] });
  assert.deepEqual(byName['pods/eviction'], { name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
  assert.equal(byName['pods/exec']!.group, undefined);
  assert.equal(byName['namespaces']!.namespaced, false);
  assert.deepEqual(byName['namespaces/status']!.verbs, ['get', 'patch', 'update']);
  assert.deepEqual(byName['namespaces/finalize']!.verbs, ['update']);
  assert.equal(byName['namespaces/finalize']!.namespaced, false);
  assert.deepEqual(byName['namespaces']!.verbs, namespaces.verbs);
});

test('discovery - scale subresource answers autoscaling/v1 Scale', () => {
  const list = apiResourceList(src, 'apps', 'v1')!;
  assert.equal(list.groupVersion, 'apps/v1');
  assert.deepEqual(
    list.resources.map((r) => r.name),
    ['deployments', 'deployments/scale', 'deployments/status'],
  );
  assert.deepEqual(list.resources[1], {
    name: 'deployments/scale',
    singularName: '',
    namespaced: true,
    group: 'autoscaling',
    version: 'v1',
    kind: 'Scale',
    verbs: ['get', 'patch', 'update'],
  });
});

test('discovery - storage version hash is base64 of 8 bytes of the storage version GVK, same in every served version', () => {
  const expected = createHash('sha256').update('apps/v1/Deployment').digest().subarray(0, 8).toString('base64');
  assert.equal(storageVersionHash('apps', 'v1', 'Deployment'), expected);
  assert.equal(Buffer.from(expected, 'base64').length, 8);
  assert.equal(apiResourceList(src, 'apps', 'v1')!.resources[0]!.storageVersionHash, expected);
  assert.equal(apiResourceList(src, 'apps', 'v1beta1')!.resources[0]!.storageVersionHash, expected);
});

test('discovery - virtual types serve only create and have no storage version hash', () => {
  const list = apiResourceList(src, 'authorization.platform.io', 'v1')!;
  assert.deepEqual(list.resources, [{ name: 'subjectaccessreviews', singularName: 'subjectaccessreview', namespaced: false, kind: 'SubjectAccessReview', verbs: ['create'] }]);
});

test('discovery - unknown group version has no resource list', () => {
  assert.equal(apiResourceList(src, 'apps', 'v2'), undefined);
  assert.equal(apiResourceList(src, 'nope', 'v1'), undefined);
});

test('discovery - group list puts the preferred version first', () => {
  const s = source(all, [{ name: 'apps', versions: ['v1beta1', 'v1'], preferredVersion: 'v1' }]);
  assert.deepEqual(apiGroupList(s), {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [
      {
        name: 'apps',
        versions: [
          { groupVersion: 'apps/v1', version: 'v1' },
          { groupVersion: 'apps/v1beta1', version: 'v1beta1' },
        ],
        preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
      },
    ],
  });
  const g = apiGroup(s, 'apps')!;
  assert.equal(g.kind, 'APIGroup');
  assert.equal(g.apiVersion, 'v1');
  assert.equal(g.versions[0]!.version, 'v1');
  assert.equal(apiGroup(s, 'batch'), undefined);
  assert.deepEqual(
    apiGroupList(src).groups.map((x) => x.name),
    ['apps', 'authorization.platform.io', 'rbac.authorization.platform.io'],
  );
});

test('discovery - aggregated /apis has the apidiscovery v2 shape', () => {
  const doc = aggregatedDiscovery(src, 'apis');
  assert.equal(doc.kind, 'APIGroupDiscoveryList');
  assert.equal(doc.apiVersion, 'apidiscovery.platform.io/v2');
  assert.deepEqual(doc.metadata, {});
  assert.deepEqual(
    doc.items.map((i) => i.metadata.name),
    ['apps', 'authorization.platform.io', 'rbac.authorization.platform.io'],
  );
  const apps = doc.items[0]!;
  assert.deepEqual(
    apps.versions.map((v) => v.version),
    ['v1', 'v1beta1'],
  );
  assert.equal(apps.versions[0]!.freshness, 'Current');
  assert.deepEqual(apps.versions[0]!.resources[0], {
    resource: 'deployments',
    responseKind: { group: '', version: '', kind: 'Deployment' },
    scope: 'Namespaced',
    singularResource: 'deployment',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['deploy'],
    categories: ['all'],
    subresources: [
      { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
      { subresource: 'status', responseKind: { group: '', version: '', kind: 'Deployment' }, verbs: ['get', 'patch', 'update'] },
    ],
  });
  const sarEntry = doc.items[1]!.versions[0]!.resources[0]!;
  assert.equal(sarEntry.scope, 'Cluster');
  assert.deepEqual(sarEntry.verbs, ['create']);
  assert.equal(sarEntry.subresources, undefined);
  assert.equal(aggregatedDiscovery(src, 'apis', 'v2beta1').apiVersion, 'apidiscovery.platform.io/v2beta1');
});

test('discovery - aggregated /api holds the core group only', () => {
  const doc = aggregatedDiscovery(src, 'api');
  assert.equal(doc.items.length, 1);
  assert.deepEqual(doc.items[0]!.metadata, {});
  assert.equal(doc.items[0]!.versions[0]!.version, 'v1');
  assert.deepEqual(
    doc.items[0]!.versions[0]!.resources.map((r) => r.resource),
    ['configmaps', 'namespaces', 'pods'],
  );
  const ns = doc.items[0]!.versions[0]!.resources[1]!;
  assert.equal(ns.scope, 'Cluster');
  assert.deepEqual(
    ns.subresources!.map((s) => s.subresource),
    ['finalize', 'status'],
  );
});

test('discovery - /version is semver that kubectl parses, at the served API level (1.24), with Node as the toolchain', () => {
  const v = versionInfo({ gitCommit: 'abc123', buildDate: '2025-01-01T00:00:00Z' });
  assert.match(v.gitVersion, /^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/);
  assert.equal(v.gitVersion, 'v1.24.0+platform.0.1.0');
  assert.equal(v.major, '1');
  assert.equal(v.minor, '24');
  assert.equal(v.gitCommit, 'abc123');
  assert.equal(v.gitTreeState, 'clean');
  assert.equal(v.goVersion, `node${process.version.slice(1)}`);
  assert.match(v.platform, /^[a-z0-9]+\/[a-z0-9]+$/);
  const custom = versionInfo({ gitVersion: 'v1.31.4+platform.2.0.0' });
  assert.deepEqual([custom.major, custom.minor], ['1', '31']);
});

test('discovery - serialized documents carry a stable hash and a quoted ETag', () => {
  const a = serializeDocument(apiGroupList(src));
  const b = serializeDocument(apiGroupList(source(all)));
  assert.equal(a.body, JSON.stringify(apiGroupList(src)));
  assert.equal(a.hash, b.hash);
  assert.equal(a.etag, `"${a.hash}"`);
  assert.notEqual(a.hash, serializeDocument(apiGroupList(source([deployments]))).hash);
});
