import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { startTestNats, type TestNats } from '../../../test/support/nats.js';
import { StatusError } from '../../../shared/api/status.js';
import type { ApiObject, ObjectRef } from '../../../shared/api/types.js';
import { busRequest } from '../../../shared/bus/client.js';
import { requestAuthentication } from '../../../shared/bus/auth-messages.js';
import type { AuthnReply, AuthnRequest, TokenIssueReply, TokenIssueRequest } from '../../../shared/bus/messages.js';
import { natsStorage } from '../../../shared/bus/storage-client.js';
import { Subjects } from '../../../shared/bus/subjects.js';
import { encodeKey } from '../../../shared/store/key-codec.js';
import { openObjectBucket } from '../../../shared/store/kv-bucket.js';
import { createStorageService } from '../../storage/service.js';
import { createAuthnService, type AuthnConfig } from '../service.js';
import { createTokenIssuer, signLegacyServiceAccountToken } from '../../../shared/serviceaccount/tokens.js';
import { bootstrapSecret, ecKey, pod, rsaKey, serviceAccount, tokenSecret } from './token-fixtures.js';

const ISSUER = 'https://platform.local';
const NS = 'team-a';
const INVALID = { authenticated: false, error: 'invalid bearer token' };
const SA_USER = 'system:serviceaccount:team-a:builder';

const refOf = (resource: string, o: ApiObject): ObjectRef => ({ group: '', resource, namespace: o.metadata.namespace!, name: o.metadata.name! });

