// `--upstream-group-aliases` in the registry and what is built from it: targets, discovery, OpenAPI.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createBuiltinRegistry } from '../builtin-registry.js';
import { Targets } from '../target.js';
import { aggregatedDiscovery, apiGroupList, apiResourceList } from '../discovery.js';
import { openApiV2, openApiV3GroupVersion } from '../openapi.js';
import type { ApiObject } from '../../api/types.js';

const on = createBuiltinRegistry({ upstreamGroupAliases: true });
const off = createBuiltinRegistry();

test("aliases - each served branded group is also served under its upstream spelling, listed in the canonical group's place; the canonical spellings come last", () => {
  const names = on.groups().map((g) => g.name);
  const offNames = off.groups().map((g) => g.name);
  const firstBranded = names.findIndex((n) => n.endsWith('.platform.io'));
  assert.deepEqual(
    names.slice(0, firstBranded),
    offNames.map((n) => n.replace(/\.platform\.io$/, '.k8s.io')),
    'every group in its usual place, under its upstream spelling where it has one',
  );
  assert.deepEqual(
    names.slice(firstBranded),
    offNames.filter((n) => n.endsWith('.platform.io')),
    'then the canonical spellings, in the same order',
  );
  assert.ok(!names.includes('apps.k8s.io') && names.includes('apps'), 'groups without the brand get no alias');
  assert.deepEqual(on.group('rbac.authorization.k8s.io'), { ...on.group('rbac.authorization.platform.io'), name: 'rbac.authorization.k8s.io' });
  assert.deepEqual(
    off.groups().filter((g) => g.name.endsWith('.k8s.io')),
    [],
  );
  assert.equal(off.lookup('rbac.authorization.k8s.io', 'v1', 'roles'), undefined);
});

test('aliases - an alias serves the same types, found by URL and kind, never listed twice', () => {
  const canonical = on.lookup('rbac.authorization.platform.io', 'v1', 'roles')!;
  const alias = on.lookup('rbac.authorization.k8s.io', 'v1', 'roles')!;
  assert.equal(alias.type, canonical.type);
  assert.equal(alias.group, 'rbac.authorization.k8s.io');
  assert.equal(on.lookupKind('rbac.authorization.k8s.io', 'v1', 'Role')?.type, canonical.type);
  assert.equal(on.all().length, off.all().length, 'all() names each type once');
  assert.deepEqual(
    on.servedVersions(canonical.type).map((s) => s.group),
    ['rbac.authorization.platform.io'],
  );
  assert.equal(on.canonicalGroup('rbac.authorization.k8s.io'), 'rbac.authorization.platform.io');
  assert.equal(off.canonicalGroup('rbac.authorization.k8s.io'), 'rbac.authorization.k8s.io');
  assert.equal(on.canonicalGroup('metrics.k8s.io'), 'metrics.k8s.io', 'a third-party group keeps its name');
  assert.equal(on.resources('rbac.authorization.k8s.io', 'v1').length, on.resources('rbac.authorization.platform.io', 'v1').length);
});

test('aliases - a target through an alias stores under the canonical key and shows its own spelling', () => {
  const targets = new Targets(on);
  const canonical = targets.of('rbac.authorization.platform.io', 'v1', 'roles')!;
  const alias = targets.of('rbac.authorization.k8s.io', 'v1', 'roles')!;
  assert.equal(alias.apiVersion, 'rbac.authorization.k8s.io/v1');
  assert.deepEqual(alias.gr, { group: 'rbac.authorization.k8s.io', resource: 'roles' });
  assert.deepEqual([alias.storage, alias.cacheKey], [canonical.storage, canonical.cacheKey]);

  const stored: ApiObject = {
    apiVersion: 'rbac.authorization.platform.io/v1',
    kind: 'Role',
    metadata: {
      name: 'r',
      namespace: 'a',
      managedFields: [
        { manager: 'kubectl', operation: 'Apply', apiVersion: 'rbac.authorization.platform.io/v1', fieldsType: 'FieldsV1', fieldsV1: {} },
        { manager: 'other', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} },
      ],
    },
    rules: [{ apiGroups: ['rbac.authorization.platform.io'], resources: ['roles'], verbs: ['get'] }],
  };
  const shown = alias.fromStored!(stored);
  assert.equal(shown.apiVersion, 'rbac.authorization.k8s.io/v1');
  assert.deepEqual(
    (shown.metadata.managedFields as Array<{ apiVersion: string }>).map((e) => e.apiVersion),
    ['rbac.authorization.k8s.io/v1', 'v1'],
  );
  assert.deepEqual(shown.rules, stored.rules, 'what the object says about groups is its own, stored as written');
  assert.deepEqual(alias.toStored(shown), stored, 'the round trip is the identity');
  assert.equal(stored.apiVersion, 'rbac.authorization.platform.io/v1', 'the stored object is not modified');
  assert.equal(canonical.fromStored, null);

  // A type stored as another (events.k8s.io Events are core events): the same conversion, then the alias spelling.
  const events = targets.of('events.k8s.io', 'v1', 'events')!;
  const coreEvent = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'e', namespace: 'a' },
    involvedObject: { kind: 'Pod', name: 'p' },
    reason: 'Started',
    source: { component: 'agent' },
  } as unknown as ApiObject;
  const ev = events.fromStored!(coreEvent);
  assert.deepEqual([ev.apiVersion, ev.kind], ['events.k8s.io/v1', 'Event']);
  assert.equal(events.toStored(ev).apiVersion, 'v1');
});

