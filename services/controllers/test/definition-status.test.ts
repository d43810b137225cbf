import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import { desiredStatus, nameConflicts, requestedNames } from '../customresources/definition-status.js';

const NOW = '2026-11-28T08:00:00Z';

function crd(name: string, names: Record<string, unknown>, status: Record<string, unknown> = {}, group = 'stable.example.com'): ApiObject {
  return {
    apiVersion: 'apiextensions.platform.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: { group, scope: 'Namespaced', names, versions: [{ name: 'v1', served: true, storage: true }] },
    status,
  } as unknown as ApiObject;
}

const crontabs = crd('crontabs.stable.example.com', { plural: 'crontabs', kind: 'CronTab', shortNames: ['ct'] });
const accepted = (o: ApiObject) => ({ ...o, status: desiredStatus(o, [], NOW) }) as ApiObject;

describe('custom resource definitions - status', () => {
  it('a definition alone: names accepted with their defaults, Established, the storage version stored', () => {
    const s = desiredStatus(crontabs, [crontabs], NOW)!;
    assert.deepEqual(s.acceptedNames, { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'] });
    assert.deepEqual(
      s.conditions!.map((c) => [c.type, c.status, c.reason, c.lastTransitionTime]),
      [
        ['NamesAccepted', 'True', 'NoConflicts', NOW],
        ['Established', 'True', 'InitialNamesAccepted', NOW],
      ],
    );
    assert.deepEqual(s.storedVersions, ['v1']);
    // Applied, there is nothing more to write.
    assert.equal(desiredStatus(accepted(crontabs), [], '2026-11-28T09:00:00Z'), undefined);
  });

  const taken = accepted(crontabs);
  const conflicts: Array<[string, Record<string, unknown>, string, string]> = [
    // (Two definitions of one plural share a name, so this one only arises from a rename.)
    ['plural', { plural: 'crontabs', kind: 'Other', name: 'renamed' }, 'PluralConflict', '"crontabs" is already in use'],
    ['plural taken as a singular', { plural: 'crontab', singular: 'x', kind: 'Other' }, 'PluralConflict', '"crontab" is already in use'],
    ['singular', { plural: 'others', singular: 'crontab', kind: 'Other' }, 'SingularConflict', '"crontab" is already in use'],
    ['short name', { plural: 'others', kind: 'Other', shortNames: ['ct'] }, 'ShortNamesConflict', '"ct" is already in use'],
    ['kind', { plural: 'others', singular: 'other', kind: 'CronTab' }, 'KindConflict', '"CronTab" is already in use'],
    ['list kind', { plural: 'others', kind: 'Other', listKind: 'CronTabList' }, 'ListKindConflict', '"CronTabList" is already in use'],
  ];
  for (const [what, names, reason, message] of conflicts) {
    it(`a second definition whose ${what} another one accepted is not accepted nor established`, () => {
      const { name, ...rest } = names;
      const other = crd(`${(name ?? names.plural) as string}.stable.example.com`, rest);
      assert.deepEqual(nameConflicts(other, [taken, other]), { reason, message });
      const s = desiredStatus(other, [taken, other], NOW)!;
      assert.deepEqual(
        s.conditions!.map((c) => [c.type, c.status, c.reason]),
        [
          ['NamesAccepted', 'False', reason],
          ['Established', 'False', 'NotAccepted'],
        ],
      );
      assert.deepEqual(s.acceptedNames, { plural: '', kind: '' });
    });
  }

  it('names are per group: the same names in another group are accepted', () => {
    const elsewhere = crd('crontabs.other.example.com', { plural: 'crontabs', kind: 'CronTab', shortNames: ['ct'] }, {}, 'other.example.com');
    assert.equal(nameConflicts(elsewhere, [taken, elsewhere]), undefined);
  });

  it('an established definition stays established and keeps its served names when a change conflicts', () => {
    const changed = { ...taken, spec: { ...(taken.spec as object), names: { plural: 'crontabs', kind: 'CronTab', shortNames: ['x'] } } } as unknown as ApiObject;
    const holder = accepted(crd('others.stable.example.com', { plural: 'others', kind: 'Other', shortNames: ['x'] }));
    const s = desiredStatus(changed, [holder], NOW)!;
    assert.deepEqual(
      s.conditions!.map((c) => [c.type, c.status]),
      [
        ['NamesAccepted', 'False'],
        ['Established', 'True'],
      ],
    );
    assert.deepEqual(s.acceptedNames!.shortNames, ['ct']);
  });

  it('a new storage version is added to storedVersions, the old one kept', () => {
    const moved = {
      ...taken,
      spec: {
        ...(taken.spec as object),
        versions: [
          { name: 'v1', served: true, storage: false },
          { name: 'v2', served: true, storage: true },
        ],
      },
    } as unknown as ApiObject;
    assert.deepEqual(desiredStatus(moved, [], NOW)!.storedVersions, ['v1', 'v2']);
  });

  it('Terminating while objects are deleted, then done', () => {
    const during = desiredStatus(taken, [], NOW, { remaining: 3 })!;
    assert.deepEqual(during.conditions!.at(-1), {
      type: 'Terminating',
      status: 'True',
      reason: 'InstanceDeletionInProgress',
      message: 'CustomResource deletion is in progress',
      lastTransitionTime: NOW,
    });
    const done = desiredStatus({ ...taken, status: during } as unknown as ApiObject, [], NOW, { remaining: 0 })!;
    assert.deepEqual([done.conditions!.at(-1)!.status, done.conditions!.at(-1)!.reason], ['False', 'InstanceDeletionCompleted']);
    assert.match(desiredStatus(taken, [], NOW, { remaining: 1, error: 'boom' })!.conditions!.at(-1)!.message!, /could not delete instances: boom/);
  });

  it('requested names default singular and listKind', () => {
    assert.deepEqual(requestedNames(crd('a.b.c', { plural: 'as', kind: 'A' })), { plural: 'as', singular: 'a', kind: 'A', listKind: 'AList' });
  });
});
