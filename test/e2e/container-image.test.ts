// The image as it ships (deploy/Dockerfile): built, its `local-up --init-only` writing the
// credentials as compose's `init` does, NATS (TLS and the per-service users) in a container, and
// storage, authn, authz, admission and the gateway each in a container of the image on a
// user-defined network, every one non-root on a read-only root file system; kubectl drives the
// gateway through its published port. Skipped when no Docker engine answers or the base image is
// missing (scripts/containers.sh provides both where no registry is reachable).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, natsConfig } from '../../shared/local/nats-server.js';
import { findKubectl, Kubectl } from '../support/kubectl.js';
import { containersUnavailable, docker } from '../support/docker.js';
import { eventually, uniq } from './helpers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const IMAGE = process.env.PLATFORM_TEST_IMAGE ?? 'platform-apiserver:dev';
const NATS_IMAGE = process.env.PLATFORM_TEST_NATS_IMAGE ?? 'nats:2.10-alpine';
const SERVICES = ['storage', 'authn', 'authz', 'admission', 'gateway'] as const;

const skip = await containersUnavailable(['node:20-bookworm-slim', NATS_IMAGE]);

describe('container image', { skip }, () => {
  const id = uniq('img').toLowerCase();
  const network = `platform-${id}`;
  const name = (s: string) => `platform-${id}-${s}`;
  let dir: string;
  let port: number;
  let kubectl: Kubectl;
  // As compose does with PLATFORM_UID: the test's own user, or the image's `node` when that is root.
  const user = process.getuid?.() ? `${process.getuid!()}:${process.getgid!()}` : '1000:1000';

  const platform = (service: string, env: Record<string, string>, extra: string[] = []) =>
    docker([
      'run',
      '-d',
      '--name',
      name(service),
      '--network',
      network,
      '--read-only',
      '--user',
      user,
      '-v',
      `${dir}/local:/local:ro`,
      ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
      ...extra,
      IMAGE,
      service,
    ]);

  before(async () => {
    // The build is cached layer by layer: after the first, it recompiles only what changed.
    await docker(['build', '-q', '-f', 'deploy/Dockerfile', '-t', IMAGE, ROOT], 900_000).catch((err: Error & { stderr?: string }) => {
      throw new Error(`docker build failed: ${err.stderr ?? err.message}`);
    });
    dir = await mkdtemp(path.join(os.tmpdir(), 'platform-image-'));
    await mkdir(`${dir}/local`);
    await chmod(`${dir}/local`, 0o777);
    port = await freePort();
    await docker(['network', 'create', network]);
    await docker([
      'run',
      '--rm',
      '--read-only',
      '--user',
      user,
      '-v',
      `${dir}/local:/local`,
      '-e',
      'PLATFORM_LOCAL_DIR=/local',
      '-e',
      `PLATFORM_PORT=${port}`,
      '-e',
      'PLATFORM_CERT_SANS=gateway',
      '--entrypoint',
      'node',
      IMAGE,
      'dist/scripts/local-up.js',
      '--init-only',
    ]);
    // The configuration the local server runs (JetStream, max_payload) with compose's TLS and users.
    await writeFile(
      `${dir}/nats.conf`,
      natsConfig({
        port: 4222,
        host: '0.0.0.0',
        storeDir: '/data',
        tls: { certFile: '/etc/nats/local/pki/nats-server.crt', keyFile: '/etc/nats/local/pki/nats-server.key' },
        include: 'local/nats-auth/authorization.conf',
      }),
    );
    await docker([
      'run',
      '-d',
      '--name',
      name('nats'),
      '--network',
      network,
      '--network-alias',
      'nats',
      '-v',
      `${dir}/local:/etc/nats/local:ro`,
      '-v',
      `${dir}/nats.conf:/etc/nats/platform.conf:ro`,
      NATS_IMAGE,
      '-c',
      '/etc/nats/platform.conf',
    ]);
    const bus = (role: string) => ({
      PLATFORM_NATS_URL: 'nats://nats:4222',
      PLATFORM_NATS_TLS_CA_FILE: '/local/pki/ca.crt',
      PLATFORM_NATS_USER: `platform-${role}`,
      PLATFORM_NATS_PASSWORD_FILE: `/local/nats-auth/${role}.password`,
    });
    await platform('storage', bus('storage'));
    await platform('authn', { ...bus('authn'), PLATFORM_TOKEN_AUTH_FILE: '/local/tokens.csv', PLATFORM_CLIENT_CA_FILE: '/local/pki/ca.crt' });
    await platform('authz', { ...bus('authz'), PLATFORM_AUTHORIZATION_MODE: 'Node,RBAC' });
    await platform('admission', bus('admission'));
    await platform(
      'gateway',
      {
        ...bus('gateway'),
        PLATFORM_SECURE_PORT: '6443',
        PLATFORM_BIND_ADDRESS: '0.0.0.0',
        PLATFORM_TLS_CERT_FILE: '/local/pki/serving.crt',
        PLATFORM_TLS_PRIVATE_KEY_FILE: '/local/pki/serving.key',
        PLATFORM_CLIENT_CA_FILE: '/local/pki/ca.crt',
      },
      ['-p', `127.0.0.1:${port}:6443`],
    );
    kubectl = new Kubectl(findKubectl()!, `${dir}/local/kubeconfig`);
    await eventually(
      'the gateway answers kubectl',
      async () => {
        const r = await kubectl.run(['get', '--raw', '/readyz']);
        assert.equal(r.code, 0, r.stderr);
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    ).catch(async (err: Error) => {
      const logs = await Promise.all(['nats', ...SERVICES].map(async (s) => `--- ${s}\n${await docker(['logs', '--tail', '15', name(s)]).catch(() => '')}`));
      throw new Error(`${err.message}\n${logs.join('\n')}`);
    });
  });

  after(async () => {
    if (dir === undefined) return;
    const all = ['nats', ...SERVICES].map(name);
    await docker(['rm', '-f', '-v', ...all]).catch(() => undefined);
    await docker(['network', 'rm', network]).catch(() => undefined);
    // Files the containers wrote as another user: removed from a container that may.
    await docker(['run', '--rm', '-v', `${dir}:/d`, '--entrypoint', 'sh', IMAGE, '-c', 'rm -rf /d/local']).catch(() => undefined);
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  });

  it('container image - kubectl lists the namespaces', async () => {
    const r = await kubectl.run(['get', 'ns', '-o', 'name']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^namespace\/default$/m);
  });

  it('container image - kubectl creates a config map and reads it back', async () => {
    const created = await kubectl.run(['create', 'configmap', 'from-image', '--from-literal=greeting=hello']);
    assert.equal(created.code, 0, created.stderr);
    const got = await kubectl.run(['get', 'configmap', 'from-image', '-o', 'jsonpath={.data.greeting}']);
    assert.equal(got.code, 0, got.stderr);
    assert.equal(got.stdout, 'hello');
  });

  it('container image - every service runs as a non-root user on a read-only root and reports healthy', async () => {
    for (const s of SERVICES) {
      const uid = await docker(['exec', name(s), 'id', '-u']);
      assert.notEqual(uid, '0', `${s} runs as root`);
      assert.equal(await docker(['inspect', '--format', '{{.HostConfig.ReadonlyRootfs}}', name(s)]), 'true');
    }
    // The image's HEALTHCHECK, whichever service the container runs.
    await eventually(
      'every service is healthy',
      async () => {
        for (const s of SERVICES) assert.equal(await docker(['inspect', '--format', '{{.State.Health.Status}}', name(s)]), 'healthy', s);
      },
      { timeoutMs: 60_000, intervalMs: 1_000 },
    );
  });

  it('container image - docker stop ends each service gracefully within seconds', async () => {
    for (const s of ['gateway', 'storage'] as const) {
      const t0 = Date.now();
      await docker(['stop', '-t', '20', name(s)]);
      const ms = Date.now() - t0;
      const code = await docker(['inspect', '--format', '{{.State.ExitCode}}', name(s)]);
      assert.equal(code, '0', `${s} exited with ${code}: ${await docker(['logs', '--tail', '5', name(s)]).catch(() => '')}`);
      assert.ok(ms < 10_000, `${s} took ${ms} ms to stop`);
      assert.match(await docker(['logs', '--tail', '5', name(s)]).then(String, () => ''), /"msg":"stopping"|SIGTERM/);
    }
  });
});
