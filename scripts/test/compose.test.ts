// No Docker engine is assumed here, so docker-compose.yml is checked by parsing it: the structure
// `docker compose` relies on, the one shared image, NATS limits and security, and the flags each
// service gets; NATS's configuration runs in a local nats-server with the files init writes.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';
import YAML from 'yaml';
import { NatsUser, userInboxPrefix, type NatsUserRole } from '../../shared/bus/permissions.js';
import { freePort, NATS_MAX_PAYLOAD } from '../../shared/local/nats-server.js';
import { findNatsServer } from '../../shared/local/nats-server-binary.js';
import { prepareLocalState } from '../local-up.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// merge: true resolves the `<<: *platform` keys the way compose does.
const compose = YAML.parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Record<string, any>>;
  volumes?: Record<string, unknown>;
};
const platformServices = ['storage', 'authn', 'authz', 'admission', 'gateway'];
// The state directory init writes and everything mounts: ./.local, the one `npm start` uses, unless
// PLATFORM_LOCAL_DIR names another (test/e2e/compose.test.ts brings it up in a directory of its own).
const LOCAL = '${PLATFORM_LOCAL_DIR:-./.local}';
const natsNodes = ['nats-1', 'nats-2', 'nats-3'];

function natsConf(): string {
  return readFileSync(path.join(root, 'deploy/nats.conf'), 'utf8');
}

test('compose - every platform service runs the one image built from deploy/Dockerfile', () => {
  const images = new Set<string>();
  const builds = new Set<string>();
  for (const name of [...platformServices, 'init']) {
    const s = compose.services[name];
    assert.ok(s, `service ${name}`);
    images.add(s.image);
    builds.add(JSON.stringify(s.build));
  }
  assert.equal(images.size, 1);
  assert.deepEqual(
    [...builds].map((b) => JSON.parse(b)),
    [{ context: '.', dockerfile: 'deploy/Dockerfile' }],
  );
  assert.ok(existsSync(path.join(root, 'deploy/Dockerfile')));
  for (const name of platformServices) assert.deepEqual(compose.services[name]!.command, [name], `${name} picked by argument`);
});

test('compose - the Dockerfile runs the compiled scripts/service.ts as a non-root user', () => {
  const dockerfile = readFileSync(path.join(root, 'deploy/Dockerfile'), 'utf8');
  assert.match(dockerfile, /^FROM node:20-bookworm-slim/m);
  assert.match(dockerfile, /^RUN npm run build$/m);
  assert.match(dockerfile, /^ENTRYPOINT \["node", "dist\/scripts\/service\.js"\]/m);
  assert.match(dockerfile, /^USER node$/m);
  assert.match(readFileSync(path.join(root, 'deploy/Dockerfile.dockerignore'), 'utf8'), /^\.local$/m, 'dev keys stay out of the image');
});

test('compose - NATS is a three-node cluster with JetStream, a store each and a raised max_payload; the bucket has three replicas', () => {
  for (const name of natsNodes) {
    const nats = compose.services[name]!;
    assert.match(nats.image, /^nats:2\.10/);
    assert.deepEqual(nats.command, ['-c', '/etc/nats/nats.conf']);
    assert.equal(nats.environment.NATS_SERVER_NAME, name, 'server_name comes from the environment');
    assert.ok(nats.volumes.includes('./deploy/nats.conf:/etc/nats/nats.conf:ro'));
    assert.ok(
      nats.volumes.some((v: string) => v.startsWith(`${name}-data:/data`)),
      `${name} has its own store`,
    );
    assert.ok(compose.volumes && `${name}-data` in compose.volumes);
  }
  const conf = natsConf();
  assert.match(conf, /^server_name: \$NATS_SERVER_NAME$/m);
  const cluster = /^cluster \{([\s\S]*?)^\}/m.exec(conf)?.[1] ?? '';
  assert.deepEqual(
    [...cluster.matchAll(/nats-route:\/\/(nats-\d):6222/g)].map((m) => m[1]),
    natsNodes,
    'routes to every node',
  );
  assert.match(cluster, /tls \{[^}]*cert_file: "\/etc\/nats\/local\/pki\/nats-server\.crt"[^}]*ca_file: "\/etc\/nats\/local\/pki\/ca\.crt"/, 'routes over TLS');
  assert.equal(compose.services.storage!.environment.PLATFORM_REPLICAS, '3');
  assert.match(conf, /^jetstream \{[^}]*store_dir: \/data$/ms);
  assert.equal(Number(/^max_payload: (\d+)$/m.exec(conf)?.[1]), NATS_MAX_PAYLOAD);
  assert.ok(NATS_MAX_PAYLOAD > 3 * 1024 * 1024, 'room for 3 MiB request bodies');
});

