import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { NatsConnection } from '@nats-io/nats-core';
import type { KV } from '@nats-io/kv';
import { startTestNats, type TestNats } from '../../../test/support/nats.js';
import { busRequest } from '../../../shared/bus/client.js';
import { requestAuthorization } from '../../../shared/bus/auth-messages.js';
import { Subjects } from '../../../shared/bus/subjects.js';
import type { AuthzAttributes, RulesReviewReply } from '../../../shared/bus/messages.js';
import type { ApiObject, ObjectRef } from '../../../shared/api/types.js';
import { openObjectBucket } from '../../../shared/store/kv-bucket.js';
import { encodeKey } from '../../../shared/store/key-codec.js';
import { createAuthzService, type AuthzService } from '../service.js';

const BUCKET = 'node-authz';
const node = (name: string) => ({ username: `system:node:${name}`, groups: ['system:nodes', 'system:authenticated'] });
const getSecret = (nodeName: string, namespace: string, name: string): AuthzAttributes => ({
  user: node(nodeName),
  verb: 'get',
  isResourceRequest: true,
  path: `/api/v1/namespaces/${namespace}/secrets/${name}`,
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'secrets',
  namespace,
  name,
});
const podRef = (namespace: string, name: string): ObjectRef => ({ group: '', resource: 'pods', namespace, name });
const pod = (namespace: string, name: string, nodeName: string, secret: string): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { namespace, name, uid: `${name}-uid` },
  spec: { nodeName, containers: [{ name: 'c', image: 'i' }], volumes: [{ name: 'v', secret: { secretName: secret } }] },
});

describe('authz service with --authorization-mode=Node', () => {
  let nats: TestNats;
  let nc: NatsConnection;
  let client: NatsConnection;
  let kv: KV;
  let svc: AuthzService;

  before(async () => {
    nats = await startTestNats();
    nc = await nats.connect('authz');
    client = await nats.connect('gateway');
    kv = await openObjectBucket(client, { bucket: BUCKET, create: true });
    // A pod that exists before the service starts must be seen in the initial replay.
    await kv.put(encodeKey(podRef('shop', 'early')), JSON.stringify(pod('shop', 'early', 'n1', 'early-secret')));
    // No storage service here: the default RBAC policy is never written, so start-up does not wait the 10 s it would for it.
    svc = await createAuthzService({ nc, config: { modes: ['Node'], bucket: BUCKET }, bootstrapWaitMs: 0 });
  });
  after(async () => {
    await svc?.stop();
    await nats.stop();
  });

  const ask = (a: AuthzAttributes) => requestAuthorization(client, a);

  /** Asks until the decision is `want`; fails if that takes longer than `withinMs`. */
  async function eventually(a: AuthzAttributes, want: string, withinMs = 1_000): Promise<number> {
    const start = Date.now();
    for (;;) {
      const reply = await ask(a);
      if (reply.decision === want) return Date.now() - start;
      if (Date.now() - start > withinMs) assert.fail(`still ${reply.decision} (${reply.reason ?? 'no reason'}) after ${withinMs} ms, wanted ${want}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  test('node service - objects stored before start-up are in the graph', async () => {
    await eventually(getSecret('n1', 'shop', 'early-secret'), 'Allow');
    const other = await ask(getSecret('n2', 'shop', 'early-secret'));
    assert.equal(other.decision, 'Deny');
    assert.match(other.reason ?? '', /no relationship found between node 'n2' and this object/);
  });

  test('node service - access appears when a pod is bound and disappears when it moves or is deleted', async () => {
    const ref = podRef('shop', 'web');
    const a = getSecret('n1', 'shop', 'db-password');
    assert.equal((await ask(a)).decision, 'Deny');

    await kv.put(encodeKey(ref), JSON.stringify(pod('shop', 'web', 'n1', 'db-password')));
    await eventually(a, 'Allow');

    await kv.put(encodeKey(ref), JSON.stringify(pod('shop', 'web', 'n2', 'db-password')));
    await eventually(a, 'Deny');
    await eventually(getSecret('n2', 'shop', 'db-password'), 'Allow');

    await kv.delete(encodeKey(ref));
    await eventually(getSecret('n2', 'shop', 'db-password'), 'Deny');
  });

  test('node service - other users, lists, and unrelated objects are denied', async () => {
    await eventually(getSecret('n1', 'shop', 'early-secret'), 'Allow');
    const jane = await ask({ ...getSecret('n1', 'shop', 'early-secret'), user: { username: 'jane', groups: ['system:authenticated'] } });
    assert.deepEqual(jane, { decision: 'Deny', revision: jane.revision });
    const list = await ask({ ...getSecret('n1', 'shop', 'early-secret'), verb: 'list', name: undefined });
    assert.equal(list.decision, 'Deny');
    assert.equal(list.reason, 'can only get individual resources of this type');
  });

  test("node service - a node's rules review is incomplete (graph grants cannot be listed); anyone else's is not", async () => {
    const reply = await busRequest<RulesReviewReply>(client, Subjects.authzRules, { user: node('n1'), namespace: 'shop' });
    assert.equal(reply.incomplete, true);
    assert.match(reply.evaluationError ?? '', /node authorizer does not support user rule resolution/);
    const jane = await busRequest<RulesReviewReply>(client, Subjects.authzRules, { user: { username: 'jane', groups: ['system:authenticated'] }, namespace: 'shop' });
    assert.equal(jane.incomplete, false);
  });
});
