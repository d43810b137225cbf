import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createBuiltinRegistry } from '../builtin-registry.js';
import { discoveryPriority } from '../builtin/apiregistration/local-api-services.js';
import { mergedAggregatedDiscovery, mergedApiGroup, mergedApiGroupList, mergedGroups, parseApiResourceList, remoteVersionDiscovery, type RemoteGroupVersion } from '../merged-discovery.js';

const registry = createBuiltinRegistry();
const remote = (group: string, version: string, groupPriority: number, versionPriority: number, extra: Partial<RemoteGroupVersion> = {}): RemoteGroupVersion => ({
  group,
  version,
  groupPriority,
  versionPriority,
  stale: false,
  ...extra,
});
const names = (groups: ReturnType<typeof mergedGroups>) => mergedApiGroupList(groups).groups.map((g) => g.name);

test("merged discovery - built-in groups in upstream's order: apiregistration first, then by their APIServices' priorities", () => {
  const list = names(mergedGroups(registry, discoveryPriority, []));
  assert.deepEqual(list.slice(0, 7), ['apiregistration.platform.io', 'apps', 'events.platform.io', 'authentication.platform.io', 'authorization.platform.io', 'autoscaling', 'batch']);
  assert.equal(list.at(-1), 'flowcontrol.apiserver.platform.io');
  const autoscaling = mergedApiGroupList(mergedGroups(registry, discoveryPriority, [])).groups.find((g) => g.name === 'autoscaling')!;
  assert.deepEqual(
    autoscaling.versions.map((v) => v.version),
    ['v2', 'v1', 'v2beta1', 'v2beta2'],
  );
  assert.equal(autoscaling.preferredVersion.version, 'v2');
});

test('merged discovery - remote groups sort by groupPriorityMinimum (ties by APIService name), their versions by versionPriority then kube-aware order', () => {
  const groups = mergedGroups(registry, discoveryPriority, [
    remote('metrics.k8s.io', 'v1beta1', 100, 100),
    remote('high.example.com', 'v1', 17_900, 10),
    remote('wardle.example.com', 'v1alpha1', 100, 10),
    remote('wardle.example.com', 'v1beta1', 100, 10),
    remote('wardle.example.com', 'v2', 100, 5),
  ]);
  const list = names(groups);
  assert.equal(list[1], 'high.example.com', 'above apps (17800), below apiregistration');
  // Both at 100, below every built-in group: by the name of each group's first APIService.
  assert.deepEqual(list.slice(-2), ['wardle.example.com', 'metrics.k8s.io'], '"v1alpha1.wardle.example.com" < "v1beta1.metrics.k8s.io"');
  const wardle = mergedApiGroup(groups.find((g) => g.name === 'wardle.example.com')!);
  assert.deepEqual(
    wardle.versions.map((v) => v.version),
    ['v1beta1', 'v1alpha1', 'v2'],
  );
  assert.deepEqual(wardle.preferredVersion, { groupVersion: 'wardle.example.com/v1beta1', version: 'v1beta1' });
});

test('merged discovery - a remote version of a served group joins it; one the server serves itself is not listed twice', () => {
  const groups = mergedGroups(registry, discoveryPriority, [remote('batch', 'v9', 100, 100), remote('batch', 'v1', 100, 100)]);
  const batch = groups.find((g) => g.name === 'batch')!;
  assert.deepEqual(
    batch.versions.map((v) => [v.version, Boolean(v.remote)]),
    [
      ['v9', true],
      ['v1', false],
      ['v1beta1', false],
    ],
  );
});

test("merged discovery - with aliases, the upstream spelling takes the canonical group's place and the canonical spellings come after every group, remote ones included", () => {
  const aliased = createBuiltinRegistry({ upstreamGroupAliases: true });
  const list = names(mergedGroups(aliased, discoveryPriority, [remote('metrics.k8s.io', 'v1beta1', 100, 100)]));
  assert.equal(list[0], 'apiregistration.k8s.io', 'the registration group first, under its upstream spelling');
  const firstCanonical = list.indexOf('apiregistration.platform.io');
  assert.ok(firstCanonical > list.indexOf('metrics.k8s.io'), list.join(' '));
  assert.ok(
    list.slice(firstCanonical).every((n) => n.endsWith('.platform.io')),
    list.join(' '),
  );
  assert.ok(
    list.slice(0, firstCanonical).every((n) => !n.endsWith('.platform.io')),
    list.join(' '),
  );
});

test("merged discovery - a backend's resource list becomes the aggregated form; unknown or failing, the version is Stale", () => {
  const resources = parseApiResourceList({
    kind: 'APIResourceList',
    groupVersion: 'wardle.example.com/v1',
    resources: [
      { name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list'], shortNames: ['fl'] },
      { name: 'flunders/status', singularName: '', namespaced: true, kind: 'Flunder', verbs: ['get', 'update'] },
      { name: 'flunders/scale', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get'] },
      { name: 'orphans/status', namespaced: false, kind: 'Orphan', verbs: ['get'] },
      { name: 42, kind: 'Broken' },
      'junk',
    ],
  })!;
  assert.equal(resources.length, 4);
  const v = remoteVersionDiscovery(remote('wardle.example.com', 'v1', 100, 100, { resources }));
  assert.equal(v.freshness, 'Current');
  assert.deepEqual(v.resources, [
    {
      resource: 'flunders',
      responseKind: { group: '', version: '', kind: 'Flunder' },
      scope: 'Namespaced',
      singularResource: 'flunder',
      verbs: ['get', 'list'],
      shortNames: ['fl'],
      subresources: [
        { subresource: 'status', responseKind: { group: '', version: '', kind: 'Flunder' }, verbs: ['get', 'update'] },
        { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get'] },
      ],
    },
  ]);
  assert.equal(remoteVersionDiscovery(remote('wardle.example.com', 'v1', 100, 100, { resources, stale: true })).freshness, 'Stale');
  assert.deepEqual(remoteVersionDiscovery(remote('wardle.example.com', 'v1', 100, 100)), { version: 'v1', resources: [], freshness: 'Stale' });
  assert.equal(parseApiResourceList({ kind: 'Status' }), undefined);
  assert.equal(parseApiResourceList(null), undefined);
});

test('merged discovery - aggregated /apis lists a remote version even with no resources known (upstream), local empty ones never', () => {
  const doc = mergedAggregatedDiscovery(registry, mergedGroups(registry, discoveryPriority, [remote('metrics.k8s.io', 'v1beta1', 100, 100)]), 'v2', 'apidiscovery.k8s.io');
  assert.equal(doc.apiVersion, 'apidiscovery.k8s.io/v2');
  const metrics = doc.items.at(-1)!;
  assert.deepEqual(metrics, { metadata: { name: 'metrics.k8s.io' }, versions: [{ version: 'v1beta1', resources: [], freshness: 'Stale' }] });
  assert.equal(doc.items[0]!.metadata.name, 'apiregistration.platform.io');
  assert.ok(doc.items.every((g) => g.versions.every((v) => v.resources.length > 0 || g.metadata.name === 'metrics.k8s.io')));
});