test('compose - NATS requires TLS and the users init writes; each service connects as its own user with the dev CA', async () => {
  for (const name of natsNodes) {
    const nats = compose.services[name]!;
    assert.ok(nats.volumes.includes(`${LOCAL}:/etc/nats/local:ro`), 'the files init writes, where deploy/nats.conf names them');
    assert.equal(nats.depends_on.init.condition, 'service_completed_successfully');
  }
  const conf = natsConf();
  assert.match(conf, /^tls \{[^}]*cert_file: "\/etc\/nats\/local\/pki\/nats-server\.crt"[^}]*\}/ms);
  assert.match(conf, /^include "local\/nats-auth\/authorization\.conf"$/m);
  for (const name of platformServices) {
    const env = compose.services[name]!.environment;
    assert.equal(env.PLATFORM_NATS_USER, NatsUser[name as NatsUserRole], name);
    assert.equal(env.PLATFORM_NATS_PASSWORD_FILE, `/local/nats-auth/${name}.password`, name);
    assert.equal(env.PLATFORM_NATS_TLS_CA_FILE, '/local/pki/ca.crt', name);
    assert.ok(compose.services[name]!.volumes.includes(`${LOCAL}:/local:ro`), `${name} mounts the password file`);
  }

  // What init writes (local-up --init-only with compose's settings) and deploy/nats.conf, laid out as
  // the nats container sees them, run by a real nats-server: TLS and the users work as compose needs.
  const natsServer = findNatsServer();
  if (!natsServer) return;
  const etc = await mkdtemp(path.join(os.tmpdir(), 'compose-nats-'));
  const proc: { child?: ChildProcess } = {};
  try {
    const local = path.join(etc, 'local');
    const state = await prepareLocalState({ dir: local, port: 6443, servingNames: [String(compose.services.init!.environment.PLATFORM_CERT_SANS)] });
    const port = await freePort();
    const routePort = await freePort();
    await writeFile(
      path.join(etc, 'nats.conf'),
      conf
        .replaceAll('/etc/nats/', `${etc}/`)
        .replace('store_dir: /data', `store_dir: ${JSON.stringify(path.join(etc, 'data'))}`)
        .replace('listen: 0.0.0.0:4222', `listen: 127.0.0.1:${port}`)
        // One node alone (its routes lead nowhere here), its cluster port free.
        .replace('listen: 0.0.0.0:6222', `listen: 127.0.0.1:${routePort}`)
        .replace(/^http: .*$/m, ''),
    );
    const child = spawn(natsServer, ['-c', path.join(etc, 'nats.conf')], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NATS_SERVER_NAME: 'nats-1' } });
    proc.child = child;
    let log = '';
    child.stderr.on('data', (d) => (log += d));
    for (let i = 0; i < 100 && !log.includes('Server is ready'); i++) await new Promise((r) => setTimeout(r, 100));
    assert.match(log, /Server is ready/, log);
    const tls = { caFile: state.pki.files.caCert };
    const user = (role: NatsUserRole) => ({ user: state.nats.users[role].user, pass: state.nats.users[role].password, inboxPrefix: userInboxPrefix(state.nats.users[role].user) });
    const gateway = await connect({ servers: `nats://127.0.0.1:${port}`, tls, ...user('gateway'), maxReconnectAttempts: 0 });
    try {
      await assert.rejects(gateway.request('$KV.objects.core.configmaps.default.x', 'forged', { timeout: 2_000 }), /Permissions Violation for Publish/);
    } finally {
      await gateway.close();
    }
    await assert.rejects(connect({ servers: `nats://127.0.0.1:${port}`, tls, user: 'platform-storage', pass: 'wrong', maxReconnectAttempts: 0 }), /Authorization Violation/);
  } finally {
    proc.child?.kill('SIGKILL');
    await rm(etc, { recursive: true, force: true });
  }
});

