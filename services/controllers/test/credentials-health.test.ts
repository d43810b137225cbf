import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { CONTROLLER_ACCOUNTS } from '../../../shared/api/controller-accounts.js';
import { anonymousClientConfig, type ClientConfig } from '../../../shared/client/config.js';
import { ApiClient } from '../../../shared/client/rest.js';
import { runChecks } from '../../../shared/health/checks.js';
import { parseOptions } from '../../../shared/config/options.js';
import { silentLogger } from '../../../shared/log.js';
import { controllerClients, tokenRefreshAt } from '../client-builder.js';
import { alwaysAllowed, nonResourceVerb } from '../delegated-auth.js';
import { controllersHealth } from '../health.js';
import { leaderElectionProblem } from '../leader-election.js';
import { controllersOptionSpecs, KNOWN_CONTROLLERS } from '../options.js';
import type { ControllerState, ElectionStatus } from '../service.js';

test("controllers - the flags default as upstream's controller manager: own credentials, HTTPS health on 10257 open to all", () => {
  const o = parseOptions(controllersOptionSpecs, []);
  assert.equal(o['use-service-account-credentials'], false);
  assert.equal(o['secure-port'], 10257);
  assert.equal(o['bind-address'], '0.0.0.0');
  assert.deepEqual(o['authorization-always-allow-paths'], ['/healthz', '/readyz', '/livez']);
  assert.equal(parseOptions(controllersOptionSpecs, ['--use-service-account-credentials'])['use-service-account-credentials'], true);
  assert.equal(parseOptions(controllersOptionSpecs, [], { PLATFORM_SECURE_PORT: '0' })['secure-port'], 0);
});

test("controllers - every controller has upstream's account, except serviceaccount-token, which keeps the service's own", () => {
  const want: Record<string, string | undefined> = {
    namespace: 'namespace-controller',
    garbagecollector: 'generic-garbage-collector',
    serviceaccount: 'service-account-controller',
    'root-ca-cert-publisher': 'root-ca-cert-publisher',
    'serviceaccount-token': undefined,
    podgc: 'pod-garbage-collector',
    resourcequota: 'resourcequota-controller',
    'pvc-protection': 'pvc-protection-controller',
    'pv-protection': 'pv-protection-controller',
    csrsigning: 'certificate-controller',
    csrapproving: 'certificate-controller',
    csrcleaner: 'certificate-controller',
    tokencleaner: 'token-cleaner',
    bootstrapsigner: 'bootstrap-signer',
    // Upstream's runs in the API server, as the server itself; here it gets an account of its own.
    customresourcedefinitions: 'customresourcedefinition-controller',
    // Upstream's AvailableConditionController, also the API server's there.
    'apiservice-availability': 'apiservice-availability-controller',
  };
  assert.deepEqual(Object.keys(want).sort(), Object.keys(KNOWN_CONTROLLERS).sort(), 'every known controller is listed here');
  for (const [name, account] of Object.entries(want)) assert.equal(CONTROLLER_ACCOUNTS[name], account, name);

  const cfg: ClientConfig = {
    server: new URL('https://127.0.0.1:1'),
    insecureSkipTlsVerify: false,
    namespace: 'default',
    cluster: { server: 'https://127.0.0.1:1' },
    caPem: 'CA',
    clientCertPem: 'C',
    clientKeyPem: 'K',
    token: 't',
  };
  const root = new ApiClient(cfg);
  try {
    const on = controllerClients(root, { useServiceAccountCredentials: true, log: silentLogger() });
    assert.equal(on.forController('serviceaccount-token'), root, 'the token controller keeps the root client');
    assert.notEqual(on.forController('namespace'), root);
    assert.equal(on.forController('csrsigning'), on.forController('csrcleaner'), 'one client per account');
    assert.notEqual(on.forController('csrsigning'), on.forController('namespace'));
    const sa = on.forController('namespace').config;
    assert.equal(sa.caPem, 'CA', 'the same trust');
    assert.deepEqual([sa.clientCertPem, sa.clientKeyPem, sa.token], [undefined, undefined, undefined], 'none of the root credentials');
    on.close();
    const off = controllerClients(root, { useServiceAccountCredentials: false, log: silentLogger() });
    for (const name of Object.keys(KNOWN_CONTROLLERS)) assert.equal(off.forController(name), root, `${name} without the flag`);
    assert.equal(off.accountOf('namespace'), undefined);
  } finally {
    root.close();
  }
});

