import { nowTimestamp } from '../../../api/time.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType, StrategyContext } from '../../types.js';
import { namespaces } from '../../builtin/core/namespace.js';
import {
  DeleteOutcome,
  generateName,
  markTerminating,
  planDelete,
  prepareForCreate,
  prepareForStatusUpdate,
  prepareForSubresourceUpdate,
  prepareForUpdate,
  readyForRemoval,
  sameStoredValue,
  validateLifecycleUpdate,
} from '../prepare.js';

const deployments: ResourceType = {
  group: 'apps',
  versions: [{ name: 'v1', schema: {} }],
  kind: 'Deployment',
  plural: 'deployments',
  singular: 'deployment',
  scope: 'Namespaced',
  subresources: { status: true },
};
const configmaps: ResourceType = { ...deployments, group: '', kind: 'ConfigMap', plural: 'configmaps', singular: 'configmap', subresources: {}, generation: false };
const at = (now: string): StrategyContext => ({ now, user: { username: 'jane', groups: ['system:authenticated'] } });

test('object prep - create sets server-owned metadata, generates names and drops status', () => {
  const obj: any = { metadata: { generateName: 'web-', resourceVersion: '5', uid: 'client-chosen' }, spec: { replicas: 1 }, status: { replicas: 9 } };
  prepareForCreate(deployments, obj, at('2026-01-01T00:00:00Z'));
  assert.match(obj.metadata.name as string, /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  assert.notEqual(obj.metadata.uid, 'client-chosen');
  assert.equal((obj.metadata as any).resourceVersion, undefined);
  assert.equal((obj.metadata as any).generation, 1);
  assert.equal((obj as any).status, undefined);
  const cm = { metadata: { name: 'c', generation: 4 }, data: {} };
  prepareForCreate(configmaps, cm, at(nowTimestamp()));
  assert.equal((cm.metadata as any).generation, undefined);
  assert.match((cm.metadata as any).creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
});

test('object prep - update keeps server-owned metadata and status, bumps generation on spec change only', () => {
  const old = { metadata: { name: 'd', uid: 'u1', creationTimestamp: 't0', generation: 3 }, spec: { replicas: 1 }, status: { replicas: 1 } };
  const sameSpec = { metadata: { name: 'd', uid: 'forged', labels: { a: 'b' } }, spec: { replicas: 1 }, status: { replicas: 50 } };
  prepareForUpdate(deployments, sameSpec, old, at('t1'));
  assert.equal(sameSpec.metadata.uid, 'u1');
  assert.equal((sameSpec.metadata as any).generation, 3);
  assert.deepEqual(sameSpec.status, { replicas: 1 });
  const newSpec = { metadata: { name: 'd' }, spec: { replicas: 2 } };
  prepareForUpdate(deployments, newSpec, old, at('t1'));
  assert.equal((newSpec.metadata as any).generation, 4);
});

test('object prep - status update changes only status', () => {
  const old = { metadata: { name: 'd', labels: { a: '1' } }, spec: { replicas: 1 }, status: { replicas: 1 } };
  const next = prepareForStatusUpdate(deployments, { metadata: { name: 'd', labels: { a: 'changed' }, resourceVersion: '7' }, spec: { replicas: 5 }, status: { replicas: 2 } }, old, at('t1'));
  assert.deepEqual(next.spec, { replicas: 1 });
  assert.deepEqual(next.metadata.labels, { a: '1' });
  assert.deepEqual(next.status, { replicas: 2 });
});

test('object prep - a status update keeps the request’s managedFields (a status apply recorded its manager there), else the old ones', () => {
  const old = { metadata: { name: 'd', managedFields: [{ manager: 'a', operation: 'Update' }] }, spec: { replicas: 1 } };
  const applied = [
    { manager: 'a', operation: 'Update' },
    { manager: 'b', operation: 'Apply', subresource: 'status' },
  ];
  const next = prepareForStatusUpdate(deployments, { metadata: { name: 'd', managedFields: applied }, status: { replicas: 2 } }, old, at('t1'));
  assert.deepEqual(next.metadata.managedFields, applied);
  assert.deepEqual(prepareForStatusUpdate(deployments, { metadata: { name: 'd' }, status: {} }, old, at('t1')).metadata.managedFields, old.metadata.managedFields);
});

// A type whose strategy hooks record what they were handed, to show the generic code calls them.
const seen: Array<{ hook: string; user?: string; now: string; obj?: ApiObject }> = [];
const gadgets: ResourceType = {
  ...deployments,
  kind: 'Gadget',
  plural: 'gadgets',
  singular: 'gadget',
  subresources: { status: true, others: [{ name: 'approval', kind: 'Gadget', verbs: ['update'] }] },
  strategy: {
    prepareForCreate: (_o, ctx) => void seen.push({ hook: 'create', now: ctx.now, ...(ctx.user ? { user: ctx.user.username } : {}) }),
    subresources: {
      // The status writer owns status.ready only.
      status: { prepareForUpdate: (o, old) => ({ ...o, status: { ...(old.status as object), ready: (o.status as { ready?: boolean }).ready } }) },
      approval: {
        prepareForUpdate: (o, old, ctx) => {
          seen.push({ hook: 'approval', now: ctx.now, obj: o, ...(ctx.user ? { user: ctx.user.username } : {}) });
          return { ...old, status: { ...(old.status as object), approved: ctx.user?.username } };
        },
      },
    },
  },
};

test("object prep - the type's create hook sees the requesting user and time", () => {
  seen.length = 0;
  prepareForCreate(gadgets, { metadata: { name: 'g' } }, at('t2'));
  assert.deepEqual(seen, [{ hook: 'create', now: 't2', user: 'jane' }]);
});

test('object prep - a status strategy narrows what a status update changes', () => {
  const old = { metadata: { name: 'g' }, spec: { a: 1 }, status: { ready: false, owner: 'controller' } };
  const next = prepareForStatusUpdate(gadgets, { metadata: { name: 'g' }, spec: { a: 2 }, status: { ready: true, owner: 'someone else' } }, old, at('t1'));
  assert.deepEqual(next.status, { ready: true, owner: 'controller' });
  assert.deepEqual(next.spec, { a: 1 });
});

test('object prep - another subresource is prepared by its strategy, or not at all', () => {
  seen.length = 0;
  const old = { metadata: { name: 'g' }, spec: { a: 1 }, status: { ready: true } };
  const next = prepareForSubresourceUpdate(gadgets, 'approval', { metadata: { name: 'g' }, spec: { a: 9 } }, old, at('t3'));
  assert.deepEqual(next, { metadata: { name: 'g' }, spec: { a: 1 }, status: { ready: true, approved: 'jane' } });
  assert.equal(seen[0]?.now, 't3');
  assert.equal(prepareForSubresourceUpdate(gadgets, 'finalize', { metadata: { name: 'g' } }, old, at('t3')), undefined);
  assert.equal(prepareForSubresourceUpdate(deployments, 'approval', { metadata: { name: 'g' } }, old, at('t3')), undefined);
});

test('object prep - deletion table: finalizers keep the object terminating until empty', () => {
  const live = { kind: 'ConfigMap', metadata: { name: 'c', finalizers: ['x/y'] } };
  assert.equal(planDelete(configmaps, { kind: 'ConfigMap', metadata: { name: 'c' } }), DeleteOutcome.Remove);
  assert.equal(planDelete(configmaps, live), DeleteOutcome.MarkTerminating);
  const term = markTerminating(configmaps, live, '2026-01-01T00:00:00Z');
  assert.equal(term.metadata.deletionTimestamp, '2026-01-01T00:00:00Z');
  assert.equal(planDelete(configmaps, term), DeleteOutcome.AlreadyTerminating);
  assert.equal(readyForRemoval(configmaps, term), false);
  assert.equal(readyForRemoval(configmaps, { ...term, metadata: { ...term.metadata, finalizers: [] } }), true);
  assert.equal(validateLifecycleUpdate({ metadata: { finalizers: ['x/y', 'new/one'] } }, term).length, 1);
  const ns = { kind: 'Namespace', metadata: { name: 'n' }, spec: { finalizers: ['platform'] }, status: { phase: 'Active' } };
  assert.equal(planDelete(namespaces, ns), DeleteOutcome.MarkTerminating);
  const nsTerm = markTerminating(namespaces, ns, 't');
  assert.deepEqual(nsTerm.status, { phase: 'Terminating' });
  assert.deepEqual(ns.status, { phase: 'Active' }, 'the stored object is not changed');
  assert.equal(readyForRemoval(namespaces, nsTerm), false);
  assert.equal(readyForRemoval(namespaces, { ...nsTerm, spec: { finalizers: [] } }), true);
});

test('object prep - generated names never exceed the subdomain limit', () => {
  assert.equal(generateName('a'.repeat(300)).length, 253);
});

test('object prep - member order is no spec change: generation stays', () => {
  const old: ApiObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', uid: 'u', generation: 3 }, spec: { replicas: 2, selector: { matchLabels: { app: 'a' } } } };
  const reordered: ApiObject = { spec: { selector: { matchLabels: { app: 'a' } }, replicas: 2 }, metadata: { name: 'd' }, kind: 'Deployment', apiVersion: 'apps/v1' };
  prepareForUpdate(deployments, reordered, old, at(nowTimestamp()));
  assert.equal(reordered.metadata.generation, 3);
  const changed: ApiObject = { ...structuredClone(old), spec: { replicas: 3, selector: { matchLabels: { app: 'a' } } } };
  prepareForUpdate(deployments, changed, old, at(nowTimestamp()));
  assert.equal(changed.metadata.generation, 4);
});

test('object prep - a write that stores the same value is recognised whatever the member order', () => {
  const stored: ApiObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', uid: 'u', labels: { a: '1' }, resourceVersion: '7' }, data: { x: '1', y: '2' } };
  const same: ApiObject = { data: { y: '2', x: '1' }, kind: 'ConfigMap', apiVersion: 'v1', metadata: { labels: { a: '1' }, uid: 'u', name: 'c', resourceVersion: undefined } };
  assert.ok(sameStoredValue(same, stored), 'order, resourceVersion and undefined members do not count');
  assert.ok(!sameStoredValue({ ...same, data: { x: '1', y: '3' } }, stored), 'a changed value');
  assert.ok(!sameStoredValue({ ...same, data: { x: '1' } }, stored), 'a removed member');
  assert.ok(!sameStoredValue({ ...same, metadata: { ...same.metadata, finalizers: [] } }, stored), 'an added empty list is stored, so it is a change');
});