test('compose - services reach NATS and get their flags as PLATFORM_* env', () => {
  for (const name of platformServices) {
    const s = compose.services[name]!;
    assert.equal(s.environment.PLATFORM_NATS_URL, natsNodes.map((n) => `nats://${n}:4222`).join(','), `${name} knows every node`);
    assert.ok(s.depends_on, `${name} depends_on`);
  }
  for (const n of natsNodes) assert.equal(compose.services.storage!.depends_on[n].condition, 'service_healthy');
  assert.equal(compose.services.authz!.environment.PLATFORM_AUTHORIZATION_MODE, 'Node,RBAC');
  for (const name of ['storage', 'authn', 'authz', 'admission'])
    assert.equal(compose.services[name]!.environment.PLATFORM_METRICS_BIND_ADDRESS, '0.0.0.0:9090', `${name}: /metrics on the compose network`);
  assert.equal(compose.services.admission!.environment.PLATFORM_ENABLE_ADMISSION_PLUGINS, 'NodeRestriction', 'NodeRestriction goes with the Node authorizer');
  assert.equal(compose.services.authn!.environment.PLATFORM_TOKEN_AUTH_FILE, '/local/tokens.csv');
  assert.equal(compose.services.authn!.environment.PLATFORM_CLIENT_CA_FILE, '/local/pki/ca.crt');
  assert.equal(compose.services.authn!.environment.PLATFORM_SERVICE_ACCOUNT_SIGNING_KEY_FILE, '/local/pki/service-account.key');
  const gw = compose.services.gateway!;
  for (const dep of ['storage', 'authn', 'authz', 'admission', 'init']) assert.ok(dep in gw.depends_on, `gateway after ${dep}`);
  assert.equal(gw.depends_on.init.condition, 'service_completed_successfully');
});

test('compose - two replicas of every service; the gateways serve 6443 behind a load balancer that publishes it', () => {
  for (const name of [...platformServices, 'controllers']) assert.equal(compose.services[name]!.deploy?.replicas, 2, `${name} replicas`);
  const lb = compose.services.lb!;
  assert.match(lb.image, /^haproxy:/);
  assert.ok(
    lb.ports.some((p: string) => /^127\.0\.0\.1:.*:6443$/.test(p)),
    'published on loopback only',
  );
  assert.equal(compose.services.gateway!.ports, undefined, 'gateways are reached through the balancer');
  assert.equal(lb.depends_on.gateway.condition, 'service_healthy');
  const cfg = readFileSync(path.join(root, 'deploy/haproxy.cfg'), 'utf8');
  assert.ok(lb.volumes.includes('./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro'));
  assert.match(cfg, /^\s*mode tcp$/m, 'TLS passes through: the gateways read client certificates');
  assert.match(cfg, /^\s*bind :6443$/m);
  assert.match(cfg, /server-template gateway \d+ gateway:6443 resolvers docker/, 'every gateway replica Docker DNS reports');
  assert.match(cfg, /^\s*option httpchk GET \/readyz$/m, 'a gateway that is not ready gets no new clients');
  assert.match(cfg, /^\s*default-server check check-ssl /m, 'every replica is checked, over TLS');
});

test('compose - gateways serve 6443 with the certificates written by init', () => {
  const gw = compose.services.gateway!;
  assert.equal(gw.environment.PLATFORM_SECURE_PORT, '6443');
  assert.equal(gw.environment.PLATFORM_BIND_ADDRESS, '0.0.0.0');
  assert.equal(gw.environment.PLATFORM_TLS_CERT_FILE, '/local/pki/serving.crt');
  assert.equal(gw.environment.PLATFORM_TLS_PRIVATE_KEY_FILE, '/local/pki/serving.key');
  assert.equal(gw.environment.PLATFORM_CLIENT_CA_FILE, '/local/pki/ca.crt');
  assert.ok(gw.volumes.includes(`${LOCAL}:/local:ro`));
  const init = compose.services.init!;
  assert.deepEqual(init.entrypoint, ['node', 'dist/scripts/local-up.js', '--init-only']);
  assert.equal(init.environment.PLATFORM_LOCAL_DIR, '/local');
  assert.equal(init.environment.PLATFORM_CERT_SANS, 'gateway');
  assert.equal(init.restart, 'no');
});

