import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import YAML from 'yaml';
import { KubeConfig } from '@kubernetes/client-node';
import { kubeconfigYaml, writeKubeconfig } from '../kubeconfig.js';

const opts = { server: 'https://127.0.0.1:6443', caPem: 'CA-PEM\n', token: 'tok123', clientCertPem: 'CERT\n', clientKeyPem: 'KEY\n' };

test('kubeconfig - parses back with cluster, token user, cert user and current context', () => {
  const cfg = YAML.parse(kubeconfigYaml(opts));
  assert.equal(cfg.apiVersion, 'v1');
  assert.equal(cfg.kind, 'Config');
  assert.equal(cfg['current-context'], 'platform-local');
  assert.deepEqual(cfg.clusters, [{ name: 'platform-local', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': Buffer.from('CA-PEM\n').toString('base64') } }]);
  const users = Object.fromEntries(cfg.users.map((u: { name: string; user: unknown }) => [u.name, u.user]));
  assert.deepEqual(users['platform-admin'], { token: 'tok123' });
  assert.equal(Buffer.from(users['platform-admin-cert']['client-certificate-data'], 'base64').toString(), 'CERT\n');
  assert.equal(Buffer.from(users['platform-admin-cert']['client-key-data'], 'base64').toString(), 'KEY\n');
  assert.deepEqual(cfg.contexts, [{ name: 'platform-local', context: { cluster: 'platform-local', user: 'platform-admin' } }]);
});

test('kubeconfig - a client library loads it', () => {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfigYaml(opts));
  assert.equal(kc.getCurrentCluster()?.server, 'https://127.0.0.1:6443');
  assert.equal(kc.getCurrentUser()?.token, 'tok123');
  assert.equal(kc.getUser('platform-admin-cert')?.certData, Buffer.from('CERT\n').toString('base64'));
});

test('kubeconfig - certificate-only config uses the cert user; half a pair is refused', () => {
  const cfg = YAML.parse(kubeconfigYaml({ server: opts.server, caPem: 'x', clientCertPem: 'c', clientKeyPem: 'k' }));
  assert.equal(cfg.contexts[0].context.user, 'platform-admin-cert');
  assert.throws(() => kubeconfigYaml({ server: opts.server, caPem: 'x', clientCertPem: 'c' }), /go together/);
});

test('kubeconfig - written 0600', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'platform-kc-'));
  try {
    const file = path.join(dir, 'sub', 'kubeconfig');
    await writeKubeconfig(file, opts);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.equal(YAML.parse(await readFile(file, 'utf8'))['current-context'], 'platform-local');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
