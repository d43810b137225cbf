import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gracefulDeletion } from '../prepare.js';
import { builtinTypes } from '../../builtin-types.js';
import type { ApiObject } from '../../../api/types.js';

const pods = builtinTypes.find((t) => t.plural === 'pods' && t.group === '')!;
const configmaps = builtinTypes.find((t) => t.plural === 'configmaps' && t.group === '')!;
const now = Date.parse('2026-11-25T10:00:00Z');
const pod = (spec: Record<string, unknown>, meta: Record<string, unknown> = {}, status: Record<string, unknown> = {}): ApiObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', ...meta }, spec, status }) as ApiObject;

test('graceful deletion - a pod on a node gets its grace period; unscheduled and finished pods and other kinds go at once', () => {
  const onNode = pod({ nodeName: 'n1', terminationGracePeriodSeconds: 45 });
  const own = gracefulDeletion(pods, onNode, undefined, now)!.next!;
  assert.deepEqual([own.metadata.deletionTimestamp, own.metadata.deletionGracePeriodSeconds], ['2026-11-25T10:00:45Z', 45]);
  assert.equal(gracefulDeletion(pods, pod({ nodeName: 'n1' }), undefined, now)!.next!.metadata.deletionGracePeriodSeconds, 30, 'default 30 s');
  assert.equal(gracefulDeletion(pods, onNode, 5, now)!.next!.metadata.deletionGracePeriodSeconds, 5, 'the request wins');
  assert.equal(gracefulDeletion(pods, onNode, 0, now), undefined, 'grace 0: removed at once');
  assert.equal(gracefulDeletion(pods, pod({}), 30, now), undefined, 'never scheduled');
  assert.equal(gracefulDeletion(pods, pod({ nodeName: 'n1' }, {}, { phase: 'Succeeded' }), undefined, now), undefined, 'finished');
  assert.equal(gracefulDeletion(configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } as ApiObject, 30, now), undefined, 'not a graceful kind');
});

test('graceful deletion - a second deletion may only shorten the wait', () => {
  const terminating = pod({ nodeName: 'n1' }, { deletionTimestamp: '2026-11-25T10:00:30Z', deletionGracePeriodSeconds: 30 });
  assert.deepEqual(gracefulDeletion(pods, terminating, 60, now), { next: null }, 'longer: unchanged');
  assert.equal(gracefulDeletion(pods, terminating, 10, now)!.next!.metadata.deletionTimestamp, '2026-11-25T10:00:10Z');
  assert.equal(gracefulDeletion(pods, terminating, 0, now), undefined, 'grace 0 ends it');
  const finalizing = pod({ nodeName: 'n1' }, { deletionTimestamp: '2026-11-25T09:00:00Z', finalizers: ['x'] });
  assert.equal(gracefulDeletion(pods, finalizing, 30, now), undefined, 'terminating for its finalizers: the deletion table decides');
});