async function until<T>(probe: () => Promise<T>, done: (v: T) => boolean, ms = 2_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`condition not reached within ${ms}ms; last value ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('authn service - service-account and bootstrap tokens', () => {
  let nats: TestNats;
  let admin: NatsConnection;
  let kv: KV;
  let dir: string;
  let config: AuthnConfig;
  const signing = rsaKey();
  const extra = ecKey('P-256');
  const sa = serviceAccount(NS, 'builder');
  const web = pod(NS, 'web-0');
  const saRef = { namespace: NS, name: 'builder', uid: sa.metadata.uid! };

  const put = (resource: string, o: ApiObject) => kv.put(encodeKey(refOf(resource, o)), JSON.stringify(o));

  before(async () => {
    nats = await startTestNats();
    admin = await nats.connect('test-admin');
    kv = await openObjectBucket(admin, { bucket: 'objects', create: true });
    dir = await mkdtemp(path.join(os.tmpdir(), 'authn-tokens-'));
    const signingFile = path.join(dir, 'sa-signing.key');
    await writeFile(signingFile, signing.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string);
    const extraFile = path.join(dir, 'sa-extra.pub');
    await writeFile(extraFile, extra.publicKey.export({ type: 'spki', format: 'pem' }) as string);
    config = {
      bucket: 'objects',
      enableBootstrapTokenAuth: true,
      anonymousAuth: true,
      serviceAccount: { keyFiles: [extraFile], signingKeyFile: signingFile, issuers: [ISSUER], lookup: true },
    };
    await put('serviceaccounts', sa);
    await put('pods', web);
    await put('secrets', bootstrapSecret('abc123', '0123456789abcdef', { 'auth-extra-groups': 'system:bootstrappers:workers' }));
  });
  after(async () => {
    await nats.stop();
    await rm(dir, { recursive: true, force: true });
  });

  interface Client {
    ask(req: AuthnRequest): Promise<AuthnReply>;
    issue(req: Partial<TokenIssueRequest>): Promise<TokenIssueReply>;
  }

  async function withService(cfg: AuthnConfig, fn: (c: Client) => Promise<void>) {
    const nc = await nats.connect('authn');
    const client = await nats.connect('gateway');
    const svc = await createAuthnService({ nc, config: cfg });
    try {
      await fn({
        ask: (req) => requestAuthentication(client, req),
        issue: (req) => busRequest<TokenIssueReply>(client, Subjects.authnIssueToken, { serviceAccount: saRef, audiences: [], expirationSeconds: 3600, ...req }),
      });
    } finally {
      await svc.stop();
      await nc.close();
      await client.close();
    }
  }

  test('authn tokens - a TokenRequest token bound to a pod authenticates until the pod is deleted', async () => {
    await withService(config, async ({ ask, issue }) => {
      const issued = await issue({ boundObject: { kind: 'Pod', apiVersion: 'v1', name: 'web-0', uid: web.metadata.uid! } });
      assert.deepEqual(issued.audiences, [ISSUER]);
      assert.match(issued.expirationTimestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      const lifetime = Date.parse(issued.expirationTimestamp) - Date.now();
      assert.ok(lifetime > 3_590_000 && lifetime <= 3_600_000, `expires in an hour (${lifetime}ms)`);

      const reply = await ask({ token: issued.token });
      assert.equal(reply.authenticated, true, JSON.stringify(reply));
      assert.equal(reply.user?.username, SA_USER);
      assert.equal(reply.user?.uid, saRef.uid);
      assert.deepEqual(reply.user?.groups, ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated']);
      assert.deepEqual(reply.user?.extra?.['authentication.platform.io/pod-name'], ['web-0']);
      assert.deepEqual(reply.audiences, [ISSUER]);

      await kv.delete(encodeKey(refOf('pods', web)));
      assert.deepEqual(
        await until(
          () => ask({ token: issued.token }),
          (r) => !r.authenticated,
        ),
        INVALID,
      );
      // A new pod with the same name is another pod: the token stays dead.
      await put('pods', pod(NS, 'web-0'));
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(await ask({ token: issued.token }), INVALID);
    });
  });

  test('authn tokens - audiences: a token for another audience is refused for the API and accepted in a review for it', async () => {
    await withService(config, async ({ ask, issue }) => {
      const { token } = await issue({ audiences: ['vault'] });
      assert.deepEqual(await ask({ token }), INVALID);
      const review = await ask({ token, audiences: ['vault', 'other'] });
      assert.equal(review.authenticated, true);
      assert.deepEqual(review.audiences, ['vault']);
    });
  });

  test('authn tokens - a token signed by an extra --service-account-key-file key is accepted; one by a stranger is 401', async () => {
    await withService(config, async ({ ask }) => {
      const byExtra = await createTokenIssuer({ keyFiles: [], issuers: [ISSUER] }, extra.privateKey).issue({ serviceAccount: saRef, audiences: [], expirationSeconds: 600 });
      assert.equal((await ask({ token: byExtra.token })).user?.username, SA_USER);
      const byStranger = await createTokenIssuer({ keyFiles: [], issuers: [ISSUER] }, ecKey().privateKey).issue({ serviceAccount: saRef, audiences: [], expirationSeconds: 600 });
      assert.deepEqual(await ask({ token: byStranger.token }), INVALID);
    });
  });

  test('authn tokens - a bootstrap token authenticates from its secret; a wrong secret is 401, never anonymous', async () => {
    await withService(config, async ({ ask }) => {
      assert.deepEqual(await ask({ token: 'abc123.0123456789abcdef' }), {
        authenticated: true,
        user: { username: 'system:bootstrap:abc123', groups: ['system:bootstrappers', 'system:bootstrappers:workers', 'system:authenticated'] },
      });
      assert.deepEqual(await ask({ token: 'abc123.0123456789abcdee' }), INVALID);
      assert.deepEqual(await ask({ token: 'zzz999.0123456789abcdef' }), INVALID);
    });
  });

  test('authn tokens - a legacy secret token works while the secret holds it', async () => {
    const token = await signLegacyServiceAccountToken(signing.privateKey, { namespace: NS, serviceAccountName: 'builder', serviceAccountUid: saRef.uid, secretName: 'builder-token' });
    await put('secrets', tokenSecret(NS, 'builder-token', sa, token));
    await withService(config, async ({ ask }) => {
      assert.equal(
        (
          await until(
            () => ask({ token }),
            (r) => r.authenticated,
          )
        ).user?.username,
        SA_USER,
      );
      const rotated = await signLegacyServiceAccountToken(signing.privateKey, { namespace: NS, serviceAccountName: 'builder', serviceAccountUid: saRef.uid, secretName: 'builder-token-2' });
      await put('secrets', tokenSecret(NS, 'builder-token', sa, rotated));
      assert.deepEqual(
        await until(
          () => ask({ token }),
          (r) => !r.authenticated,
        ),
        INVALID,
      );
    });
  });

  test('authn tokens - issuance validates the request: under 10 minutes is 400', async () => {
    await withService(config, async ({ issue }) => {
      await assert.rejects(issue({ expirationSeconds: 599 }), (err: unknown) => err instanceof StatusError && err.code === 400);
    });
  });

  test('authn tokens - an object the feed has not delivered is found by a live read through storage', async () => {
    // authn watches an empty bucket while storage serves another: every lookup misses memory, so
    // only the live read can find the service account, and only it can notice the delete.
    const storageNc = await nats.connect('storage');
    const storage = await createStorageService({ nc: storageNc, bucket: 'live' });
    await openObjectBucket(admin, { bucket: 'lagging', create: true });
    let stopped = false;
    try {
      const fresh = serviceAccount(NS, 'fresh');
      const created = await natsStorage(admin).create(refOf('serviceaccounts', fresh), fresh);
      const ref = { namespace: NS, name: 'fresh', uid: created.object.metadata.uid! };
      await withService({ ...config, bucket: 'lagging' }, async ({ ask, issue }) => {
        const { token } = await issue({ serviceAccount: ref });
        assert.equal((await ask({ token })).user?.username, 'system:serviceaccount:team-a:fresh');
        await natsStorage(admin).delete(refOf('serviceaccounts', fresh));
        assert.deepEqual(await ask({ token }), INVALID);
      });
      await natsStorage(admin).create(refOf('serviceaccounts', fresh), fresh);
      await storage.stop();
      stopped = true;
      // Storage unreachable: the lookup cannot confirm the account, so the token is refused.
      await withService({ ...config, bucket: 'lagging' }, async ({ ask, issue }) => {
        const { token } = await issue({ serviceAccount: ref });
        assert.deepEqual(await ask({ token }), INVALID);
      });
    } finally {
      if (!stopped) await storage.stop();
    }
  });
});
