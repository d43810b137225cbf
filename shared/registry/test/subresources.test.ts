import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceType, SubresourceStrategy } from '../types.js';
import { Registry } from '../registry.js';
import { servedSubresourceVerbs, subresourceStrategyProblems } from '../subresources.js';
import { builtinTypes } from '../builtin-types.js';

const keep: SubresourceStrategy = { prepareForUpdate: (_o, old) => structuredClone(old) };

function gadget(subresources: ResourceType['subresources'], hooks?: Record<string, SubresourceStrategy>): ResourceType {
  return {
    group: 'example.platform.io',
    versions: [{ name: 'v1', schema: { type: 'object' } }],
    kind: 'Gadget',
    plural: 'gadgets',
    singular: 'gadget',
    scope: 'Cluster',
    ...(subresources ? { subresources } : {}),
    ...(hooks ? { strategy: { subresources: hooks } } : {}),
  };
}

describe('served subresources', () => {
  const cases: Array<[string, ResourceType, string, readonly string[] | undefined]> = [
    ['status when declared', gadget({ status: true }), 'status', ['get', 'patch', 'update']],
    ['no status when not declared', gadget({}), 'status', undefined],
    ['scale when declared', gadget({ scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } }), 'scale', ['get', 'patch', 'update']],
    ['a discovery-only subresource is not served', gadget({ others: [{ name: 'log', kind: 'Gadget', verbs: ['get'] }] }), 'log', undefined],
    [
      'a subresource with a strategy is served with its listed verbs',
      gadget({ others: [{ name: 'approval', kind: 'Gadget', verbs: ['get', 'patch', 'update'] }] }, { approval: keep }),
      'approval',
      ['get', 'patch', 'update'],
    ],
    ['update-only subresource', gadget({ others: [{ name: 'finalize', kind: 'Gadget', verbs: ['update'] }] }, { finalize: keep }), 'finalize', ['update']],
    ['verbs beyond get/patch/update are not served generically', gadget({ others: [{ name: 'approval', kind: 'Gadget', verbs: ['create', 'update'] }] }, { approval: keep }), 'approval', ['update']],
    ['an inherited property name is no subresource', gadget({}, { approval: keep }), 'constructor', undefined],
  ];
  for (const [name, type, sub, want] of cases) it(name, () => assert.deepEqual(servedSubresourceVerbs(type, sub), want));

  it('serves CSR approval and namespace finalize from the built-in registry entries', () => {
    const csr = builtinTypes.find((t) => t.plural === 'certificatesigningrequests')!;
    const ns = builtinTypes.find((t) => t.plural === 'namespaces' && t.group === '')!;
    assert.deepEqual(servedSubresourceVerbs(csr, 'approval'), ['get', 'patch', 'update']);
    assert.deepEqual(servedSubresourceVerbs(ns, 'finalize'), ['update']);
    for (const t of builtinTypes) assert.deepEqual(subresourceStrategyProblems(t), [], t.kind);
  });
});

describe('subresource strategies agree with discovery', () => {
  const cases: Array<[string, ResourceType, RegExp | null]> = [
    ['listed and hooked', gadget({ others: [{ name: 'approval', kind: 'Gadget', verbs: ['update'] }] }, { approval: keep }), null],
    ['hooked but not listed', gadget({}, { approval: keep }), /"approval" has a strategy but is not listed/],
    ['listed with no update-style verb', gadget({ others: [{ name: 'approval', kind: 'Gadget', verbs: ['create'] }] }, { approval: keep }), /lists none of the verbs/],
    ['status strategy without a status subresource', gadget({}, { status: keep }), /status strategy needs subresources.status/],
    ['scale takes no strategy', gadget({ scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } }, { scale: keep }), /takes no strategy/],
  ];
  for (const [name, type, want] of cases) {
    it(name, () => {
      if (want) assert.throws(() => new Registry([type]), want);
      else assert.doesNotThrow(() => new Registry([type]));
    });
  }

  it('validates an update through a subresource with its own rules', () => {
    const type = gadget({ status: true }, { status: { prepareForUpdate: (o) => o, validateUpdate: () => [{ type: 'Forbidden', field: 'status', detail: 'status rules' }] } });
    type.strategy!.validateUpdate = () => [{ type: 'Forbidden', field: 'spec', detail: 'main rules' }];
    const r = new Registry([type]);
    const served = r.lookup('example.platform.io', 'v1', 'gadgets')!;
    const old = { apiVersion: 'example.platform.io/v1', kind: 'Gadget', metadata: { name: 'g', uid: 'u' } };
    assert.deepEqual(
      r.validate(served, structuredClone(old), old, 'status').map((e) => e.detail),
      ['status rules'],
    );
    assert.deepEqual(
      r.validate(served, structuredClone(old), old).map((e) => e.detail),
      ['main rules'],
    );
  });
});
