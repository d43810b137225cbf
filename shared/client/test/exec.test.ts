import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ExecCredentials, ExecPluginError, execInfo, parseExecOutput, runExecPlugin } from '../exec.js';
import { parseClientConfig, type ExecConfig } from '../config.js';

const V1 = 'client.authentication.platform.io/v1';

describe('exec credential plugins', () => {
  let dir: string;
  let plugin: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'exec-'));
    plugin = path.join(dir, 'cred');
    // Counts its runs, records PLATFORM_EXEC_INFO and MODE, answers as $MODE says.
    await writeFile(
      plugin,
      `#!/usr/bin/env node
const fs = require('fs');
const dir = ${JSON.stringify(dir)};
const n = (fs.existsSync(dir + '/runs') ? Number(fs.readFileSync(dir + '/runs', 'utf8')) : 0) + 1;
fs.writeFileSync(dir + '/runs', String(n));
fs.writeFileSync(dir + '/info', process.env.PLATFORM_EXEC_INFO || '');
const mode = process.env.MODE;
const api = process.env.API || '${V1}';
if (mode === 'fail') { console.error('no credentials for you'); process.exit(3); }
if (mode === 'garbage') { process.stdout.write('not json'); process.exit(0); }
const status = mode === 'cert' ? { clientCertificateData: 'CERT-' + n, clientKeyData: 'KEY-' + n } : { token: 'tok-' + n };
if (process.env.EXPIRES) status.expirationTimestamp = process.env.EXPIRES;
process.stdout.write(JSON.stringify({ apiVersion: api, kind: 'ExecCredential', status }));
`,
    );
    await chmod(plugin, 0o755);
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  const cfg = (env: Record<string, string> = {}, extra: Partial<ExecConfig> = {}): ExecConfig => ({
    command: plugin,
    args: [],
    env: Object.entries(env).map(([name, value]) => ({ name, value })),
    apiVersion: V1,
    provideClusterInfo: false,
    interactiveMode: 'Never',
    ...extra,
  });
  const runs = async () => Number(await readFile(path.join(dir, 'runs'), 'utf8'));

  it('the plugin is told the apiVersion, interactivity and (when asked) the cluster; its env entries are set', async () => {
    const cluster = { server: 'https://api:6443', certificateAuthorityData: 'Q0E=', tlsServerName: 'api' };
    const s = await runExecPlugin(cfg({ MODE: 'token' }, { provideClusterInfo: true }), cluster, { terminal: false });
    assert.match(s.token!, /^tok-\d+$/);
    assert.deepEqual(JSON.parse(await readFile(path.join(dir, 'info'), 'utf8')), {
      apiVersion: V1,
      kind: 'ExecCredential',
      spec: { interactive: false, cluster: { server: 'https://api:6443', 'tls-server-name': 'api', 'certificate-authority-data': 'Q0E=' } },
    });
    assert.deepEqual(execInfo(cfg(), cluster, true), { apiVersion: V1, kind: 'ExecCredential', spec: { interactive: true } }, 'no cluster unless asked');
  });

  it("the plugin gets the cluster's client.authentication.platform.io/exec extension as spec.cluster.config", async () => {
    const file = parseClientConfig(
      `clusters:
- name: c
  cluster:
    server: https://api:6443
    extensions:
    - name: other.example.com/ext
      extension: {ignored: true}
    - name: client.authentication.platform.io/exec
      extension:
        audience: https://api.example.com
        region: [eu-1, eu-2]
`,
      path.join(dir, 'config'),
    );
    await runExecPlugin(cfg({ MODE: 'token' }, { provideClusterInfo: true }), file.clusters.get('c'), { terminal: false });
    const info = JSON.parse(await readFile(path.join(dir, 'info'), 'utf8')) as { spec: { cluster: Record<string, unknown> } };
    assert.deepEqual(info.spec.cluster, { server: 'https://api:6443', config: { audience: 'https://api.example.com', region: ['eu-1', 'eu-2'] } });
    assert.throws(() => parseClientConfig('clusters:\n- name: c\n  cluster: {server: https://a, extensions: {x: 1}}\n', '/c'), /cluster "c": extensions must be a list/);
  });

  it('credentials are reused until they expire, and run again after a 401', async () => {
    let now = Date.parse('2026-11-25T10:00:00Z');
    const ec = new ExecCredentials(cfg({ MODE: 'token', EXPIRES: '2026-11-25T10:05:00Z' }), undefined, { terminal: false, now: () => now });
    const first = await ec.headers();
    assert.deepEqual(await ec.headers(), first, 'cached');
    const before = await runs();
    now += 6 * 60_000;
    const renewed = await ec.headers();
    assert.notDeepEqual(renewed, first);
    assert.equal(await runs(), before + 1);
    ec.invalidate();
    assert.notDeepEqual(await ec.headers(), renewed);
    const certs = new ExecCredentials(cfg({ MODE: 'cert' }), undefined, { terminal: false });
    assert.match((await certs.clientCert())!.certPem, /^CERT-/);
    assert.deepEqual(await certs.headers(), {}, 'a certificate, no bearer token');
  });

  it('failures say what went wrong: a missing command shows its install hint, a failing one its last error line, bad output is refused', async () => {
    await assert.rejects(
      runExecPlugin(cfg({}, { command: path.join(dir, 'missing'), installHint: 'get it from example.com' }), undefined, { terminal: false }),
      (e: Error) => e instanceof ExecPluginError && /not found\n\nget it from example\.com/.test(e.message),
    );
    await assert.rejects(runExecPlugin(cfg({ MODE: 'fail' }), undefined, { terminal: false }), /exited with 3: no credentials for you/);
    await assert.rejects(runExecPlugin(cfg({ MODE: 'garbage' }), undefined, { terminal: false }), /not JSON/);
    await assert.rejects(
      runExecPlugin(cfg({ MODE: 'token', API: 'client.authentication.platform.io/v1beta1' }), undefined, { terminal: false }),
      /configured for client\.authentication\.platform\.io\/v1/,
    );
    await assert.rejects(runExecPlugin(cfg({}, { interactiveMode: 'Always' }), undefined, { terminal: false }), /interactiveMode is Always but there is no terminal/);
    const bad: Array<[unknown, RegExp]> = [
      [{ apiVersion: V1, kind: 'ExecCredential', status: {} }, /neither a token nor a client certificate/],
      [{ apiVersion: V1, kind: 'ExecCredential', status: { clientCertificateData: 'C' } }, /go together/],
      [{ apiVersion: V1, kind: 'ExecCredential', status: { token: 't', expirationTimestamp: 'soon' } }, /not a time/],
      [{ apiVersion: V1, kind: 'Other', status: { token: 't' } }, /not ExecCredential/],
    ];
    for (const [out, want] of bad) assert.throws(() => parseExecOutput(JSON.stringify(out), cfg()), want);
  });
});
