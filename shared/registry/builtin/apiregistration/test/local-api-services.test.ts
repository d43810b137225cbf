// The Local APIServices a cluster lists: one per served built-in group/version, named as upstream
// names them, with the priorities of the group's upstream twin, each one a valid APIService.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../../api/types.js';
import { createBuiltinRegistry } from '../../../builtin-registry.js';
import { BUILTIN_TYPES } from '../../../registry.js';
import { testStrategyContext } from '../../../test/builtin-helpers.js';
import { APIREGISTRATION_GROUP, apiservices } from '../api-service.js';
import { apiServicePriority, AUTOMANAGED_LABEL, DEFAULT_LOCAL_PRIORITY, localApiServices } from '../local-api-services.js';

const names = (list: ApiObject[]) => list.map((o) => o.metadata.name);
const spec = (list: ApiObject[], name: string) => list.find((o) => o.metadata.name === name)?.spec as Record<string, unknown> | undefined;

describe('localApiServices', () => {
  const registry = createBuiltinRegistry();
  const list = localApiServices(registry);

  it('lists one per served built-in group/version, and nothing else', () => {
    const served = new Set<string>();
    for (const type of registry.definedBy(BUILTIN_TYPES)) {
      if (type.group === APIREGISTRATION_GROUP) continue;
      for (const s of registry.servedVersions(type)) served.add(`${s.version.name}.${s.group}`);
    }
    assert.deepEqual(names(list), [...served].sort());
    assert.equal(new Set(names(list)).size, list.length, 'no name twice');
  });

  it('names them <version>.<group> as upstream does: `v1.` for the core group', () => {
    for (const name of [
      'v1.',
      'v1.apps',
      'v1.batch',
      'v1beta1.batch',
      'v2.autoscaling',
      'v1.policy',
      'v1.rbac.authorization.platform.io',
      'v1.storage.platform.io',
      'v1beta2.flowcontrol.apiserver.platform.io',
    ]) {
      assert.ok(names(list).includes(name), `missing ${name} in ${names(list).join(' ')}`);
    }
  });

  it('leaves out the registration group itself, as upstream lists no v1.apiregistration.k8s.io', () => {
    assert.ok(!names(list).some((n) => n?.endsWith(APIREGISTRATION_GROUP)));
  });

  it('are Local: no service, the group and version named, marked as the server’s own', () => {
    for (const o of list) {
      const s = o.spec as Record<string, unknown>;
      assert.equal(s.service, undefined);
      assert.equal(`${String(s.version)}.${String(s.group ?? '')}`, o.metadata.name);
      assert.equal(o.metadata.labels?.[AUTOMANAGED_LABEL], 'onstart');
    }
  });

  const priorities: Array<[name: string, group: number, version: number]> = [
    ['v1.', 18000, 1],
    ['v1.apps', 17800, 15],
    ['v1.events.platform.io', 17750, 15],
    ['v1beta1.events.platform.io', 17750, 5],
    ['v1.authentication.platform.io', 17700, 15],
    ['v1.authorization.platform.io', 17600, 15],
    ['v2.autoscaling', 17500, 30],
    ['v1.autoscaling', 17500, 15],
    ['v2beta1.autoscaling', 17500, 9],
    ['v2beta2.autoscaling', 17500, 1],
    ['v1.batch', 17400, 15],
    ['v1.certificates.platform.io', 17300, 15],
    ['v1.networking.platform.io', 17200, 15],
    ['v1.policy', 17100, 15],
    ['v1.rbac.authorization.platform.io', 17000, 15],
    ['v1.storage.platform.io', 16800, 15],
    ['v1.admissionregistration.platform.io', 16700, 15],
    ['v1beta1.admissionregistration.platform.io', 16700, 12],
    ['v1.scheduling.platform.io', 16600, 15],
    ['v1.coordination.platform.io', 16500, 15],
    ['v1.node.platform.io', 16300, 15],
    ['v1.discovery.platform.io', 16200, 15],
    ['v1beta2.flowcontrol.apiserver.platform.io', 16100, 15],
    ['v1beta1.flowcontrol.apiserver.platform.io', 16100, 12],
  ];
  for (const [name, group, version] of priorities) {
    it(`${name} has upstream's priorities ${group}/${version}`, () =>
      assert.deepEqual(spec(list, name) && [spec(list, name)!.groupPriorityMinimum, spec(list, name)!.versionPriority], [group, version]));
  }

  it('a group/version upstream has no priorities for gets the custom-resource default', () => {
    assert.deepEqual(apiServicePriority('widgets.platform.io', 'v1'), DEFAULT_LOCAL_PRIORITY);
    assert.deepEqual(apiServicePriority('apps', 'v9'), DEFAULT_LOCAL_PRIORITY);
    assert.deepEqual(DEFAULT_LOCAL_PRIORITY, { group: 1000, version: 100 });
  });

  it('every one is a valid APIService that the registry accepts as created', () => {
    const served = registry.lookup(APIREGISTRATION_GROUP, 'v1', 'apiservices')!;
    for (const o of list) {
      const obj = structuredClone(o);
      registry.defaults(served, obj);
      obj.metadata.uid = '5f0c7a7e-0000-4000-8000-000000000001';
      apiservices.strategy!.prepareForCreate!(obj, testStrategyContext);
      assert.deepEqual(registry.validate(served, obj), [], String(o.metadata.name));
      assert.deepEqual(registry.unknownFields(served, obj), []);
    }
  });

  it('with upstream aliases on, lists each group under its branded name only', () => {
    assert.deepEqual(names(localApiServices(createBuiltinRegistry({ upstreamGroupAliases: true }))), names(list));
  });

  it('follows --runtime-config: a version switched off has none', () => {
    const off = names(localApiServices(createBuiltinRegistry({ runtimeConfig: 'batch/v1beta1=false' })));
    assert.ok(!off.includes('v1beta1.batch'));
    assert.ok(off.includes('v1.batch'));
  });
});
