import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { startTestNats, type TestNats } from '../../../test/support/nats.js';
import { busRequest } from '../../../shared/bus/client.js';
import { requestAuthorization } from '../../../shared/bus/auth-messages.js';
import { Subjects } from '../../../shared/bus/subjects.js';
import type { ApiObject, UserInfo } from '../../../shared/api/types.js';
import type { StatusError } from '../../../shared/api/status.js';
import type { AuthzAttributes, EscalationCheckReply, EscalationCheckRequest, PolicyRule, RulesReviewReply } from '../../../shared/bus/messages.js';
import { encodeKey } from '../../../shared/store/key-codec.js';
import { openObjectBucket } from '../../../shared/store/kv-bucket.js';
import { createStorageService, type StorageService } from '../../storage/service.js';
import { createAuthzService, type AuthzService } from '../service.js';
import { startFakeAdmission, type FakeAdmission } from '../../../test/support/fake-admission.js';
import { AUTOUPDATE_ANNOTATION, BOOTSTRAP_LABEL } from '../rbac/bootstrap-policy.js';
import { RBAC_GROUP } from '../../../shared/api/groups.js';

type Resource = 'roles' | 'clusterroles' | 'rolebindings' | 'clusterrolebindings';

const anonymous: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
const alice: UserInfo = { username: 'alice', groups: ['team-a', 'system:authenticated'] };

const url = (user: UserInfo, path: string, verb = 'get'): AuthzAttributes => ({ user, verb, isResourceRequest: false, path });
const resource = (user: UserInfo, verb: string, res: string, namespace: string | undefined, extra: Partial<AuthzAttributes> = {}): AuthzAttributes => ({
  user,
  verb,
  isResourceRequest: true,
  path: '/x',
  apiGroup: '',
  apiVersion: 'v1',
  resource: res,
  ...(namespace ? { namespace } : {}),
  ...extra,
});

async function until<T>(what: string, f: () => Promise<T | null | undefined | false>, ms = 5_000, everyMs = 10): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

