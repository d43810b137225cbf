// The NATS implementations of the storage interface and the service ports (shared/bus/
// storage-client.ts, service-clients.ts), against a real nats-server with stand-ins answering the
// subjects: what each typed call sends on the wire, and how failures come back (an error reply as
// its Status, no responders 503, no reply in time 504, a phase no admission plugin wants not asked).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { NatsConnection } from '@nats-io/nats-core';
import { startTestNats, type TestNats } from '../support/nats.js';
import { conflict, CONFLICT_MODIFIED, notFound, StatusError } from '../../shared/api/status.js';
import type { ApiObject } from '../../shared/api/types.js';
import { jsonEndpoint, protoEndpoint, startJsonService, type JsonService } from '../../shared/bus/service.js';
import { StorageMessages as M } from '../../shared/bus/storage-messages.js';
import { AuthnMessages, AuthzMessages } from '../../shared/bus/auth-messages.js';
import { uint64 } from '../../shared/bus/codec.js';
import type { StorageRevisionMessage } from '../../shared/bus/messages.js';
import { ServiceName, Subjects } from '../../shared/bus/subjects.js';
import type { AdmissionInterest } from '../../shared/bus/messages.js';
import { AdmissionInterestCache } from '../../shared/bus/service-interest.js';
import { natsStorage } from '../../shared/bus/storage-client.js';
import { natsAdmission, natsAuthn, natsAuthz } from '../../shared/bus/service-clients.js';
import { lookup } from '../../shared/contracts/storage.js';
import type { AdmissionRequest } from '../../shared/contracts/admission.js';
import { silentLogger } from '../../shared/log.js';

const ref = { group: '', resource: 'configmaps', namespace: 'ns', name: 'c' };
const cm: ApiObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } };
const gr = { group: '', resource: 'configmaps' };

async function rejectsWith(p: Promise<unknown>, code: number): Promise<void> {
  await assert.rejects(p, (err: unknown) => err instanceof StatusError && err.code === code);
}

