// tokencleaner and bootstrapsigner against a running cluster, driven in-process; the detached
// signatures are checked by an implementation that shares nothing with ours (Python's hmac).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { startTestCluster, type TestCluster } from '../../../test/support/cluster.js';
import { loadClientConfig } from '../../../shared/client/config.js';
import { ApiClient } from '../../../shared/client/rest.js';
import { silentLogger } from '../../../shared/log.js';
import { createControllersService, type ControllersService } from '../service.js';
import { detachedSignature } from '../bootstrap/controllers.js';

/** HMAC-SHA256 over `<header>.<base64url(payload) without padding>`, recomputed by Python. */
function pythonVerifies(detached: string, payload: string, token: string): boolean {
  const script = `
import base64, hashlib, hmac, sys
jws, payload, key = sys.argv[1], sys.argv[2], sys.argv[3]
header, empty, sig = jws.split('.')
assert empty == ''
p = base64.urlsafe_b64encode(payload.encode()).decode().rstrip('=')
mac = hmac.new(key.encode(), (header + '.' + p).encode(), hashlib.sha256).digest()
ok = base64.urlsafe_b64encode(mac).decode().rstrip('=') == sig
print('ok' if ok else 'bad')
`;
  return execFileSync('python3', ['-c', script, detached, payload, token], { encoding: 'utf8' }).trim() === 'ok';
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('bootstrap token controllers', () => {
  let c: TestCluster;
  let client: ApiClient;
  let svc: ControllersService;
  before(async () => {
    c = await startTestCluster();
    client = new ApiClient(await loadClientConfig({ env: { PLATFORMCONFIG: c.kubeconfigPath } }));
    svc = createControllersService({ client: new ApiClient(client.config), log: silentLogger(), config: { controllers: ['tokencleaner', 'bootstrapsigner'] } });
    await svc.leading;
  });
  after(async () => {
    await svc?.stop();
    client?.close();
    await c?.stop();
  });

  const SECRETS = { group: '', version: 'v1', resource: 'secrets', namespace: 'platform-system' };
  const CM = { group: '', version: 'v1', resource: 'configmaps', namespace: 'platform-public' };
  const token = (id: string, secret: string, data: Record<string, string>) =>
    client.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `bootstrap-token-${id}` },
      type: 'bootstrap.platform.io/token',
      data: Object.fromEntries(Object.entries({ 'token-id': id, 'token-secret': secret, ...data }).map(([k, v]) => [k, b64(v)])),
    });
  async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 8_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = await fn();
      if (v !== undefined) return v;
      if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('the detached signature is what an independent HS256 implementation computes', async () => {
    const jws = await detachedSignature('apiVersion: v1\nkind: Config\n', 'abcdef', '0123456789abcdef');
    assert.match(jws, /^[\w-]+\.\.[\w-]+$/);
    assert.deepEqual(JSON.parse(Buffer.from(jws.split('.')[0]!, 'base64url').toString()), { alg: 'HS256', kid: 'abcdef' });
    assert.ok(pythonVerifies(jws, 'apiVersion: v1\nkind: Config\n', 'abcdef.0123456789abcdef'));
    assert.ok(!pythonVerifies(jws, 'apiVersion: v1\nkind: Config\n', 'abcdef.0000000000000000'));
  });

  it('tokencleaner deletes a token once it expires, and leaves the others', async () => {
    await token('aaaaaa', 'aaaaaaaaaaaaaaaa', { expiration: new Date(Date.now() + 1_500).toISOString().replace(/\.\d{3}Z$/, 'Z') });
    await token('bbbbbb', 'bbbbbbbbbbbbbbbb', { expiration: new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z') });
    await token('cccccc', 'cccccccccccccccc', {});
    await until('the expired token to go', async () => ((await client.list(SECRETS)).items.some((s) => s.metadata.name === 'bootstrap-token-aaaaaa') ? undefined : true));
    const left = (await client.list(SECRETS)).items.map((s) => s.metadata.name).filter((n) => n?.startsWith('bootstrap-token-'));
    assert.deepEqual(left.sort(), ['bootstrap-token-bbbbbb', 'bootstrap-token-cccccc']);
  });

  it('bootstrapsigner signs cluster-info with every signing token, re-signs a changed kubeconfig, drops a removed token', async () => {
    await token('sign01', 'ssssssssssssssss', { 'usage-bootstrap-signing': 'true' });
    await token('nosign', 'nnnnnnnnnnnnnnnn', { 'usage-bootstrap-authentication': 'true' });
    const kubeconfig = 'apiVersion: v1\nkind: Config\nclusters: [{name: "", cluster: {server: "https://api:6443"}}]\n';
    await client.create(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info' }, data: { kubeconfig } });
    const data = async () => ((await client.get({ ...CM, name: 'cluster-info' })) as { data?: Record<string, string> }).data ?? {};
    const signed = await until('a signature', async () => (await data())['jws-kubeconfig-sign01']);
    assert.ok(pythonVerifies(signed, kubeconfig, 'sign01.ssssssssssssssss'));
    assert.equal((await data())['jws-kubeconfig-nosign'], undefined, 'a token without usage-bootstrap-signing does not sign');

    const changed = kubeconfig.replace('api:6443', 'api.example:6443');
    await client.patch({ ...CM, name: 'cluster-info' }, { data: { kubeconfig: changed } }, 'merge');
    const resigned = await until('a new signature', async () => {
      const s = (await data())['jws-kubeconfig-sign01'];
      return s && s !== signed ? s : undefined;
    });
    assert.ok(pythonVerifies(resigned, changed, 'sign01.ssssssssssssssss'));

    await client.delete({ ...SECRETS, name: 'bootstrap-token-sign01' });
    await until('the signature to go', async () => ((await data())['jws-kubeconfig-sign01'] === undefined ? true : undefined));
  });
});
