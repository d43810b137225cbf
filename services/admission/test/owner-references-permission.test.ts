import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serviceUnavailable } from '../../../shared/api/status.js';
import type { ApiObject, OwnerReference } from '../../../shared/api/types.js';
import { silentLogger } from '../../../shared/log.js';
import type { AdmissionReply, AdmissionRequest, AuthzAttributes, AuthzReply } from '../../../shared/bus/messages.js';
import { builtinTypes } from '../../../shared/registry/builtin-types.js';
import { runAdmissionChain } from '../chain.js';
import { createOwnerReferencesPermissionEnforcement, isChangingOwnerReferences, kindResolver, newBlockingOwnerReferences, parseGroupVersion } from '../plugins/ownership/owner-references.js';

const rs = (name: string, uid: string, extra: Partial<OwnerReference> = {}): OwnerReference => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name, uid, ...extra });
const obj = (refs?: OwnerReference[]): ApiObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'team-a', ...(refs ? { ownerReferences: refs } : {}) } });

test('isChangingOwnerReferences - any difference in the list, compared in order', () => {
  const a = rs('a', 'u-a');
  const cases: Array<[string, ApiObject | null, ApiObject | null, boolean]> = [
    ['create without owners', obj(), null, false],
    ['create with owners', obj([a]), null, true],
    ['unchanged', obj([a]), obj([a]), false],
    ['added', obj([a, rs('b', 'u-b')]), obj([a]), true],
    ['removed', obj([]), obj([a]), true],
    ['absent and empty are the same', obj([]), obj(), false],
    ['reordered', obj([rs('b', 'u-b'), a]), obj([a, rs('b', 'u-b')]), true],
    ['controller set', obj([{ ...a, controller: true }]), obj([a]), true],
    ['false is not absent', obj([{ ...a, blockOwnerDeletion: false }]), obj([a]), true],
    ['null is absent', obj([{ ...a, controller: null as never }]), obj([a]), false],
    ['key order is irrelevant', obj([{ uid: 'u-a', name: 'a', kind: 'ReplicaSet', apiVersion: 'apps/v1' }]), obj([a]), false],
    ['no object', null, obj([a]), false],
  ];
  for (const [name, next, old, want] of cases) assert.equal(isChangingOwnerReferences(next, old), want, name);
});

test('newBlockingOwnerReferences - blocking references that are new or newly blocking, matched by uid', () => {
  const blocking = (name: string, uid: string) => rs(name, uid, { blockOwnerDeletion: true });
  const names = (refs: OwnerReference[]) => refs.map((r) => r.name);
  const cases: Array<[string, ApiObject, ApiObject | null, string[]]> = [
    ['create', obj([blocking('a', 'u-a'), rs('b', 'u-b')]), null, ['a']],
    ['already blocking', obj([blocking('a', 'u-a')]), obj([blocking('a', 'u-a')]), []],
    ['false to true', obj([blocking('a', 'u-a')]), obj([rs('a', 'u-a', { blockOwnerDeletion: false })]), ['a']],
    ['unset to true', obj([blocking('a', 'u-a')]), obj([rs('a', 'u-a')]), ['a']],
    ['renamed but same uid', obj([blocking('a2', 'u-a')]), obj([blocking('a', 'u-a')]), []],
    ['new uid', obj([blocking('a', 'u-new')]), obj([blocking('a', 'u-a')]), ['a']],
    ['true to false', obj([rs('a', 'u-a', { blockOwnerDeletion: false })]), obj([blocking('a', 'u-a')]), []],
  ];
  for (const [name, next, old, want] of cases) assert.deepEqual(names(newBlockingOwnerReferences(next, old)), want, name);
});

