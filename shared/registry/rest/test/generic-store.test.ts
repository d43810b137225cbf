// The generic store against an in-memory storage interface that behaves like the storage service
// (compare-and-swap, AlreadyExists, revisions) and a recording admission: what each write stores,
// when it retries, and which rules it runs in which order.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject, ObjectRef, UserInfo } from '../../../api/types.js';
import { alreadyExists, conflict, CONFLICT_MODIFIED, forbidden, notFound, StatusError } from '../../../api/status.js';
import type { Storage, StorageDeleteReply, StorageGetReply, StorageWriteReply } from '../../../contracts/storage.js';
import type { AuthnPort } from '../../../contracts/authn.js';
import { createBuiltinRegistry } from '../../builtin-registry.js';
import { Targets } from '../../target.js';
import type { ServicePorts, Target } from '../../types.js';
import { GenericStore } from '../generic-store.js';
import type { ObjectSource, StoredObject, WriteRequest } from '../store-types.js';

const registry = createBuiltinRegistry();
const targets = new Targets(registry);
const configmaps = targets.preferred('', 'configmaps')!;
const namespaces = targets.preferred('', 'namespaces')!;
const roles = targets.preferred('rbac.authorization.platform.io', 'roles')!;
const jane: UserInfo = { username: 'jane', groups: ['system:authenticated'] };

/** Storage as the storage service keeps it, with knobs to lose races and count writes. */
class MemoryStorage implements ObjectSource, Storage {
  readonly objects = new Map<string, StoredObject>();
  revision = 0;
  writes: string[] = [];
  /** Writes to fail with a Conflict/AlreadyExists before they succeed. */
  conflicts = 0;
  existing = 0;

  key(ref: ObjectRef): string {
    return `${ref.resource}/${ref.namespace ?? ''}/${ref.name}`;
  }

  async current(t: Target, namespace: string | undefined, name: string): Promise<StoredObject | undefined> {
    return this.objects.get(`${t.storage.resource}/${namespace ?? ''}/${name}`);
  }

  async caughtUp(): Promise<void> {}

  async get(ref: ObjectRef): Promise<StorageGetReply> {
    const o = this.objects.get(this.key(ref));
    if (!o) throw notFound({ group: ref.group, resource: ref.resource }, ref.name);
    return o;
  }

  async create(ref: ObjectRef, object: ApiObject): Promise<StorageWriteReply> {
    this.writes.push(`create ${ref.name}`);
    if (this.existing > 0 || this.objects.has(this.key(ref))) {
      this.existing--;
      throw alreadyExists({ group: '', resource: ref.resource }, ref.name);
    }
    return this.put(ref, object);
  }

  async update(ref: ObjectRef, object: ApiObject, expectedRevision: number): Promise<StorageWriteReply> {
    this.writes.push(`update ${ref.name}`);
    this.compareAndSwap(ref, expectedRevision);
    return this.put(ref, object);
  }

  async delete(ref: ObjectRef, expectedRevision?: number): Promise<StorageDeleteReply> {
    this.writes.push(`delete ${ref.name}`);
    this.compareAndSwap(ref, expectedRevision);
    this.objects.delete(this.key(ref));
    return { revision: this.revision };
  }

  private compareAndSwap(ref: ObjectRef, expectedRevision: number | undefined): void {
    const k = this.key(ref);
    if (this.conflicts > 0) {
      this.conflicts--;
      this.bump(k); // someone else wrote it meanwhile
      throw conflict({ group: '', resource: ref.resource }, ref.name, CONFLICT_MODIFIED);
    }
    if (this.objects.get(k)?.revision !== expectedRevision) throw conflict({ group: '', resource: ref.resource }, ref.name, CONFLICT_MODIFIED);
  }

  private put(ref: ObjectRef, stored: ApiObject): StorageWriteReply {
    const object = { ...stored, metadata: { ...stored.metadata, resourceVersion: String(++this.revision) } };
    this.objects.set(this.key(ref), { object, revision: this.revision });
    return { object, revision: this.revision };
  }

  bump(k: string): void {
    const o = this.objects.get(k);
    if (!o) return;
    const revision = ++this.revision;
    this.objects.set(k, { object: { ...o.object, metadata: { ...o.object.metadata, resourceVersion: String(revision), annotations: { touched: String(revision) } } }, revision });
  }
}

/** The other services: only the escalation check answers (as `deny` says), recording what it was asked about. */
function services(guarded: string[] = [], deny?: string): ServicePorts {
  const unused = async (): Promise<never> => assert.fail('not asked by the store');
  const authn: AuthnPort = { authenticate: unused, issueToken: unused };
  return {
    authn,
    authz: {
      authorize: unused,
      reviewRules: unused,
      async checkEscalation(ask) {
        guarded.push(ask.object.metadata.name ?? '');
        return { allowed: deny === undefined, message: deny };
      },
    },
  };
}

