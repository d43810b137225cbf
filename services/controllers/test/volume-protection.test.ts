import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import { PVC_PROTECTION_FINALIZER } from '../../../shared/api/volume-protection.js';
import { awaitsFinalizer, claimInUse, claimsToRecheck, lacksFinalizer, podUsesClaim, volumeInUse } from '../volumeprotection/decide.js';

const NOW = '2026-11-25T10:00:00Z';

const claim = (name: string, meta: Partial<ApiObject['metadata']> = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: 'ns1', uid: `uid-${name}`, ...meta },
});

const pod = (name: string, volumes: unknown[], opts: { node?: string; phase?: string; namespace?: string; meta?: Partial<ApiObject['metadata']> } = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: opts.namespace ?? 'ns1', uid: `uid-${name}`, ...opts.meta },
  spec: { ...(opts.node === '' ? {} : { nodeName: opts.node ?? 'node-a' }), containers: [{ name: 'app', image: 'app' }], volumes },
  ...(opts.phase ? { status: { phase: opts.phase } } : {}),
});

const pvcVolume = (claimName: string) => ({ name: 'data', persistentVolumeClaim: { claimName } });
const ephemeralVolume = (name: string) => ({ name, ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } });
/** The claim made for pod `p`'s ephemeral volume `v`: named `<pod>-<volume>`, controlled by the pod. */
const ephemeralClaim = (p: string, v: string, controllerUid = `uid-${p}`) =>
  claim(`${p}-${v}`, { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: p, uid: controllerUid, controller: true }] });

test('pvc-protection - a claim is in use while a scheduled, unfinished pod of its namespace names it', () => {
  const data = claim('data');
  const cases: Array<[string, ApiObject[], boolean]> = [
    ['no pods', [], false],
    ['a running pod names it', [pod('web', [pvcVolume('data')], { phase: 'Running' })], true],
    ['a pending but scheduled pod names it', [pod('web', [pvcVolume('data')], { phase: 'Pending' })], true],
    ['a pod being deleted gracefully still names it', [pod('web', [pvcVolume('data')], { meta: { deletionTimestamp: NOW, deletionGracePeriodSeconds: 30 } })], true],
    ['an unscheduled pod: nothing will start it on a claim being deleted', [pod('web', [pvcVolume('data')], { node: '' })], false],
    ['a pod that succeeded', [pod('job', [pvcVolume('data')], { phase: 'Succeeded' })], false],
    ['a pod that failed', [pod('job', [pvcVolume('data')], { phase: 'Failed' })], false],
    ['a pod naming another claim', [pod('web', [pvcVolume('other')])], false],
    ['a pod of another namespace', [pod('web', [pvcVolume('data')], { namespace: 'ns2' })], false],
    ['one finished, one running', [pod('a', [pvcVolume('data')], { phase: 'Succeeded' }), pod('b', [pvcVolume('data')], { phase: 'Running' })], true],
    ['malformed volumes', [{ ...pod('web', []), spec: { nodeName: 'n', volumes: [null, 'x', { persistentVolumeClaim: 'data' }] } }], false],
  ];
  for (const [name, pods, want] of cases) assert.equal(claimInUse(data, pods), want, name);
});

test("pvc-protection - an ephemeral volume's claim <pod>-<volume> is the pod's only if the pod controls it, and is free once the pod is shut down", () => {
  const p = pod('web', [ephemeralVolume('scratch')]);
  assert.equal(podUsesClaim(p, ephemeralClaim('web', 'scratch')), true);
  assert.equal(podUsesClaim(p, ephemeralClaim('web', 'scratch', 'uid-someone-else')), false, 'a claim of that name made for another pod');
  assert.equal(podUsesClaim(p, claim('web-scratch')), false, 'a claim of that name nobody controls');
  assert.equal(podUsesClaim(p, ephemeralClaim('web', 'cache')), false);
  const forceDeleted = pod('web', [ephemeralVolume('scratch')], { meta: { deletionTimestamp: NOW, deletionGracePeriodSeconds: 0 } });
  assert.equal(podUsesClaim(forceDeleted, ephemeralClaim('web', 'scratch')), false, 'deleted with no grace: its own finalizer must not wait for the claim');
  const graceful = pod('web', [ephemeralVolume('scratch')], { meta: { deletionTimestamp: NOW, deletionGracePeriodSeconds: 30 } });
  assert.equal(podUsesClaim(graceful, ephemeralClaim('web', 'scratch')), true);
});

test('pvc-protection - which pod events make claims worth another look', () => {
  const vols = [pvcVolume('data'), ephemeralVolume('scratch'), { name: 'cfg', configMap: { name: 'cfg' } }];
  assert.deepEqual(claimsToRecheck(pod('web', vols), false), [], 'a scheduled pod still running frees nothing');
  assert.deepEqual(claimsToRecheck(pod('web', vols), true), ['data', 'web-scratch'], 'deleted');
  assert.deepEqual(claimsToRecheck(pod('web', vols, { phase: 'Succeeded' }), false), ['data', 'web-scratch'], 'finished');
  assert.deepEqual(claimsToRecheck(pod('web', vols, { node: '' }), false), ['data', 'web-scratch'], 'unscheduled');
  assert.deepEqual(claimsToRecheck(pod('web', vols, { meta: { deletionTimestamp: NOW } }), false), ['data', 'web-scratch'], 'being deleted');
  assert.deepEqual(claimsToRecheck(pod('web', [pvcVolume('data'), { name: 'again', persistentVolumeClaim: { claimName: 'data' } }]), true), ['data'], 'once each');
});

test('pv-protection - a volume is in use only while its phase is Bound', () => {
  const pv = (phase?: string): ApiObject => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1' }, ...(phase ? { status: { phase } } : {}) });
  const cases: Array<[string | undefined, boolean]> = [
    ['Bound', true],
    ['Released', false],
    ['Available', false],
    ['Failed', false],
    ['Pending', false],
    [undefined, false],
  ];
  for (const [phase, want] of cases) assert.equal(volumeInUse(pv(phase)), want, String(phase));
});

test('volume protection - the finalizer is taken off only during deletion and put on only outside it', () => {
  const f = PVC_PROTECTION_FINALIZER;
  const cases: Array<[string, Partial<ApiObject['metadata']>, boolean, boolean]> = [
    ['new, with it', { finalizers: [f] }, false, false],
    ['new, without it', {}, false, true],
    ['new, other finalizers only', { finalizers: ['a/b'] }, false, true],
    ['deleted, with it', { deletionTimestamp: NOW, finalizers: ['a/b', f] }, true, false],
    ['deleted, without it: never added back', { deletionTimestamp: NOW, finalizers: ['a/b'] }, false, false],
  ];
  for (const [name, meta, awaits, lacks] of cases) {
    const c = claim('data', meta);
    assert.deepEqual([awaitsFinalizer(c, f), lacksFinalizer(c, f)], [awaits, lacks], name);
  }
});
