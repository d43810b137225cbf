// The gateway alone against a real NATS, its neighbours (authn, authz, admission, storage)
// replaced by small fakes answering the real subjects. Each fake's behaviour is a mutable
// function reset before every test, so a test states only what it changes.

import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { NatsConnection } from '@nats-io/nats-core';
import type { KV } from '@nats-io/kv';
import { startTestNats, type TestNats } from '../../../test/support/nats.js';
import { silentLogger } from '../../../shared/log.js';
import { createBuiltinRegistry } from '../../../shared/registry/builtin-registry.js';
import { jsonEndpoint, startJsonService, type JsonEndpoint, type JsonService } from '../../../shared/bus/service.js';
import { ServiceName, Subjects } from '../../../shared/bus/subjects.js';
import type {
  AdmissionInterest,
  AdmissionReply,
  AdmissionRequest,
  AuthnReply,
  AuthnRequest,
  AuthzAttributes,
  AuthzReply,
  AuthnInterest,
  EscalationCheckReply,
  EscalationCheckRequest,
  RulesReviewReply,
  RulesReviewRequest,
  TokenIssueReply,
  TokenIssueRequest,
  StorageDeleteReply,
  StorageGetReply,
  StorageWriteReply,
} from '../../../shared/bus/messages.js';
import { protoEndpoint } from '../../../shared/bus/service.js';
import { AuthnMessages, AuthzMessages } from '../../../shared/bus/auth-messages.js';
import { StorageMessages } from '../../../shared/bus/storage-messages.js';
import { uint64 } from '../../../shared/bus/codec.js';
import { encodeStoredValue } from '../../../shared/contracts/stored-value.js';
import { alreadyExists, conflict, CONFLICT_MODIFIED, failure, notFound, requestEntityTooLarge, StatusReason } from '../../../shared/api/status.js';
import type { ApiObject, ObjectRef, UserInfo } from '../../../shared/api/types.js';
import { openObjectBucket } from '../../../shared/store/kv-bucket.js';
import { encodeKey } from '../../../shared/store/key-codec.js';
import { createGatewayService, type GatewayConfig, type GatewayService } from '../service.js';
import { defaultIdentityOptions } from '../identity.js';
import { defaultHandlerOptions } from '../handlers/context.js';
import { csrRequest } from '../../../test/support/csr.js';

// The fake storage's view of the storage requests: the object parsed from the bytes the gateway sent.
interface StorageCreateRequest {
  ref: ObjectRef;
  object: ApiObject;
}
interface StorageUpdateRequest extends StorageCreateRequest {
  expectedRevision: number;
}
interface StorageDeleteRequest {
  ref: ObjectRef;
  expectedRevision?: number;
}
interface StorageGetRequest {
  ref: ObjectRef;
}

/** A ref off the wire as the plain object a caller builds (no namespace for a cluster-scoped object). */
function plainRef(ref: ObjectRef): ObjectRef {
  return { group: ref.group, resource: ref.resource, ...(ref.namespace ? { namespace: ref.namespace } : {}), name: ref.name };
}
const parseObject = (data: Uint8Array) => JSON.parse(Buffer.from(data).toString('utf8')) as ApiObject;

const NS = 'team-a';
const IDENTITY_BUS_TIMEOUT_MS = 400;
const AUTHZ_ALLOW_TTL_MS = 3_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function eventually(check: () => boolean | Promise<boolean>, what: string, ms = 3_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await sleep(20);
  }
  assert.fail(`timed out waiting for ${what}`);
}

/** `tok-<name>` authenticates as <name>; a test may register a richer user for a token. */
function userForToken(token: string): UserInfo {
  const username = token.slice('tok-'.length);
  return { username, uid: `${username}-uid`, groups: ['system:authenticated'] };
}

function configMap(name: string, extra: Partial<ApiObject> = {}): ApiObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' }, ...extra };
}

function cmRef(name: string): ObjectRef {
  return { group: '', resource: 'configmaps', namespace: NS, name };
}

type Handler<Req, Res> = (req: Req) => Res | Promise<Res>;

interface StorageCall {
  op: 'create' | 'update' | 'delete' | 'get';
  ref: ObjectRef;
  expectedRevision?: number;
}