function setup(opts: { deny?: string } = {}) {
  const storage = new MemoryStorage();
  const admitted: string[] = [];
  const guarded: string[] = [];
  const store = new GenericStore({
    registry,
    source: storage,
    storage,
    services: services(guarded, opts.deny),
    admit: async (req, phase, op, object) => {
      admitted.push(`${phase} ${op} ${req.name}`);
      return object;
    },
    updateRetryMs: 2_000,
  });
  return { storage, store, admitted, guarded };
}

function request(target: Target, name: string, extra: Partial<WriteRequest> = {}): WriteRequest {
  return { target, user: jane, namespace: target.namespaced ? 'ns1' : undefined, name, dryRun: false, warnings: [], manager: 'test', ...extra };
}

const cm = (name: string, data: Record<string, string> = { a: '1' }): ApiObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

describe('generic store - create', () => {
  it('sets server-owned metadata, runs both admission phases and stores the object', async () => {
    const { store, storage, admitted } = setup();
    const created = await store.create(request(configmaps, 'c1'), cm('c1'));
    assert.match(created.metadata.uid ?? '', /^[0-9a-f-]{36}$/);
    assert.ok(created.metadata.creationTimestamp);
    assert.equal(created.metadata.namespace, 'ns1');
    assert.equal(created.metadata.resourceVersion, '1');
    assert.deepEqual(admitted, ['mutating CREATE c1', 'validating CREATE c1']);
    assert.deepEqual(storage.writes, ['create c1']);
  });

  it('refuses a missing name with 422 and writes nothing', async () => {
    const { store, storage } = setup();
    await assert.rejects(
      store.create(request(configmaps, ''), { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }),
      (e: StatusError) => e.code === 422 && /name or generateName is required/.test(e.message),
    );
    assert.deepEqual(storage.writes, []);
  });

  it('retries a generated name that exists, and reports a chosen name that exists as AlreadyExists', async () => {
    const { store, storage } = setup();
    storage.existing = 2;
    const created = await store.create(request(configmaps, ''), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'web-' } });
    assert.match(created.metadata.name ?? '', /^web-[a-z0-9]{5}$/);
    assert.equal(storage.writes.length, 3);
    await assert.rejects(store.create(request(configmaps, created.metadata.name!), cm(created.metadata.name!)), (e: StatusError) => e.status.reason === 'AlreadyExists');
  });

  it('dry-run runs every rule and writes nothing', async () => {
    const { store, storage, admitted } = setup();
    const obj = await store.create(request(configmaps, 'c1', { dryRun: true }), cm('c1'));
    assert.ok(obj.metadata.uid);
    assert.equal(admitted.length, 2);
    assert.deepEqual(storage.writes, []);
  });

  it('runs the type write rule after validation and refuses what it refuses', async () => {
    const { store, storage, guarded } = setup({ deny: 'no escalation' });
    const role = { apiVersion: 'rbac.authorization.platform.io/v1', kind: 'Role', metadata: { name: 'r' }, rules: [] };
    await assert.rejects(store.create(request(roles, 'r'), role), (e: StatusError) => e.code === 403 && /no escalation/.test(e.message));
    assert.deepEqual(guarded, ['r']);
    assert.deepEqual(storage.writes, []);
  });

  it('asks a write authorized for another verb (apply, PUT) for create before admission, dry run too', async () => {
    const { store, storage, admitted } = setup();
    const asked: string[] = [];
    const refuse = async () => {
      asked.push('create');
      throw forbidden({ group: '', resource: 'configmaps' }, 'c1', 'User "jane" cannot create resource "configmaps"');
    };
    for (const dryRun of [false, true]) {
      await assert.rejects(store.create(request(configmaps, 'c1', { dryRun, authorizeCreate: refuse }), cm('c1')), (e: StatusError) => e.code === 403);
    }
    assert.deepEqual(asked, ['create', 'create']);
    assert.deepEqual(admitted, [], 'admission never saw the object');
    assert.deepEqual(storage.writes, []);
    await store.create(request(configmaps, 'c1', { authorizeCreate: async () => void asked.push('allowed') }), cm('c1'));
    assert.deepEqual(asked.at(-1), 'allowed');
    assert.deepEqual(storage.writes, ['create c1']);
  });
});

