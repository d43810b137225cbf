// Managed fields across versions, with a type whose v1 keeps `spec.hostPort: "h:p"` and whose v2
// splits it into `spec.host` and `spec.port` (the conversion a webhook would do): an entry made in
// one version is read in the request's, so ownership, conflicts and removals compare the same
// fields, and entries of other versions come back in their own version.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject, JsonSchema } from '../../api/types.js';
import { StatusError } from '../../api/status.js';
import { FieldSet, pathString } from '../fieldset.js';
import { apply, ownable, recordUpdate, type Writer } from '../managed.js';
import { ManagedFieldsInVersion, restrict, type VersionedFields } from '../versions.js';

const V1 = 'example.io/v1';
const V2 = 'example.io/v2';
const spec = (properties: Record<string, unknown>): JsonSchema => ({ type: 'object', properties: { metadata: { type: 'object' }, spec: { type: 'object', properties } } });
const schemas: Record<string, JsonSchema> = { [V1]: spec({ hostPort: { type: 'string' } }), [V2]: spec({ host: { type: 'string' }, port: { type: 'integer' } }) };
const ignore = ownable('', false);
const describe_ = { kind: 'backends', group: 'example.io' };
const at = (manager: string, apiVersion: string): Writer => ({ manager, subresource: '', apiVersion, now: '2026-11-24T10:00:00Z' });

/** What the webhook does; only fields the object has are converted. */
function convertOne(o: ApiObject, to: string): ApiObject {
  const { hostPort, host, port, ...rest } = (o.spec ?? {}) as Record<string, unknown>;
  const s: Record<string, unknown> = { ...rest };
  if (to === V2 && hostPort !== undefined) [s.host, s.port] = [String(hostPort).split(':')[0], Number(String(hostPort).split(':')[1])];
  if (to === V1 && (host !== undefined || port !== undefined)) s.hostPort = `${host ?? ''}:${port ?? ''}`;
  return { ...o, apiVersion: to, spec: s };
}

function versions(apiVersion: string, calls: string[] = []): VersionedFields {
  return {
    apiVersion,
    converts: (v) => v === V1 || v === V2,
    schema: (v) => schemas[v],
    convert: async (objs, to) => {
      calls.push(`${objs.length}→${to}`);
      return objs.map((o) => convertOne(o, to));
    },
  };
}

const backend = (apiVersion: string, s: Record<string, unknown>): ApiObject => ({ apiVersion, kind: 'Backend', metadata: { name: 'b', namespace: 'ns', uid: 'u' }, spec: s }) as ApiObject;
const entries = (o: ApiObject) => (o.metadata.managedFields as any[]).map((e) => [e.manager, e.operation, e.apiVersion, FieldSet.fromFieldsV1(e.fieldsV1).paths().map(pathString).sort()]);

/** An apply through `apiVersion` onto `live` (given in that version), as the gateway runs it. */
async function applyThrough(apiVersion: string, live: ApiObject, config: ApiObject, manager: string, force = false): Promise<ApiObject> {
  const mv = new ManagedFieldsInVersion(versions(apiVersion), live);
  return mv.write(apply(await mv.read(live), config, schemas[apiVersion], at(manager, apiVersion), force, ignore, describe_));
}

/** Manager a applied `hostPort: a:1` through v1; the object as v2 shows it. */
function appliedInV1(): ApiObject {
  const created = apply(null, backend(V1, { hostPort: 'a:1' }), schemas[V1], at('a', V1), false, ignore, describe_);
  return convertOne(created, V2);
}

