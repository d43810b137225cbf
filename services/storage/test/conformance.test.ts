// Storage conformance: the storage contract as the gateway sees it, through the bus, against a
// real nats-server with JetStream.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstreamManager } from '@nats-io/jetstream';
import { startTestNats, type TestNats } from '../../../test/support/nats.js';
import { busRequestBytes } from '../../../shared/bus/client.js';
import { Subjects } from '../../../shared/bus/subjects.js';
import { natsStorage } from '../../../shared/bus/storage-client.js';
import { StorageMessages } from '../../../shared/bus/storage-messages.js';
import type { StorageWriteReply } from '../../../shared/contracts/storage.js';
import { CONFLICT_MODIFIED, StatusError } from '../../../shared/api/status.js';
import type { ApiObject, ObjectRef } from '../../../shared/api/types.js';
import { decodeKey, encodeKey } from '../../../shared/store/key-codec.js';
import { lastRevision, openObjectBucket } from '../../../shared/store/kv-bucket.js';
import { streamName } from '../../../shared/bus/streams.js';
import { createStorageService, type StorageService } from '../service.js';

const MARKER_TTL_MS = 1_500;
const PURGE_INTERVAL_MS = 250;

let nats: TestNats;
let client: NatsConnection;
let svc: StorageService;
const bucket = `conformance-${process.pid}-${Date.now()}`;

const cm = (name: string, namespace = 'default'): ObjectRef => ({ group: '', resource: 'configmaps', namespace, name });

function configMap(ref: ObjectRef, data: Record<string, string> = {}): ApiObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) }, data };
}

// Through the storage client, as the gateway calls it: the bodies are the contract's protobuf messages.
const create = (ref: ObjectRef, object: ApiObject) => natsStorage(client).create(ref, object);
const update = (ref: ObjectRef, object: ApiObject, expectedRevision: number) => natsStorage(client).update(ref, object, expectedRevision);
const remove = (ref: ObjectRef, expectedRevision?: number) => natsStorage(client).delete(ref, expectedRevision);
const get = (ref: ObjectRef) => natsStorage(client).get(ref);
/** A body the client would not send: any bytes, straight onto the subject. */
const raw = (subject: string, body: Uint8Array) => busRequestBytes(client, subject, body);
const stored = (object: ApiObject) => Buffer.from(JSON.stringify(object));

async function rejects(p: Promise<unknown>, code: number, reason: string, message?: string | RegExp): Promise<StatusError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof StatusError, `expected a StatusError, got ${String(err)}`);
    assert.equal(err.status.code, code, err.status.message);
    assert.equal(err.status.reason, reason);
    if (typeof message === 'string') assert.equal(err.status.message, message);
    else if (message) assert.match(err.status.message, message);
    return err;
  }
  assert.fail(`expected ${code} ${reason}, but the request succeeded`);
}

/** The raw KV entry, read beside the service (as the watch cache would see it). */
async function rawEntry(ref: ObjectRef) {
  return svc.kv.get(encodeKey(ref));
}

async function waitFor(cond: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`condition not met within ${timeoutMs}ms`);
}

