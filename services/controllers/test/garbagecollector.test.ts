import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideDependent, decideOwner, type OwnerState } from '../garbagecollector/decide.js';
import { OwnerGraph, type Node, type OwnerReference } from '../garbagecollector/graph.js';

const ref = (uid: string, block = false): OwnerReference => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: uid, uid, ...(block ? { blockOwnerDeletion: true } : {}) });
const node = (uid: string, owners: OwnerReference[] = [], extra: Partial<Node> = {}): Node => ({
  id: { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespace: 'ns', name: uid, uid },
  owners,
  finalizers: [],
  deleting: false,
  ...extra,
});

test('garbage collector - what becomes of a dependent, by the state of its owners', () => {
  const cases: Array<[string, Node, Array<[string, OwnerState]>, boolean, ReturnType<typeof decideDependent>]> = [
    ['no owners: nothing', node('p'), [], false, { kind: 'none' }],
    ['a solid owner: kept', node('p', [ref('a')]), [['a', 'solid']], false, { kind: 'none' }],
    ['its only owner is gone: deleted in the background', node('p', [ref('a')]), [['a', 'dangling']], false, { kind: 'delete', policy: 'Background' }],
    [
      'one owner gone, one solid: the gone reference is dropped',
      node('p', [ref('a'), ref('b')]),
      [
        ['a', 'dangling'],
        ['b', 'solid'],
      ],
      false,
      { kind: 'removeOwnerReferences', uids: ['a'] },
    ],
    [
      'an owner waiting in the foreground, another solid: that reference is dropped',
      node('p', [ref('a'), ref('b')]),
      [
        ['a', 'waiting'],
        ['b', 'solid'],
      ],
      false,
      { kind: 'removeOwnerReferences', uids: ['a'] },
    ],
    ['its owner waits and it has dependents: deleted in the foreground', node('rs', [ref('d')]), [['d', 'waiting']], true, { kind: 'delete', policy: 'Foreground' }],
    ['its owner waits, no dependents: background', node('p', [ref('d')]), [['d', 'waiting']], false, { kind: 'delete', policy: 'Background' }],
    ['gone owner, its own orphan finalizer: deleted orphaning', node('p', [ref('a')], { finalizers: ['orphan'] }), [['a', 'dangling']], true, { kind: 'delete', policy: 'Orphan' }],
    ['an unresolvable reference neither keeps nor frees it', node('p', [ref('a')]), [['a', 'unresolvable']], false, { kind: 'none' }],
    [
      'unresolvable plus gone: deleted (nothing solid holds it)',
      node('p', [ref('a'), ref('b')]),
      [
        ['a', 'unresolvable'],
        ['b', 'dangling'],
      ],
      false,
      { kind: 'delete', policy: 'Background' },
    ],
    ['already being deleted: left alone', node('p', [ref('a')], { deleting: true }), [['a', 'dangling']], false, { kind: 'none' }],
  ];
  for (const [name, n, states, hasDeps, want] of cases) {
    const owners = states.map(([uid, state]) => ({ ref: n.owners.find((o) => o.uid === uid)!, state }));
    assert.deepEqual(decideDependent(n, owners, hasDeps), want, name);
  }
});

test('garbage collector - an owner being deleted: orphan its dependents, or wait in the foreground while one blocks', () => {
  const owner = (finalizers: string[], deleting = true) => node('d', [], { finalizers, deleting });
  const blocking = node('rs1', [ref('d', true)]);
  const loose = node('rs2', [ref('d')]);
  assert.deepEqual(decideOwner(owner(['orphan']), [blocking, loose]), { kind: 'orphan', dependents: [blocking, loose] });
  assert.deepEqual(decideOwner(owner(['foregroundDeletion']), [blocking, loose]), { kind: 'foreground', blocked: true });
  assert.deepEqual(decideOwner(owner(['foregroundDeletion']), [loose]), { kind: 'foreground', blocked: false }, 'a dependent without blockOwnerDeletion does not hold it');
  assert.deepEqual(decideOwner(owner(['foregroundDeletion']), []), { kind: 'foreground', blocked: false });
  assert.deepEqual(decideOwner(owner(['orphan'], false), [loose]), { kind: 'none' }, 'not being deleted');
  assert.deepEqual(decideOwner(owner(['example.com/x']), [loose]), { kind: 'none' }, 'no garbage-collection finalizer');
});

test('garbage collector - the graph indexes dependents by owner uid, known or not, and forgets what is gone', () => {
  const g = new OwnerGraph();
  g.upsert(node('rs', [ref('d')]));
  g.upsert(node('p1', [ref('rs')]));
  g.upsert(node('p2', [ref('rs'), ref('other')]));
  assert.deepEqual(
    g.dependentsOf('rs').map((n) => n.id.uid),
    ['p1', 'p2'],
  );
  assert.deepEqual(
    g.dependentsOf('d').map((n) => n.id.uid),
    ['rs'],
    'an owner the graph has not seen still has its dependents',
  );
  assert.deepEqual(g.upsert(node('p2', [ref('other')])), ['rs'], 'a dropped reference is reported');
  assert.deepEqual(
    g.dependentsOf('rs').map((n) => n.id.uid),
    ['p1'],
  );
  assert.equal(g.remove('p1')?.id.uid, 'p1');
  assert.deepEqual(g.dependentsOf('rs'), []);
  assert.equal(g.remove('p1'), undefined);
  assert.equal(g.size, 2);
});
