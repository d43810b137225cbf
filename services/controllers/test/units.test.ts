import { test } from 'node:test';
import assert from 'node:assert/strict';
import { leaseDecision, microTime, nextLease, renewIntervalMs } from '../leader-election.js';
import { deletionConditions, mergeConditions } from '../namespace/controller.js';
import { selectControllers } from '../options.js';
import { WorkQueue } from '../queue.js';
import { tokenSecretAction } from '../serviceaccount/tokens.js';
import { podsToCollect } from '../podgc/controller.js';

test('controllers - --controllers as upstream: * is the defaults, foo adds, -foo removes, unknown names fail', () => {
  const all = [
    'namespace',
    'garbagecollector',
    'serviceaccount',
    'root-ca-cert-publisher',
    'serviceaccount-token',
    'podgc',
    'resourcequota',
    'pvc-protection',
    'pv-protection',
    'csrsigning',
    'csrapproving',
    'csrcleaner',
    'customresourcedefinitions',
    'apiservice-availability',
  ];
  const allBut = (name: string) => all.filter((n) => n !== name);
  const cases: Array<[string[], string[]]> = [
    [['*'], all],
    [['*', '-serviceaccount'], allBut('serviceaccount')],
    [['namespace'], ['namespace']],
    [
      ['*', 'tokencleaner'],
      [...all, 'tokencleaner'],
    ],
    [
      ['bootstrapsigner', 'tokencleaner'],
      ['tokencleaner', 'bootstrapsigner'],
    ],
    [['-namespace', '*'], allBut('namespace')],
    [[], []],
  ];
  for (const [list, want] of cases) assert.deepEqual(selectControllers(list), want, list.join(','));
  assert.throws(
    () => selectControllers(['*', 'bogus']),
    /unknown controller "bogus"; known: namespace, garbagecollector, serviceaccount, root-ca-cert-publisher, serviceaccount-token, podgc, resourcequota, pvc-protection, pv-protection, csrsigning, csrapproving, csrcleaner, customresourcedefinitions, apiservice-availability, tokencleaner, bootstrapsigner/,
  );
  assert.throws(() => selectControllers(['-bogus']), /unknown controller "bogus"/);
});

test('leader election - who may act on a lease, and the lease after renewing or taking it', () => {
  const now = Date.parse('2026-11-25T10:00:00Z');
  const live = { holderIdentity: 'b', leaseDurationSeconds: 15, renewTime: microTime(now - 10_000), acquireTime: microTime(now - 60_000), leaseTransitions: 2 };
  const cases: Array<[string, Parameters<typeof leaseDecision>[0], string]> = [
    ['no lease yet', undefined, 'take'],
    ['released (no holder)', { ...live, holderIdentity: '' }, 'take'],
    ['mine', { ...live, holderIdentity: 'a' }, 'renew'],
    ["another's, renewed 10 s ago of 15", live, 'wait'],
    ["another's, expired", { ...live, renewTime: microTime(now - 16_000) }, 'take'],
    ["another's, unreadable times", { holderIdentity: 'b', leaseDurationSeconds: 15 }, 'take'],
  ];
  for (const [name, spec, want] of cases) assert.equal(leaseDecision(spec, 'a', now), want, name);

  assert.equal(microTime(now), '2026-11-25T10:00:00.000000Z');
  const taken = nextLease(live, 'a', now, 15_000);
  assert.deepEqual(taken, { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 3 });
  const renewed = nextLease(taken, 'a', now + 2_000, 15_000);
  assert.deepEqual([renewed.acquireTime, renewed.renewTime, renewed.leaseTransitions], [microTime(now), microTime(now + 2_000), 3]);
  assert.equal(nextLease(undefined, 'a', now, 15_000).leaseTransitions, 0);
  assert.equal(renewIntervalMs({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 }), 5_000, 'upstream defaults: every 5 s');
  assert.equal(renewIntervalMs({ leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 300 }), 1_000);
  assert.equal(renewIntervalMs({ leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 1_500 }), 1_500, 'never below the retry period');
  assert.equal(nextLease({ ...live, holderIdentity: '' }, 'a', now, 15_000).leaseTransitions, 3, 'taking a released lease is a transition too');
});

test('namespace deletion - conditions as upstream words them, transition times kept while a status holds', () => {
  const done = deletionConditions({ errors: [], remaining: new Map(), finalizers: new Map() });
  assert.deepEqual(
    done.map((c) => `${c.type}=${c.status}/${c.reason}`),
    [
      'NamespaceDeletionDiscoveryFailure=False/ResourcesDiscovered',
      'NamespaceDeletionGroupVersionParsingFailure=False/ParsedGroupVersions',
      'NamespaceDeletionContentFailure=False/ContentDeleted',
      'NamespaceContentRemaining=False/ContentRemoved',
      'NamespaceFinalizersRemaining=False/ContentHasNoFinalizers',
    ],
  );
  const waiting = deletionConditions(
    {
      errors: ['pods: boom'],
      remaining: new Map([
        ['pods', 2],
        ['configmaps', 1],
      ]),
      finalizers: new Map([['example.com/hold', 1]]),
    },
    'apps/v1: timeout',
  );
  const by = Object.fromEntries(waiting.map((c) => [c.type, c]));
  assert.equal(by.NamespaceDeletionDiscoveryFailure!.message, 'Discovery failed for some groups: apps/v1: timeout');
  assert.equal(by.NamespaceDeletionContentFailure!.message, 'Failed to delete all resource types, 1 remaining: pods: boom');
  assert.equal(by.NamespaceContentRemaining!.message, 'Some resources are remaining: configmaps has 1 resource instances, pods has 2 resource instances');
  assert.equal(by.NamespaceFinalizersRemaining!.message, 'Some content in the namespace has finalizers remaining: example.com/hold has 1 resource instances');

  const first = mergeConditions([], waiting, 'T1');
  const again = mergeConditions(first, waiting, 'T2');
  assert.ok(
    again.every((c) => c.lastTransitionTime === 'T1'),
    'unchanged statuses keep their time',
  );
  const flipped = mergeConditions(first, done, 'T3');
  assert.equal(flipped.find((c) => c.type === 'NamespaceContentRemaining')!.lastTransitionTime, 'T3');
  assert.equal(flipped.find((c) => c.type === 'NamespaceDeletionGroupVersionParsingFailure')!.lastTransitionTime, 'T1');
});