test("kindResolver - an owner's kind to its resources at that version", () => {
  const resolve = kindResolver(builtinTypes);
  assert.deepEqual(parseGroupVersion('v1'), { group: '', version: 'v1' });
  assert.deepEqual(parseGroupVersion('apps/v1'), { group: 'apps', version: 'v1' });
  assert.throws(() => parseGroupVersion('a/b/c'), /unexpected GroupVersion string: a\/b\/c/);
  const cases: Array<[string, string, unknown]> = [
    ['apps/v1', 'Deployment', [{ group: 'apps', version: 'v1', resource: 'deployments', namespaced: true }]],
    ['v1', 'Node', [{ group: '', version: 'v1', resource: 'nodes', namespaced: false }]],
    ['rbac.authorization.platform.io/v1', 'ClusterRole', [{ group: 'rbac.authorization.platform.io', version: 'v1', resource: 'clusterroles', namespaced: false }]],
    ['rbac.authorization.k8s.io/v1', 'Role', [{ group: 'rbac.authorization.platform.io', version: 'v1', resource: 'roles', namespaced: true }]],
  ];
  for (const [apiVersion, kind, want] of cases) assert.deepEqual(resolve(apiVersion, kind), want, `${apiVersion} ${kind}`);
  assert.throws(() => resolve('apps/v9', 'Deployment'), /^Error: no matches for kind "Deployment" in version "apps\/v9"$/);
  assert.throws(() => resolve('v1', 'Widget'), /no matches for kind "Widget" in version "v1"/);
});

// ---- the plugin -----------------------------------------------------------------------------

/** An authorizer allowing exactly `grants` (`<verb> <group>/<resource>[/<sub>] <namespace>/<name>`, `*` anywhere), recording each question. */
function fakeAuthz(grants: string[], denial: Partial<AuthzReply> = {}) {
  const asked: string[] = [];
  const describe = (a: AuthzAttributes) => `${a.verb} ${a.apiGroup ?? ''}/${a.resource ?? ''}${a.subresource ? `/${a.subresource}` : ''} ${a.namespace ?? ''}/${a.name ?? ''}`;
  const authorize = async (a: AuthzAttributes): Promise<AuthzReply> => {
    const d = describe(a);
    asked.push(d);
    return grants.includes(d) ? { decision: 'Allow' } : { decision: 'NoOpinion', ...denial };
  };
  return { authorize, asked };
}

function cmRequest(operation: 'CREATE' | 'UPDATE', object: ApiObject, oldObject: ApiObject | null, over: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return {
    uid: 'u',
    phase: 'validating',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    name: 'cm',
    namespace: 'team-a',
    operation,
    userInfo: { username: 'jane', groups: ['system:authenticated'] },
    object,
    oldObject,
    dryRun: false,
    ...over,
  };
}

