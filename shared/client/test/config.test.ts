import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  ClientConfigError,
  clientConfigPaths,
  inClusterConfig,
  loadClientConfig,
  loadClientConfigFiles,
  mergeClientConfigs,
  parseClientConfig,
  resolveClientConfig,
  resolveCluster,
  resolveUser,
  type ParseOptions,
} from '../config.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const b64 = (s: string) => Buffer.from(s).toString('base64');

const FILE_A = `
apiVersion: v1
kind: Config
current-context: a
clusters:
- name: one
  cluster: {server: "https://one.example:6443", certificate-authority: pki/ca.crt, proxy-url: "http://proxy:3128", tls-server-name: api.one}
- name: shared
  cluster: {server: "https://from-a:6443", insecure-skip-tls-verify: true}
users:
- name: alice
  user: {token: t-alice}
- name: bob
  user: {client-certificate: certs/bob.crt, client-key-data: ${b64('KEY')}}
- name: plugin
  user:
    exec: {command: ./bin/cred, apiVersion: client.authentication.platform.io/v1, args: [--x], env: [{name: A, value: b}], interactiveMode: Never, installHint: "install cred", provideClusterInfo: true}
- name: oidc
  user:
    auth-provider: {name: oidc, config: {idp-issuer-url: "https://idp", client-id: c, refresh-token: r}}
contexts:
- name: a
  context: {cluster: one, user: alice, namespace: team}
- name: s
  context: {cluster: shared, user: bob}
`;

const FILE_B = `
current-context: b
clusters:
- name: shared
  cluster: {server: "https://from-b:6443"}
- name: two
  cluster: {server: "https://two:6443", certificate-authority-data: ${b64(PEM)}}
users:
- name: alice
  user: {token: t-alice-from-b}
contexts:
- name: b
  context: {cluster: two, user: alice}
`;

test('client config - a file is parsed with every path made absolute against its directory', () => {
  const f = parseClientConfig(FILE_A, '/etc/platform/config');
  assert.equal(f.currentContext, 'a');
  assert.deepEqual(f.clusters.get('one'), { server: 'https://one.example:6443', certificateAuthority: '/etc/platform/pki/ca.crt', proxyUrl: 'http://proxy:3128', tlsServerName: 'api.one' });
  assert.deepEqual(f.users.get('bob'), { clientCertificate: '/etc/platform/certs/bob.crt', clientKeyData: b64('KEY') });
  const exec = f.users.get('plugin')!.exec!;
  assert.deepEqual(exec, {
    command: '/etc/platform/bin/cred',
    args: ['--x'],
    env: [{ name: 'A', value: 'b' }],
    apiVersion: 'client.authentication.platform.io/v1',
    provideClusterInfo: true,
    installHint: 'install cred',
    interactiveMode: 'Never',
  });
  assert.deepEqual(f.users.get('oidc')!.authProvider, { name: 'oidc', config: { 'idp-issuer-url': 'https://idp', 'client-id': 'c', 'refresh-token': 'r' } });
  assert.deepEqual(f.contexts.get('a'), { cluster: 'one', user: 'alice', namespace: 'team' });
});

test('client config - files merge as upstream: the first to name an entry or a current context wins', () => {
  const m = mergeClientConfigs([parseClientConfig(FILE_A, '/a/config'), parseClientConfig(FILE_B, '/b/config')]);
  assert.equal(m.currentContext, 'a');
  assert.equal(m.clusters.get('shared')!.server, 'https://from-a:6443');
  assert.equal(m.users.get('alice')!.token, 't-alice');
  assert.ok(m.clusters.has('two') && m.contexts.has('b'), 'entries only the later file has are kept');
  const reversed = mergeClientConfigs([parseClientConfig(FILE_B, '/b/config'), parseClientConfig(FILE_A, '/a/config')]);
  assert.equal(reversed.currentContext, 'b');
  assert.equal(reversed.users.get('alice')!.token, 't-alice-from-b');
  assert.equal(reversed.userFiles.get('plugin'), '/a/config');
});