test('work queue - a key is processed once however often added, never twice at once, re-run when added while running; failures retry', async () => {
  const runs: string[] = [];
  let release!: () => void;
  let failOnce = true;
  const q = new WorkQueue(
    async (key) => {
      runs.push(key);
      if (key === 'slow' && runs.filter((k) => k === 'slow').length === 1) await new Promise<void>((r) => (release = r));
      if (key === 'flaky' && failOnce) {
        failOnce = false;
        throw new Error('transient');
      }
    },
    { workers: 1, minRetryMs: 5 },
  );
  q.add('slow'); // the one worker is busy with it …
  q.add('a'); // … so these wait, queued once
  q.add('a');
  await new Promise((r) => setTimeout(r, 5));
  q.add('slow'); // while it runs: once more afterwards, not concurrently
  q.add('slow');
  q.add('flaky');
  await new Promise((r) => setTimeout(r, 5));
  release();
  await new Promise((r) => setTimeout(r, 40));
  await q.idle();
  assert.deepEqual(runs.filter((k) => k === 'a').length, 1);
  assert.deepEqual(runs.filter((k) => k === 'slow').length, 2);
  assert.deepEqual(runs.filter((k) => k === 'flaky').length, 2, 'retried after the failure');
  q.shutDown();
  q.add('late');
  await new Promise((r) => setTimeout(r, 5));
  assert.ok(!runs.includes('late'), 'nothing runs after shutDown');
});

test('serviceaccount-token - a token secret is filled in, kept, or deleted with its account', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const sa = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder', namespace: 'ns', uid: 'u1' } };
  const secret = (annotations: Record<string, string>, data?: Record<string, string>, extra: Record<string, unknown> = {}) =>
    ({ apiVersion: 'v1', kind: 'Secret', type: 'platform.io/service-account-token', metadata: { name: 's', namespace: 'ns', annotations, ...extra }, ...(data ? { data } : {}) }) as never;
  const full = { token: b64('t'), namespace: b64('ns'), 'ca.crt': b64('CA') };
  const cases: Array<[string, unknown, unknown, string]> = [
    ['a new secret of an existing account', secret({ 'platform.io/service-account.name': 'builder' }), sa, 'populate'],
    ['filled in but without the uid annotation', secret({ 'platform.io/service-account.name': 'builder' }, full), sa, 'populate'],
    ['complete', secret({ 'platform.io/service-account.name': 'builder', 'platform.io/service-account.uid': 'u1' }, full), sa, 'none'],
    ['the root CA changed', secret({ 'platform.io/service-account.name': 'builder', 'platform.io/service-account.uid': 'u1' }, { ...full, 'ca.crt': b64('OLD') }), sa, 'populate'],
    ['its account is gone', secret({ 'platform.io/service-account.name': 'builder' }), undefined, 'delete'],
    ['another account of that name', secret({ 'platform.io/service-account.name': 'builder', 'platform.io/service-account.uid': 'u0' }, full), sa, 'delete'],
    ['already being deleted', secret({ 'platform.io/service-account.name': 'builder' }, undefined, { deletionTimestamp: '2026-11-25T00:00:00Z' }), undefined, 'none'],
  ];
  for (const [name, s, account, want] of cases) assert.equal(tokenSecretAction(s as never, account as never, 'CA'), want, name);
});

test('podgc - pods of a node missing past the quarantine, and terminating unscheduled pods, are collected', () => {
  const pod = (name: string, nodeName?: string, terminating = false) =>
    ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', ...(terminating ? { deletionTimestamp: 'x' } : {}) }, spec: nodeName ? { nodeName } : {} }) as never;
  const pods = [pod('on-live', 'n1'), pod('on-gone', 'n2'), pod('pending'), pod('pending-terminating', undefined, true)];
  const missing = new Map<string, number>();
  const names = (now: number) => podsToCollect(pods, (n) => n === 'n1', missing, now, 40_000).map((p) => p.metadata.name ?? '');
  assert.deepEqual(names(1_000), ['pending-terminating'], 'the missing node is quarantined first');
  assert.deepEqual(names(30_000), ['pending-terminating']);
  assert.deepEqual(names(41_000), ['on-gone', 'pending-terminating'], 'past the quarantine');
  assert.equal(missing.get('n2'), 1_000);
});