describe('OwnerReferencesPermissionEnforcement plugin', () => {
  const run = async (grants: string[], r: AdmissionRequest, denial: Partial<AuthzReply> = {}): Promise<{ reply: AdmissionReply; asked: string[] }> => {
    const authz = fakeAuthz(grants, denial);
    const plugin = createOwnerReferencesPermissionEnforcement({ authorize: authz.authorize, resolveKind: kindResolver(builtinTypes) });
    return { reply: await runAdmissionChain([plugin], r, silentLogger()), asked: authz.asked };
  };
  const DELETE_CM = 'delete /configmaps team-a/cm';

  test('an update changing owners needs delete on the object', async () => {
    const r = cmRequest('UPDATE', obj([rs('a', 'u-a')]), obj());
    const denied = await run([], r);
    assert.equal(denied.reply.allowed, false);
    assert.equal(denied.reply.status?.code, 403);
    assert.equal(denied.reply.status?.message, 'configmaps "cm" is forbidden: cannot set an ownerRef on a resource you can\'t delete: , <nil>');
    assert.deepEqual(denied.asked, [DELETE_CM]);
    const withReason = await run([], r, { reason: 'RBAC: clusterrole "x" not found', evaluationError: 'boom' });
    assert.match(withReason.reply.status!.message, /can't delete: RBAC: clusterrole "x" not found, boom$/);
    assert.equal((await run([DELETE_CM], r)).reply.allowed, true);
  });

  test('a create with owners needs no delete; unchanged owners need nothing', async () => {
    const created = await run([], cmRequest('CREATE', obj([rs('a', 'u-a')]), null));
    assert.equal(created.reply.allowed, true);
    assert.deepEqual(created.asked, []);
    const same = await run([], cmRequest('UPDATE', obj([rs('a', 'u-a')]), obj([rs('a', 'u-a')])));
    assert.equal(same.reply.allowed, true);
    assert.deepEqual(same.asked, []);
  });

  test("a blocking reference needs update on the owner's finalizers, in the dependent's namespace for namespaced owners", async () => {
    const blocking = rs('a', 'u-a', { blockOwnerDeletion: true });
    const create = cmRequest('CREATE', obj([blocking]), null);
    const denied = await run([], create);
    assert.equal(denied.reply.status?.message, 'configmaps "cm" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can\'t set finalizers on: , <nil>');
    assert.deepEqual(denied.asked, ['update */*/finalizers /*', 'update apps/replicasets/finalizers team-a/a']);
    assert.equal((await run(['update apps/replicasets/finalizers team-a/a'], create)).reply.allowed, true);

    const anything = await run(['update */*/finalizers /*'], create);
    assert.equal(anything.reply.allowed, true, 'one who may update every finalizer is not asked per owner');
    assert.deepEqual(anything.asked, ['update */*/finalizers /*']);

    const node = await run(['update /nodes/finalizers /n1'], cmRequest('CREATE', obj([{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'u-n', blockOwnerDeletion: true }]), null));
    assert.equal(node.reply.allowed, true, 'a cluster-scoped owner is checked without a namespace');

    const turnedOn = await run([DELETE_CM], cmRequest('UPDATE', obj([blocking]), obj([rs('a', 'u-a')])));
    assert.equal(turnedOn.reply.allowed, false, 'turning blocking on is checked like a new reference');
    assert.deepEqual(turnedOn.asked, [DELETE_CM, 'update */*/finalizers /*', 'update apps/replicasets/finalizers team-a/a']);
    const turnedOff = await run([DELETE_CM], cmRequest('UPDATE', obj([rs('a', 'u-a')]), obj([blocking])));
    assert.equal(turnedOff.reply.allowed, true);
  });

  test('an owner of an unknown kind cannot block deletion', async () => {
    const r = cmRequest('CREATE', obj([{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'u-w', blockOwnerDeletion: true }]), null);
    const { reply } = await run([], r);
    assert.equal(
      reply.status?.message,
      'configmaps "cm" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion example.com/v1 Kind Widget: no matches for kind "Widget" in version "example.com/v1"',
    );
  });

  test('pods/status is exempt; the delete check names the subresource of other requests', async () => {
    const podReq = (sub: string) =>
      cmRequest(
        'UPDATE',
        { ...obj([rs('a', 'u-a')]), kind: 'Pod' },
        { ...obj(), kind: 'Pod' },
        { resource: { group: '', version: 'v1', resource: 'pods' }, kind: { group: '', version: 'v1', kind: 'Pod' }, subResource: sub, name: 'cm' },
      );
    const status = await run([], podReq('status'));
    assert.equal(status.reply.allowed, true);
    assert.deepEqual(status.asked, []);
    const eph = await run([], podReq('ephemeralcontainers'));
    assert.equal(eph.reply.allowed, false);
    assert.deepEqual(eph.asked, ['delete /pods/ephemeralcontainers team-a/cm']);
  });

  test("an authz failure is the request's failure", async () => {
    const plugin = createOwnerReferencesPermissionEnforcement({
      authorize: async () => {
        throw serviceUnavailable('authz unavailable');
      },
      resolveKind: kindResolver(builtinTypes),
    });
    const reply = await runAdmissionChain([plugin], cmRequest('UPDATE', obj([rs('a', 'u-a')]), obj()), silentLogger());
    assert.equal(reply.status?.code, 503);
  });
});
