// The client library against a real cluster (NATS, every service, the HTTPS gateway): the
// configuration `npm start` writes, typed requests and their errors, an informer following live
// changes, and leader election's compare-and-swap between two candidates.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../../test/support/cluster.js';
import { loadClientConfig } from '../../../shared/client/config.js';
import { ApiClient, ApiError, isAlreadyExists, isNotFound } from '../../../shared/client/rest.js';
import { Informer } from '../../../shared/client/informer.js';
import { tryAcquireOrRenew } from '../leader-election.js';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

describe('client library against a cluster', () => {
  let c: TestCluster;
  let client: ApiClient;
  before(async () => {
    c = await startTestCluster();
    client = new ApiClient(await loadClientConfig({ env: { PLATFORMCONFIG: c.kubeconfigPath } }), { userAgent: 'client-test' });
  });
  after(async () => {
    client?.close();
    await c?.stop();
  });

  const CM = (namespace = 'default', name?: string) => ({ group: '', version: 'v1', resource: 'configmaps', namespace, ...(name ? { name } : {}) });

  it('create, get, update, patch, list and delete; errors carry the Status', async () => {
    const made = await client.create(CM(), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { a: '1' } });
    assert.ok(made.metadata.uid);
    await assert.rejects(client.create(CM(), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' } }), (e) => isAlreadyExists(e));
    const got = await client.get(CM('default', 'c1'));
    const updated = await client.update(CM('default', 'c1'), { ...got, data: { a: '2' } });
    assert.notEqual(updated.metadata.resourceVersion, got.metadata.resourceVersion);
    const patched = await client.patch(CM('default', 'c1'), { data: { b: '3' } }, 'merge');
    assert.deepEqual((patched as { data?: unknown }).data, { a: '2', b: '3' });
    const applied = await client.patch(CM('default', 'c1'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { c: '4' } }, 'apply', { fieldManager: 'client-test', force: true });
    assert.equal((applied as { data?: Record<string, string> }).data?.c, '4');
    const list = await client.list(CM());
    assert.ok(list.items.some((o) => o.metadata.name === 'c1') && list.metadata.resourceVersion);
    await client.delete(CM('default', 'c1'));
    const gone = await client.get(CM('default', 'c1')).catch((e: unknown) => e);
    assert.ok(gone instanceof ApiError && isNotFound(gone) && gone.reason === 'NotFound' && /configmaps "c1" not found/.test(gone.message));
  });

  it('an informer follows creates, updates and deletes as they happen', async () => {
    const inf = new Informer(client, CM('default'));
    const seen: string[] = [];
    inf.addHandlers({ onAdd: (o) => seen.push(`add ${o.metadata.name}`), onUpdate: (_o, n) => seen.push(`update ${n.metadata.name}`), onDelete: (o) => seen.push(`delete ${o.metadata.name}`) });
    await client.create(CM(), { metadata: { name: 'before' } });
    inf.start();
    await inf.synced;
    await client.create(CM(), { metadata: { name: 'during' } });
    await client.patch(CM('default', 'during'), { data: { x: 'y' } }, 'merge');
    await client.delete(CM('default', 'before'));
    for (let i = 0; i < 100 && seen.length < 4; i++) await new Promise((r) => setTimeout(r, 20));
    await inf.stop();
    assert.deepEqual(
      seen.filter((s) => /before|during/.test(s)),
      ['add before', 'add during', 'update during', 'delete before'],
    );
    assert.deepEqual(
      inf
        .list('default')
        .map((o) => o.metadata.name)
        .filter((n) => n === 'during'),
      ['during'],
    );
  });

  it('an exec credential plugin (a small script) authenticates a client-library user; a 401 runs it again', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'exec-live-'));
    try {
      // The first run hands out a token the server refuses, later runs jane's: the client must retry once after the 401.
      const plugin = path.join(dir, 'cred.sh');
      await writeFile(
        plugin,
        `#!/bin/sh\nif [ -f ${dir}/ran ]; then t=${c.userToken}; else t=wrong; touch ${dir}/ran; fi\nprintf '{"apiVersion":"client.authentication.platform.io/v1","kind":"ExecCredential","status":{"token":"%s"}}' "$t"\n`,
      );
      await chmod(plugin, 0o755);
      const file = path.join(dir, 'config');
      await writeFile(
        file,
        [
          'current-context: x',
          `clusters: [{name: c, cluster: {server: "${c.url}", certificate-authority-data: ${Buffer.from(c.caPem).toString('base64')}}}]`,
          'contexts: [{name: x, context: {cluster: c, user: plugin}}]',
          'users: [{name: plugin, user: {exec: {command: ./cred.sh, apiVersion: client.authentication.platform.io/v1, interactiveMode: Never}}}]',
          '',
        ].join('\n'),
      );
      const jane = new ApiClient(await loadClientConfig({ env: { PLATFORMCONFIG: file } }));
      try {
        const review = await jane.create<{ status?: { userInfo?: { username?: string } } }>(
          { group: 'authentication.platform.io', version: 'v1', resource: 'selfsubjectreviews' },
          { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' },
        );
        assert.equal(review.status?.userInfo?.username, 'jane');
      } finally {
        jane.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('leader election: of two candidates only one holds the lease; the other takes it once it expires', async () => {
    const cfg = (identity: string) => ({ namespace: 'default', name: 'elect', identity, leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 200 });
    const [a, b] = await Promise.all([tryAcquireOrRenew(client, cfg('a')), tryAcquireOrRenew(client, cfg('b'))]);
    assert.equal(Number(a) + Number(b), 1, 'exactly one wins the create');
    const [winner, loser] = a ? ['a', 'b'] : ['b', 'a'];
    assert.equal(await tryAcquireOrRenew(client, cfg(winner)), true, 'the holder renews');
    assert.equal(await tryAcquireOrRenew(client, cfg(loser)), false, 'the other waits while the lease is live');
    const lease = (await client.get({ group: 'coordination.platform.io', version: 'v1', resource: 'leases', namespace: 'default', name: 'elect' })) as { spec?: { holderIdentity?: string } };
    assert.equal(lease.spec?.holderIdentity, winner);
    assert.equal(await tryAcquireOrRenew(client, cfg(loser), Date.now() + 3_000), true, 'an expired lease is taken over');
  });
});