test('client config - the anonymous copy keeps server and trust, drops every credential', () => {
  const full: ClientConfig = {
    server: new URL('https://h:1'),
    insecureSkipTlsVerify: false,
    namespace: 'ns',
    cluster: { server: 'https://h:1' },
    caPem: 'CA',
    tlsServerName: 'name',
    clientCertPem: 'C',
    clientKeyPem: 'K',
    token: 't',
    tokenFile: '/f',
    basicAuth: { username: 'u', password: 'p' },
    exec: { command: 'x', args: [], env: [], apiVersion: 'v', provideClusterInfo: false },
    authProvider: { name: 'oidc', config: {}, user: 'u' },
  };
  assert.deepEqual(anonymousClientConfig(full), { server: full.server, insecureSkipTlsVerify: false, namespace: 'ns', cluster: full.cluster, caPem: 'CA', tlsServerName: 'name' });
});

test('service-account credentials - a token is renewed once less than a fifth of its life is left', () => {
  assert.equal(tokenRefreshAt(0, 3_600_000), 2_880_000);
  assert.equal(tokenRefreshAt(1_000, 601_000), 481_000);
  assert.equal(tokenRefreshAt(0, 3_600_000, 50), 1_800_000);
});

test('leader election health - a standby is healthy; a leader is not once it has not renewed for the lease plus 20 s', () => {
  assert.equal(leaderElectionProblem({ leading: false, lastRenewMs: 0 }, 1e9, 15_000, 'platform-system/l'), undefined);
  assert.equal(leaderElectionProblem({ leading: true, lastRenewMs: 0 }, 35_000, 15_000, 'platform-system/l'), undefined);
  assert.equal(leaderElectionProblem({ leading: true, lastRenewMs: 0 }, 35_001, 15_000, 'platform-system/l'), 'failed election to renew leadership on lease platform-system/l');
});

test('delegated authorization - always-allowed paths are exact or a * prefix; methods map to verbs as the API server maps them', () => {
  const paths = ['/healthz', '/readyz', '/livez', '/debug/*'];
  for (const [p, want] of [
    ['/healthz', true],
    ['/readyz', true],
    ['/readyz/apiserver', false],
    ['/metrics', false],
    ['/debug/pprof', true],
    ['/healthzz', false],
  ] as const)
    assert.equal(alwaysAllowed(paths, p), want, p);
  assert.deepEqual(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].map(nonResourceVerb), ['get', 'get', 'create', 'update', 'patch', 'delete']);
});

test('controllers health - livez and readyz name each check; an unreachable API, a controller not synced and a stuck leader fail by name', async () => {
  // A port nobody listens on: the API is unreachable.
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  const client = new ApiClient({ server: new URL(`https://127.0.0.1:${port}`), insecureSkipTlsVerify: true, namespace: 'default', cluster: { server: '' } });
  let election: ElectionStatus = { lease: 'platform-system/l', leaseDurationMs: 15_000, leading: true, lastRenewMs: 0 };
  let states = new Map<string, ControllerState>([
    ['namespace', { state: 'running' }],
    ['csrsigning', { state: 'starting' }],
  ]);
  let now = 10_000;
  const h = controllersHealth({ client, election: () => election, controllerStates: () => states, stopping: () => false, now: () => now });
  try {
    const live = await runChecks('livez', h.livez(), new URLSearchParams('verbose'));
    assert.deepEqual(live, { code: 200, text: '[+]ping ok\n[+]leaderElection ok\nlivez check passed\n' });
    const ready = await runChecks('readyz', h.readyz(), new URLSearchParams('verbose'));
    assert.equal(ready?.code, 500);
    assert.equal(ready?.text, '[+]ping ok\n[+]leaderElection ok\n[-]apiserver failed: reason withheld\n[+]namespace ok\n[-]csrsigning failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n');
    const one = await runChecks('readyz', h.readyz(), new URLSearchParams(), 'apiserver');
    assert.equal(one?.code, 500);
    assert.match(one!.text, new RegExp(`^internal server error: the API server at https://127.0.0.1:${port} is not reachable: `));
    assert.match((await runChecks('readyz', h.readyz(), new URLSearchParams(), 'csrsigning'))!.text, /csrsigning has not started: its caches are not synced yet/);
    // A leader stuck past its lease and the tolerance.
    now = 40_000;
    assert.equal((await runChecks('livez', h.livez(), new URLSearchParams()))?.code, 500);
    assert.equal((await runChecks('livez', h.livez(), new URLSearchParams(), 'leaderElection'))?.text, 'internal server error: failed election to renew leadership on lease platform-system/l');
    // A standby runs no controllers and is healthy.
    election = { ...election, leading: false };
    states = new Map();
    const standby = await runChecks('readyz', h.readyz(), new URLSearchParams('exclude=apiserver'));
    assert.deepEqual(standby, { code: 200, text: 'ok' });
  } finally {
    client.close();
  }
});