describe('authz service with RBAC', () => {
  let nats: TestNats;
  let storage: StorageService;
  let admission: FakeAdmission;
  let kv: KV;
  let authz: AuthzService;
  let client: NatsConnection;

  const ask = (a: AuthzAttributes) => requestAuthorization(client, a);
  const keyOf = (resource: Resource, name: string, namespace?: string) => encodeKey({ group: RBAC_GROUP, resource, name, ...(namespace ? { namespace } : {}) });
  const put = (resource: Resource, object: ApiObject) => kv.put(keyOf(resource, object.metadata.name!, object.metadata.namespace), JSON.stringify(object));
  const read = async (resource: Resource, name: string, namespace?: string): Promise<ApiObject | null> => {
    const e = await kv.get(keyOf(resource, name, namespace));
    return e?.operation === 'PUT' ? e.json<ApiObject>() : null;
  };

  before(async () => {
    nats = await startTestNats();
    client = await nats.connect('gateway');
    admission = await startFakeAdmission(await nats.connect('admission'));
    // authz first, with the bucket there but no storage service answering yet: the bootstrap
    // policy has to retry until storage comes up.
    await openObjectBucket(client, { bucket: 'objects', create: true });
    // Its start-up would wait up to 10 s for the default policy, which cannot be written before storage answers.
    authz = await createAuthzService({ nc: await nats.connect('authz'), config: { modes: ['RBAC'] }, bootstrapWaitMs: 100 });
    await authz.synced;
    await new Promise((r) => setTimeout(r, 300));
    storage = await createStorageService({ nc: await nats.connect('storage') });
    kv = storage.kv;
    assert.equal(await read('clusterroles', 'cluster-admin'), null, 'nothing could be written before storage answered');
  });
  after(async () => {
    await authz.stop();
    await admission.stop();
    await storage.stop();
    await nats.stop();
  });

  test('rbac service - the default roles and bindings are written at start-up, once storage answers', async () => {
    const admin = await until('cluster-admin ClusterRole', () => read('clusterroles', 'cluster-admin'));
    assert.deepEqual(admin.rules, [
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['*'], nonResourceURLs: ['*'] },
    ]);
    assert.equal(admin.metadata.labels?.[BOOTSTRAP_LABEL], 'rbac-defaults');
    assert.equal(admin.metadata.annotations?.[AUTOUPDATE_ANNOTATION], 'true');
    assert.match(String(admin.metadata.uid), /^[0-9a-f-]{36}$/);
    assert.ok(admin.metadata.creationTimestamp);
    const binding = await until('cluster-admin ClusterRoleBinding', () => read('clusterrolebindings', 'cluster-admin'));
    assert.deepEqual(binding.subjects, [{ kind: 'Group', apiGroup: RBAC_GROUP, name: 'system:masters' }]);
    assert.deepEqual(binding.roleRef, { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'cluster-admin' });
    // One write path: the defaults were written by the generic store (strategy and admission), as
    // the API server's own identity, not straight into storage.
    const created = admission.requests.filter((q) => q.operation === 'CREATE' && q.name === 'cluster-admin');
    assert.deepEqual(created.map((q) => `${q.phase} ${q.resource.resource}`).sort(), [
      'mutating clusterrolebindings',
      'mutating clusterroles',
      'validating clusterrolebindings',
      'validating clusterroles',
    ]);
    assert.ok(created.every((q) => q.userInfo.username === 'system:apiserver' && q.userInfo.groups.includes('system:masters')));
  });

  test('rbac service - anonymous may read /healthz and /version, nothing else', async () => {
    await until('anonymous healthz allowed', async () => (await ask(url(anonymous, '/healthz'))).decision === 'Allow');
    assert.equal((await ask(url(anonymous, '/version'))).decision, 'Allow');
    const post = await ask(url(anonymous, '/healthz', 'post'));
    assert.equal(post.decision, 'Deny');
    assert.equal(post.reason, undefined, 'no rule matched: a plain deny, as upstream');
    assert.equal((await ask(url(anonymous, '/api'))).decision, 'Deny', 'discovery is for authenticated users');
    assert.equal((await ask(url(anonymous, '/metrics'))).decision, 'Deny');
    assert.equal((await ask(resource(anonymous, 'list', 'pods', 'default'))).decision, 'Deny');
    await until('authenticated discovery', async () => (await ask(url(alice, '/apis/apps'))).decision === 'Allow');
  });

  test('rbac service - a user gains and loses a permission within 1 s of the binding being put and deleted', async () => {
    const getCm = resource(alice, 'get', 'configmaps', 'team', { name: 'settings' });
    assert.equal((await ask(getCm)).decision, 'Deny');
    await put('roles', { apiVersion: `${RBAC_GROUP}/v1`, kind: 'Role', metadata: { name: 'cm-reader', namespace: 'team' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }] });
    const t0 = Date.now();
    await put('rolebindings', {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'alice-cm', namespace: 'team' },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: 'cm-reader' },
      subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'alice' }],
    });
    await until('grant', async () => (await ask(getCm)).decision === 'Allow', 1_000);
    assert.ok(Date.now() - t0 < 1_000);
    assert.equal((await ask({ ...getCm, namespace: 'other' })).decision, 'Deny', 'only in the binding’s namespace');
    const t1 = Date.now();
    await kv.delete(keyOf('rolebindings', 'alice-cm', 'team'));
    await until('revocation', async () => (await ask(getCm)).decision === 'Deny', 1_000);
    assert.ok(Date.now() - t1 < 1_000);
  });

  test('rbac service - aggregation fills admin with a new aggregate-to-admin role’s rules', async () => {
    const widgets: PolicyRule = { verbs: ['get', 'update'], apiGroups: ['example.com'], resources: ['widgets'] };
    await put('clusterroles', { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: { name: 'widgets-admin', labels: { [`${RBAC_GROUP}/aggregate-to-admin`]: 'true' } }, rules: [widgets] });
    const admin = await until('admin aggregates widgets', async () => {
      const o = await read('clusterroles', 'admin');
      return o && (o.rules as PolicyRule[]).some((r) => JSON.stringify(r) === JSON.stringify(widgets)) ? o : null;
    });
    const rules = admin.rules as PolicyRule[];
    // admin also carries edit's and view's aggregates (edit is labelled aggregate-to-admin, view aggregate-to-edit).
    assert.ok(
      rules.some((r) => r.resources?.includes('rolebindings')),
      'system:aggregate-to-admin',
    );
    assert.ok(
      rules.some((r) => r.resources?.includes('pods/exec') && r.verbs.includes('create')),
      'system:aggregate-to-edit through edit',
    );
    assert.ok(
      rules.some((r) => r.resources?.includes('pods/log')),
      'system:aggregate-to-view through view',
    );
    // Decisions use the stored aggregate.
    const bob: UserInfo = { username: 'bob', groups: ['system:authenticated'] };
    await put('rolebindings', {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'bob-admin', namespace: 'w' },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'admin' },
      subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'bob' }],
    });
    const updateWidget = resource(bob, 'update', 'widgets', 'w', { apiGroup: 'example.com', name: 'w1' });
    await until('bob may update widgets through admin', async () => (await ask(updateWidget)).decision === 'Allow', 2_000);
    assert.equal((await ask({ ...updateWidget, verb: 'delete' })).decision, 'Deny');
  });

  test('rbac service - authz.rules lists what a user may do in a namespace', async () => {
    await put('clusterroles', {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'ClusterRole',
      metadata: { name: 'lease-user' },
      rules: [{ verbs: ['get', 'update'], apiGroups: ['coordination.platform.io'], resources: ['leases'], resourceNames: ['leader'] }],
    });
    await put('rolebindings', {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'team-leases', namespace: 'rules' },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'lease-user' },
      subjects: [{ kind: 'Group', apiGroup: RBAC_GROUP, name: 'team-a' }],
    });
    const leases = { verbs: ['get', 'update'], apiGroups: ['coordination.platform.io'], resources: ['leases'], resourceNames: ['leader'] };
    const review = await until(
      'rules include the lease rule',
      async () => {
        const r = await busRequest<RulesReviewReply>(client, Subjects.authzRules, { user: alice, namespace: 'rules' });
        return r.resourceRules.some((x) => JSON.stringify(x) === JSON.stringify(leases)) ? r : null;
      },
      2_000,
    );
    assert.equal(review.incomplete, false, 'every configured authorizer can list its rules');
    assert.ok(
      review.resourceRules.some((r) => r.resources?.includes('selfsubjectrulesreviews')),
      'system:basic-user',
    );
    assert.ok(
      review.nonResourceRules.some((r) => r.nonResourceURLs?.includes('/healthz')),
      'system:public-info-viewer',
    );
    const elsewhere = await busRequest<RulesReviewReply>(client, Subjects.authzRules, { user: alice, namespace: 'other' });
    assert.ok(!elsewhere.resourceRules.some((x) => x.resources?.includes('leases')), 'a RoleBinding counts in its namespace only');
    await assert.rejects(busRequest(client, Subjects.authzRules, { user: alice }), (err: StatusError) => err.code === 400);
  });

  test('rbac service - authz.escalation refuses granting what the user does not hold, allows what they do', async () => {
    const escalate = (req: EscalationCheckRequest) => busRequest<EscalationCheckReply>(client, Subjects.authzEscalation, req);
    const carol: UserInfo = { username: 'carol', groups: ['system:authenticated'] };
    await put('roles', { apiVersion: `${RBAC_GROUP}/v1`, kind: 'Role', metadata: { name: 'pods', namespace: 'esc' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }] });
    await put('rolebindings', {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'carol-pods', namespace: 'esc' },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: 'pods' },
      subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'carol' }],
    });
    const role = (rules: PolicyRule[]): ApiObject => ({ apiVersion: `${RBAC_GROUP}/v1`, kind: 'Role', metadata: { name: 'new', namespace: 'esc' }, rules });
    await until('carol holds pods', async () => (await escalate({ user: carol, object: role([{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }]), namespace: 'esc' })).allowed, 2_000);
    assert.deepEqual(await escalate({ user: carol, object: role([{ verbs: ['get', 'watch'], apiGroups: [''], resources: ['pods'] }]), namespace: 'esc' }), {
      allowed: false,
      message: 'user "carol" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["watch"]}',
    });
    const toAdmin: ApiObject = {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name: 'carol-root' },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'carol' }],
    };
    assert.equal((await escalate({ user: carol, object: toAdmin })).allowed, false);
    assert.deepEqual(await escalate({ user: { username: 'root', groups: ['system:masters'] }, object: toAdmin }), { allowed: true });
    await assert.rejects(escalate({ user: carol, object: { kind: 'Pod', metadata: { name: 'p' } } } as EscalationCheckRequest), (err: StatusError) => err.code === 400);
    await assert.rejects(escalate({ object: toAdmin } as EscalationCheckRequest), (err: StatusError) => err.code === 400);
  });

  test('rbac service - another replica starting later restores trimmed defaults, keeps additions, honours autoupdate=false', async () => {
    await until('defaults written', () => read('clusterrolebindings', 'system:public-info-viewer'));
    const discovery = (await read('clusterroles', 'system:discovery'))!;
    const trimmed = {
      ...discovery,
      rules: [
        { verbs: ['get'], nonResourceURLs: ['/api'] },
        { verbs: ['get'], nonResourceURLs: ['/custom'] },
      ],
    };
    await put('clusterroles', trimmed);
    const viewer = (await read('clusterroles', 'system:public-info-viewer'))!;
    await put('clusterroles', { ...viewer, metadata: { ...viewer.metadata, annotations: { [AUTOUPDATE_ANNOTATION]: 'false' } }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] });
    const basic = (await read('clusterrolebindings', 'system:basic-user'))!;
    await put('clusterrolebindings', { ...basic, subjects: [{ kind: 'Group', apiGroup: RBAC_GROUP, name: 'contractors' }] });

    // Two more replicas start at once and race on every object.
    const replicas = await Promise.all([0, 1].map(async (i) => createAuthzService({ nc: await nats.connect(`authz-${i}`), config: { modes: ['RBAC'] } })));
    try {
      const restored = await until('discovery restored', async () => {
        const o = await read('clusterroles', 'system:discovery');
        return o && (o.rules as PolicyRule[]).some((r) => r.nonResourceURLs?.includes('/version')) ? o : null;
      });
      const urls = (restored.rules as PolicyRule[]).flatMap((r) => r.nonResourceURLs ?? []);
      assert.ok(urls.includes('/custom'), 'the administrator’s rule stays');
      assert.equal(urls.filter((u) => u === '/apis/*').length, 1, 'the missing rule is added once, despite the race');
      const binding = await until('basic-user subjects restored', async () => {
        const o = await read('clusterrolebindings', 'system:basic-user');
        return o && (o.subjects as unknown[]).length === 2 ? o : null;
      });
      assert.deepEqual(
        (binding.subjects as Array<{ name: string }>).map((s) => s.name),
        ['contractors', 'system:authenticated'],
      );
      // Let the replicas finish, then check the frozen role was not touched.
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual((await read('clusterroles', 'system:public-info-viewer'))!.rules, [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }]);
    } finally {
      for (const r of replicas) await r.stop();
    }
  });
});