const bad: Array<[string, string, RegExp]> = [
  ['not YAML', 'clusters: [', /not valid YAML \(line/],
  ['a list that is not one', 'clusters: {}', /clusters must be a list/],
  ['an entry without a name', 'users: [{user: {}}]', /users\[0\] needs a name/],
  ['exec without apiVersion', 'users: [{name: u, user: {exec: {command: x}}}]', /exec.apiVersion is required/],
  ['exec v1 without interactiveMode', 'users: [{name: u, user: {exec: {command: x, apiVersion: client.authentication.platform.io/v1}}}]', /interactiveMode is required/],
  [
    'exec with a bad interactiveMode',
    'users: [{name: u, user: {exec: {command: x, apiVersion: client.authentication.platform.io/v1beta1, interactiveMode: Sometimes}}}]',
    /must be Never, IfAvailable or Always/,
  ],
  ['a boolean that is a string', 'clusters: [{name: c, cluster: {server: "https://x", insecure-skip-tls-verify: "yes"}}]', /must be true or false/],
];
for (const [name, text, want] of bad) {
  test(`client config - refused: ${name}`, () =>
    assert.throws(
      () => parseClientConfig(text, '/x/config'),
      (e: Error) => e instanceof ClientConfigError && want.test(e.message),
    ));
}

test('client config - what a reader asks of the format: unique names, fields it cannot honour', () => {
  const twice = 'users: [{name: a, user: {token: first}}, {name: a, user: {token: second}}]';
  const impersonating = 'users: [{name: a, user: {as: admin, token: t}}]';
  const cases: Array<[string, string, ParseOptions, RegExp | string]> = [
    ['a name given twice: the first wins', twice, {}, 'first'],
    ['a name given twice, unique names asked', twice, { uniqueNames: true }, /^users: "a" appears twice$/],
    ['a field no reader uses is ignored', impersonating, {}, 't'],
    ['a field the reader refuses', impersonating, { unsupportedUserFields: { fields: ['as'], by: 'webhooks' } }, /^user "a": as is not supported for webhooks$/],
  ];
  for (const [name, text, opts, want] of cases) {
    if (typeof want === 'string') assert.equal(parseClientConfig(text, '/x/config', opts).users.get('a')!.token, want, name);
    else
      assert.throws(
        () => parseClientConfig(text, '/x/config', opts),
        (e: Error) => e instanceof ClientConfigError && want.test(e.message),
        name,
      );
  }
});

test('client config - a file that cannot be parsed is named by the reader that opened it', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'client-config-'));
  try {
    const file = path.join(dir, 'config');
    await writeFile(file, 'clusters: {}\n');
    await assert.rejects(loadClientConfigFiles([file]), (e: Error) => e instanceof ClientConfigError && e.message === `${file}: clusters must be a list`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('client config - a YAML error never echoes the offending line (it may be a credential)', () => {
  assert.throws(
    () => parseClientConfig('users: [{name: u, user: {token: "s3cret}]', '/x'),
    (e: Error) => !e.message.includes('s3cret'),
  );
});

test('client config - resolving a context reads CA and certificates, picks credentials and the namespace', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'client-config-'));
  try {
    await writeFile(path.join(dir, 'ca.crt'), PEM);
    await writeFile(path.join(dir, 'bob.crt'), 'CERT');
    const text = `
current-context: a
clusters:
- {name: c, cluster: {server: "https://api:6443", certificate-authority: ca.crt}}
- {name: insecure, cluster: {server: "https://api:6443", insecure-skip-tls-verify: true, certificate-authority-data: ${b64(PEM)}}}
users:
- {name: alice, user: {tokenFile: token}}
- {name: bob, user: {client-certificate: bob.crt, client-key-data: ${b64('KEY')}}}
- {name: half, user: {client-certificate: bob.crt}}
- {name: both, user: {token: t, username: u}}
contexts:
- {name: a, context: {cluster: c, user: alice, namespace: team}}
- {name: b, context: {cluster: c, user: bob}}
- {name: half, context: {cluster: c, user: half}}
- {name: both, context: {cluster: c, user: both}}
- {name: contradiction, context: {cluster: insecure, user: bob}}
- {name: nocluster, context: {cluster: missing, user: bob}}
`;
    const file = path.join(dir, 'config');
    await writeFile(file, text);
    const cfg = parseClientConfig(text, file);
    const a = await resolveClientConfig(cfg);
    assert.equal(a.server.href, 'https://api:6443/');
    assert.equal(a.caPem, PEM);
    assert.equal(a.tokenFile, path.join(dir, 'token'));
    assert.equal(a.namespace, 'team');
    const b = await resolveClientConfig(cfg, { context: 'b' });
    assert.deepEqual([b.clientCertPem, b.clientKeyPem, b.namespace], ['CERT', 'KEY', 'default']);
    assert.equal((await resolveClientConfig(cfg, { context: 'b', namespace: 'x' })).namespace, 'x');
    await assert.rejects(resolveClientConfig(cfg, { context: 'half' }), /client-certificate and client-key go together/);
    await assert.rejects(resolveClientConfig(cfg, { context: 'both' }), /a token or a username and password/);
    await assert.rejects(resolveClientConfig(cfg, { context: 'contradiction' }), /contradict/);
    await assert.rejects(resolveClientConfig(cfg, { context: 'nocluster' }), /cluster "missing" does not exist/);
    await assert.rejects(resolveClientConfig(cfg, { context: 'nope' }), /context "nope" does not exist/);

    // PLATFORMCONFIG lists files; missing ones are skipped, the default is ~/.platform/config.
    assert.deepEqual(clientConfigPaths({ PLATFORMCONFIG: `${file}${path.delimiter}/nope` }), { paths: [file, '/nope'], explicit: true });
    assert.deepEqual(clientConfigPaths({}, '/home/u'), { paths: ['/home/u/.platform/config'], explicit: false });
    assert.equal((await loadClientConfig({ env: { PLATFORMCONFIG: `/nope${path.delimiter}${file}` } })).namespace, 'team');
    await assert.rejects(loadClientConfig({ env: { PLATFORMCONFIG: '/nope' } }), /cannot read: ENOENT/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('client config - entries resolve the same for every reader; -data must be PEM only where asked', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'client-config-'));
  try {
    await writeFile(path.join(dir, 'ca.crt'), PEM);
    const f = parseClientConfig(
      `
clusters:
- {name: no-server, cluster: {certificate-authority: ca.crt}}
- {name: not-a-url, cluster: {server: "https://"}}
- {name: two-cas, cluster: {server: "https://api", certificate-authority: ca.crt, certificate-authority-data: ${b64(PEM)}}}
- {name: no-ca, cluster: {server: "https://api", certificate-authority: nope.crt}}
users:
- {name: password-only, user: {password: s3cret}}
- {name: tokens, user: {token: t, tokenFile: nope}}
- {name: placeholders, user: {client-certificate-data: ${b64('CERT')}, client-key-data: ${b64('KEY')}}}
`,
      path.join(dir, 'config'),
    );
    const cluster = (name: string) => resolveCluster(name, f.clusters.get(name)!);
    const user = (name: string, requirePemData = false) => resolveUser(name, f.users.get(name)!, { requirePemData });
    const refused: Array<[string, () => Promise<unknown>, RegExp]> = [
      ['no server', () => cluster('no-server'), /^cluster "no-server": server is missing$/],
      ['a server that is not a URL', () => cluster('not-a-url'), /^cluster "not-a-url": server is not a URL$/],
      ['a CA file and its data', () => cluster('two-cas'), /^cluster "two-cas": give certificate-authority or certificate-authority-data, not both$/],
      ['a CA file that cannot be read', () => cluster('no-ca'), /^cluster "no-ca": certificate-authority: cannot read .*nope\.crt: ENOENT$/],
      ['a password without a username', () => user('password-only'), /^user "password-only": password without username$/],
      ['-data that is not PEM, where PEM is asked for', () => user('placeholders', true), /^user "placeholders": client-certificate-data is not base64-encoded PEM$/],
    ];
    for (const [name, run, want] of refused) {
      await assert.rejects(run(), (e: Error) => e instanceof ClientConfigError && want.test(e.message) && !e.message.includes('s3cret'), name);
    }
    assert.deepEqual(await user('tokens'), { token: 't' }, 'a token wins over a token file');
    assert.deepEqual(await user('placeholders'), { clientCertPem: 'CERT', clientKeyPem: 'KEY' }, '-data passed on as written');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('client config - in a cluster: the mounted token, CA and namespace, the service address from the environment', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sa-'));
  try {
    await assert.rejects(inClusterConfig({ env: {}, dir }), /PLATFORM_SERVICE_HOST and PLATFORM_SERVICE_PORT/);
    await assert.rejects(inClusterConfig({ env: { PLATFORM_SERVICE_HOST: '10.0.0.1', PLATFORM_SERVICE_PORT: '443' }, dir }), /cannot read .*token/);
    await writeFile(path.join(dir, 'token'), 'tok\n');
    await writeFile(path.join(dir, 'ca.crt'), PEM);
    await writeFile(path.join(dir, 'namespace'), 'shop\n');
    const cfg = await inClusterConfig({ env: { PLATFORM_SERVICE_HOST: 'fd00::1', PLATFORM_SERVICE_PORT: '6443' }, dir });
    assert.deepEqual([cfg.server.href, cfg.tokenFile, cfg.caPem, cfg.namespace], ['https://[fd00::1]:6443/', path.join(dir, 'token'), PEM, 'shop']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
