// How a webhook is reached and what the API server presents to it: kubeConfigFile users matched
// by host, host:port, `*.` wildcard and `*`; Service references resolved through the flag or the
// Service's Endpoints; the serving certificate checked for <svc>.<ns>.svc; caBundle trusted.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import type { ApiObject } from '../../../shared/api/types.js';
import { createCA, issueClientCert, issueServingCert, type CertificateAuthority, type PemPair } from '../../../shared/local/pki.js';
import { sendJson, startHttpsServer, type TestHttpsServer } from '../../../shared/webhook/test/https-server.js';
import { AdmissionConfigError } from '../config.js';
import { ObjectCache } from '../object-cache.js';
import { WebhookCaller } from '../plugins/webhooks/client.js';
import { CredentialResolver, loadWebhookCredentials, parseWebhookKubeconfig } from '../plugins/webhooks/credentials.js';
import { parseServiceResolver, ServiceResolver } from '../plugins/webhooks/service-resolver.js';
import { webhooksOf, type Webhook } from '../plugins/webhooks/webhooks.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

test('webhook credentials - users matched by host, host:port, *. wildcards, without :443, then *; never the current context', async () => {
  const users = ['hook.apps.svc', 'hook.apps.svc:8443', '*.apps.svc', '*.svc', 'plain.example.com', '*', 'ctx-user'].map((name) => ({ name, user: { token: `token-for-${name}` } }));
  const resolver = await parseWebhookKubeconfig(YAML.stringify({ users, contexts: [{ name: 'c', context: { user: 'ctx-user' } }], 'current-context': 'c' }), '/kubeconfig');
  const cases: Array<[string, string]> = [
    ['hook.apps.svc', 'hook.apps.svc'],
    ['hook.apps.svc:8443', 'hook.apps.svc:8443'],
    ['other.apps.svc', '*.apps.svc'],
    // A wildcard carries the port too: *.apps.svc covers port 443 only.
    ['other.apps.svc:9443', '*'],
    ['other.apps.svc:443', '*.apps.svc'],
    ['x.other.svc', '*.svc'],
    ['plain.example.com:443', 'plain.example.com'],
    ['plain.example.com:8443', '*'],
    ['10.0.0.1', '*'],
  ];
  for (const [target, want] of cases) assert.equal(resolver.forTarget(target)?.user, want, target);
  assert.equal(await resolver.forTarget('hook.apps.svc')?.authorization(), 'Bearer token-for-hook.apps.svc');
  const noDefault = await parseWebhookKubeconfig(YAML.stringify({ users: [{ name: 'only.example.com', user: { username: 'api', password: 'pw' } }] }), '/kubeconfig');
  assert.equal(noDefault.forTarget('elsewhere.example.com'), undefined, 'anonymous when nothing matches');
  assert.equal(await noDefault.forTarget('only.example.com')?.authorization(), `Basic ${b64('api:pw')}`);
  // The current context's user is no default: only a name or `*` picks a user.
  const withContext = await parseWebhookKubeconfig(
    YAML.stringify({ users: [{ name: 'ctx-user', user: { token: 't' } }], contexts: [{ name: 'c', context: { user: 'ctx-user' } }], 'current-context': 'c' }),
    '/kubeconfig',
  );
  assert.equal(withContext.forTarget('elsewhere.example.com'), undefined, 'anonymous, not the current context user');
  assert.equal(withContext.forTarget('ctx-user')?.user, 'ctx-user', 'a user is still found by its name');
});