describe('NATS clients of the contracts', () => {
  let nats: TestNats;
  let nc: NatsConnection;
  const stopped: JsonService[] = [];
  /** Every request body a stand-in received, by the subject's last token. */
  const seen: Array<[string, unknown]> = [];
  const record =
    <R>(answer: (body: Record<string, unknown>) => R) =>
    (body: unknown, msg: { subject: string }) => {
      seen.push([msg.subject.slice(msg.subject.lastIndexOf('.') + 1), body]);
      return answer(body as Record<string, unknown>);
    };

  /** A storage request as the stand-in read it: the ref, the object parsed from its bytes, the expected revision when set. */
  const storageBody = (m: { ref: Record<string, unknown>; objectJson?: Uint8Array; expectedRevision?: number | { toNumber(): number } }) => ({
    ref: { group: m.ref.group, resource: m.ref.resource, namespace: m.ref.namespace, name: m.ref.name },
    ...(m.objectJson?.length ? { object: JSON.parse(Buffer.from(m.objectJson).toString()) as ApiObject } : {}),
    ...(uint64(m.expectedRevision) ? { expectedRevision: uint64(m.expectedRevision) } : {}),
  });
  const recordStorage =
    <R>(answer: () => R) =>
    (body: unknown, msg: { subject: string }) =>
      record(answer)(storageBody(body as Parameters<typeof storageBody>[0]), msg);

  before(async () => {
    nats = await startTestNats();
    nc = await nats.connect('clients');
  });
  after(async () => {
    for (const s of stopped) await s.stop();
    await nats?.stop();
  });

  it('storage - each call sends the body the storage service reads; errors come back as their Status', async () => {
    await rejectsWith(natsStorage(nc, 1_000).get(ref), 503);
    stopped.push(
      await startJsonService(nc, {
        name: ServiceName.storage,
        version: '0.0.1',
        description: 'stand-in storage',
        endpoints: [
          protoEndpoint(
            Subjects.storageGet,
            M.getRequest,
            M.getReply,
            recordStorage(() => {
              throw notFound(gr, 'c');
            }),
          ),
          protoEndpoint(
            Subjects.storageCreate,
            M.createRequest,
            M.writeReply,
            recordStorage((): StorageRevisionMessage => ({ revision: 7 })),
          ),
          protoEndpoint(
            Subjects.storageUpdate,
            M.updateRequest,
            M.writeReply,
            recordStorage(() => {
              throw conflict(gr, 'c', CONFLICT_MODIFIED);
            }),
          ),
          protoEndpoint(
            Subjects.storageDelete,
            M.deleteRequest,
            M.deleteReply,
            recordStorage((): StorageRevisionMessage => ({ revision: 9 })),
          ),
        ],
      }),
    );
    const storage = natsStorage(nc, 1_000);
    seen.length = 0;
    assert.equal(await lookup(storage, ref), undefined, 'a 404 is absence');
    await rejectsWith(storage.get(ref), 404);
    const created = await storage.create(ref, cm);
    assert.equal(created.revision, 7);
    // The client sends the object as stored: uid and creationTimestamp set; the reply's object is it at the write's revision.
    const { uid, creationTimestamp } = created.object.metadata;
    assert.ok(uid && creationTimestamp, 'uid and creationTimestamp set');
    assert.equal(created.object.metadata.resourceVersion, '7');
    await rejectsWith(storage.update(ref, cm, 5), 409);
    assert.deepEqual(await storage.delete(ref), { revision: 9 });
    assert.deepEqual(await storage.delete(ref, 6), { revision: 9 });
    assert.deepEqual(seen, [
      ['get', { ref }],
      ['get', { ref }],
      ['create', { ref, object: { ...cm, metadata: { ...cm.metadata, uid, creationTimestamp } } }],
      ['update', { ref, object: cm, expectedRevision: 5 }],
      ['delete', { ref }],
      ['delete', { ref, expectedRevision: 6 }],
    ]);
  });

  it('authn and authz - each method asks its own subject', async () => {
    const user = { username: 'jane', groups: [] };
    stopped.push(
      await startJsonService(nc, {
        name: ServiceName.authn,
        version: '0.0.1',
        description: 'stand-in authn',
        endpoints: [
          protoEndpoint(
            Subjects.authnAuthenticate,
            AuthnMessages.request,
            AuthnMessages.reply,
            record(() => ({ authenticated: true, user })),
          ),
          jsonEndpoint(
            Subjects.authnIssueToken,
            record(() => ({ token: 't', expirationTimestamp: '2030-01-01T00:00:00Z', audiences: [], expirationSeconds: 600 })),
          ),
        ],
      }),
      await startJsonService(nc, {
        name: ServiceName.authz,
        version: '0.0.1',
        description: 'stand-in authz',
        endpoints: [
          protoEndpoint(
            Subjects.authzAuthorize,
            AuthzMessages.attributes,
            AuthzMessages.reply,
            record(() => ({ decision: 'Allow', revision: -1 })),
          ),
          jsonEndpoint(
            Subjects.authzRules,
            record(() => ({ resourceRules: [], nonResourceRules: [], incomplete: false })),
          ),
          jsonEndpoint(
            Subjects.authzEscalation,
            record(() => ({ allowed: false, message: 'no' })),
          ),
        ],
      }),
    );
    const authn = natsAuthn(nc, 1_000);
    const authz = natsAuthz(nc, 1_000);
    seen.length = 0;
    assert.deepEqual(await authn.authenticate({ token: 'x' }), { authenticated: true, user });
    assert.equal((await authn.issueToken({ serviceAccount: { namespace: 'ns', name: 'sa', uid: 'u' }, audiences: [], expirationSeconds: 600 })).token, 't');
    assert.deepEqual(await authz.authorize({ user, verb: 'get', isResourceRequest: false, path: '/' }), { decision: 'Allow', revision: -1 });
    assert.equal((await authz.reviewRules({ user, namespace: 'ns' })).incomplete, false);
    assert.equal((await authz.checkEscalation({ user, object: cm })).allowed, false);
    assert.deepEqual(
      seen.map(([s]) => s),
      ['authenticate', 'issuetoken', 'authorize', 'rules', 'escalation'],
    );
    // authenticate and authorize travel as protobuf: the stand-ins read exactly what was sent.
    assert.deepEqual(seen[0]![1], { token: 'x' });
    assert.deepEqual(seen[2]![1], { user, verb: 'get', isResourceRequest: false, path: '/' });
  });

  it('admission - a phase no plugin wants is not asked; one that is waits only its deadline', async () => {
    const interest: AdmissionInterest = { mutating: [], validating: [{ operations: ['CREATE'] }] };
    stopped.push(
      await startJsonService(nc, {
        name: ServiceName.admission,
        version: '0.0.1',
        description: 'stand-in admission that never answers a DELETE',
        endpoints: [
          jsonEndpoint(Subjects.admissionInterest, () => interest),
          jsonEndpoint(
            Subjects.admissionAdmit,
            record(async (b) => {
              if (b.operation === 'DELETE') await new Promise((r) => setTimeout(r, 2_000));
              return { allowed: true };
            }),
          ),
        ],
      }),
    );
    const cache = new AdmissionInterestCache(nc, silentLogger());
    await cache.start();
    try {
      const admission = natsAdmission(nc, cache, 300);
      const request = (phase: 'mutating' | 'validating', operation: 'CREATE' | 'DELETE'): AdmissionRequest => ({
        uid: 'u',
        phase,
        operation,
        kind: { group: '', version: 'v1', kind: 'ConfigMap' },
        resource: { group: '', version: 'v1', resource: 'configmaps' },
        name: 'c',
        namespace: 'ns',
        userInfo: { username: 'jane', groups: [] },
        object: cm,
        oldObject: null,
        dryRun: false,
      });
      seen.length = 0;
      assert.equal(await admission.admit(request('mutating', 'CREATE')), null, 'no mutating plugin: skipped');
      assert.deepEqual(await admission.admit(request('validating', 'CREATE')), { allowed: true });
      assert.equal(seen.length, 1, 'only the wanted phase was asked');
      interest.validating = [{}];
      await cache.refresh();
      const started = Date.now();
      await rejectsWith(admission.admit(request('validating', 'DELETE')), 504);
      assert.ok(Date.now() - started < 1_500, 'the deadline is the bus timeout when no plugin calls out');
    } finally {
      cache.stop();
    }
  });
});
