// End to end, on one RBAC cluster: EventRateLimit (a namespace bucket of burst 2 refuses the
// third event with 429 and Retry-After) and OwnerReferencesPermissionEnforcement (jane, who may
// create and update config maps but not delete them, cannot give one owners, nor make a
// reference block a Deployment's deletion, until she is granted delete and the Deployment's
// finalizers).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { assertOk, assertStatus, configMap, deployment, eventually, uniq, writeAdmissionConfig } from './helpers.js';

const RBAC = 'rbac.authorization.platform.io';

const event = (namespace: string, name: string) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name, namespace },
  involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace, name: 'web' },
  reason: 'Pulled',
  message: 'pulled the image',
  source: { component: 'agent', host: 'n1' },
  type: 'Normal',
});

describe('EventRateLimit and OwnerReferencesPermissionEnforcement (RBAC)', () => {
  let c: TestCluster;
  let dir: string;
  const asJane = (method: string, p: string, body?: unknown) => c.request(method, p, { token: c.userToken, ...(body !== undefined ? { body } : {}) });
  const create = async (p: string, body: unknown) => assertOk(await c.request('POST', p, { body }), 201);

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'admission-events-owners-'));
    const configFile = await writeAdmissionConfig(dir, [
      {
        name: 'EventRateLimit',
        configuration: { apiVersion: 'eventratelimit.admission.platform.io/v1alpha1', kind: 'Configuration', limits: [{ type: 'Namespace', qps: 1, burst: 2 }] },
      },
    ]);
    c = await startTestCluster({ authorizationModes: ['RBAC'], admission: { enable: ['EventRateLimit', 'OwnerReferencesPermissionEnforcement'], configFile } });
  });

  after(async () => {
    await c?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("events - past the namespace's burst an event is refused with 429 and Retry-After; other namespaces keep their own; dry runs take no token", async () => {
    const ns = uniq('flood');
    const other = uniq('quiet');
    for (const n of [ns, other]) await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: n } });
    const post = (n: string) => c.request('POST', `/api/v1/namespaces/${n}/events`, { body: event(n, uniq('web')) });
    assertOk(await post(ns), 201);
    assertOk(await post(ns), 201);
    const refused = await post(ns);
    const status = assertStatus(refused, 429, 'TooManyRequests');
    assert.equal(status.message, `Too many requests: limit reached on type Namespace for key ${ns}`);
    assert.equal(refused.headers.get('retry-after'), '1');
    // Dry runs are admitted without taking a token: the bucket still holds the second.
    assertOk(await post(other), 201);
    for (let i = 0; i < 2; i++) assertOk(await c.request('POST', `/api/v1/namespaces/${other}/events?dryRun=All`, { body: event(other, uniq('web')) }), 201);
    assertOk(await post(other), 201);
    assertStatus(await post(other), 429, 'TooManyRequests');
  });

  it("ownerReferences - without delete jane may not give an object owners, nor block an owner's deletion without its finalizers", async () => {
    const role = uniq('cm-writer');
    await create(`/apis/${RBAC}/v1/namespaces/default/roles`, {
      apiVersion: `${RBAC}/v1`,
      kind: 'Role',
      metadata: { name: role },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get', 'update', 'patch'] }],
    });
    await create(`/apis/${RBAC}/v1/namespaces/default/rolebindings`, {
      apiVersion: `${RBAC}/v1`,
      kind: 'RoleBinding',
      metadata: { name: role },
      subjects: [{ kind: 'User', apiGroup: RBAC, name: 'jane' }],
      roleRef: { apiGroup: RBAC, kind: 'Role', name: role },
    });
    const owner = await create('/apis/apps/v1/namespaces/default/deployments', deployment(uniq('owner')));
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: owner.metadata.name, uid: owner.metadata.uid };
    const CMS = '/api/v1/namespaces/default/configmaps';

    // Creating with an owner is allowed: she could as well not have created it.
    const name = uniq('owned');
    await eventually('jane may create config maps', async () => assertOk(await asJane('POST', CMS, configMap(name, {}, undefined, { ownerReferences: [ref] })), 201));
    const plain = assertOk(await asJane('POST', CMS, configMap(uniq('plain'))), 201);
    const adopt = { ...plain, metadata: { ...plain.metadata, ownerReferences: [ref] } };
    const refused = assertStatus(await asJane('PUT', `${CMS}/${plain.metadata.name}`, adopt), 403, 'Forbidden');
    assert.match(refused.message, new RegExp(`^configmaps "${plain.metadata.name}" is forbidden: cannot set an ownerRef on a resource you can't delete: `));

    const blocking = configMap(uniq('blocking'), {}, undefined, { ownerReferences: [{ ...ref, blockOwnerDeletion: true }] });
    const blocked = assertStatus(await asJane('POST', CMS, blocking), 403, 'Forbidden');
    assert.match(blocked.message, /cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: /);

    // Granted delete on config maps and the Deployment's finalizers, both go through.
    const more = uniq('owner-rights');
    await create(`/apis/${RBAC}/v1/namespaces/default/roles`, {
      apiVersion: `${RBAC}/v1`,
      kind: 'Role',
      metadata: { name: more },
      rules: [
        { apiGroups: [''], resources: ['configmaps'], verbs: ['delete'] },
        { apiGroups: ['apps'], resources: ['deployments/finalizers'], verbs: ['update'], resourceNames: [owner.metadata.name] },
      ],
    });
    await create(`/apis/${RBAC}/v1/namespaces/default/rolebindings`, {
      apiVersion: `${RBAC}/v1`,
      kind: 'RoleBinding',
      metadata: { name: more },
      subjects: [{ kind: 'User', apiGroup: RBAC, name: 'jane' }],
      roleRef: { apiGroup: RBAC, kind: 'Role', name: more },
    });
    const adopted = await eventually('jane may set owners once she may delete', async () => assertOk(await asJane('PUT', `${CMS}/${plain.metadata.name}`, adopt)));
    assert.deepEqual(adopted.metadata.ownerReferences, [ref]);
    const created = await eventually("jane may block the owner's deletion once she may update its finalizers", async () => assertOk(await asJane('POST', CMS, blocking), 201));
    assert.equal(created.metadata.ownerReferences[0].blockOwnerDeletion, true);
  });
});