test('webhook credentials - the plugin configuration: both apiVersion spellings, v1alpha1 WebhookAdmission, clear errors', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'webhook-creds-'));
  try {
    await writeFile(path.join(dir, 'kubeconfig'), YAML.stringify({ users: [{ name: '*', user: { token: 't' } }] }));
    const entry = (configuration: unknown) => ({ configuration, dir, source: 'admission.yaml (plugins[0])' });
    for (const apiVersion of ['apiserver.config.platform.io/v1', 'apiserver.config.k8s.io/v1']) {
      const r = await loadWebhookCredentials('ValidatingAdmissionWebhook', entry({ apiVersion, kind: 'WebhookAdmissionConfiguration', kubeConfigFile: 'kubeconfig' }));
      assert.equal(await r.forTarget('any')?.authorization(), 'Bearer t', apiVersion);
    }
    const legacy = await loadWebhookCredentials(
      'MutatingAdmissionWebhook',
      entry({ apiVersion: 'apiserver.config.k8s.io/v1alpha1', kind: 'WebhookAdmission', kubeConfigFile: path.join(dir, 'kubeconfig') }),
    );
    assert.equal(legacy.forTarget('any')?.user, '*');
    const bad: Array<[unknown, RegExp]> = [
      [{ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'WebhookAdmissionConfiguration', kubeConfigFile: 'missing' }, /kubeConfigFile: cannot read .*missing: ENOENT/],
      [{ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'WebhookAdmissionConfiguration', kubeconfig: 'x' }, /unknown field "kubeconfig"/],
      [{ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'Other' }, /kind must be WebhookAdmissionConfiguration/],
    ];
    for (const [configuration, message] of bad) {
      await assert.rejects(loadWebhookCredentials('ValidatingAdmissionWebhook', entry(configuration)), (err: Error) => err instanceof AdmissionConfigError && message.test(err.message));
    }
    await writeFile(
      path.join(dir, 'dup'),
      YAML.stringify({
        users: [
          { name: 'a', user: { token: 'secret-token-1' } },
          { name: 'a', user: {} },
        ],
      }),
    );
    await assert.rejects(
      loadWebhookCredentials('ValidatingAdmissionWebhook', entry({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'WebhookAdmissionConfiguration', kubeConfigFile: 'dup' })),
      (err: Error) => /kubeConfigFile .*dup: users: "a" appears twice/.test(err.message) && !err.message.includes('secret-token'),
    );
    // An empty file is an empty configuration, as for the API client: nothing is presented.
    await writeFile(path.join(dir, 'empty'), '');
    const empty = await loadWebhookCredentials('ValidatingAdmissionWebhook', entry({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'WebhookAdmissionConfiguration', kubeConfigFile: 'empty' }));
    assert.equal(empty.forTarget('any'), undefined);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('webhook service resolver - the flag: <svc>.<ns>.svc[:port]=<host>:<port>, mistakes refused', () => {
  const m = parseServiceResolver(['hook.apps.svc:443=127.0.0.1:8443', 'other.apps.svc=[::1]:9443']);
  assert.deepEqual(
    [...m],
    [
      ['hook.apps.svc:443', { host: '127.0.0.1', port: 8443 }],
      ['other.apps.svc', { host: '::1', port: 9443 }],
    ],
  );
  for (const bad of ['hook.apps.svc', 'hook.apps=127.0.0.1:1', 'hook.apps.svc:0=127.0.0.1:1', 'hook.apps.svc=127.0.0.1', 'hook.apps.svc=127.0.0.1:70000', 'Hook.apps.svc=h:1']) {
    assert.throws(() => parseServiceResolver([bad]), AdmissionConfigError, bad);
  }
  assert.throws(() => parseServiceResolver(['a.b.svc=h:1', 'a.b.svc=h:2']), /mapped twice/);
});

function cache(resource: string, objects: ApiObject[]): ObjectCache {
  const c = new ObjectCache('', resource);
  objects.forEach((o, i) => c.apply({ key: String(i), ref: { group: '', resource, namespace: o.metadata.namespace!, name: o.metadata.name! }, revision: i + 1, object: o } as never));
  c.markSynced();
  return c;
}

test("webhook service resolver - a Service's endpoints for the named port; errors say what is missing", async () => {
  const svc = (name: string, spec: Record<string, unknown>): ApiObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'apps' }, spec });
  const services = cache('services', [
    svc('hook', {
      ports: [
        { name: 'https', port: 443, targetPort: 8443 },
        { name: 'metrics', port: 9090 },
      ],
    }),
    svc('external', { type: 'ExternalName', externalName: 'example.com' }),
    svc('empty', { ports: [{ port: 443 }] }),
    svc('loopback', { ports: [{ port: 443 }] }),
  ]);
  const endpoints = cache('endpoints', [
    {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'hook', namespace: 'apps' },
      subsets: [
        {
          addresses: [{ ip: '10.0.0.7' }, { ip: '10.0.0.8' }],
          ports: [
            { name: 'metrics', port: 9090 },
            { name: 'https', port: 8443 },
          ],
        },
      ],
    } as ApiObject,
    { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'empty', namespace: 'apps' }, subsets: [{ notReadyAddresses: [{ ip: '10.0.0.9' }], ports: [{ port: 8443 }] }] } as ApiObject,
    // Stored before Endpoints were validated, or written past validation: never dialled.
    {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'loopback', namespace: 'apps' },
      subsets: [{ addresses: [{ ip: '::ffff:7f00:1' }, { ip: '169.254.169.254' }, { ip: '0.0.0.0' }], ports: [{ port: 8443 }] }],
    } as ApiObject,
  ]);
  const r = new ServiceResolver({ mappings: parseServiceResolver(['mapped.apps.svc=127.0.0.1:1234']), services: () => services, endpoints: () => endpoints, pick: (n) => n - 1 });
  const ref = (name: string, port = 443) => ({ namespace: 'apps', name, path: '/', port });
  assert.deepEqual(await r.resolve(ref('hook')), { host: '10.0.0.8', port: 8443 });
  assert.deepEqual(await r.resolve(ref('mapped', 8443)), { host: '127.0.0.1', port: 1234 });
  const failures: Array<[string, number, string]> = [
    ['missing', 443, 'services "missing" not found'],
    ['external', 443, 'unsupported service type "ExternalName"'],
    ['hook', 8443, 'no service port 8443 found for service "hook"'],
    ['empty', 443, 'no endpoints available for service "empty"'],
    ['loopback', 443, 'no endpoints available for service "loopback"'],
  ];
  for (const [name, port, message] of failures) await assert.rejects(r.resolve(ref(name, port)), (err: Error) => err.message === message, name);
});