describe('storage conformance', () => {
  before(async () => {
    nats = await startTestNats();
    client = await nats.connect('gateway');
    const serviceConn = await nats.connect('storage');
    svc = await createStorageService({ nc: serviceConn, bucket, deleteMarkerTtlMs: MARKER_TTL_MS, purgeIntervalMs: PURGE_INTERVAL_MS });
  });

  after(async () => {
    await svc?.stop().catch(() => undefined);
    const jsm = await jetstreamManager(client, { checkAPI: false }).catch(() => null);
    await jsm?.streams.delete(streamName(bucket)).catch(() => undefined);
    await nats?.stop();
  });

  test('create - returns the object with resourceVersion = revision and fills uid and timestamp, never generation', async () => {
    const ref = cm('create-basic');
    const res = await create(ref, configMap(ref, { a: '1' }));
    assert.ok(res.revision > 0);
    assert.equal(res.object.metadata.resourceVersion, String(res.revision));
    assert.match(res.object.metadata.uid ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.match(res.object.metadata.creationTimestamp ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(res.object.metadata.generation, undefined, 'generation belongs to the type strategy, not storage');
    assert.deepEqual(res.object.data, { a: '1' });

    const stored = await rawEntry(ref);
    assert.equal(stored?.revision, res.revision);
    const value = stored!.json<ApiObject>();
    assert.equal(value.metadata.resourceVersion, undefined, 'the stored value must not carry resourceVersion');
    assert.equal(value.metadata.uid, res.object.metadata.uid);
  });

  test('create - keeps a uid and creationTimestamp given by the caller, ignores a given resourceVersion', async () => {
    const ref = cm('create-given');
    const obj = configMap(ref);
    obj.metadata.uid = '11111111-2222-4333-8444-555555555555';
    obj.metadata.creationTimestamp = '2020-01-02T03:04:05Z';
    obj.metadata.resourceVersion = '999999';
    const res = await create(ref, obj);
    assert.equal(res.object.metadata.uid, obj.metadata.uid);
    assert.equal(res.object.metadata.creationTimestamp, '2020-01-02T03:04:05Z');
    assert.equal(res.object.metadata.resourceVersion, String(res.revision));
  });

  test('get - returns the latest object; a missing object is 404 NotFound', async () => {
    const ref = cm('get-me');
    const created = await create(ref, configMap(ref, { k: 'v' }));
    const got = await get(ref);
    assert.equal(got.revision, created.revision);
    assert.deepEqual(got.object, created.object);
    await rejects(get(cm('never-created')), 404, 'NotFound', 'configmaps "never-created" not found');
  });

  test('create - a live key is 409 AlreadyExists', async () => {
    const ref = cm('dup');
    const first = await create(ref, configMap(ref, { v: '1' }));
    await rejects(create(ref, configMap(ref, { v: '2' })), 409, 'AlreadyExists', 'configmaps "dup" already exists');
    const got = await get(ref);
    assert.deepEqual(got.object.data, { v: '1' });
    assert.equal(got.revision, first.revision);
  });

  test('create - AlreadyExists names the qualified resource for a non-core group', async () => {
    const ref: ObjectRef = { group: 'apps', resource: 'deployments', namespace: 'default', name: 'web' };
    await create(ref, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' } });
    await rejects(create(ref, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } }), 409, 'AlreadyExists', 'deployments.apps "web" already exists');
  });

  test('update - CAS with the current revision succeeds and yields a higher revision', async () => {
    const ref = cm('cas-ok');
    const c = await create(ref, configMap(ref, { v: '1' }));
    const u = await update(ref, { ...c.object, data: { v: '2' } }, c.revision);
    assert.ok(u.revision > c.revision);
    assert.equal(u.object.metadata.resourceVersion, String(u.revision));
    assert.equal(u.object.metadata.uid, c.object.metadata.uid);
    const got = await get(ref);
    assert.deepEqual(got.object.data, { v: '2' });
    assert.equal(got.revision, u.revision);
  });

  test('update - a stale revision is 409 Conflict and leaves the object unchanged', async () => {
    const ref = cm('cas-stale');
    const c = await create(ref, configMap(ref, { v: '1' }));
    const u = await update(ref, { ...c.object, data: { v: '2' } }, c.revision);
    await rejects(update(ref, { ...c.object, data: { v: 'stale' } }, c.revision), 409, 'Conflict', `Operation cannot be fulfilled on configmaps "cas-stale": ${CONFLICT_MODIFIED}`);
    const got = await get(ref);
    assert.deepEqual(got.object.data, { v: '2' });
    assert.equal(got.revision, u.revision);
  });

  test('update - a missing object is 404 NotFound', async () => {
    const ref = cm('update-missing');
    await rejects(update(ref, configMap(ref), 1), 404, 'NotFound', 'configmaps "update-missing" not found');
    assert.equal(await rawEntry(ref), null, 'a failed update must not write');
  });

  // An expectedRevision is one the caller read as live (bucket-writer.ts); a delete marker's
  // revision is refused where storage cannot vouch for it (recent-revisions.test.ts) and at the
  // gateway, whose cache holds no deleted object (crud.test.ts).
  test('update - a deleted object is 404 NotFound', async () => {
    const ref = cm('update-deleted');
    const c = await create(ref, configMap(ref, { v: '1' }));
    await remove(ref);
    await rejects(update(ref, c.object, c.revision), 404, 'NotFound');
    assert.equal((await rawEntry(ref))?.operation, 'DEL');
  });

  test('update - a non-positive or missing expectedRevision is 400 BadRequest', async () => {
    const ref = cm('update-bad-rev');
    const c = await create(ref, configMap(ref));
    await rejects(update(ref, c.object, 0), 400, 'BadRequest');
    await rejects(raw(Subjects.storageUpdate, StorageMessages.updateRequest.encode({ ref, objectJson: stored(c.object) } as never)), 400, 'BadRequest');
  });

  test('delete - without expected revision removes the object; the reply is the marker revision', async () => {
    const ref = cm('delete-plain');
    const c = await create(ref, configMap(ref));
    const d = await remove(ref);
    assert.ok(d.revision > c.revision);
    const marker = await rawEntry(ref);
    assert.equal(marker?.operation, 'DEL');
    assert.equal(marker?.revision, d.revision);
    await rejects(get(ref), 404, 'NotFound');
    await rejects(remove(ref), 404, 'NotFound', 'configmaps "delete-plain" not found');
    assert.equal((await rawEntry(ref))?.revision, d.revision, 'deleting a deleted object writes nothing');
  });

  test('delete - with expected revision: stale is 409, current succeeds, missing is 404', async () => {
    const ref = cm('delete-cas');
    const c = await create(ref, configMap(ref, { v: '1' }));
    const u = await update(ref, { ...c.object, data: { v: '2' } }, c.revision);
    await rejects(remove(ref, c.revision), 409, 'Conflict', `Operation cannot be fulfilled on configmaps "delete-cas": ${CONFLICT_MODIFIED}`);
    assert.equal((await get(ref)).revision, u.revision);
    const d = await remove(ref, u.revision);
    assert.ok(d.revision > u.revision);
    await rejects(remove(ref, u.revision), 404, 'NotFound');
    await rejects(remove(cm('delete-never'), 5), 404, 'NotFound');
  });

  test('create - succeeds over a tombstone (delete marker) with a new uid', async () => {
    const ref = cm('tombstone');
    const first = await create(ref, configMap(ref, { gen: '1' }));
    const d = await remove(ref);
    const marker = await rawEntry(ref);
    assert.equal(marker?.operation, 'DEL', 'the delete marker must be in place before re-creating');
    const again = await create(ref, configMap(ref, { gen: '2' }));
    assert.ok(again.revision > d.revision);
    assert.notEqual(again.object.metadata.uid, first.object.metadata.uid);
    assert.deepEqual((await get(ref)).object.data, { gen: '2' });
    await rejects(create(ref, configMap(ref)), 409, 'AlreadyExists');
  });

  test('revisions - strictly increase across writes and equal the resourceVersion', async () => {
    const ref = cm('revisions');
    const revs: number[] = [];
    const c = await create(ref, configMap(ref, { n: '0' }));
    revs.push(c.revision);
    let cur = c;
    for (let i = 1; i <= 5; i++) {
      cur = await update(ref, { ...cur.object, data: { n: String(i) } }, cur.revision);
      assert.equal(cur.object.metadata.resourceVersion, String(cur.revision));
      revs.push(cur.revision);
    }
    // Writes to other keys share the same global sequence.
    const other = await create(cm('revisions-other'), configMap(cm('revisions-other')));
    revs.push(other.revision);
    const d = await remove(ref, cur.revision);
    revs.push(d.revision);
    for (let i = 1; i < revs.length; i++) assert.ok(revs[i]! > revs[i - 1]!, `revisions not increasing: ${revs.join(',')}`);
    assert.equal(await lastRevision(client, bucket), d.revision);
  });

  test('keys - awkward names survive and do not collide', async () => {
    const refs: ObjectRef[] = [
      { group: 'rbac.authorization.platform.io', resource: 'clusterroles', name: 'system:node:n1' },
      { group: '', resource: 'configmaps', namespace: 'kube-system', name: 'my.config' },
      { group: '', resource: 'configmaps', namespace: 'kube-system', name: 'my_config' },
      { group: '', resource: 'configmaps', namespace: 'kube-system', name: 'my-config' },
      { group: '', resource: 'configmaps', namespace: 'kube-system', name: 'ünïcødé-名前' },
      { group: '', resource: 'nodes', name: 'node@example.com' },
      { group: '', resource: 'configmaps', namespace: 'a.b', name: 'c' },
      { group: '', resource: 'configmaps', namespace: 'a', name: 'b.c' },
    ];
    for (const ref of refs) {
      const obj: ApiObject = { metadata: { name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) }, data: { who: ref.name } };
      await create(ref, obj);
    }
    for (const ref of refs) {
      const got = await get(ref);
      assert.equal(got.object.metadata.name, ref.name);
      assert.deepEqual(got.object.data, { who: ref.name });
    }
    const keys = new Set<string>();
    for await (const k of await svc.kv.keys()) keys.add(k);
    for (const ref of refs) {
      const key = encodeKey(ref);
      assert.ok(keys.has(key), `missing key ${key}`);
      assert.deepEqual(decodeKey(key), ref);
    }
  });

  test('limits - an object above 1.5 MiB is 413 and nothing is written; just below is stored', async () => {
    const before = await lastRevision(client, bucket);
    const big = cm('too-big');
    await rejects(create(big, configMap(big, { blob: 'x'.repeat(1_572_864) })), 413, 'RequestEntityTooLarge');
    assert.equal(await lastRevision(client, bucket), before);
    assert.equal(await rawEntry(big), null);

    const ok = cm('almost-too-big');
    const c = await create(ok, configMap(ok, { blob: 'x'.repeat(1_572_864 - 400) }));
    assert.equal((await get(ok)).object.data && ((await get(ok)).object.data as Record<string, string>).blob.length, 1_572_864 - 400);
    await rejects(update(ok, configMap(ok, { blob: 'y'.repeat(1_600_000) }), c.revision), 413, 'RequestEntityTooLarge');
    assert.equal((await get(ok)).revision, c.revision);
  });

  test('validation - a ref without resource or name is 400 BadRequest', async () => {
    await rejects(get({ group: '', resource: '', name: 'x' }), 400, 'BadRequest');
    await rejects(get({ group: '', resource: 'configmaps' } as ObjectRef), 400, 'BadRequest');
    await rejects(raw(Subjects.storageGet, new Uint8Array()), 400, 'BadRequest', /without ref/);
    await rejects(raw(Subjects.storageCreate, new Uint8Array()), 400, 'BadRequest');
    // A create whose object is not a JSON object's bytes, and a body that is not the message at all (JSON).
    const bare = cm('bare');
    await rejects(raw(Subjects.storageCreate, StorageMessages.createRequest.encode({ ref: bare, objectJson: Buffer.from('[1]') })), 400, 'BadRequest', /without object/);
    await rejects(raw(Subjects.storageCreate, stored({ ref: bare, object: configMap(bare) } as unknown as ApiObject)), 400, 'BadRequest');
    const ref = cm('mismatch');
    await rejects(create(ref, { metadata: { name: 'other' } }), 400, 'BadRequest');
    await rejects(create(ref, { metadata: { name: 'mismatch', namespace: 'elsewhere' } }), 400, 'BadRequest');
  });

  test('concurrency - 20 parallel updates from one revision: exactly one wins, the rest are 409', async () => {
    const ref = cm('contended');
    const c = await create(ref, configMap(ref, { writer: 'none' }));
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => update(ref, { ...c.object, data: { writer: String(i) } }, c.revision)));
    const won = results.filter((r): r is PromiseFulfilledResult<StorageWriteReply> => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(won.length, 1, 'exactly one writer must win');
    for (const r of lost) {
      assert.ok(r.reason instanceof StatusError);
      assert.equal(r.reason.status.code, 409);
      assert.equal(r.reason.status.reason, 'Conflict');
    }
    const got = await get(ref);
    assert.equal(got.revision, won[0]!.value.revision);
    assert.deepEqual(got.object.data, won[0]!.value.object.data);
    assert.equal(got.object.metadata.uid, c.object.metadata.uid);
  });

  test('concurrency - parallel creates of one name: exactly one wins, the rest are AlreadyExists', async () => {
    const ref = cm('race-create');
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => create(ref, configMap(ref, { writer: String(i) }))));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    for (const r of results) if (r.status === 'rejected') assert.equal((r.reason as StatusError).status.reason, 'AlreadyExists');
  });

  test('lastRevision - equals the revision of the last write, read from the stream leader', async () => {
    const ref = cm('last-rev');
    const c = await create(ref, configMap(ref));
    assert.equal(await lastRevision(client, bucket), c.revision);
    const d = await remove(ref);
    assert.equal(await lastRevision(client, bucket), d.revision);
  });

  test('openObjectBucket - binds read-only to the existing bucket; a missing bucket is an error', async () => {
    const ro = await openObjectBucket(client, { bucket });
    const ref = cm('read-only-view');
    const c = await create(ref, configMap(ref));
    assert.equal((await ro.get(encodeKey(ref)))?.revision, c.revision);
    await assert.rejects(openObjectBucket(client, { bucket: 'no-such-bucket' }), { name: 'BucketNotFoundError' });
  });

  test('compaction - delete markers are purged after the TTL; live objects and re-creations stay', async () => {
    const gone = cm('compact-gone');
    const recreated = cm('compact-recreated');
    const live = cm('compact-live');
    await create(gone, configMap(gone));
    const rc = await create(recreated, configMap(recreated, { v: 'old' }));
    await create(live, configMap(live));
    await remove(gone);
    await remove(recreated, rc.revision);
    await create(recreated, configMap(recreated, { v: 'new' }));
    assert.equal((await rawEntry(gone))?.operation, 'DEL');

    // The periodic pass (short TTL and interval in this suite) removes the marker entirely.
    await waitFor(async () => (await rawEntry(gone)) === null, MARKER_TTL_MS + 5_000);
    assert.deepEqual((await get(recreated)).object.data, { v: 'new' });
    await get(live);
    // A purged tombstone leaves the key free, and the stream's last revision never goes back.
    const lastBefore = await lastRevision(client, bucket);
    const again = await create(gone, configMap(gone));
    assert.ok(again.revision > lastBefore);
  });

  test('compaction - a marker younger than the TTL is kept', async () => {
    const ref = cm('compact-young');
    await create(ref, configMap(ref));
    const d = await remove(ref);
    await svc.compact();
    assert.equal((await rawEntry(ref))?.revision, d.revision);
  });

  test('availability - with the service stopped, requests are 503 ServiceUnavailable', async () => {
    await svc.stop();
    await rejects(get(cm('anything')), 503, 'ServiceUnavailable');
  });
});
