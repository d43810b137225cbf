// Field management as tables: FieldsV1 encoding, the paths an object sets per topology, and the
// server-side apply rules of the spec (one row per rule and per way out of a conflict).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject, JsonSchema } from '../../api/types.js';
import { StatusError } from '../../api/status.js';
import { resolvePatchSchema } from '../../patch/patch-schema.js';
import { FieldSet, pathString } from '../fieldset.js';
import { apply, defaultManager, ownable, recordUpdate, type Writer } from '../managed.js';
import { merge, toFieldSet } from '../typed.js';

const str = { type: 'string' };
const schema: JsonSchema = resolvePatchSchema({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        paused: { type: 'boolean' },
        selector: { type: 'object', properties: { matchLabels: { type: 'object', additionalProperties: str } }, 'x-kubernetes-map-type': 'atomic' },
        containers: {
          type: 'array',
          items: { type: 'object', properties: { name: str, image: str, args: { type: 'array', items: str } } },
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
        },
        ports: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer' } } }, 'x-kubernetes-patch-merge-key': 'port', 'x-kubernetes-patch-strategy': 'merge' },
        tags: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' },
        command: { type: 'array', items: str },
        env: { type: 'object', additionalProperties: str },
        target: { 'x-kubernetes-int-or-string': true },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'integer' } } },
  },
})!;
const ignore = ownable('', true);
const at = (manager: string, now = '2026-11-24T10:00:00Z'): Writer => ({ manager, subresource: '', apiVersion: 'example.io/v1', now });
const describe_ = { kind: 'widgets', group: 'example.io' };
const obj = (spec: Record<string, unknown>, extra: Partial<ApiObject> = {}): ApiObject =>
  ({ apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns', ...(extra.metadata ?? {}) }, spec, ...extra }) as ApiObject;
const managers = (o: ApiObject) => (o.metadata.managedFields ?? []).map((e: any) => `${e.manager}/${e.operation}`);
const owned = (o: ApiObject, manager: string) =>
  FieldSet.fromFieldsV1((o.metadata.managedFields as any[]).find((e) => e.manager === manager)?.fieldsV1)
    .paths()
    .map(pathString);

describe('field management - FieldsV1', () => {
  it('members, "." for members with members below, round trip', () => {
    const s = new FieldSet();
    s.insert(['f:spec', 'f:replicas']);
    s.insert(['f:spec', 'f:containers', 'k:{"name":"a"}']);
    s.insert(['f:spec', 'f:containers', 'k:{"name":"a"}', 'f:image']);
    s.insert(['f:spec', 'f:tags', 'v:"x"']);
    s.insert(['f:spec', 'f:command', 'i:0']);
    const v1 = s.toFieldsV1();
    assert.deepEqual(v1, { 'f:spec': { 'f:command': { 'i:0': {} }, 'f:containers': { 'k:{"name":"a"}': { '.': {}, 'f:image': {} } }, 'f:replicas': {}, 'f:tags': { 'v:"x"': {} } } });
    assert.deepEqual(FieldSet.fromFieldsV1(v1).toFieldsV1(), v1);
    assert.deepEqual(FieldSet.fromFieldsV1(v1).paths().map(pathString), ['.spec.command[0]', '.spec.containers[name="a"]', '.spec.containers[name="a"].image', '.spec.replicas', '.spec.tags[="x"]']);
  });

  it('the user agent names an unnamed manager', () => {
    const cases: Array<[string | undefined, string]> = [
      ['kubectl/v1.32.0 (linux/amd64) kubernetes/abc', 'kubectl'],
      ['python-requests/2.31', 'python-requests'],
      ['', 'unknown'],
      [undefined, 'unknown'],
    ];
    for (const [ua, want] of cases) assert.equal(defaultManager(ua), want);
  });
});

describe('field management - the paths an object sets, by topology', () => {
  const cases: Array<[string, Record<string, unknown>, string[]]> = [
    ['scalars and int-or-string are leaves', { replicas: 1, target: '50%' }, ['.spec.replicas', '.spec.target']],
    ['an atomic struct is one leaf', { selector: { matchLabels: { a: 'b' } } }, ['.spec.selector']],
    ['a granular map: each entry', { env: { A: '1', B: '2' } }, ['.spec.env.A', '.spec.env.B']],
    ['a list map: items by key, then their fields', { containers: [{ name: 'c', image: 'i' }] }, ['.spec.containers[name="c"]', '.spec.containers[name="c"].image', '.spec.containers[name="c"].name']],
    ['a merge key reads as a list-map key', { ports: [{ port: 80 }] }, ['.spec.ports[port=80]', '.spec.ports[port=80].port']],
    ['a set: items by value', { tags: ['x', 'y'] }, ['.spec.tags[="x"]', '.spec.tags[="y"]']],
    [
      'an unmarked list is atomic, and atomic is recursive',
      { command: ['a', 'b'], containers: [{ name: 'c', args: ['x'] }] },
      ['.spec.command', '.spec.containers[name="c"]', '.spec.containers[name="c"].args', '.spec.containers[name="c"].name'],
    ],
    ['an empty list or object is a leaf', { tags: [], env: {} }, ['.spec.tags', '.spec.env']],
  ];
  for (const [what, spec, paths] of cases) {
    it(what, () => assert.deepEqual(toFieldSet(obj(spec), schema, ignore).paths().map(pathString).sort(), [...paths].sort()));
  }

  it('identity and server-written metadata are never owned; status is not owned by the main resource', () => {
    const o = obj({ replicas: 1 }, { metadata: { name: 'w', uid: 'u', resourceVersion: '3', labels: { a: 'b' } }, status: { ready: 1 } } as Partial<ApiObject>);
    assert.deepEqual(toFieldSet(o, schema, ignore).paths().map(pathString).sort(), ['.metadata.labels.a', '.spec.replicas']);
    assert.deepEqual(toFieldSet(o, schema, ownable('status', true)).paths().map(pathString), ['.status.ready']);
  });
});

describe('field management - updates (rule 2, 3)', () => {
  it('a create makes the writer own everything it set; a later update takes what it changes', () => {
    const created = obj({ replicas: 1, containers: [{ name: 'c', image: 'i' }] });
    recordUpdate(null, created, schema, at('creator'), ignore);
    assert.deepEqual(managers(created), ['creator/Update']);
    const next = structuredClone(created);
    (next.spec as any).replicas = 3;
    recordUpdate(created, next, schema, at('scaler'), ignore);
    assert.deepEqual(managers(next), ['creator/Update', 'scaler/Update']);
    assert.deepEqual(owned(next, 'scaler'), ['.spec.replicas']);
    assert.ok(!owned(next, 'creator').includes('.spec.replicas'));
  });

  it('a granular map that appears is the writer\'s too ("."), as upstream records a create; one that goes is no one\'s', () => {
    const created = obj({ env: { A: '1' }, containers: [{ name: 'c', image: 'i' }] });
    recordUpdate(null, created, schema, at('creator'), ignore);
    const v1 = (created.metadata.managedFields as any[])[0].fieldsV1;
    assert.deepEqual(v1['f:spec']['f:env'], { '.': {}, 'f:A': {} });
    assert.deepEqual(v1['f:spec']['f:containers'], { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } }, 'a list item, not the list');
    // Another entry in a map that was there: the entry only.
    const more = structuredClone(created);
    (more.spec as any).env.B = '2';
    recordUpdate(created, more, schema, at('adder'), ignore);
    assert.deepEqual(owned(more, 'adder'), ['.spec.env.B']);
    assert.ok(owned(more, 'creator').includes('.spec.env'));
    // The map gone: its "." leaves the creator with its entries.
    const less = structuredClone(more);
    delete (less.spec as any).env;
    recordUpdate(more, less, schema, at('remover'), ignore);
    assert.ok(!owned(less, 'creator').some((p) => p.startsWith('.spec.env')), owned(less, 'creator').join());
    assert.deepEqual(managers(less), ['creator/Update'], 'a removal owns nothing, and an owner left with nothing is dropped');
  });

  it('a write that changes nothing leaves managedFields as they were (times included)', () => {
    const created = obj({ replicas: 1 });
    recordUpdate(null, created, schema, at('a', '2026-01-01T00:00:00Z'), ignore);
    const same = structuredClone(created);
    recordUpdate(created, same, schema, at('b', '2026-02-02T00:00:00Z'), ignore);
    assert.deepEqual(same.metadata.managedFields, created.metadata.managedFields);
  });

  it('removing a field takes it from every manager; an emptied manager disappears', () => {
    const created = obj({ replicas: 1, paused: true });
    recordUpdate(null, created, schema, at('a'), ignore);
    const next = structuredClone(created);
    (next.spec as any).replicas = 2;
    recordUpdate(created, next, schema, at('b'), ignore);
    const gone = structuredClone(next);
    delete (gone.spec as any).paused;
    recordUpdate(next, gone, schema, at('c'), ignore);
    assert.deepEqual(managers(gone), ['b/Update']);
  });

  it('rule 8: [{}] clears managedFields and records nothing more; with other changes the writer owns just those; an empty list does not reset', () => {
    const created = obj({ replicas: 1 });
    recordUpdate(null, created, schema, at('a'), ignore);
    const kept = structuredClone(created);
    kept.metadata.managedFields = [];
    recordUpdate(created, kept, schema, at('b'), ignore);
    assert.deepEqual(managers(kept), ['a/Update']);
    const cleared = structuredClone(created);
    cleared.metadata.managedFields = [{}];
    recordUpdate(created, cleared, schema, at('b'), ignore);
    assert.equal(cleared.metadata.managedFields, undefined);
    const reset = structuredClone(created);
    reset.metadata.managedFields = [{}];
    (reset.spec as any).paused = true;
    recordUpdate(created, reset, schema, at('b'), ignore);
    assert.deepEqual(managers(reset), ['b/Update']);
    assert.deepEqual(owned(reset, 'b'), ['.spec.paused']);
  });
});

describe('field management - server-side apply (rules 1-7)', () => {
  const applyAs = (live: ApiObject | null, spec: Record<string, unknown>, manager: string, force = false) => apply(live, obj(spec), schema, at(manager), force, ignore, describe_);
  const conflictOf = (fn: () => unknown): StatusError => {
    try {
      fn();
    } catch (e) {
      if (e instanceof StatusError) return e;
      throw e;
    }
    assert.fail('expected a conflict');
  };

  it('a no-op apply changes nothing, not even its entry time (so nothing is written); a changing one moves the time', () => {
    const first = applyAs(null, { replicas: 2 }, 'a');
    const later = (spec: Record<string, unknown>) => apply(first, obj(spec), schema, at('a', '2026-11-24T11:00:00Z'), false, ignore, describe_);
    assert.deepEqual(later({ replicas: 2 }), first);
    const changed = later({ replicas: 3 });
    assert.equal((changed.metadata.managedFields as Array<{ time: string }>)[0]!.time, '2026-11-24T11:00:00Z');
    const wider = later({ replicas: 2, paused: true });
    assert.equal((wider.metadata.managedFields as Array<{ time: string }>)[0]!.time, '2026-11-24T11:00:00Z', 'a new field is a change');
  });

  it('rule 1: an Apply entry with manager, operation, apiVersion, time, FieldsV1', () => {
    const o = applyAs(null, { replicas: 2 }, 'a');
    assert.deepEqual(o.metadata.managedFields, [
      { manager: 'a', operation: 'Apply', apiVersion: 'example.io/v1', time: '2026-11-24T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } },
    ]);
  });

  it('rule 2: equal values applied by two managers are shared; rule 4: a different value conflicts', () => {
    const one = applyAs(null, { replicas: 2 }, 'a');
    const both = applyAs(one, { replicas: 2 }, 'b');
    assert.deepEqual(owned(both, 'a'), ['.spec.replicas']);
    assert.deepEqual(owned(both, 'b'), ['.spec.replicas']);
    const err = conflictOf(() => applyAs(both, { replicas: 3 }, 'c'));
    assert.equal(err.code, 409);
    // Appliers are named without a version (upstream's manager identifiers of Apply carry none).
    assert.equal(err.status.message, 'Apply failed with 2 conflicts: conflicts with "a":\n- .spec.replicas\nconflicts with "b":\n- .spec.replicas');
    assert.deepEqual(err.status.details?.causes, [
      { reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.spec.replicas' },
      { reason: 'FieldManagerConflict', message: 'conflict with "b"', field: '.spec.replicas' },
    ]);
  });

  it('an applier conflicts with its own Update entry (managers are keyed by name and operation)', () => {
    const applied = applyAs(null, { replicas: 2 }, 'a');
    const updated = structuredClone(applied);
    (updated.spec as any).replicas = 9;
    recordUpdate(applied, updated, schema, at('a'), ignore);
    const err = conflictOf(() => applyAs(updated, { replicas: 2 }, 'a'));
    assert.equal(err.status.message, 'Apply failed with 1 conflict: conflict with "a" using example.io/v1: .spec.replicas');
  });

  it('rule 3: an Update never conflicts, it takes ownership; the next Apply conflicts with it', () => {
    const applied = applyAs(null, { replicas: 2 }, 'a');
    const updated = structuredClone(applied);
    (updated.spec as any).replicas = 9;
    recordUpdate(applied, updated, schema, at('hpa'), ignore);
    assert.deepEqual(owned(updated, 'hpa'), ['.spec.replicas']);
    const err = conflictOf(() => applyAs(updated, { replicas: 2 }, 'a'));
    assert.match(err.status.message!, /^Apply failed with 1 conflict: conflict with "hpa" using example.io\/v1: \.spec\.replicas$/);
  });

  it('rule 4: force takes the field over; dropping it releases it; matching the value shares it', () => {
    const base = applyAs(null, { replicas: 2, paused: true }, 'a');
    const forced = applyAs(base, { replicas: 5 }, 'b', true);
    assert.equal((forced.spec as any).replicas, 5);
    assert.deepEqual(owned(forced, 'a'), ['.spec.paused']);
    assert.deepEqual(owned(forced, 'b'), ['.spec.replicas']);
    const released = applyAs(base, { paused: true }, 'a');
    assert.equal((released.spec as any).replicas, undefined, 'no one else owned replicas: it is deleted (rule 5)');
    const shared = applyAs(base, { replicas: 2 }, 'b');
    assert.deepEqual(owned(shared, 'b'), ['.spec.replicas']);
  });

  it('rule 5: a field dropped from the configuration is deleted unless another manager owns it', () => {
    const a = applyAs(null, { replicas: 2, paused: true }, 'a');
    const b = applyAs(a, { replicas: 2 }, 'b');
    const labelsOnly = { apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns', labels: { l: 'v' } } } as ApiObject;
    const dropped = apply(b, labelsOnly, schema, at('a'), false, ignore, describe_);
    assert.equal((dropped.spec as any).replicas, 2, 'b still owns replicas');
    assert.equal((dropped.spec as any).paused, undefined, 'no one owns paused any more');
    assert.deepEqual(owned(dropped, 'a'), ['.metadata.labels.l']);
  });

  it('rule 5: list items this applier owned alone are removed; others stay', () => {
    const a = applyAs(
      null,
      {
        containers: [
          { name: 'x', image: '1' },
          { name: 'y', image: '2' },
        ],
      },
      'a',
    );
    const b = applyAs(a, { containers: [{ name: 'z', image: '3' }] }, 'b');
    const fewer = applyAs(b, { containers: [{ name: 'x', image: '1' }] }, 'a');
    assert.deepEqual(
      (fewer.spec as any).containers.map((c: any) => c.name),
      ['x', 'z'],
    );
  });

  it('rule 6: merge by topology — keyed items merge, sets unite, atomic values are replaced', () => {
    const live = obj({ containers: [{ name: 'x', image: '1', args: ['a'] }], tags: ['t1'], command: ['old', 'cmd'], selector: { matchLabels: { a: 'b', c: 'd' } } });
    const out = merge(
      live,
      obj({
        containers: [
          { name: 'x', args: ['b'] },
          { name: 'y', image: '2' },
        ],
        tags: ['t2'],
        command: ['new'],
        selector: { matchLabels: { a: 'b' } },
      }),
      schema,
    ) as any;
    assert.deepEqual(out.spec.containers, [
      { name: 'x', image: '1', args: ['b'] },
      { name: 'y', image: '2' },
    ]);
    assert.deepEqual(out.spec.tags, ['t1', 't2']);
    assert.deepEqual(out.spec.command, ['new']);
    assert.deepEqual(out.spec.selector, { matchLabels: { a: 'b' } });
  });

  it('rule 7: an atomic field is owned whole, so a change to any part of it conflicts', () => {
    const a = applyAs(null, { selector: { matchLabels: { a: 'b' } } }, 'a');
    const err = conflictOf(() => applyAs(a, { selector: { matchLabels: { a: 'b', c: 'd' } } }, 'b'));
    assert.match(err.status.message!, /\.spec\.selector$/);
  });

  it('managedFields in an applied configuration is refused', () => {
    const cfg = obj({ replicas: 1 });
    cfg.metadata.managedFields = [];
    assert.throws(
      () => apply(null, cfg, schema, at('a'), false, ignore, describe_),
      (e: StatusError) => e.code === 400,
    );
  });
});
