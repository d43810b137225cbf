import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { createCA, issueClientCert, issueServingCert, type CertificateAuthority, type PemPair } from '../../local/pki.js';
import { loadWebhookClient, parseWebhookClientConfig, type WebhookClientConfig } from '../client-config.js';
import { sendJson, startHttpsServer, type TestHttpsServer } from './https-server.js';

const SECRET_TOKEN = 'sekret-token-value-0123456789';
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** A kubeconfig document with one cluster, one user and one current context. */
function kubeconfig(cluster: Record<string, unknown>, user?: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return YAML.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'hook', cluster }],
    ...(user ? { users: [{ name: 'api', user }] } : {}),
    contexts: [{ name: 'ctx', context: { cluster: 'hook', ...(user ? { user: 'api' } : {}) } }],
    'current-context': 'ctx',
    ...extra,
  });
}

describe('webhook client configuration', () => {
  let dir: string;
  let ca: CertificateAuthority;
  let otherCA: CertificateAuthority;
  let serving: PemPair;
  let client: PemPair;
  let otherClient: PemPair;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'webhook-client-'));
    [ca, otherCA] = await Promise.all([createCA('webhook-ca'), createCA('other-ca')]);
    [serving, client, otherClient] = await Promise.all([issueServingCert(ca), issueClientCert(ca, { commonName: 'platform-apiserver' }), issueClientCert(otherCA, { commonName: 'x' })]);
    await mkdir(path.join(dir, 'pki'));
    await writeFile(path.join(dir, 'pki', 'ca.crt'), ca.certPem);
    await writeFile(path.join(dir, 'pki', 'client.crt'), client.certPem);
    await writeFile(path.join(dir, 'pki', 'client.key'), client.keyPem);
    await writeFile(path.join(dir, 'token'), `${SECRET_TOKEN}\n`);
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('webhook config - selects the context and resolves files and data', async () => {
    const server = 'https://hook.example:8443/review';
    const cases: Array<[string, string, Partial<WebhookClientConfig>]> = [
      [
        'relative paths resolve against the file directory',
        kubeconfig({ server, 'certificate-authority': 'pki/ca.crt' }, { 'client-certificate': 'pki/client.crt', 'client-key': 'pki/client.key' }),
        { caPem: ca.certPem, clientCertPem: client.certPem, clientKeyPem: client.keyPem },
      ],
      [
        'embedded data',
        kubeconfig({ server, 'certificate-authority-data': b64(ca.certPem) }, { 'client-certificate-data': b64(client.certPem), 'client-key-data': b64(client.keyPem) }),
        { caPem: ca.certPem, clientCertPem: client.certPem, clientKeyPem: client.keyPem },
      ],
      ['token', kubeconfig({ server }, { token: SECRET_TOKEN }), { token: SECRET_TOKEN }],
      ['token file', kubeconfig({ server }, { tokenFile: 'token' }), { tokenFile: path.join(dir, 'token') }],
      ['basic auth', kubeconfig({ server }, { username: 'api', password: 'pw' }), { basicAuth: { username: 'api', password: 'pw' } }],
      ['insecure', kubeconfig({ server, 'insecure-skip-tls-verify': true }), { insecureSkipTLSVerify: true }],
      [
        'current-context picks among several',
        YAML.stringify({
          clusters: [
            { name: 'a', cluster: { server: 'https://a.example' } },
            { name: 'b', cluster: { server } },
          ],
          users: [
            { name: 'ua', user: { token: 'a' } },
            { name: 'ub', user: { token: SECRET_TOKEN } },
          ],
          contexts: [
            { name: 'ca', context: { cluster: 'a', user: 'ua' } },
            { name: 'cb', context: { cluster: 'b', user: 'ub' } },
          ],
          'current-context': 'cb',
        }),
        { token: SECRET_TOKEN },
      ],
      ['a single context without current-context', YAML.stringify({ clusters: [{ name: 'b', cluster: { server } }], contexts: [{ name: 'only', context: { cluster: 'b' } }] }), {}],
      ['no context: the only cluster and user', YAML.stringify({ clusters: [{ name: 'b', cluster: { server } }], users: [{ name: 'u', user: { token: SECRET_TOKEN } }] }), { token: SECRET_TOKEN }],
      ['a token wins over a token file, which is not read', kubeconfig({ server }, { token: SECRET_TOKEN, tokenFile: 'nope' }), { token: SECRET_TOKEN }],
    ];
    for (const [name, text, want] of cases) {
      const cfg = await parseWebhookClientConfig(text, path.join(dir, 'kubeconfig'));
      assert.equal(cfg.server.href, server, name);
      assert.deepEqual({ ...cfg, server: undefined }, { insecureSkipTLSVerify: false, ...want, server: undefined }, name);
    }
  });

  test('webhook config - refuses ambiguous, insecure or malformed files without echoing secrets', async () => {
    const server = 'https://hook.example';
    const cases: Array<[string, string, RegExp]> = [
      ['http server', kubeconfig({ server: 'http://hook.example' }), /must be an https URL/],
      ['user info in the URL', kubeconfig({ server: `https://api:${SECRET_TOKEN}@hook.example` }), /must not carry user info/],
      ['no server', kubeconfig({}), /server is missing/],
      ['CA and insecure', kubeconfig({ server, 'certificate-authority-data': b64(ca.certPem), 'insecure-skip-tls-verify': true }), /contradict/],
      ['CA file and data', kubeconfig({ server, 'certificate-authority': 'pki/ca.crt', 'certificate-authority-data': b64(ca.certPem) }), /not both/],
      ['missing CA file', kubeconfig({ server, 'certificate-authority': 'pki/nope.crt' }), /cannot read .*nope\.crt/],
      ['data that is not PEM', kubeconfig({ server }, { 'client-certificate-data': b64('junk'), 'client-key-data': b64(SECRET_TOKEN) }), /not base64-encoded PEM/],
      ['certificate without key', kubeconfig({ server }, { 'client-certificate': 'pki/client.crt' }), /go together/],
      ['token and basic auth', kubeconfig({ server }, { token: SECRET_TOKEN, username: 'u', password: 'p' }), /not both/],
      ['missing token file', kubeconfig({ server }, { tokenFile: 'nope' }), /tokenFile: cannot read/],
      ['exec credentials', kubeconfig({ server }, { exec: { command: 'x' } }), /exec is not supported/],
      ['impersonation', kubeconfig({ server }, { 'act-as': 'admin' }), /act-as is not supported/],
      [
        'exec credentials of a user the context does not select',
        YAML.stringify({
          clusters: [{ name: 'a', cluster: { server } }],
          users: [
            { name: 'u', user: {} },
            { name: 'plugin', user: { exec: { command: 'x' } } },
          ],
          contexts: [{ name: 'x', context: { cluster: 'a', user: 'u' } }],
          'current-context': 'x',
        }),
        /user "plugin": exec is not supported/,
      ],
      ['password without username', kubeconfig({ server }, { password: SECRET_TOKEN }), /password without username/],
      ['an entry without a name', YAML.stringify({ clusters: [{ cluster: { server } }] }), /clusters\[0\] needs a name/],
      ['an empty file', '', /no cluster is configured/],
      ['unknown current-context', kubeconfig({ server }, undefined, { 'current-context': 'other' }), /no entry named "other"/],
      [
        'two contexts, none current',
        YAML.stringify({
          clusters: [{ name: 'a', cluster: { server } }],
          contexts: [
            { name: 'x', context: { cluster: 'a' } },
            { name: 'y', context: { cluster: 'a' } },
          ],
        }),
        /no current-context and 2 contexts/,
      ],
      ['context names a missing user', YAML.stringify({ clusters: [{ name: 'a', cluster: { server } }], contexts: [{ name: 'x', context: { cluster: 'a', user: 'ghost' } }] }), /users is missing/],
      ['not YAML', `users:\n- name: u\n  user: {token: "${SECRET_TOKEN}\n`, /not valid YAML \(line/],
      ['not a mapping', '- a\n- b\n', /expected a mapping/],
    ];
    for (const [name, text, want] of cases) {
      await assert.rejects(parseWebhookClientConfig(text, path.join(dir, 'kubeconfig')), (err: Error) => {
        assert.match(err.message, want, name);
        assert.ok(!err.message.includes(SECRET_TOKEN), `${name}: the error leaks the secret`);
        return true;
      });
    }
  });

  describe('over HTTPS', () => {
    let hook: TestHttpsServer;
    let reply: (req: { body: string }, res: import('node:http').ServerResponse) => void;

    before(async () => {
      hook = await startHttpsServer(serving, (req, res) => reply(req, res), { clientCAPem: ca.certPem });
    });
    after(async () => {
      await hook.close();
    });

    async function writeConfig(name: string, cluster: Record<string, unknown>, user: Record<string, unknown>): Promise<string> {
      const file = path.join(dir, name);
      await writeFile(file, kubeconfig({ server: `${hook.url}/authenticate?x=1`, ...cluster }, user));
      return file;
    }
    const withCert = { 'client-certificate': 'pki/client.crt', 'client-key': 'pki/client.key' };

    test('webhook client - posts JSON with the token and client certificate, and parses the answer', async () => {
      reply = (req, res) => sendJson(res, 200, { echo: JSON.parse(req.body) });
      const c = await loadWebhookClient(await writeConfig('full.yaml', { 'certificate-authority': 'pki/ca.crt' }, { ...withCert, token: SECRET_TOKEN }));
      try {
        assert.deepEqual(await c.postJson({ kind: 'TokenReview', spec: { n: 1 } }), { status: 200, body: { echo: { kind: 'TokenReview', spec: { n: 1 } } } });
        const got = hook.received.at(-1)!;
        assert.equal(got.method, 'POST');
        assert.equal(got.url, '/authenticate?x=1');
        assert.equal(got.headers['content-type'], 'application/json');
        assert.equal(got.headers.accept, 'application/json');
        assert.equal(got.headers.authorization, `Bearer ${SECRET_TOKEN}`);
        assert.equal(got.clientCN, 'platform-apiserver');
        // Keep-alive: a second call reuses the connection and still works.
        assert.equal((await c.postJson({ n: 2 })).status, 200);
      } finally {
        c.close();
      }
    });

    test('webhook client - token file and basic auth reach the server', async () => {
      reply = (_req, res) => sendJson(res, 200, {});
      const tf = await loadWebhookClient(await writeConfig('tokenfile.yaml', { 'certificate-authority': 'pki/ca.crt' }, { ...withCert, tokenFile: 'token' }));
      await tf.postJson({});
      tf.close();
      assert.equal(hook.received.at(-1)!.headers.authorization, `Bearer ${SECRET_TOKEN}`);
      const basic = await loadWebhookClient(await writeConfig('basic.yaml', { 'certificate-authority': 'pki/ca.crt' }, { ...withCert, username: 'api', password: 'p:w' }));
      await basic.postJson({});
      basic.close();
      assert.equal(hook.received.at(-1)!.headers.authorization, `Basic ${b64('api:p:w')}`);
    });

    test('webhook client - a server certificate from another CA is refused unless verification is off', async () => {
      reply = (_req, res) => sendJson(res, 200, { ok: true });
      await writeFile(path.join(dir, 'pki', 'other.crt'), otherCA.certPem);
      const wrong = await loadWebhookClient(await writeConfig('wrong-ca.yaml', { 'certificate-authority': 'pki/other.crt' }, { ...withCert, token: SECRET_TOKEN }));
      await assert.rejects(wrong.postJson({}), (err: Error) => {
        assert.match(err.message, /^https:\/\/127\.0\.0\.1:\d+\/authenticate: /);
        assert.match(err.message, /certificate/);
        assert.ok(!err.message.includes(SECRET_TOKEN));
        return true;
      });
      wrong.close();
      const insecure = await loadWebhookClient(await writeConfig('insecure.yaml', { 'insecure-skip-tls-verify': true }, withCert));
      assert.deepEqual(await insecure.postJson({}), { status: 200, body: { ok: true } });
      insecure.close();
    });

    test('webhook client - the server refuses a client certificate from another CA', async () => {
      reply = (_req, res) => sendJson(res, 200, {});
      const file = path.join(dir, 'other-client.yaml');
      await writeFile(
        file,
        kubeconfig({ server: hook.url, 'certificate-authority-data': b64(ca.certPem) }, { 'client-certificate-data': b64(otherClient.certPem), 'client-key-data': b64(otherClient.keyPem) }),
      );
      const c = await loadWebhookClient(file);
      await assert.rejects(c.postJson({}));
      c.close();
    });

    test('webhook client - a key that does not match its certificate fails at load', async () => {
      const file = path.join(dir, 'mismatch.yaml');
      await writeFile(file, kubeconfig({ server: hook.url }, { 'client-certificate-data': b64(client.certPem), 'client-key-data': b64(otherClient.keyPem) }));
      await assert.rejects(loadWebhookClient(file), (err: Error) => {
        assert.match(err.message, /mismatch\.yaml: invalid TLS material/);
        assert.ok(!err.message.includes('PRIVATE KEY'));
        return true;
      });
      await assert.rejects(loadWebhookClient(path.join(dir, 'absent.yaml')), /absent\.yaml: cannot read: ENOENT/);
    });

    test('webhook client - a silent server times out, an oversized answer is cut off', async () => {
      const c = await loadWebhookClient(await writeConfig('limits.yaml', { 'certificate-authority': 'pki/ca.crt' }, { ...withCert, token: SECRET_TOKEN }), { timeoutMs: 150 });
      try {
        reply = () => undefined; // never answers
        const started = Date.now();
        await assert.rejects(c.postJson({ spec: { token: SECRET_TOKEN } }), (err: Error) => {
          assert.match(err.message, /no response within 150 ms/);
          assert.ok(!err.message.includes(SECRET_TOKEN));
          return true;
        });
        assert.ok(Date.now() - started < 2_000);

        reply = (_req, res) => {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          const chunk = Buffer.alloc(1024 * 1024, 0x20);
          for (let i = 0; i < 11; i++) res.write(chunk);
          res.end('{}');
        };
        await assert.rejects(c.postJson({}, { timeoutMs: 5_000 }), /response body exceeds the limit/);
      } finally {
        c.close();
      }
    });

    test('webhook client - a non-2xx answer resolves with its status; a 2xx that is not JSON rejects', async () => {
      const c = await loadWebhookClient(await writeConfig('status.yaml', { 'certificate-authority': 'pki/ca.crt' }, withCert));
      try {
        reply = (_req, res) => {
          res.writeHead(500, { 'Content-Type': 'text/plain' });
          res.end('internal error');
        };
        assert.deepEqual(await c.postJson({}), { status: 500, body: undefined });
        reply = (_req, res) => sendJson(res, 403, { reason: 'no' });
        assert.deepEqual(await c.postJson({}), { status: 403, body: { reason: 'no' } });
        reply = (_req, res) => {
          res.writeHead(200, { 'Content-Type': 'text/html' });
          res.end('<html>');
        };
        await assert.rejects(c.postJson({}), /HTTP 200 with a body that is not JSON/);
      } finally {
        c.close();
      }
      await assert.rejects(c.postJson({}), /closed/);
    });
  });
});