describe('gateway service', () => {
  let nats: TestNats;
  let fakeNc: NatsConnection;
  let kv: KV;
  let gateway: GatewayService;
  let gatewayNc: NatsConnection;
  const pending = new Set<Promise<unknown>>();

  // ---- fake neighbours ------------------------------------------------------------------

  const users = new Map<string, UserInfo>();
  const defaultAuthn: Handler<AuthnRequest, AuthnReply> = (req) => {
    if (!req.token) return { authenticated: true, user: { username: 'system:anonymous', groups: ['system:unauthenticated'] } };
    if (!req.token.startsWith('tok-')) return { authenticated: false, error: 'invalid bearer token' };
    return { authenticated: true, user: users.get(req.token) ?? userForToken(req.token) };
  };
  const allow: Handler<AuthzAttributes, AuthzReply> = () => ({ decision: 'Allow' });
  const admitAll: Handler<AdmissionRequest, AdmissionReply> = () => ({ allowed: true });
  /** No plugin validates anything; every request is mutated. */
  const noValidating: AdmissionInterest = { mutating: [{}], validating: [] };

  const kvCreate: Handler<StorageCreateRequest, StorageWriteReply> = async (req) => {
    const { resourceVersion: _rv, ...metadata } = req.object.metadata;
    let revision: number;
    try {
      revision = await kv.create(encodeKey(req.ref), JSON.stringify({ ...req.object, metadata }));
    } catch {
      throw alreadyExists({ group: req.ref.group, resource: req.ref.resource }, req.ref.name);
    }
    return { object: { ...req.object, metadata: { ...metadata, resourceVersion: String(revision) } }, revision };
  };
  const kvUpdate: Handler<StorageUpdateRequest, StorageWriteReply> = async (req) => {
    const { resourceVersion: _rv, ...metadata } = req.object.metadata;
    let revision: number;
    try {
      revision = await kv.update(encodeKey(req.ref), JSON.stringify({ ...req.object, metadata }), req.expectedRevision);
    } catch {
      throw conflict({ group: req.ref.group, resource: req.ref.resource }, req.ref.name, CONFLICT_MODIFIED);
    }
    return { object: { ...req.object, metadata: { ...metadata, resourceVersion: String(revision) } }, revision };
  };
  const kvDelete: Handler<StorageDeleteRequest, StorageDeleteReply> = async (req) => {
    await kv.delete(encodeKey(req.ref));
    return { revision: (await kv.status()).streamInfo.state.last_seq };
  };
  const kvGet: Handler<StorageGetRequest, StorageGetReply> = async (req) => {
    const e = await kv.get(encodeKey(req.ref));
    if (!e || e.operation !== 'PUT') throw notFound({ group: req.ref.group, resource: req.ref.resource }, req.ref.name);
    const object = e.json<ApiObject>();
    object.metadata.resourceVersion = String(e.revision);
    return { object, revision: e.revision };
  };

  const noProxyHeaders: AuthnInterest = { headers: [], headerPrefixes: [] };
  const allowEscalation: Handler<EscalationCheckRequest, EscalationCheckReply> = () => ({ allowed: true });
  const noRules: Handler<RulesReviewRequest, RulesReviewReply> = () => ({ resourceRules: [], nonResourceRules: [], incomplete: false });
  // Like an authn service started with --service-account-max-token-expiration=24h.
  const issue: Handler<TokenIssueRequest, TokenIssueReply> = (req) => ({
    token: `issued-for-${req.serviceAccount.name}`,
    expirationTimestamp: '2030-01-01T00:00:00Z',
    audiences: req.audiences.length ? req.audiences : ['https://api'],
    expirationSeconds: Math.min(req.expirationSeconds, 86_400),
  });

  /** The fake neighbours' handlers a test starts with; a test may swap any of them in `fake`. */
  const defaultFakes = {
    authn: defaultAuthn,
    authnInterest: noProxyHeaders,
    escalation: allowEscalation,
    rules: noRules,
    issue,
    authz: allow,
    admit: admitAll,
    interest: noValidating,
    create: kvCreate,
    update: kvUpdate,
    delete: kvDelete,
    get: kvGet,
  };
  const fake = { ...defaultFakes };
  const calls = {
    escalation: [] as EscalationCheckRequest[],
    rules: [] as RulesReviewRequest[],
    issue: [] as TokenIssueRequest[],
    authn: [] as AuthnRequest[],
    authz: [] as AuthzAttributes[],
    admit: [] as AdmissionRequest[],
    interest: 0,
    storage: [] as StorageCall[],
  };
  const resetFakes = () => {
    Object.assign(fake, defaultFakes);
    calls.authn.length = 0;
    calls.escalation.length = 0;
    calls.rules.length = 0;
    calls.issue.length = 0;
    calls.authz.length = 0;
    calls.admit.length = 0;
    calls.storage.length = 0;
  };

  /** Keeps handlers still running (e.g. a deliberately slow reply) from outliving the suite. */
  const track = <T>(p: Promise<T>): Promise<T> => {
    pending.add(p);
    void p.then(
      () => pending.delete(p),
      () => pending.delete(p),
    );
    return p;
  };

  const services: Partial<Record<keyof typeof ServiceName, JsonService>> = {};

  async function startFake(which: keyof typeof ServiceName, opts: { withInterest?: boolean } = {}): Promise<void> {
    const endpoints: JsonEndpoint[] = [];
    switch (which) {
      case 'authn':
        endpoints.push(
          protoEndpoint<AuthnRequest, AuthnReply>(Subjects.authnAuthenticate, AuthnMessages.request, AuthnMessages.reply, (req) => {
            calls.authn.push(req);
            return track(Promise.resolve(fake.authn(req)));
          }),
          jsonEndpoint<unknown, AuthnInterest>(Subjects.authnInterest, () => fake.authnInterest),
          jsonEndpoint<TokenIssueRequest, TokenIssueReply>(Subjects.authnIssueToken, (req) => {
            calls.issue.push(req);
            return fake.issue(req);
          }),
        );
        break;
      case 'authz':
        endpoints.push(
          protoEndpoint<AuthzAttributes, AuthzReply>(Subjects.authzAuthorize, AuthzMessages.attributes, AuthzMessages.reply, (req) => {
            calls.authz.push(req);
            return fake.authz(req);
          }),
          jsonEndpoint<RulesReviewRequest, RulesReviewReply>(Subjects.authzRules, (req) => {
            calls.rules.push(req);
            return fake.rules(req);
          }),
          jsonEndpoint<EscalationCheckRequest, EscalationCheckReply>(Subjects.authzEscalation, (req) => {
            calls.escalation.push(req);
            return fake.escalation(req);
          }),
        );
        break;
      case 'admission':
        endpoints.push(
          jsonEndpoint<AdmissionRequest, AdmissionReply>(Subjects.admissionAdmit, (req) => {
            calls.admit.push(req);
            return fake.admit(req);
          }),
        );
        if (opts.withInterest ?? true) {
          endpoints.push(
            jsonEndpoint<Record<string, never>, AdmissionInterest>(Subjects.admissionInterest, () => {
              calls.interest++;
              return fake.interest;
            }),
          );
        }
        break;
      case 'storage':
        endpoints.push(
          protoEndpoint(Subjects.storageCreate, StorageMessages.createRequest, StorageMessages.writeReply, async (req) => {
            const ref = plainRef(req.ref);
            calls.storage.push({ op: 'create', ref });
            return { revision: (await fake.create({ ref, object: parseObject(req.objectJson) })).revision };
          }),
          protoEndpoint(Subjects.storageUpdate, StorageMessages.updateRequest, StorageMessages.writeReply, async (req) => {
            const ref = plainRef(req.ref);
            const expectedRevision = uint64(req.expectedRevision);
            calls.storage.push({ op: 'update', ref, expectedRevision });
            return { revision: (await fake.update({ ref, object: parseObject(req.objectJson), expectedRevision })).revision };
          }),
          protoEndpoint(Subjects.storageDelete, StorageMessages.deleteRequest, StorageMessages.deleteReply, (req) => {
            const ref = plainRef(req.ref);
            const expectedRevision = uint64(req.expectedRevision) || undefined;
            calls.storage.push({ op: 'delete', ref, ...(expectedRevision !== undefined ? { expectedRevision } : {}) });
            return fake.delete({ ref, ...(expectedRevision !== undefined ? { expectedRevision } : {}) });
          }),
          protoEndpoint(Subjects.storageGet, StorageMessages.getRequest, StorageMessages.getReply, async (req) => {
            const ref = plainRef(req.ref);
            calls.storage.push({ op: 'get', ref });
            const reply = await fake.get({ ref });
            return { objectJson: encodeStoredValue(reply.object), revision: reply.revision };
          }),
        );
        break;
    }
    services[which] = await startJsonService(fakeNc, { name: ServiceName[which], version: '0.0.1', description: `fake ${which} for gateway tests`, endpoints });
  }

  async function stopFake(which: keyof typeof ServiceName): Promise<void> {
    await services[which]?.stop();
    delete services[which];
    await fakeNc.flush();
  }

  /** Runs `fn` with a neighbour gone, bringing it back afterwards whatever happens. */
  async function without(which: keyof typeof ServiceName, fn: () => Promise<void>): Promise<void> {
    await stopFake(which);
    try {
      await fn();
    } finally {
      await startFake(which);
    }
  }

  const config: Partial<GatewayConfig> = {
    identity: { ...defaultIdentityOptions, busTimeoutMs: IDENTITY_BUS_TIMEOUT_MS, authzAllowCacheTtlMs: AUTHZ_ALLOW_TTL_MS },
    handlers: { ...defaultHandlerOptions, busTimeoutMs: 2_000 },
  };

  async function startGateway(name: string): Promise<{ gw: GatewayService; nc: NatsConnection }> {
    const nc = await nats.connect(name);
    const gw = await createGatewayService({ nc, registry: createBuiltinRegistry(), log: silentLogger(), config });
    await gw.ready;
    return { gw, nc };
  }

  before(async () => {
    nats = await startTestNats();
    fakeNc = await nats.connect('fake-neighbours');
    kv = await openObjectBucket(fakeNc, { create: true });
    for (const which of ['authn', 'authz', 'admission', 'storage'] as const) await startFake(which);
    ({ gw: gateway, nc: gatewayNc } = await startGateway('gateway'));
    // The gateway asks for admission interest when it starts; the "skip a phase" test needs the
    // answer to have arrived, not merely to have been asked for.
    await eventually(() => calls.interest > 0, 'the gateway to ask for admission interest');
    await sleep(50);
    await fakeNc.flush();
    await gatewayNc.flush();
    await sleep(50);
  });

  after(async () => {
    await gateway?.close();
    await Promise.allSettled([...pending]);
    for (const which of Object.keys(services) as (keyof typeof ServiceName)[]) await stopFake(which);
    await nats?.stop();
  });

  beforeEach(resetFakes);

  // ---- HTTP helpers ---------------------------------------------------------------------

  function call(gw: GatewayService, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, opts: { token?: string | null; body?: unknown; headers?: Record<string, string | string[]> } = {}) {
    const headers: Record<string, string | string[]> = { ...opts.headers };
    const token = opts.token === undefined ? 'tok-admin' : opts.token;
    if (token) headers.authorization = `Bearer ${token}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    return gw.app.inject({ method, url, headers, ...(opts.body !== undefined ? { payload: JSON.stringify(opts.body) } : {}) });
  }
  const request = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, opts: { token?: string | null; body?: unknown; headers?: Record<string, string | string[]> } = {}) =>
    call(gateway, method, url, opts);
  const cmUrl = (name?: string) => `/api/v1/namespaces/${NS}/configmaps${name ? `/${name}` : ''}`;

  async function stored(name: string): Promise<ApiObject | null> {
    const e = await kv.get(encodeKey(cmRef(name)));
    return e && e.operation === 'PUT' ? e.json<ApiObject>() : null;
  }

  // ---- authn ----------------------------------------------------------------------------

  test('gateway - a credential authn rejects gets 401 Unauthorized', async () => {
    fake.authn = () => ({ authenticated: false, error: 'token expired' });
    const res = await request('GET', cmUrl('anything'), { token: 'tok-expired' });
    assert.equal(res.statusCode, 401);
    const status = res.json();
    assert.equal(status.kind, 'Status');
    assert.equal(status.reason, StatusReason.Unauthorized);
    assert.equal(status.code, 401);
    assert.equal(calls.authz.length, 0, 'an unauthenticated request is never authorized');
  });

  test('gateway - no authn service answering is 503 ServiceUnavailable', async () => {
    await without('authn', async () => {
      const res = await request('GET', cmUrl('anything'), { token: 'tok-nobody-home' });
      assert.equal(res.statusCode, 503);
      const status = res.json();
      assert.equal(status.kind, 'Status');
      assert.equal(status.reason, StatusReason.ServiceUnavailable);
    });
  });

  test('gateway - authn answering slower than the bus timeout is 504', async () => {
    fake.authn = async (req) => {
      await sleep(IDENTITY_BUS_TIMEOUT_MS * 3);
      return defaultAuthn(req);
    };
    const started = Date.now();
    const res = await request('GET', cmUrl('anything'), { token: 'tok-sluggish' });
    assert.equal(res.statusCode, 504);
    assert.equal(res.json().reason, StatusReason.Timeout);
    assert.ok(Date.now() - started < IDENTITY_BUS_TIMEOUT_MS * 3, 'the gateway gives up at its bus timeout instead of waiting for the reply');
  });

  // ---- authz ----------------------------------------------------------------------------

  test('gateway - authz Deny is 403 with the upstream message naming user, verb, resource, group and namespace', async () => {
    fake.authz = () => ({ decision: 'Deny', reason: 'policy forbids it' });
    const res = await request('GET', `/apis/apps/v1/namespaces/${NS}/deployments/web`, { token: 'tok-dana' });
    assert.equal(res.statusCode, 403);
    const status = res.json();
    assert.equal(status.reason, StatusReason.Forbidden);
    assert.equal(status.message, `deployments.apps "web" is forbidden: User "dana" cannot get resource "deployments" in API group "apps" in the namespace "${NS}": policy forbids it`);
    assert.deepEqual(status.details, { name: 'web', group: 'apps', kind: 'deployments' });
  });

  test('gateway - authz NoOpinion is 403', async () => {
    fake.authz = () => ({ decision: 'NoOpinion' });
    const res = await request('GET', cmUrl('cm1'), { token: 'tok-nora' });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().message, `configmaps "cm1" is forbidden: User "nora" cannot get resource "configmaps" in API group "" in the namespace "${NS}"`);
    assert.equal(calls.storage.length, 0);
  });

  test('gateway - an authz decision is reused for identical requests within its TTL', async () => {
    const first = await request('GET', cmUrl('cached'), { token: 'tok-carl' });
    const second = await request('GET', cmUrl('cached'), { token: 'tok-carl' });
    assert.equal(first.statusCode, 404);
    assert.equal(second.statusCode, 404);
    assert.equal(calls.authz.filter((a) => a.user.username === 'carl').length, 1);
    // A different request is a different question.
    await request('GET', cmUrl('other'), { token: 'tok-carl' });
    assert.equal(calls.authz.filter((a) => a.user.username === 'carl').length, 2);
  });

  test('gateway - the user authn returns is the user authz and admission see', async () => {
    const erin: UserInfo = { username: 'erin', uid: 'erin-uid-7', groups: ['developers', 'system:authenticated'], extra: { scopes: ['read', 'write'] } };
    users.set('tok-erin', erin);
    const res = await request('POST', cmUrl(), { token: 'tok-erin', body: configMap('from-erin') });
    assert.equal(res.statusCode, 201, res.body);
    const authz = calls.authz.find((a) => a.user.username === 'erin');
    assert.ok(authz, 'authz was asked about erin');
    assert.deepEqual(authz.user, erin);
    assert.equal(authz.verb, 'create');
    assert.equal(authz.resource, 'configmaps');
    assert.equal(authz.namespace, NS);
    assert.ok(calls.admit.length > 0, 'admission was called');
    for (const a of calls.admit) assert.deepEqual(a.userInfo, erin);
  });

  // ---- admission ------------------------------------------------------------------------

  test('gateway - an object changed by mutating admission is what is stored and returned', async () => {
    fake.admit = (req) => {
      if (req.phase !== 'mutating' || !req.object) return { allowed: true };
      const object = structuredClone(req.object);
      object.metadata.labels = { ...(object.metadata.labels ?? {}), 'mutated-by': 'fake-admission' };
      return { allowed: true, object };
    };
    const res = await request('POST', cmUrl(), { body: configMap('mutated') });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().metadata.labels['mutated-by'], 'fake-admission');
    assert.equal((await stored('mutated'))?.metadata.labels?.['mutated-by'], 'fake-admission');
    const got = await request('GET', cmUrl('mutated'));
    assert.equal(got.statusCode, 200);
    assert.equal(got.json().metadata.labels['mutated-by'], 'fake-admission');
  });

  test('gateway - admission rejecting with a Status sends that status to the client and writes nothing', async () => {
    fake.admit = () => ({
      allowed: false,
      status: failure(403, StatusReason.Forbidden, 'configmaps "rejected" is forbidden: the fake policy says no').status,
    });
    const res = await request('POST', cmUrl(), { body: configMap('rejected') });
    assert.equal(res.statusCode, 403);
    const status = res.json();
    assert.equal(status.reason, StatusReason.Forbidden);
    assert.equal(status.message, 'configmaps "rejected" is forbidden: the fake policy says no');
    assert.equal(calls.storage.length, 0, 'storage is never asked');
    assert.equal(await stored('rejected'), null);
  });

  test('gateway - a validating phase no plugin wants is not called', async () => {
    const res = await request('POST', cmUrl(), { body: configMap('no-validators') });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(
      calls.admit.map((a) => a.phase),
      ['mutating'],
    );
  });

  test('gateway - with admission interest unknown every phase is called', async () => {
    // A second gateway that starts while the interest endpoint has no responders.
    await stopFake('admission');
    await startFake('admission', { withInterest: false });
    const { gw } = await startGateway('gateway-no-interest');
    try {
      const res = await call(gw, 'POST', cmUrl(), { body: configMap('every-phase') });
      assert.equal(res.statusCode, 201, res.body);
      assert.deepEqual(
        calls.admit.map((a) => a.phase),
        ['mutating', 'validating'],
      );
    } finally {
      await gw.close();
      await stopFake('admission');
      await startFake('admission');
    }
  });

  // ---- storage --------------------------------------------------------------------------

  test('gateway - an update without resourceVersion that loses a race is retried against fresh state', async () => {
    const created = await request('POST', cmUrl(), { body: configMap('raced') });
    assert.equal(created.statusCode, 201, created.body);
    const firstRevision = Number(created.json().metadata.resourceVersion);
    let concurrentRevision = 0;
    fake.update = async (req) => {
      if (concurrentRevision === 0) {
        // Another writer gets in first; this write loses the compare-and-swap.
        const theirs = (await stored('raced'))!;
        theirs.metadata.labels = { writer: 'other' };
        concurrentRevision = await kv.put(encodeKey(req.ref), JSON.stringify(theirs));
        throw conflict({ group: '', resource: 'configmaps' }, 'raced', CONFLICT_MODIFIED);
      }
      return kvUpdate(req);
    };
    calls.storage.length = 0;
    const res = await request('PUT', cmUrl('raced'), { body: configMap('raced', { data: { k: 'v2' } }) });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().data, { k: 'v2' });
    const updates = calls.storage.filter((c) => c.op === 'update');
    assert.deepEqual(
      updates.map((u) => u.expectedRevision),
      [firstRevision, concurrentRevision],
      'the retry compares against the revision the other writer made',
    );
    assert.deepEqual((await stored('raced'))?.data, { k: 'v2' });
  });

  test('gateway - an update without uid or resourceVersion applies to an object recreated during the write', async () => {
    const created = await request('POST', cmUrl(), { body: configMap('reborn') });
    assert.equal(created.statusCode, 201, created.body);
    let recreated = false;
    fake.update = async (req) => {
      if (!recreated) {
        // Deleted and created again by someone else: same name, new uid.
        recreated = true;
        const again = (await stored('reborn'))!;
        again.metadata.uid = 'uid-of-the-new-object';
        await kv.put(encodeKey(req.ref), JSON.stringify(again));
        throw conflict({ group: '', resource: 'configmaps' }, 'reborn', CONFLICT_MODIFIED);
      }
      return kvUpdate(req);
    };
    // The client set no precondition, so the retry must not invent one from the first attempt.
    const res = await request('PUT', cmUrl('reborn'), { body: configMap('reborn', { data: { k: 'v2' } }) });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().metadata.uid, 'uid-of-the-new-object');
    assert.deepEqual((await stored('reborn'))?.data, { k: 'v2' });
  });

  test('gateway - an update with a resourceVersion that storage answers 409 is a 409 at once', async () => {
    const created = await request('POST', cmUrl(), { body: configMap('pinned') });
    assert.equal(created.statusCode, 201, created.body);
    const rv = created.json().metadata.resourceVersion as string;
    fake.update = () => {
      throw conflict({ group: '', resource: 'configmaps' }, 'pinned', CONFLICT_MODIFIED);
    };
    calls.storage.length = 0;
    const body = configMap('pinned', { data: { k: 'v2' } });
    body.metadata.resourceVersion = rv;
    const res = await request('PUT', cmUrl('pinned'), { body });
    assert.equal(res.statusCode, 409);
    const status = res.json();
    assert.equal(status.reason, StatusReason.Conflict);
    assert.match(status.message, /the object has been modified/);
    assert.equal(calls.storage.filter((c) => c.op === 'update').length, 1, 'no retry when the caller pinned a resourceVersion');
  });

  test('gateway - no storage service answering a write is 503', async () => {
    await without('storage', async () => {
      const res = await request('POST', cmUrl(), { body: configMap('nowhere') });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().reason, StatusReason.ServiceUnavailable);
    });
    assert.equal(await stored('nowhere'), null);
  });

  test('gateway - storage refusing an object as too large is 413 to the client', async () => {
    fake.create = () => {
      throw requestEntityTooLarge('object is larger than 1572864 bytes');
    };
    const res = await request('POST', cmUrl(), { body: configMap('huge') });
    assert.equal(res.statusCode, 413);
    const status = res.json();
    assert.equal(status.reason, StatusReason.RequestEntityTooLarge);
    assert.equal(status.message, 'object is larger than 1572864 bytes');
  });

  test('gateway - a dryRun=All create never reaches storage and returns the object', async () => {
    const res = await request('POST', `${cmUrl()}?dryRun=All`, { body: configMap('dry') });
    assert.equal(res.statusCode, 201, res.body);
    const obj = res.json();
    assert.equal(obj.kind, 'ConfigMap');
    assert.equal(obj.metadata.name, 'dry');
    assert.equal(obj.metadata.namespace, NS);
    assert.deepEqual(obj.data, { k: 'v' });
    assert.ok(obj.metadata.uid, 'the would-be object is prepared like a real one');
    assert.equal(calls.storage.length, 0);
    assert.ok(
      calls.admit.every((a) => a.dryRun),
      'admission is told it is a dry run',
    );
    assert.equal(await stored('dry'), null);
    assert.equal((await request('GET', cmUrl('dry'))).statusCode, 404);
  });

  // ---- subresources -----------------------------------------------------------------------

  const CSR_GROUP = 'certificates.platform.io';
  const csrUrl = (name?: string, sub?: string) => `/apis/${CSR_GROUP}/v1/certificatesigningrequests${name ? `/${name}` : ''}${sub ? `/${sub}` : ''}`;
  const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
  const CERT = Buffer.from('-----BEGIN CERTIFICATE-----\nMAMCAQA=\n-----END CERTIFICATE-----\n').toString('base64');

  async function createCsr(name: string, token = 'tok-admin', spec: Record<string, unknown> = {}): Promise<ApiObject> {
    const body = {
      apiVersion: `${CSR_GROUP}/v1`,
      kind: 'CertificateSigningRequest',
      metadata: { name },
      spec: { request: await csrRequest(`CN=${name}`), signerName: 'example.com/foo', usages: ['client auth'], ...spec },
    };
    const res = await request('POST', csrUrl(), { token, body });
    assert.equal(res.statusCode, 201, res.body);
    return res.json();
  }

  test('gateway - a CSR records the requesting user, whatever the client wrote', async () => {
    users.set('tok-jane', { username: 'jane', uid: 'jane-uid', groups: ['developers', 'system:authenticated'], extra: { scopes: ['csr'] } });
    const csr = await createCsr('gw-requester', 'tok-jane', { username: 'root', uid: 'root-uid', groups: ['system:masters'] });
    const spec = csr.spec as Record<string, unknown>;
    assert.deepEqual([spec.username, spec.uid, spec.groups, spec.extra], ['jane', 'jane-uid', ['developers', 'system:authenticated'], { scopes: ['csr'] }]);
  });

  test('gateway - CSR /approval: GET returns the CSR; PUT changes only the conditions, timestamped, authorized and admitted as the subresource', async () => {
    await createCsr('gw-approve');
    const got = await request('GET', csrUrl('gw-approve', 'approval'));
    assert.equal(got.statusCode, 200, got.body);
    const current = got.json();
    assert.equal(current.kind, 'CertificateSigningRequest');
    assert.equal(current.metadata.name, 'gw-approve');
    calls.authz.length = 0;
    calls.admit.length = 0;
    const sent = {
      ...current,
      metadata: { ...current.metadata, labels: { sneaky: 'yes' } },
      spec: { ...current.spec, signerName: 'example.com/other' },
      status: { conditions: [{ type: 'Approved', status: 'True', reason: 'GatewayTest' }], certificate: CERT },
    };
    const res = await request('PUT', csrUrl('gw-approve', 'approval'), { token: 'tok-approver', body: sent });
    assert.equal(res.statusCode, 200, res.body);
    const approved = res.json();
    assert.equal(approved.spec.signerName, 'example.com/foo', 'the request is fixed');
    assert.equal(approved.metadata.labels, undefined);
    assert.equal(approved.status.certificate, undefined, 'an approver cannot issue');
    assert.equal(approved.status.conditions.length, 1);
    const [cond] = approved.status.conditions;
    assert.equal(cond.type, 'Approved');
    assert.equal(cond.reason, 'GatewayTest');
    assert.match(cond.lastUpdateTime, RFC3339);
    assert.match(cond.lastTransitionTime, RFC3339);
    const stored = (await kv.get(encodeKey({ group: CSR_GROUP, resource: 'certificatesigningrequests', name: 'gw-approve' })))!.json<ApiObject>();
    assert.deepEqual((stored.status as { conditions: unknown[] }).conditions, approved.status.conditions);
    const authz = calls.authz.find((a) => a.user.username === 'approver');
    assert.deepEqual([authz?.verb, authz?.resource, authz?.subresource, authz?.name], ['update', 'certificatesigningrequests', 'approval', 'gw-approve']);
    assert.ok(calls.admit.length > 0, 'admission was called');
    for (const a of calls.admit) assert.deepEqual([a.operation, a.subResource, a.name], ['UPDATE', 'approval', 'gw-approve']);
  });

  test('gateway - CSR /approval takes a merge patch; /status cannot approve; other verbs are 405 and unknown subresources 404', async () => {
    await createCsr('gw-deny');
    const patched = await gateway.app.inject({
      method: 'PATCH',
      url: csrUrl('gw-deny', 'approval'),
      headers: { authorization: 'Bearer tok-admin', 'content-type': 'application/merge-patch+json' },
      payload: JSON.stringify({ status: { conditions: [{ type: 'Denied', status: 'True', reason: 'NotToday' }] } }),
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual(
      patched.json().status.conditions.map((c: { type: string }) => c.type),
      ['Denied'],
    );

    await createCsr('gw-status');
    const current = (await request('GET', csrUrl('gw-status'))).json();
    const viaStatus = await request('PUT', csrUrl('gw-status', 'status'), { body: { ...current, status: { conditions: [{ type: 'Approved', status: 'True' }] } } });
    assert.equal(viaStatus.statusCode, 422, viaStatus.body);
    assert.match(viaStatus.json().message, /updates may not add a condition of type "Approved"/);

    for (const method of ['DELETE', 'POST'] as const) {
      const res = await request(method, csrUrl('gw-status', 'approval'), method === 'POST' ? { body: current } : {});
      assert.equal(res.statusCode, 405, `${method}: ${res.body}`);
    }
    for (const sub of ['bogus', 'constructor', 'finalize']) assert.equal((await request('GET', csrUrl('gw-status', sub))).statusCode, 404, sub);
    // Namespaces keep their update-only /finalize through the same mechanism.
    assert.equal((await request('GET', `/api/v1/namespaces/${NS}/finalize`)).statusCode, 405);
  });

  // ---- impersonation, reviews, TokenRequest, RBAC writes ----------------------------------

  test('gateway - impersonation: every requested attribute is authorized for the caller, then the request runs as the impersonated user', async () => {
    const res = await request('GET', cmUrl('imp'), { token: 'tok-ivan', headers: { 'impersonate-user': 'alice', 'impersonate-group': ['a', 'b'], 'impersonate-extra-acme.com%2Fproject': 'x' } });
    assert.equal(res.statusCode, 404, res.body);
    const checks = calls.authz.filter((a) => a.verb === 'impersonate');
    assert.ok(
      checks.every((c) => c.user.username === 'ivan'),
      'impersonation is checked as the caller',
    );
    assert.deepEqual(
      checks.map((c) => `${c.resource}${c.subresource ? '/' + c.subresource : ''}=${c.name}`),
      ['users=alice', 'groups=a', 'groups=b', 'userextras/acme.com/project=x'],
    );
    const main = calls.authz.find((a) => a.verb === 'get');
    assert.deepEqual(main?.user, { username: 'alice', groups: ['a', 'b', 'system:authenticated'], extra: { 'acme.com/project': ['x'] } });
  });

  test('gateway - impersonation: a denied attribute is 403 and the request never runs', async () => {
    fake.authz = (a) => (a.verb === 'impersonate' && a.resource === 'groups' ? { decision: 'NoOpinion' } : { decision: 'Allow' });
    const res = await request('GET', cmUrl('imp'), { token: 'tok-ivan', headers: { 'impersonate-user': 'alice', 'impersonate-group': 'system:masters' } });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().message, 'groups "system:masters" is forbidden: User "ivan" cannot impersonate resource "groups" in API group "" at the cluster scope');
    assert.equal(calls.authz.filter((a) => a.verb === 'get').length, 0);
  });

  test('gateway - front-proxy headers reach authn only when the authn service asks for them', async () => {
    await request('GET', cmUrl('p'), { token: null, headers: { 'x-remote-user': 'mallory' } });
    assert.equal(calls.authn.at(-1)?.headers, undefined, 'not forwarded while authn wants none');
    fake.authnInterest = { headers: ['x-remote-user'], headerPrefixes: ['x-remote-extra-'] };
    // The gateway re-reads the interest every few seconds; ask it now.
    await (gateway as unknown as { app: unknown }).app;
    await eventually(
      async () => {
        await request('GET', cmUrl('p2'), { token: null, headers: { 'x-remote-user': 'mallory', 'x-remote-extra-scope': 'a', 'x-other': 'z' } });
        return calls.authn.at(-1)?.headers !== undefined;
      },
      'the gateway to forward proxy headers',
      8_000,
    );
    assert.deepEqual(calls.authn.at(-1)?.headers, { 'x-remote-user': ['mallory'], 'x-remote-extra-scope': ['a'] });
  });

  test('gateway - SelfSubjectAccessReview asks authz about the caller and answers with the decision', async () => {
    fake.authz = (a) => (a.resource === 'secrets' ? { decision: 'Deny', decidedBy: 'Webhook', reason: 'no secrets for you' } : { decision: 'Allow' });
    const res = await request('POST', '/apis/authorization.platform.io/v1/selfsubjectaccessreviews', {
      token: 'tok-sam',
      body: { apiVersion: 'authorization.platform.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { namespace: NS, verb: 'get', resource: 'secrets', name: 's' } } },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(res.json().status, { allowed: false, denied: true, reason: 'no secrets for you' });
    const asked = calls.authz.find((a) => a.resource === 'secrets');
    assert.equal(asked?.user.username, 'sam');
    assert.equal(asked?.name, 's');
  });

  test('gateway - SubjectAccessReview asks about the named user; LocalSubjectAccessReview checks its namespace', async () => {
    const res = await request('POST', '/apis/authorization.platform.io/v1/subjectaccessreviews', {
      body: { apiVersion: 'authorization.platform.io/v1', kind: 'SubjectAccessReview', spec: { user: 'jane', groups: ['dev'], nonResourceAttributes: { path: '/healthz', verb: 'get' } } },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().status.allowed, true);
    assert.deepEqual(calls.authz.at(-1), { user: { username: 'jane', groups: ['dev'] }, verb: 'get', isResourceRequest: false, path: '/healthz' });

    const bad = await request('POST', `/apis/authorization.platform.io/v1/namespaces/${NS}/localsubjectaccessreviews`, {
      body: { apiVersion: 'authorization.platform.io/v1', kind: 'LocalSubjectAccessReview', spec: { user: 'jane', resourceAttributes: { namespace: 'elsewhere', verb: 'get', resource: 'pods' } } },
    });
    assert.equal(bad.statusCode, 422);
    const noSubject = await request('POST', '/apis/authorization.platform.io/v1/subjectaccessreviews', {
      body: { apiVersion: 'authorization.platform.io/v1', kind: 'SubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } },
    });
    assert.equal(noSubject.statusCode, 422);
  });

  test('gateway - SelfSubjectRulesReview and SelfSubjectReview answer for the caller', async () => {
    fake.rules = () => ({ resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], nonResourceRules: [], incomplete: true });
    const rules = await request('POST', '/apis/authorization.platform.io/v1/selfsubjectrulesreviews', {
      token: 'tok-rita',
      body: { apiVersion: 'authorization.platform.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: NS } },
    });
    assert.equal(rules.statusCode, 201, rules.body);
    assert.deepEqual(rules.json().status, { resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], nonResourceRules: [], incomplete: true });
    assert.deepEqual(calls.rules.at(-1), { user: userForToken('tok-rita'), namespace: NS });
    const noNs = await request('POST', '/apis/authorization.platform.io/v1/selfsubjectrulesreviews', {
      body: { apiVersion: 'authorization.platform.io/v1', kind: 'SelfSubjectRulesReview', spec: {} },
    });
    assert.equal(noNs.statusCode, 400);

    const whoami = await request('POST', '/apis/authentication.platform.io/v1/selfsubjectreviews', {
      token: 'tok-rita',
      body: { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' },
    });
    assert.equal(whoami.statusCode, 201, whoami.body);
    assert.deepEqual(whoami.json().status.userInfo, userForToken('tok-rita'));
  });

  test('gateway - TokenReview asks authn about the reviewed token, never echoes it, and 400s without one', async () => {
    const ok = await request('POST', '/apis/authentication.platform.io/v1/tokenreviews', {
      body: { apiVersion: 'authentication.platform.io/v1', kind: 'TokenReview', spec: { token: 'tok-tina', audiences: ['vault'] } },
    });
    assert.equal(ok.statusCode, 201, ok.body);
    assert.deepEqual(ok.json().status, { authenticated: true, user: userForToken('tok-tina'), audiences: ['vault'] });
    assert.equal(ok.json().spec.token, '');
    assert.deepEqual(calls.authn.at(-1), { token: 'tok-tina', audiences: ['vault'] });
    const bad = await request('POST', '/apis/authentication.platform.io/v1beta1/tokenreviews', {
      body: { apiVersion: 'authentication.platform.io/v1beta1', kind: 'TokenReview', spec: { token: 'garbage' } },
    });
    assert.equal(bad.statusCode, 201);
    assert.deepEqual(bad.json().status, { authenticated: false, user: {}, error: 'invalid bearer token' });
    const none = await request('POST', '/apis/authentication.platform.io/v1/tokenreviews', { body: { apiVersion: 'authentication.platform.io/v1', kind: 'TokenReview', spec: {} } });
    assert.equal(none.statusCode, 400);
    assert.equal((await request('GET', '/apis/authentication.platform.io/v1/tokenreviews')).statusCode, 405);
  });

  test('gateway - TokenRequest signs through authn for an existing service account, with validation first', async () => {
    await kv.put(
      encodeKey({ group: '', resource: 'serviceaccounts', namespace: NS, name: 'builder' }),
      JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder', namespace: NS, uid: 'sa-uid-1' } }),
    );
    const url = `/api/v1/namespaces/${NS}/serviceaccounts/builder/token`;
    const res = await request('POST', url, { body: { apiVersion: 'authentication.platform.io/v1', kind: 'TokenRequest', spec: { audiences: ['vault'] } } });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().status.token, 'issued-for-builder');
    assert.deepEqual(calls.issue.at(-1), { serviceAccount: { namespace: NS, name: 'builder', uid: 'sa-uid-1' }, audiences: ['vault'], expirationSeconds: 3607 });
    assert.equal((await request('POST', url, { body: { kind: 'TokenRequest', spec: { expirationSeconds: 60 } } })).statusCode, 422);
    assert.equal((await request('POST', url, { body: { kind: 'TokenRequest', spec: { boundObjectRef: { kind: 'Node', name: 'n' } } } })).statusCode, 422);
    assert.equal((await request('POST', url, { body: { kind: 'TokenRequest', spec: { boundObjectRef: { kind: 'Pod', name: 'nope' } } } })).statusCode, 404);
    assert.equal((await request('POST', `/api/v1/namespaces/${NS}/serviceaccounts/ghost/token`, { body: { kind: 'TokenRequest', spec: {} } })).statusCode, 404);
    // The object may name the account and namespace of the URL, and no other.
    for (const metadata of [{ name: 'other' }, { namespace: 'elsewhere' }]) {
      const wrong = await request('POST', url, { body: { kind: 'TokenRequest', metadata, spec: {} } });
      assert.equal(wrong.statusCode, 422, wrong.body);
      assert.match(wrong.json().message, /must match the service account (name|namespace) if specified/);
    }
    assert.equal(calls.issue.length, 1);
    // A token bound to a pod must be for the account the pod runs as.
    for (const [pod, account] of [
      ['runs-as-builder', 'builder'],
      ['runs-as-default', undefined],
      ['runs-as-other', 'other'],
    ] as const) {
      await kv.put(
        encodeKey({ group: '', resource: 'pods', namespace: NS, name: pod }),
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: pod, namespace: NS, uid: `uid-${pod}` },
          spec: { ...(account ? { serviceAccountName: account } : {}), containers: [{ name: 'c', image: 'i' }] },
        }),
      );
    }
    assert.equal((await request('POST', url, { body: { kind: 'TokenRequest', spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'runs-as-builder' } } } })).statusCode, 201);
    for (const pod of ['runs-as-default', 'runs-as-other']) {
      const r = await request('POST', url, { body: { kind: 'TokenRequest', spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: pod } } } });
      assert.equal(r.statusCode, 400, `${pod}: ${r.body}`);
      assert.match(r.json().message, /cannot bind token for serviceaccount "builder" to pod running with different serviceaccount name/);
    }
    // A lifetime over the server's maximum is shortened, and the client is told.
    const long = await request('POST', url, { body: { kind: 'TokenRequest', spec: { expirationSeconds: 172_800 } } });
    assert.equal(long.statusCode, 201, long.body);
    assert.equal(long.json().spec.expirationSeconds, 86_400);
    assert.match(String(long.headers.warning), /requested expiration of 172800 seconds shortened to 86400 seconds/);
  });

  test('gateway - an RBAC write the escalation check refuses is 403 and is not stored', async () => {
    fake.escalation = () => ({ allowed: false, message: 'user "eve" is attempting to grant RBAC permissions not currently held' });
    const role = { apiVersion: 'rbac.authorization.platform.io/v1', kind: 'Role', metadata: { name: 'too-much' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] };
    const res = await request('POST', `/apis/rbac.authorization.platform.io/v1/namespaces/${NS}/roles`, { token: 'tok-eve', body: role });
    assert.equal(res.statusCode, 403, res.body);
    assert.match(res.json().message, /attempting to grant RBAC permissions not currently held/);
    assert.equal(calls.escalation.length, 1);
    assert.equal(calls.escalation[0]!.namespace, NS);
    assert.equal(calls.escalation[0]!.user.username, 'eve');
    assert.equal(calls.storage.filter((c) => c.op === 'create').length, 0);
    // Other kinds never ask.
    await request('POST', cmUrl(), { token: 'tok-eve', body: configMap('plain') });
    assert.equal(calls.escalation.length, 1);
  });

  test('gateway - a cluster-scoped resource under a namespace is 404 without asking authz', async () => {
    const res = await request('GET', `/api/v1/namespaces/${NS}/nodes/n1`, { token: 'tok-nina' });
    assert.equal(res.statusCode, 404);
    assert.equal(calls.authz.filter((a) => a.user.username === 'nina').length, 0);
  });

  // Every path shape x scope, for every type the registry serves in every group and version:
  // either the path names a route, and authorization is asked about exactly what it names, or it
  // names none and is answered 404 (405 for another method on the all-namespaces collection)
  // before authorization is asked anything. Authz denies here, so no row can act either way.
  test('gateway - path shape x scope: a type is served only at the paths of its scope, decided before authorization', async () => {
    type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    type Want = { code: 404 | 405 } | { authz: { verb: string; namespace?: string; name?: string; subresource?: string } };
    interface Row {
      method: Method;
      url: string;
      want: Want;
    }
    const rows: Row[] = [];
    const asks = (verb: string, at: { namespace?: string; name?: string; subresource?: string } = {}): Want => ({ authz: { verb, ...at } });
    const NOT_FOUND: Want = { code: 404 };
    for (const s of createBuiltinRegistry().all()) {
      const base = s.group ? `/apis/${s.group}/${s.version.name}` : `/api/${s.version.name}`;
      const p = s.type.plural;
      const lists = !s.type.virtual && (s.type.verbs ?? ['list']).includes('list');
      if (s.type.scope === 'Cluster') {
        if (p === 'namespaces') continue; // the namespace object's own URLs carry a namespace: rows below
        rows.push(
          { method: 'GET', url: `${base}/${p}`, want: asks('list') },
          { method: 'GET', url: `${base}/${p}?watch=true`, want: asks('watch') },
          { method: 'POST', url: `${base}/${p}`, want: asks('create') },
          { method: 'GET', url: `${base}/${p}/x`, want: asks('get', { name: 'x' }) },
          { method: 'DELETE', url: `${base}/${p}/x`, want: asks('delete', { name: 'x' }) },
          { method: 'PUT', url: `${base}/${p}/x/status`, want: asks('update', { name: 'x', subresource: 'status' }) },
          { method: 'GET', url: `${base}/namespaces/${NS}/${p}`, want: NOT_FOUND },
          { method: 'GET', url: `${base}/namespaces/${NS}/${p}?watch=true`, want: NOT_FOUND },
          { method: 'GET', url: `${base}/watch/namespaces/${NS}/${p}`, want: NOT_FOUND },
          { method: 'POST', url: `${base}/namespaces/${NS}/${p}`, want: NOT_FOUND },
          { method: 'DELETE', url: `${base}/namespaces/${NS}/${p}`, want: NOT_FOUND },
          { method: 'GET', url: `${base}/namespaces/${NS}/${p}/x`, want: NOT_FOUND },
          { method: 'PATCH', url: `${base}/namespaces/${NS}/${p}/x`, want: NOT_FOUND },
          { method: 'DELETE', url: `${base}/namespaces/${NS}/${p}/x`, want: NOT_FOUND },
          { method: 'PUT', url: `${base}/namespaces/${NS}/${p}/x/status`, want: NOT_FOUND },
        );
      } else {
        rows.push(
          { method: 'GET', url: `${base}/namespaces/${NS}/${p}`, want: asks('list', { namespace: NS }) },
          { method: 'POST', url: `${base}/namespaces/${NS}/${p}`, want: asks('create', { namespace: NS }) },
          { method: 'GET', url: `${base}/namespaces/${NS}/${p}/x`, want: asks('get', { namespace: NS, name: 'x' }) },
          { method: 'PUT', url: `${base}/namespaces/${NS}/${p}/x/status`, want: asks('update', { namespace: NS, name: 'x', subresource: 'status' }) },
          { method: 'DELETE', url: `${base}/namespaces/${NS}/${p}/x`, want: asks('delete', { namespace: NS, name: 'x' }) },
          // Across namespaces there is only the collection, and only to list and watch it.
          { method: 'GET', url: `${base}/${p}`, want: lists ? asks('list') : NOT_FOUND },
          { method: 'GET', url: `${base}/${p}?watch=true`, want: lists ? asks('watch') : NOT_FOUND },
          { method: 'GET', url: `${base}/watch/${p}`, want: lists ? asks('watch') : NOT_FOUND },
          { method: 'GET', url: `${base}/${p}?fieldSelector=metadata.name%3Dx`, want: lists ? asks('list', { name: 'x' }) : NOT_FOUND },
          { method: 'POST', url: `${base}/${p}`, want: lists ? { code: 405 } : NOT_FOUND },
          { method: 'DELETE', url: `${base}/${p}`, want: lists ? { code: 405 } : NOT_FOUND },
          { method: 'GET', url: `${base}/${p}/x`, want: NOT_FOUND },
          { method: 'GET', url: `${base}/watch/${p}/x`, want: NOT_FOUND },
          { method: 'PUT', url: `${base}/${p}/x`, want: NOT_FOUND },
          { method: 'DELETE', url: `${base}/${p}/x`, want: NOT_FOUND },
          { method: 'PUT', url: `${base}/${p}/x/status`, want: NOT_FOUND },
        );
      }
    }
    // Namespaces: their own URLs carry their name as the namespace; a namespace URL holds none.
    rows.push(
      { method: 'GET', url: '/api/v1/namespaces', want: asks('list') },
      { method: 'GET', url: '/api/v1/namespaces?watch=true', want: asks('watch') },
      { method: 'POST', url: '/api/v1/namespaces', want: asks('create') },
      { method: 'GET', url: '/api/v1/namespaces/x', want: asks('get', { namespace: 'x', name: 'x' }) },
      { method: 'PATCH', url: '/api/v1/namespaces/x', want: asks('patch', { namespace: 'x', name: 'x' }) },
      { method: 'DELETE', url: '/api/v1/namespaces/x', want: asks('delete', { namespace: 'x', name: 'x' }) },
      { method: 'GET', url: '/api/v1/watch/namespaces/x', want: asks('watch', { namespace: 'x', name: 'x' }) },
      { method: 'PUT', url: '/api/v1/namespaces/x/status', want: asks('update', { namespace: 'x', name: 'x', subresource: 'status' }) },
      { method: 'PUT', url: '/api/v1/namespaces/x/finalize', want: asks('update', { namespace: 'x', name: 'x', subresource: 'finalize' }) },
      { method: 'GET', url: '/api/v1/namespaces/x/namespaces', want: NOT_FOUND },
      { method: 'GET', url: '/api/v1/namespaces/x/namespaces?watch=true', want: NOT_FOUND },
      { method: 'GET', url: '/api/v1/watch/namespaces/x/namespaces', want: NOT_FOUND },
      { method: 'POST', url: '/api/v1/namespaces/x/namespaces', want: NOT_FOUND },
      { method: 'DELETE', url: '/api/v1/namespaces/x/namespaces', want: NOT_FOUND },
      { method: 'GET', url: '/api/v1/namespaces/x/namespaces/y', want: NOT_FOUND },
      { method: 'GET', url: '/api/v1/namespaces/x/namespaces/x', want: NOT_FOUND },
      { method: 'PUT', url: '/api/v1/namespaces/x/namespaces/y', want: NOT_FOUND },
      { method: 'PATCH', url: '/api/v1/namespaces/x/namespaces/y', want: NOT_FOUND },
      { method: 'DELETE', url: '/api/v1/namespaces/x/namespaces/y', want: NOT_FOUND },
      { method: 'GET', url: '/api/v1/watch/namespaces/x/namespaces/y', want: NOT_FOUND },
      { method: 'PUT', url: '/api/v1/namespaces/x/namespaces/y/status', want: NOT_FOUND },
      { method: 'PUT', url: '/api/v1/namespaces/x/namespaces/y/finalize', want: NOT_FOUND },
    );

    fake.authz = () => ({ decision: 'Deny', reason: 'table row' });
    const failures: string[] = [];
    for (const [i, row] of rows.entries()) {
      const before = calls.authz.length;
      const res = await gateway.app.inject({
        method: row.method,
        url: row.url,
        // One user per row: a cached decision for an identical earlier question would hide the ask.
        headers: { authorization: `Bearer tok-scope${i}`, ...(row.method === 'GET' || row.method === 'DELETE' ? {} : { 'content-type': 'application/merge-patch+json' }) },
        ...(row.method === 'GET' || row.method === 'DELETE' ? {} : { payload: '{}' }),
      });
      const asked = calls.authz
        .slice(before)
        .map(({ verb, namespace, name, subresource }) => ({ verb, ...(namespace ? { namespace } : {}), ...(name ? { name } : {}), ...(subresource ? { subresource } : {}) }));
      const got = { code: res.statusCode, asked };
      const want = 'code' in row.want ? { code: row.want.code, asked: [] } : { code: 403, asked: [row.want.authz] };
      try {
        assert.deepEqual(got, want);
      } catch {
        failures.push(`${row.method} ${row.url}: want ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
      }
    }
    assert.equal(calls.storage.length, 0, 'no row reached storage');
    assert.deepEqual(failures, [], `${failures.length} of ${rows.length} rows`);
  });

  test('gateway - a change to any RBAC object drops the cached authorization decisions', async () => {
    await request('GET', cmUrl('rbac-cached'), { token: 'tok-olga' });
    await request('GET', cmUrl('rbac-cached'), { token: 'tok-olga' });
    assert.equal(calls.authz.filter((a) => a.user.username === 'olga').length, 1, 'cached at first');
    await kv.put(
      encodeKey({ group: 'rbac.authorization.platform.io', resource: 'clusterroles', name: 'touched' }),
      JSON.stringify({ apiVersion: 'rbac.authorization.platform.io/v1', kind: 'ClusterRole', metadata: { name: 'touched' }, rules: [] }),
    );
    await eventually(
      async () => {
        await request('GET', cmUrl('rbac-cached'), { token: 'tok-olga' });
        return calls.authz.filter((a) => a.user.username === 'olga').length > 1;
      },
      'the decision to be asked again after the RBAC change',
      1_000,
    );
  });

  // ---- health ---------------------------------------------------------------------------

  test('gateway - /readyz fails and names service-storage while storage is down', async () => {
    await without('storage', async () => {
      const res = await request('GET', '/readyz?verbose');
      assert.equal(res.statusCode, 500);
      assert.match(res.body, /^\[-\]service-storage failed/m);
      assert.match(res.body, /^\[\+\]service-authn ok$/m);
      assert.match(res.body, /readyz check failed\n$/);
    });
  });

  test('gateway - /readyz is 200 with every neighbour up', async () => {
    const res = await request('GET', '/readyz?verbose');
    assert.equal(res.statusCode, 200, res.body);
    for (const check of ['watch-cache', 'service-storage', 'service-authn', 'service-authz', 'service-admission']) {
      assert.match(res.body, new RegExp(`^\\[\\+\\]${check} ok$`, 'm'));
    }
    assert.match(res.body, /readyz check passed\n$/);
  });
});