test('aliases - discovery: short names and categories go with the preferred (upstream) spelling only; storage hashes are the canonical ones', () => {
  const canonical = apiResourceList(on, 'certificates.platform.io', 'v1')!.resources.find((r) => r.name === 'certificatesigningrequests')!;
  const alias = apiResourceList(on, 'certificates.k8s.io', 'v1')!;
  assert.equal(alias.groupVersion, 'certificates.k8s.io/v1');
  const csr = alias.resources.find((r) => r.name === 'certificatesigningrequests')!;
  assert.deepEqual(csr.shortNames, ['csr']);
  assert.equal(canonical.shortNames, undefined);
  assert.equal(canonical.categories, undefined);
  assert.deepEqual(
    apiResourceList(off, 'certificates.platform.io', 'v1')!.resources.find((r) => r.name === 'certificatesigningrequests')!.shortNames,
    ['csr'],
    'aliases off: the canonical group keeps them',
  );
  assert.equal(csr.storageVersionHash, canonical.storageVersionHash);
  assert.ok(apiGroupList(on).groups.some((g) => g.name === 'certificates.k8s.io'));
  const agg = aggregatedDiscovery(on, 'apis') as { items: Array<{ metadata: { name: string } }> };
  const order = agg.items.map((i) => i.metadata.name);
  assert.ok(order.indexOf('certificates.k8s.io') < order.indexOf('certificates.platform.io'));
});

test('aliases - OpenAPI: one definition per type naming both group/version/kinds; alias paths refer to it', () => {
  const doc = openApiV2(on) as { definitions: Record<string, Record<string, unknown>>; paths: Record<string, Record<string, { operationId?: string }>> };
  const role = doc.definitions['io.platform.api.rbac.v1.Role']!;
  assert.deepEqual(role['x-kubernetes-group-version-kind'], [
    { group: 'rbac.authorization.platform.io', version: 'v1', kind: 'Role' },
    { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role' },
  ]);
  assert.equal(Object.keys(doc.definitions).filter((n) => n.endsWith('.Role')).length, 1);
  const path = doc.paths['/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/roles/{name}']!;
  assert.ok(path, 'the alias paths are listed');
  assert.match(JSON.stringify(path), /#\/definitions\/io\.platform\.api\.rbac\.v1\.Role"/);
  const ids = Object.values(doc.paths).flatMap((p) =>
    Object.values(p)
      .map((op) => op?.operationId)
      .filter(Boolean),
  );
  assert.equal(new Set(ids).size, ids.length, 'operation ids stay unique');
  const v3 = openApiV3GroupVersion(on, 'rbac.authorization.k8s.io', 'v1') as { paths: Record<string, unknown> } | undefined;
  assert.ok(v3 && Object.keys(v3.paths).some((p) => p.startsWith('/apis/rbac.authorization.k8s.io/v1/')));
  const offDoc = openApiV2(off) as { paths: Record<string, unknown> };
  assert.ok(!Object.keys(offDoc.paths).some((p) => p.includes('.k8s.io')));
});

test('aliases - a target names the other spelling of its group/version only when both are served', () => {
  const targets = new Targets(on);
  assert.equal(targets.of('rbac.authorization.k8s.io', 'v1', 'roles')!.otherSpelling, 'rbac.authorization.platform.io/v1');
  assert.equal(targets.of('rbac.authorization.platform.io', 'v1', 'roles')!.otherSpelling, 'rbac.authorization.k8s.io/v1');
  assert.equal(targets.of('apps', 'v1', 'deployments')!.otherSpelling, undefined);
  assert.equal(new Targets(off).of('rbac.authorization.platform.io', 'v1', 'roles')!.otherSpelling, undefined);
});
