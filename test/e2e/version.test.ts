// End to end: the version the server reports. `/version` and `kubectl version` name the API level
// served (the reference release, 1.24); a gateway started as a user starts it with
// `--emulated-version=1.28` reports 1.28 instead; a bad value stops the start with its reason.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gatewayTls, startTestCluster, type TestCluster } from '../support/cluster.js';
import { cleanEnv, exitWithin, spawnProcess, tail, type Proc } from '../support/processes.js';
import { findKubectl, Kubectl, kubectlOk } from '../support/kubectl.js';
import { freePort } from '../../shared/local/nats-server.js';
import { assertOk } from './helpers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = findKubectl();
const noKubectl = bin ? false : 'kubectl not on PATH';

function startGateway(flags: string[]): Proc {
  return spawnProcess(['--import', 'tsx', 'services/gateway/main.ts', ...flags], { cwd: root, env: cleanEnv(), ipc: false });
}

/** `kubectl version -o json` against a kubeconfig: the server's version, and what kubectl printed on stderr. */
async function kubectlVersion(kubeconfig: string): Promise<{ server: Record<string, string>; stderr: string }> {
  const kubectl = new Kubectl(bin!, kubeconfig);
  const r = await kubectl.run(['version', '-o', 'json']);
  return { server: JSON.parse(kubectlOk(r)).serverVersion, stderr: r.stderr };
}

describe('version', { timeout: 120_000 }, () => {
  let c: TestCluster;
  const procs: Proc[] = [];
  before(async () => {
    c = await startTestCluster();
  });
  after(async () => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await c?.stop();
  });

  it('version - /version reports the API level served: 1.24, the implementation as build metadata, Node as the toolchain', async () => {
    const v = assertOk(await c.request('GET', '/version'));
    assert.deepEqual([v.major, v.minor, v.gitVersion], ['1', '24', 'v1.24.0+platform.0.1.0']);
    assert.equal(v.goVersion, `node${process.version.slice(1)}`);
    const openapi = assertOk(await c.request('GET', '/openapi/v2'));
    assert.equal(openapi.info.version, 'v1.24.0+platform.0.1.0');
  });

  it('version - kubectl version -o json shows the server at 1.24', { skip: noKubectl }, async () => {
    const { server, stderr } = await kubectlVersion(c.kubeconfigPath);
    assert.deepEqual([server.major, server.minor, server.gitVersion], ['1', '24', 'v1.24.0+platform.0.1.0']);
    // kubectl's own skew check, as against any 1.24 server: a client more than one minor away is warned.
    const client = JSON.parse(kubectlOk(await new Kubectl(bin!, c.kubeconfigPath).run(['version', '--client', '-o', 'json']))).clientVersion;
    if (Math.abs(parseInt(client.minor, 10) - 24) > 1) assert.match(stderr, /exceeds the supported minor version skew of \+\/-1/);
  });

  it('version - a gateway started with --emulated-version=1.28 reports 1.28 to kubectl version', { skip: noKubectl }, async () => {
    const port = await freePort();
    const tls = await gatewayTls(c, path.dirname(c.kubeconfigPath));
    const gw = startGateway([`--nats-url=${c.nats.url}`, `--secure-port=${port}`, ...tls.args, '--emulated-version=1.28']);
    procs.push(gw);
    await gw.waitFor(/gateway serving/, 60_000);
    assert.match(gw.output(), /--emulated-version=1\.28: \/version reports v1\.28\.0\+platform\.0\.1\.0; the API served is still 1\.24's/);
    // HTTPS: kubectl sends no bearer token over plain HTTP, and anonymous is refused under AlwaysAllow.
    const kubeconfig = await tls.kubeconfig(`https://127.0.0.1:${port}`, 'emulated.kubeconfig');
    const { server } = await kubectlVersion(kubeconfig);
    assert.deepEqual([server.major, server.minor, server.gitVersion], ['1', '28', 'v1.28.0+platform.0.1.0']);
    gw.child.kill('SIGTERM');
    assert.ok(await exitWithin(gw, 10_000), tail(gw.output()));
  });

  it('version - a bad --emulated-version stops the gateway at start with exit code 2 and its reason', async () => {
    const rows: Array<[string, RegExp]> = [
      ['1.28.3', /gateway: --emulated-version: "1\.28\.3" is not a release of the form <major>\.<minor> \(for example 1\.24\)/],
      ['2.0', /gateway: --emulated-version: major version 2 does not exist/],
    ];
    for (const [value, message] of rows) {
      const gw = startGateway([`--nats-url=${c.nats.url}`, `--secure-port=${await freePort()}`, `--emulated-version=${value}`]);
      procs.push(gw);
      const status = await exitWithin(gw, 30_000);
      assert.equal(status?.code, 2, gw.output());
      assert.match(gw.output(), message);
    }
  });
});