describe('field management - entries made through other versions', () => {
  it('an apply through v2 conflicts with the v1 owner of the same field under its v1 name', async () => {
    const live = appliedInV1();
    await assert.rejects(
      applyThrough(V2, live, backend(V2, { host: 'b', port: 1 }), 'b'),
      (e: unknown) => e instanceof StatusError && e.code === 409 && e.message === 'Apply failed with 1 conflict: conflict with "a": .spec.host',
    );
    // The same values share ownership; the v1 entry is left as it was, in v1.
    const shared = await applyThrough(V2, live, backend(V2, { host: 'a', port: 1 }), 'b');
    assert.deepEqual(entries(shared), [
      ['a', 'Apply', V1, ['.spec.hostPort']],
      ['b', 'Apply', V2, ['.spec.host', '.spec.port']],
    ]);
  });

  it('forced, the v1 owner loses the field in v1’s terms (its only one here, so its entry goes)', async () => {
    const live = appliedInV1();
    const forced = await applyThrough(V2, live, backend(V2, { host: 'b' }), 'b', true);
    assert.deepEqual(forced.spec, { host: 'b', port: 1 });
    // In v1's terms hostPort changed, so a, whose only field it was, owns nothing any more.
    assert.deepEqual(entries(forced), [['b', 'Apply', V2, ['.spec.host']]]);
  });

  it('the same manager applying through v2 without the field it applied through v1 removes it', async () => {
    const live = appliedInV1();
    const config = backend(V2, {});
    config.metadata.labels = { tier: 'x' };
    const dropped = await applyThrough(V2, live, config, 'a');
    assert.deepEqual(dropped.spec, {});
    assert.deepEqual(entries(dropped), [['a', 'Apply', V2, ['.metadata.labels.tier', '.spec']]]);
  });

  it('an update through v2 takes the v1 owner’s field, leaving its other fields in v1', async () => {
    const created = apply(null, backend(V1, { hostPort: 'a:1' }), schemas[V1], at('a', V1), false, ignore, describe_);
    created.metadata.labels = { keep: 'me' };
    created.metadata.managedFields![0] = { ...(created.metadata.managedFields![0] as object), fieldsV1: { 'f:metadata': { 'f:labels': { 'f:keep': {} } }, 'f:spec': { 'f:hostPort': {} } } };
    const prev = convertOne(created, V2);
    const calls: string[] = [];
    const mv = new ManagedFieldsInVersion(versions(V2, calls), prev);
    const next = structuredClone(prev);
    (next.spec as any).host = 'c';
    const [p, n] = await Promise.all([mv.read(prev), mv.read(next)]);
    recordUpdate(p, n, schemas[V2], at('editor', V2), ignore);
    const out = await mv.write(n);
    assert.deepEqual(entries(out), [
      ['a', 'Apply', V1, ['.metadata.labels.keep']],
      ['editor', 'Update', V2, ['.spec.host']],
    ]);
    // The live object once per version, each entry's set once, then what the changed entry lost back.
    assert.deepEqual(calls, ['1→example.io/v1', '1→example.io/v2', '1→example.io/v1']);
  });

  it('entries of this version, or of versions of the same shape, are not converted', async () => {
    const calls: string[] = [];
    const live = apply(null, backend(V2, { host: 'a', port: 1 }), schemas[V2], at('a', V2), false, ignore, describe_);
    const mv = new ManagedFieldsInVersion(versions(V2, calls), live);
    assert.equal(await mv.read(live), live);
    const same: VersionedFields = { ...versions(V2, calls), converts: () => false };
    const other = { ...live, metadata: { ...live.metadata, managedFields: [{ ...(live.metadata.managedFields![0] as object), apiVersion: 'example.io/v3' }] } };
    assert.equal(await new ManagedFieldsInVersion(same, other).read(other), other);
    assert.deepEqual(calls, []);
  });

  it('restrict keeps the values at a set’s paths, the keys of keyed items and the metadata', () => {
    const s = new FieldSet();
    s.insert(['f:spec', 'f:items', 'k:{"name":"a"}', 'f:image']);
    const o = {
      apiVersion: V1,
      kind: 'X',
      metadata: { name: 'n', labels: { l: '1' } },
      spec: {
        replicas: 3,
        items: [
          { name: 'a', image: 'i', args: ['x'] },
          { name: 'b', image: 'j' },
        ],
      },
    } as ApiObject;
    const itemsSchema: JsonSchema = spec({
      replicas: { type: 'integer' },
      items: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', properties: { name: { type: 'string' }, image: { type: 'string' }, args: { type: 'array', items: { type: 'string' } } } },
      },
    });
    assert.deepEqual(restrict(o, s, itemsSchema), { apiVersion: V1, kind: 'X', metadata: { name: 'n', labels: { l: '1' } }, spec: { items: [{ name: 'a', image: 'i' }] } });
  });
});
