import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { freePort } from '../../shared/local/nats-server.js';
import { issueServingCert } from '../../shared/local/pki.js';
import { ensureTokenFile, prepareLocalState, serviceArgs } from '../local-up.js';
import { controllersOptionSpecs } from '../../services/controllers/options.js';
import { gatewayOptionSpecs } from '../../services/gateway/options.js';
import { SERVICES, serviceMain } from '../service.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fakes = path.join(root, 'scripts/test/fixtures/fake-services');

interface Run {
  child: ChildProcess;
  output(): string;
  waitFor(re: RegExp, ms?: number): Promise<void>;
  exited: Promise<number | null>;
}

function startLocalUp(env: Record<string, string>, args: string[] = []): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/local-up.ts', ...args], {
    cwd: root,
    env: { ...process.env, NATS_URL: '', PLATFORM_LOCAL_SERVICES_DIR: fakes, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    waitFor: async (re, ms = 30_000) => {
      const until = Date.now() + ms;
      while (!re.test(out)) {
        if (child.exitCode !== null) throw new Error(`local-up exited ${child.exitCode} before ${re}:\n${out}`);
        if (Date.now() > until) throw new Error(`timed out waiting for ${re}:\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function recorded(dir: string, name: string): Promise<Array<{ pid: number; argv: string[] }>> {
  return (await readFile(path.join(dir, `${name}.args`), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

describe('local-up state', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'platform-local-state-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('local-up - state is created once and reused, kubeconfig follows the port', async () => {
    const a = await prepareLocalState({ dir, port: 6443, servingNames: [] });
    const b = await prepareLocalState({ dir, port: 7443, servingNames: [] });
    assert.equal(a.adminToken, b.adminToken);
    assert.match(a.adminToken, /^[0-9a-f]{64}$/);
    assert.equal(a.pki.ca.certPem, b.pki.ca.certPem);
    assert.equal(await readFile(a.tokenFile, 'utf8'), `${a.adminToken},platform-admin,platform-admin,"system:masters"\n`);
    const kc = YAML.parse(await readFile(b.kubeconfig, 'utf8'));
    assert.equal(kc.clusters[0].cluster.server, 'https://127.0.0.1:7443');
    assert.equal(kc.users.find((u: { name: string }) => u.name === 'platform-admin').user.token, a.adminToken);
    const cert = new X509Certificate(Buffer.from(kc.users.find((u: { name: string }) => u.name === 'platform-admin-cert').user['client-certificate-data'], 'base64'));
    assert.match(cert.subject, /CN=platform-admin/);
  });

  test('local-up - NATS: a server certificate of the dev CA, one password per user kept across starts, each service its own user', async () => {
    const a = await prepareLocalState({ dir, port: 6443, servingNames: ['gateway'] });
    const b = await prepareLocalState({ dir, port: 6443, servingNames: ['gateway'] });
    assert.deepEqual(b.nats.users, a.nats.users, 'passwords survive a restart');
    const server = new X509Certificate(await readFile(a.nats.serverCertFile));
    assert.ok(server.verify(new X509Certificate(a.pki.ca.certPem).publicKey), 'signed by the dev CA');
    for (const name of ['localhost', 'nats', 'gateway']) assert.ok(server.checkHost(name), name);
    assert.ok(server.checkIP('127.0.0.1'));
    assert.equal(a.nats.caFile, a.pki.files.caCert);
    for (const role of ['storage', 'authn', 'authz', 'admission', 'gateway', 'monitor'] as const) {
      const u = a.nats.users[role];
      assert.equal((await stat(u.passwordFile)).mode & 0o777, 0o600, `${role} password private`);
      assert.equal((await readFile(u.passwordFile, 'utf8')).trim(), u.password);
      assert.ok(u.password.length >= 32);
    }
    assert.equal(new Set(Object.values(a.nats.users).map((u) => u.password)).size, 6, 'a password per user');
    const auth = await readFile(a.nats.authorizationFile, 'utf8');
    assert.match(auth, /\{user: "platform-storage", password: "/);
    assert.match(auth, /^accounts \{/m);
    assert.equal((await stat(a.nats.authorizationFile)).mode & 0o777, 0o600);

    const ctx = { natsUrl: 'nats://127.0.0.1:4222', state: a, port: 6443, natsAuth: a.nats };
    for (const [service, user] of [
      ['storage', 'platform-storage'],
      ['authn', 'platform-authn'],
      ['authz', 'platform-authz'],
      ['admission', 'platform-admission'],
      ['gateway', 'platform-gateway'],
    ] as const) {
      const args = serviceArgs(service, ctx);
      assert.ok(args.includes(`--nats-user=${user}`), `${service}: ${args.join(' ')}`);
      assert.ok(args.includes(`--nats-password-file=${a.nats.users[service].passwordFile}`));
      assert.ok(args.includes(`--nats-tls-ca-file=${a.pki.files.caCert}`));
      assert.ok(!args.some((f) => f.startsWith('--nats-password=')), 'no password on a command line');
    }
    assert.ok(!serviceArgs('controllers', ctx).some((f) => f.startsWith('--nats-')), 'the controllers do not speak NATS');
  });

  test('local-up - NATS: the server certificate is also a client certificate (the cluster routes dial with it); one made without that is reissued', async () => {
    const serverAuth = '1.3.6.1.5.5.7.3.1';
    const clientAuth = '1.3.6.1.5.5.7.3.2';
    const a = await prepareLocalState({ dir, port: 6443, servingNames: ['gateway'] });
    assert.deepEqual(new X509Certificate(await readFile(a.nats.serverCertFile)).keyUsage?.sort(), [serverAuth, clientAuth].sort());
    // What an earlier init wrote: serverAuth only, every name.
    const old = await issueServingCert(a.pki.ca, { commonName: 'platform-nats', dnsNames: ['nats', 'nats-1', 'nats-2', 'nats-3', 'gateway'] });
    await writeFile(a.nats.serverCertFile, old.certPem);
    await writeFile(a.nats.serverKeyFile, old.keyPem);
    const b = await prepareLocalState({ dir, port: 6443, servingNames: ['gateway'] });
    const reissued = await readFile(b.nats.serverCertFile, 'utf8');
    assert.notEqual(reissued, old.certPem, 'reissued');
    assert.ok(new X509Certificate(reissued).keyUsage?.includes(clientAuth), 'with clientAuth');
    assert.deepEqual(b.nats.users, a.nats.users, 'the passwords stay');
    const c = await prepareLocalState({ dir, port: 6443, servingNames: ['gateway'] });
    assert.equal(await readFile(c.nats.serverCertFile, 'utf8'), reissued, 'and kept from then on');
  });

  test('local-up - token file edited by the user keeps its lines and gains the admin', async () => {
    const f = path.join(dir, 'edited.csv');
    await writeFile(f, 'abc,jane,jane-uid,"dev,qa"');
    const token = await ensureTokenFile(f);
    assert.equal(await readFile(f, 'utf8'), `abc,jane,jane-uid,"dev,qa"\n${token},platform-admin,platform-admin,"system:masters"\n`);
    assert.equal(await ensureTokenFile(f), token);
  });

  test('local-up - service flags use the names the services define', async () => {
    const state = await prepareLocalState({ dir, port: 6443, servingNames: [] });
    const ctx = { natsUrl: 'nats://127.0.0.1:4222', state, port: 6443 };
    assert.deepEqual(serviceArgs('authz', ctx), ['--nats-url=nats://127.0.0.1:4222', '--authorization-mode=Node,RBAC', '--upstream-group-aliases=true']);
    assert.deepEqual(serviceArgs('admission', ctx), ['--nats-url=nats://127.0.0.1:4222', '--enable-admission-plugins=NodeRestriction']);
    // Each service's /metrics listener on loopback, when npm start picked a port for it.
    assert.deepEqual(serviceArgs('storage', { ...ctx, metricsPorts: { storage: 10300 } }), ['--nats-url=nats://127.0.0.1:4222', '--metrics-bind-address=127.0.0.1:10300']);
    assert.ok(!serviceArgs('gateway', { ...ctx, metricsPorts: { storage: 10300 } }).some((f) => f.startsWith('--metrics-bind-address')), 'the gateway serves /metrics on its own port');
    const authn = serviceArgs('authn', ctx);
    for (const f of [
      '--anonymous-auth=true',
      `--token-auth-file=${state.tokenFile}`,
      `--client-ca-file=${state.pki.files.caCert}`,
      '--enable-bootstrap-token-auth=true',
      `--service-account-signing-key-file=${state.serviceAccountKeyFile}`,
    ])
      assert.ok(authn.includes(f), f);
    assert.ok(existsSync(state.serviceAccountKeyFile), 'service-account signing key written');
    const gw = serviceArgs('gateway', ctx);
    for (const f of [
      '--upstream-group-aliases=true',
      '--secure-port=6443',
      '--bind-address=127.0.0.1',
      `--tls-cert-file=${state.pki.files.servingCert}`,
      `--tls-private-key-file=${state.pki.files.servingKey}`,
      `--client-ca-file=${state.pki.files.caCert}`,
    ])
      assert.ok(gw.includes(f), f);
    // The shipped example audit policy, logged under the local directory.
    assert.ok(gw.includes(`--audit-log-path=${path.join(state.dir, 'audit.log')}`));
    const policy = gw.find((f) => f.startsWith('--audit-policy-file='))!.split('=')[1]!;
    assert.ok(existsSync(policy), policy);
    for (const f of gw) assert.ok(f.replace(/^--/, '').split('=')[0]! in gatewayOptionSpecs, f);
    const controllers = serviceArgs('controllers', { ...ctx, controllersPort: 10300 });
    for (const f of [
      '--use-service-account-credentials=true',
      '--secure-port=10300',
      '--bind-address=127.0.0.1',
      `--tls-cert-file=${state.pki.files.servingCert}`,
      `--kubeconfig=${state.controllersKubeconfig}`,
    ])
      assert.ok(controllers.includes(f), f);
    assert.ok(serviceArgs('controllers', ctx).includes('--secure-port=10257'), "upstream's port by default");
    // Every flag is one the controllers service defines.
    for (const f of controllers) assert.ok(f.replace(/^--/, '').split('=')[0]! in controllersOptionSpecs, f);
  });

  test('local-up - front proxy: a CA of its own signs front-proxy-client, which the gateway and the controllers present; the gateway publishes that CA', async () => {
    const a = await prepareLocalState({ dir, port: 6443, servingNames: [] });
    const b = await prepareLocalState({ dir, port: 6443, servingNames: [] });
    assert.equal(a.frontProxy.client.certPem, b.frontProxy.client.certPem, 'kept across starts');
    const ca = new X509Certificate(await readFile(a.frontProxy.files.caCert));
    const client = new X509Certificate(await readFile(a.frontProxy.files.clientCert));
    assert.ok(client.checkIssued(ca) && client.verify(ca.publicKey), 'signed by the front-proxy CA');
    assert.notEqual(ca.fingerprint256, new X509Certificate(a.pki.ca.certPem).fingerprint256, 'not the cluster CA');
    assert.ok(!client.checkIssued(new X509Certificate(a.pki.ca.certPem)), 'the cluster CA does not vouch for it');
    assert.match(client.subject, /^CN=front-proxy-client$/m);
    assert.deepEqual(client.keyUsage, ['1.3.6.1.5.5.7.3.2'], 'a client certificate');
    assert.equal((await stat(a.frontProxy.files.clientKey)).mode & 0o777, 0o600);
    const ctx = { natsUrl: 'nats://127.0.0.1:4222', state: a, port: 6443 };
    const gw = serviceArgs('gateway', ctx);
    const pair = [`--proxy-client-cert-file=${a.frontProxy.files.clientCert}`, `--proxy-client-key-file=${a.frontProxy.files.clientKey}`];
    for (const f of [...pair, `--requestheader-client-ca-file=${a.frontProxy.files.caCert}`]) assert.ok(gw.includes(f), f);
    for (const f of pair) assert.ok(serviceArgs('controllers', ctx).includes(f), f);
    // The services read those paths: each flag names a file that exists.
    for (const f of [...gw, ...serviceArgs('controllers', ctx)].filter((x) => /^--(proxy-client|requestheader)/.test(x))) assert.ok(existsSync(f.split('=')[1]!), f);
  });

  test('local-up - --init-only writes the state and exits', () => {
    const d = path.join(dir, 'init');
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/local-up.ts', '--init-only'], { cwd: root, env: { ...process.env, PLATFORM_LOCAL_DIR: d }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    for (const f of [
      'pki/ca.crt',
      'pki/serving.key',
      'pki/admin.crt',
      'pki/service-account.key',
      'pki/nats-server.crt',
      'pki/nats-server.key',
      'nats-auth/storage.password',
      'nats-auth/authorization.conf',
      'tokens.csv',
      'admin-token',
      'kubeconfig',
    ])
      assert.ok(existsSync(path.join(d, f)), f);
    assert.equal(existsSync(path.join(d, 'nats')), false);
  });
});

describe('local-up processes', { timeout: 120_000 }, () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'platform-local-up-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('local-up - starts NATS and every service in order, stops all on SIGTERM, exits 0, reuses its NATS port', async () => {
    const local = path.join(dir, 'a');
    const rec = path.join(dir, 'rec');
    await rm(rec, { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(rec));
    const port = await freePort();
    const controllersPort = await freePort();
    const env = { PLATFORM_LOCAL_DIR: local, PLATFORM_PORT: String(port), FAKE_RECORD_DIR: rec, PLATFORM_CONTROLLERS_PORT: String(controllersPort) };
    const run = startLocalUp(env);
    await run.waitFor(/Ctrl-C stops everything/);
    const out = run.output();
    assert.match(out, new RegExp(`API +https://127\\.0\\.0\\.1:${port}`));
    assert.match(out, new RegExp(`controllers https://127\\.0\\.0\\.1:${controllersPort}/readyz`), "the controllers' health port is printed");
    assert.ok((await recorded(rec, 'controllers'))[0]?.argv.includes(`--secure-port=${controllersPort}`), 'the port is passed as --secure-port');
    // An API client of the gateway: started once the gateway is up, so its first requests are not refused.
    assert.ok(out.indexOf('gateway: up') < out.indexOf('controllers: up'), out);
    assert.match(out, /NATS +nats:\/\/127\.0\.0\.1:\d+ \(nats-server pid \d+/);
    assert.match(out, new RegExp(`export KUBECONFIG=${local.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/kubeconfig`));
    assert.match(out, /kubectl get ns/);
    assert.match(out, /curl --cacert .*ca\.crt -H "Authorization: Bearer \$\(cat .*admin-token\)"/);
    // Log lines of each child carry its name.
    for (const name of ['storage', 'authn', 'authz', 'admission', 'gateway']) assert.match(out, new RegExp(`${name} *\\| ${name}: up`));
    const natsPort = Number((await readFile(path.join(local, 'nats-port'), 'utf8')).trim());
    assert.ok(out.includes(`nats://127.0.0.1:${natsPort}`));
    const pids: number[] = [];
    assert.match(out, /TLS \(CA .*ca\.crt\), one user per service/);
    for (const name of ['storage', 'authn', 'authz', 'admission', 'gateway']) {
      const [r] = await recorded(rec, name);
      assert.ok(r!.argv.some((a) => a.startsWith('--nats-url=nats://127.0.0.1:')));
      // The fakes connected with these (the local nats-server refuses anything else) and answered $SRV.PING.
      assert.ok(r!.argv.includes(`--nats-user=platform-${name}`), `${name} as its own NATS user`);
      pids.push(r!.pid);
      assert.ok(out.includes(`pid ${r!.pid}`), `${name} pid printed`);
    }
    assert.ok((await recorded(rec, 'authz'))[0]!.argv.includes('--authorization-mode=Node,RBAC'));
    assert.ok((await recorded(rec, 'admission'))[0]!.argv.includes('--enable-admission-plugins=NodeRestriction'));
    const natsPid = Number(/nats-server pid (\d+)/.exec(out)![1]);

    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 0, run.output());
    for (const pid of [...pids, natsPid]) assert.equal(alive(pid), false, `pid ${pid} stopped`);
    assert.ok(existsSync(path.join(local, 'nats', 'jetstream')));

    const again = startLocalUp(env);
    await again.waitFor(/Ctrl-C stops everything/);
    assert.ok(again.output().includes(`nats://127.0.0.1:${natsPort}`), 'same NATS port after restart');
    again.child.kill('SIGINT');
    assert.equal(await again.exited, 0, again.output());
  });

  test('local-up - a crashing service stops the rest and exits non-zero', async () => {
    const rec = path.join(dir, 'rec2');
    await import('node:fs/promises').then((fs) => fs.mkdir(rec, { recursive: true }));
    const run = startLocalUp({ PLATFORM_LOCAL_DIR: path.join(dir, 'b'), PLATFORM_PORT: String(await freePort()), FAKE_CRASH: 'authz', FAKE_RECORD_DIR: rec });
    const code = await run.exited;
    assert.notEqual(code, 0);
    assert.match(run.output(), /authz exited unexpectedly \(code 3\); stopping everything/);
    const storage = (await recorded(rec, 'storage'))[0]!;
    assert.equal(alive(storage.pid), false);
    assert.equal(existsSync(path.join(rec, 'gateway.args')), false, 'gateway never started');
  });

  test('local-up - a service that dies after bring-up is restarted with back-off; the rest keep running', async () => {
    const rec = path.join(dir, 'rec3');
    await import('node:fs/promises').then((fs) => fs.mkdir(rec, { recursive: true }));
    const run = startLocalUp({ PLATFORM_LOCAL_DIR: path.join(dir, 'e'), PLATFORM_PORT: String(await freePort()), FAKE_RECORD_DIR: rec });
    await run.waitFor(/Ctrl-C stops everything/);
    process.kill((await recorded(rec, 'authz'))[0]!.pid, 'SIGUSR2');
    await run.waitFor(/authz exited unexpectedly \(code 4\); restarting it in 1 s \(restart 1\)/);
    try {
      await run.waitFor(/authz restarted \(pid \d+\)/);
      // The new process records itself once it has started.
      await run.waitFor(/authz +\| authz: up[\s\S]*authz +\| authz: up/);
      const [first, second] = await recorded(rec, 'authz');
      assert.ok(second && second.pid !== first!.pid, 'a second authz process was started');
      assert.equal(alive(second.pid), true);
      const storage = (await recorded(rec, 'storage'))[0]!;
      assert.equal(alive(storage.pid), true, 'the other services were left running');
      run.child.kill('SIGINT');
      assert.equal(await run.exited, 0, run.output());
      assert.equal(alive(second.pid), false);
    } finally {
      run.child.kill('SIGINT');
    }
  });

  test('local-up - killed with SIGKILL, it leaves no service and no nats-server running', async () => {
    const rec = path.join(dir, 'rec4');
    await import('node:fs/promises').then((fs) => fs.mkdir(rec, { recursive: true }));
    const run = startLocalUp({ PLATFORM_LOCAL_DIR: path.join(dir, 'f'), PLATFORM_PORT: String(await freePort()), FAKE_RECORD_DIR: rec });
    await run.waitFor(/Ctrl-C stops everything/);
    const natsPid = Number(/nats-server pid (\d+)/.exec(run.output())![1]);
    const pids = [natsPid];
    for (const name of ['storage', 'authn', 'authz', 'admission', 'gateway']) pids.push((await recorded(rec, name))[0]!.pid);
    run.child.kill('SIGKILL');
    await run.exited;
    const until = Date.now() + 15_000;
    while (pids.some(alive) && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(pids.filter(alive), [], 'processes still running after npm start was killed');
  });

  /** Starts local-up with the controllers' bind held back; takes the port they were given before letting them bind it. */
  const raceForControllersPort = async (sub: string, env: Record<string, string> = {}) => {
    const rec = path.join(dir, `rec-${sub}`);
    await import('node:fs/promises').then((fs) => fs.mkdir(rec, { recursive: true }));
    const gate = path.join(dir, `bind-${sub}`);
    const run = startLocalUp({ PLATFORM_LOCAL_DIR: path.join(dir, sub), PLATFORM_PORT: String(await freePort()), FAKE_RECORD_DIR: rec, FAKE_CONTROLLERS_BIND_AFTER: gate, ...env });
    const controllers = async () => recorded(rec, 'controllers').catch(() => [] as Array<{ pid: number; argv: string[] }>);
    for (let i = 0; i < 300 && !(await controllers()).length; i++) await new Promise((r) => setTimeout(r, 100));
    const portOf = (r: { argv: string[] } | undefined) => Number(r?.argv.find((a) => a.startsWith('--secure-port='))?.split('=')[1]);
    const chosen = portOf((await controllers())[0]);
    assert.ok(chosen > 0, `the controllers were started with a port:\n${run.output()}`);
    // Another program takes the port after local-up checked it and before the controllers bind it.
    const thief = net.createServer();
    await new Promise<void>((resolve, reject) => thief.once('error', reject).listen(chosen, '127.0.0.1', resolve));
    await writeFile(gate, '');
    return { run, chosen, thief, bound: async () => portOf((await controllers()).at(-1)) };
  };

  test("local-up - the controllers' port taken before they bind it: they bind another one, which is the one printed", async () => {
    const { run, chosen, thief, bound } = await raceForControllersPort('g');
    try {
      await run.waitFor(/Ctrl-C stops everything/);
      const out = run.output();
      assert.match(out, new RegExp(`port ${chosen} was taken before controllers could bind it; starting controllers on \\d+`));
      const port = await bound();
      assert.notEqual(port, chosen);
      assert.match(out, new RegExp(`controllers https://127\\.0\\.0\\.1:${port}/readyz`), 'the port bound is printed');
      assert.doesNotMatch(out, new RegExp(`127\\.0\\.0\\.1:${chosen}/readyz`));
      const body = await new Promise<string>((resolve, reject) => {
        https
          .get(`https://127.0.0.1:${port}/readyz`, { rejectUnauthorized: false, agent: false }, (res) => {
            let b = '';
            res.on('data', (d) => (b += d));
            res.on('end', () => resolve(b));
          })
          .on('error', reject);
      });
      assert.equal(body, 'ok', 'the controllers serve on the printed port');
      run.child.kill('SIGINT');
      assert.equal(await run.exited, 0, run.output());
    } finally {
      run.child.kill('SIGINT');
      thief.close();
    }
  });

  test('local-up - a PLATFORM_CONTROLLERS_PORT taken before the controllers bind it stops bring-up with a clear message', async () => {
    const { run, chosen, thief } = await raceForControllersPort('h', { PLATFORM_CONTROLLERS_PORT: String(await freePort()) });
    try {
      assert.equal(await run.exited, 1, run.output());
      assert.match(run.output(), new RegExp(`controllers: port ${chosen} is in use — set another one; stopping everything`));
    } finally {
      run.child.kill('SIGINT');
      thief.close();
    }
  });

  test('local-up - gives up with a clear message when /readyz never answers 200', async () => {
    const run = startLocalUp({ PLATFORM_LOCAL_DIR: path.join(dir, 'c'), PLATFORM_PORT: String(await freePort()), FAKE_READYZ_STATUS: '500', PLATFORM_READY_TIMEOUT_SECONDS: '2' });
    assert.equal(await run.exited, 1);
    assert.match(run.output(), /readyz did not answer 200 within 2 s \(last: HTTP 500/);
  });

  test('local-up - a missing service main is reported and nothing is left running', async () => {
    const run = startLocalUp({ PLATFORM_LOCAL_DIR: path.join(dir, 'd'), PLATFORM_PORT: String(await freePort()), PLATFORM_LOCAL_SERVICES_DIR: path.join(dir, 'nowhere') });
    assert.equal(await run.exited, 1);
    assert.match(run.output(), /nowhere\/storage\/main\.ts does not exist/);
  });
});

test('service - unknown name prints usage and exits 2', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/service.ts', 'nope'], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unknown service "nope"/);
  assert.match(r.stderr, /names: storage, authn, authz, admission, gateway/);
});

test('service - finds mains by name only', () => {
  assert.equal(serviceMain('../scripts/local-up'), undefined);
  assert.equal(serviceMain('nope'), undefined);
  for (const name of SERVICES) {
    const main = serviceMain(name);
    if (main) assert.equal(main, path.join(root, 'services', name, 'main.ts'));
  }
});