describe('webhook client over HTTPS', () => {
  let dir: string;
  let ca: CertificateAuthority;
  let clientCA: CertificateAuthority;
  let server: TestHttpsServer;
  let svcServer: TestHttpsServer;
  let client: PemPair;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'webhook-client-'));
    [ca, clientCA] = await Promise.all([createCA('hook-ca'), createCA('hook-client-ca')]);
    const [ipServing, svcServing] = await Promise.all([
      issueServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] }),
      issueServingCert(ca, { dnsNames: ['guard.hooks.svc'], ipAddresses: [] }),
    ]);
    client = await issueClientCert(clientCA, { commonName: 'platform-apiserver' });
    const answer = (_r: unknown, res: Parameters<Parameters<typeof startHttpsServer>[1]>[1]) => sendJson(res, 200, { ok: true });
    server = await startHttpsServer(ipServing, answer);
    svcServer = await startHttpsServer(svcServing, answer, { clientCAPem: clientCA.certPem });
  });

  after(async () => {
    await server.close();
    await svcServer.close();
    await rm(dir, { recursive: true, force: true });
  });

  const hookWith = (clientConfig: Record<string, unknown>): Webhook =>
    webhooksOf('validating', [
      {
        apiVersion: 'admissionregistration.platform.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'c' },
        webhooks: [{ name: 'h.example.com', clientConfig, timeoutSeconds: 2, admissionReviewVersions: ['v1'] }],
      },
    ])[0]!;

  test("a url webhook: its caBundle trusted, the URL host's user presented; without the CA the call fails", async () => {
    const users = await parseWebhookKubeconfig(YAML.stringify({ users: [{ name: `127.0.0.1:${server.port}`, user: { token: 'url-token' } }] }), path.join(dir, 'kubeconfig'));
    const caller = new WebhookCaller(new ServiceResolver({ mappings: new Map(), services: () => assert.fail(), endpoints: () => assert.fail() }), users);
    try {
      const res = await caller.post(hookWith({ url: `${server.url}/validate`, caBundle: b64(ca.certPem) }), '{"x":1}');
      assert.deepEqual(res, { status: 200, body: { ok: true } });
      const got = server.received.at(-1)!;
      assert.deepEqual([got.method, got.url, got.headers.authorization, got.headers['content-type'], got.body], ['POST', '/validate', 'Bearer url-token', 'application/json', '{"x":1}']);
      await assert.rejects(caller.post(hookWith({ url: `${server.url}/validate` }), '{}'), /self-signed|unable to (get|verify)/);
    } finally {
      caller.close();
    }
  });

  test('a service webhook: dialled at its mapped address, the certificate checked for <svc>.<ns>.svc, the client certificate presented', async () => {
    const keyFile = path.join(dir, 'client.key');
    await writeFile(keyFile, client.keyPem);
    const users = await parseWebhookKubeconfig(
      YAML.stringify({ users: [{ name: '*.hooks.svc', user: { 'client-certificate-data': b64(client.certPem), 'client-key': 'client.key' } }] }),
      path.join(dir, 'kubeconfig'),
    );
    const resolver = new ServiceResolver({
      mappings: parseServiceResolver([`guard.hooks.svc:443=127.0.0.1:${svcServer.port}`, `wrong.hooks.svc=127.0.0.1:${svcServer.port}`]),
      services: () => assert.fail(),
      endpoints: () => assert.fail(),
    });
    const caller = new WebhookCaller(resolver, users);
    try {
      const res = await caller.post(hookWith({ service: { namespace: 'hooks', name: 'guard', path: '/check' }, caBundle: b64(ca.certPem) }), '{}');
      assert.equal(res.status, 200);
      assert.deepEqual([svcServer.received.at(-1)!.url, svcServer.received.at(-1)!.clientCN], ['/check', 'platform-apiserver']);
      // The same server under another service name: its certificate does not name wrong.hooks.svc.
      await assert.rejects(caller.post(hookWith({ service: { namespace: 'hooks', name: 'wrong' }, caBundle: b64(ca.certPem) }), '{}'), /wrong\.hooks\.svc|altnames/i);
      // Without credentials the server refuses the handshake.
      const anonymous = new WebhookCaller(resolver, new CredentialResolver());
      await assert.rejects(anonymous.post(hookWith({ service: { namespace: 'hooks', name: 'guard' }, caBundle: b64(ca.certPem) }), '{}'));
      anonymous.close();
    } finally {
      caller.close();
    }
  });
});