describe('generic store - update', () => {
  it('retries a lost race without a resourceVersion and keeps the caller change', async () => {
    const { store, storage } = setup();
    await store.create(request(configmaps, 'c1'), cm('c1'));
    storage.conflicts = 2;
    const updated = await store.update(request(configmaps, 'c1'), (cur) => ({ ...cur, data: { a: '2' } }));
    assert.deepEqual(updated.data, { a: '2' });
    assert.equal(updated.metadata.annotations?.touched, '3', 'built on the state that won the race');
  });

  it('turns a stale resourceVersion into 409 without retrying', async () => {
    const { store } = setup();
    await store.create(request(configmaps, 'c1'), cm('c1'));
    await store.update(request(configmaps, 'c1'), (cur) => ({ ...cur, data: { a: '2' } }));
    await assert.rejects(
      store.update(request(configmaps, 'c1'), (cur) => ({ ...cur, data: { a: '3' } }), 1),
      (e: StatusError) => e.code === 409,
    );
  });

  it('writes nothing for a change that changes nothing', async () => {
    const { store, storage } = setup();
    await store.create(request(configmaps, 'c1'), cm('c1'));
    const same = await store.update(request(configmaps, 'c1'), (cur) => cur);
    assert.equal(same.metadata.resourceVersion, '1');
    assert.deepEqual(storage.writes, ['create c1']);
  });

  it('skips admission for a write already admitted as something else', async () => {
    const { store, admitted } = setup();
    await store.create(request(configmaps, 'c1'), cm('c1'));
    admitted.length = 0;
    await store.update(request(configmaps, 'c1', { admit: false }), (cur) => ({ ...cur, data: { a: '2' } }));
    assert.deepEqual(admitted, []);
  });

  it('answers 404 for an object that does not exist', async () => {
    const { store } = setup();
    await assert.rejects(
      store.update(request(configmaps, 'nope'), (cur) => cur),
      (e: StatusError) => e.code === 404,
    );
  });
});

describe('generic store - delete', () => {
  it('removes an object without finalizers', async () => {
    const { store, storage } = setup();
    await store.create(request(configmaps, 'c1'), cm('c1'));
    const r = await store.delete(request(configmaps, 'c1'));
    assert.equal(r.removed, true);
    assert.equal(storage.objects.size, 0);
  });

  it('keeps a namespace terminating until its spec finalizers are gone, then removes it', async () => {
    const { store, storage } = setup();
    await store.create(request(namespaces, 'n1'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n1' } });
    const first = await store.delete(request(namespaces, 'n1'));
    assert.equal(first.removed, false);
    assert.equal((first.object.status as { phase?: string }).phase, 'Terminating');
    assert.ok(first.object.metadata.deletionTimestamp);
    const writes = storage.writes.length;
    const again = await store.delete(request(namespaces, 'n1'));
    assert.equal(again.removed, false);
    assert.equal(storage.writes.length, writes, 'a second delete writes nothing');
    await store.update(request(namespaces, 'n1', { subresource: 'finalize' }), (cur) => ({ ...cur, spec: { finalizers: [] } }));
    assert.equal(storage.objects.size, 0, 'the last finalizer removed it');
  });

  it('checks uid and resourceVersion preconditions', async () => {
    const { store } = setup();
    await store.create(request(configmaps, 'c1'), cm('c1'));
    await assert.rejects(store.delete(request(configmaps, 'c1'), { preconditions: { uid: 'other' } }), (e: StatusError) => e.code === 409 && /UID in precondition/.test(e.message));
    await assert.rejects(store.delete(request(configmaps, 'c1'), { preconditions: { resourceVersion: '9' } }), (e: StatusError) => e.code === 409 && /ResourceVersion in precondition/.test(e.message));
  });

  it('deletes a collection, skipping objects that vanished', async () => {
    const { store, storage } = setup();
    await store.create(request(configmaps, 'a'), cm('a'));
    await store.create(request(configmaps, 'b'), cm('b'));
    const victims = [...storage.objects.values()];
    storage.objects.delete('configmaps/ns1/a');
    await store.deleteCollection({ target: configmaps, user: jane, dryRun: false, warnings: [], manager: 'test' }, victims);
    assert.equal(storage.objects.size, 0);
  });

  it('refuses what admission refuses', async () => {
    const storage = new MemoryStorage();
    const store = new GenericStore({
      registry,
      source: storage,
      storage,
      services: services(),
      admit: async (req, phase, op, object) => {
        if (op === 'DELETE') throw forbidden(req.target.gr, req.name, 'protected');
        return object;
      },
      updateRetryMs: 1_000,
    });
    await store.create(request(configmaps, 'c1'), cm('c1'));
    await assert.rejects(store.delete(request(configmaps, 'c1')), (e: StatusError) => e.code === 403);
    assert.equal(storage.objects.size, 1);
  });
});