test('compose - the gateway and the controllers present the front-proxy client certificate init writes; the gateway publishes its CA', async () => {
  const gw = compose.services.gateway!.environment;
  const ctl = compose.services.controllers!.environment;
  assert.equal(gw.PLATFORM_REQUESTHEADER_CLIENT_CA_FILE, '/local/pki/front-proxy-ca.crt');
  for (const env of [gw, ctl]) {
    assert.equal(env.PLATFORM_PROXY_CLIENT_CERT_FILE, '/local/pki/front-proxy-client.crt');
    assert.equal(env.PLATFORM_PROXY_CLIENT_KEY_FILE, '/local/pki/front-proxy-client.key');
  }
  // What init writes under /local is what they name.
  const dir = await mkdtemp(path.join(os.tmpdir(), 'compose-front-proxy-'));
  try {
    await prepareLocalState({ dir, port: 6443, servingNames: ['gateway'] });
    for (const file of [gw.PLATFORM_REQUESTHEADER_CLIENT_CA_FILE, gw.PLATFORM_PROXY_CLIENT_CERT_FILE, gw.PLATFORM_PROXY_CLIENT_KEY_FILE])
      assert.ok(existsSync(path.join(dir, String(file).replace(/^\/local\//, ''))), `${file} is written by init`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('compose - docker-compose config accepts the file (when docker-compose is installed)', async (t) => {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  try {
    const { stdout } = await promisify(execFile)('docker-compose', ['-f', path.join(root, 'docker-compose.yml'), 'config', '--services'], { cwd: root, timeout: 60_000 });
    assert.deepEqual(stdout.trim().split('\n').sort(), ['admission', 'authn', 'authz', 'controllers', 'gateway', 'init', 'lb', 'nats-1', 'nats-2', 'nats-3', 'storage']);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return t.skip('docker-compose is not installed');
    throw err;
  }
});

test('compose - the controllers service is an API client of the gateway with its own identity, once the gateway is healthy', () => {
  const s = compose.services.controllers!;
  assert.equal(s.image, compose.services.gateway!.image, 'the one image');
  assert.deepEqual(s.command, ['controllers']);
  assert.equal(s.environment.PLATFORM_KUBECONFIG, '/local/controllers.kubeconfig', 'the client certificate `npm start -- --init-only` issues for it');
  const master = new URL(s.environment.PLATFORM_MASTER);
  assert.equal(master.hostname, 'gateway');
  assert.ok(String(compose.services.init!.environment.PLATFORM_CERT_SANS).split(',').includes(master.hostname), 'the serving certificate covers the name it dials');
  assert.equal(s.depends_on.gateway.condition, 'service_healthy');
  assert.equal(s.environment.PLATFORM_NATS_URL, undefined, 'no NATS credentials: it only talks HTTPS');
  assert.equal(s.environment.PLATFORM_USE_SERVICE_ACCOUNT_CREDENTIALS, 'true', 'each controller as its own service account');
  // Its health check probes its own /readyz on the port it serves.
  const probe = (s.healthcheck.test as string[]).join(' ');
  assert.ok(probe.includes(`port:${s.environment.PLATFORM_SECURE_PORT}`) && probe.includes("path:'/readyz'"), probe);
  assert.ok(probe.includes(s.environment.PLATFORM_TLS_CERT_FILE.replace('serving.crt', 'ca.crt')), 'verified with the CA that signed its serving pair');
  for (const name of ['gateway', 'authz']) assert.equal(compose.services[name]!.environment.PLATFORM_UPSTREAM_GROUP_ALIASES, 'true', `${name}: upstream group names on`);
});
