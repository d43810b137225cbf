// Test harness: a real NATS with JetStream per suite. Uses NATS_URL when given, a container when a
// Docker engine answers and holds the image (nats-container.ts: never a pull), and otherwise
// spawns nats-server (found by shared/local/nats-server-binary.ts) on a free port with a temporary
// store. The broker is never mocked. startSecureTestNats runs one with TLS and the per-service
// users, as `npm start` does.

import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { connectBus, type BusConnectOptions } from '../../shared/bus/connect.js';
import type { NatsConnection } from '@nats-io/nats-core';
import { natsConfig, startLocalNats } from '../../shared/local/nats-server.js';
import { createCA, issueClientCert, issueServingCert, type CertificateAuthority } from '../../shared/local/pki.js';
import { NATS_USER_ROLES, NatsUser, natsPermissions, userInboxPrefix, type NatsUserRole } from '../../shared/bus/permissions.js';
import { DEFAULT_BUCKET } from '../../shared/api/groups.js';
import { containerNatsChoice, startContainerNats } from './nats-container.js';

export interface TestNats {
  url: string;
  connect(name?: string): Promise<NatsConnection>;
  /**
   * Stops the server and starts it again on the same port and store (local servers only), after
   * `whileDown` when given.
   */
  restart?(whileDown?: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

/** `npm run test:unit` promises no broker: a test that needs one belongs in test/integration/ (or beside its service). */
function refuseInUnitRun(): void {
  if (process.env.PLATFORM_TEST_UNIT) throw new Error('this test starts NATS, but unit tests (npm run test:unit, shared/**) run without one: move it to test/integration/');
}

export async function startTestNats(): Promise<TestNats> {
  refuseInUnitRun();
  const conns: NatsConnection[] = [];
  const connectTo =
    (url: string) =>
    async (name = 'test') => {
      const nc = await connectBus({ url, name });
      conns.push(nc);
      return nc;
    };
  const closeAll = async () => {
    await Promise.all(conns.map((c) => c.close().catch(() => undefined)));
  };

  if (process.env.NATS_URL) {
    const url = process.env.NATS_URL;
    return { url, connect: connectTo(url), stop: closeAll };
  }

  const image = await containerNatsChoice();
  if (image) {
    // The same configuration as the local server's (JetStream, max_payload), listening on all of
    // the container's interfaces.
    const server = await startContainerNats(image, natsConfig({ port: 4222, storeDir: '/data', host: '0.0.0.0' }));
    return {
      url: server.url,
      connect: connectTo(server.url),
      restart: server.restart,
      stop: async () => {
        await closeAll();
        await server.stop();
      },
    };
  }

  const dir = await mkdtemp(path.join(os.tmpdir(), 'platform-nats-'));
  let server = await startLocalNats(dir);
  return {
    url: server.url,
    connect: connectTo(server.url),
    restart: async (whileDown) => {
      await server.stop();
      await whileDown?.();
      server = await startLocalNats(dir, { port: server.port });
    },
    stop: async () => {
      await closeAll();
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A user of a secured test NATS: its name, password, and the files a service's flags name. */
export interface SecureNatsUser {
  user: string;
  password: string;
  passwordFile: string;
}

export interface SecureTestNats {
  url: string;
  /** The CA that signed the server's certificate (and the client certificates). */
  ca: CertificateAuthority;
  caFile: string;
  dir: string;
  users: Record<NatsUserRole, SecureNatsUser>;
  /** With `verifyClients`: a client certificate (CN platform-client) every connection must present. */
  clientCert?: { certFile: string; keyFile: string };
  /** The `--nats-*` flags of a service running as `role`. */
  flags(role: NatsUserRole): string[];
  /** Connects as `role` with TLS (and the client certificate when required), as connectBus would for that service. */
  connectAs(role: NatsUserRole, name?: string): Promise<NatsConnection>;
  /** Connects with exactly these options (TLS, credentials or none): for denials. */
  connectWith(o: Omit<BusConnectOptions, 'url' | 'name'> & { name?: string; timeoutMs?: number }): Promise<NatsConnection>;
  /** nats-server's log so far (permission violations are logged as errors). */
  log(): string;
  stop(): Promise<void>;
}

/**
 * A nats-server as `npm start` runs it: TLS required (a certificate of a fresh CA for 127.0.0.1),
 * one user per service with shared/bus/permissions.ts's permissions for `bucket`, and with
 * `verifyClients` a client certificate required too. Always a local process: the configuration
 * names files on this machine.
 */
export async function startSecureTestNats(opts: { bucket?: string; verifyClients?: boolean } = {}): Promise<SecureTestNats> {
  refuseInUnitRun();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'platform-secure-nats-'));
  const ca = await createCA('platform-test-nats-ca');
  const server = await issueServingCert(ca, { commonName: 'platform-nats' });
  const write = async (name: string, data: string) => {
    const file = path.join(dir, name);
    await writeFile(file, data, { mode: 0o600 });
    return file;
  };
  const caFile = await write('ca.crt', ca.certPem);
  const tls = { certFile: await write('server.crt', server.certPem), keyFile: await write('server.key', server.keyPem), caFile, verifyClients: opts.verifyClients ?? false };
  let clientCert: SecureTestNats['clientCert'];
  if (opts.verifyClients) {
    const c = await issueClientCert(ca, { commonName: 'platform-client' });
    clientCert = { certFile: await write('client.crt', c.certPem), keyFile: await write('client.key', c.keyPem) };
  }
  const permissions = natsPermissions(opts.bucket ?? DEFAULT_BUCKET);
  const users = {} as Record<NatsUserRole, SecureNatsUser>;
  for (const role of NATS_USER_ROLES) {
    const password = randomBytes(16).toString('hex');
    users[role] = { user: NatsUser[role], password, passwordFile: await write(`${role}.password`, `${password}\n`) };
  }
  let log = '';
  const nats = await startLocalNats(path.join(dir, 'nats'), {
    tls,
    users: NATS_USER_ROLES.map((role) => ({ user: users[role].user, password: users[role].password, permissions: permissions[role] })),
    bucket: opts.bucket ?? DEFAULT_BUCKET,
    log: (line) => (log += line),
  });
  const conns: NatsConnection[] = [];
  const tlsOf = () => ({ caFile, ...(clientCert ?? {}) });
  const connectWith: SecureTestNats['connectWith'] = async ({ name, timeoutMs, ...o }) => {
    const nc = await connect({
      servers: nats.url,
      name: name ?? 'test',
      maxReconnectAttempts: 0,
      // A refused handshake may only show as silence: fail fast rather than after nats.js's 20 s.
      timeout: timeoutMs ?? 3_000,
      ...(o.user !== undefined ? { user: o.user, pass: o.password ?? '' } : {}),
      tls: o.tls === undefined ? null : { ...o.tls },
      ...(o.inboxPrefix ? { inboxPrefix: o.inboxPrefix } : {}),
    });
    conns.push(nc);
    return nc;
  };
  return {
    url: nats.url,
    ca,
    caFile,
    dir,
    users,
    ...(clientCert ? { clientCert } : {}),
    flags: (role) => [
      `--nats-url=${nats.url}`,
      `--nats-user=${users[role].user}`,
      `--nats-password-file=${users[role].passwordFile}`,
      `--nats-tls-ca-file=${caFile}`,
      ...(clientCert ? [`--nats-tls-cert-file=${clientCert.certFile}`, `--nats-tls-key-file=${clientCert.keyFile}`] : []),
    ],
    connectAs: async (role, name) => {
      const nc = await connectBus({
        url: nats.url,
        name: name ?? `test-${role}`,
        user: users[role].user,
        password: users[role].password,
        tls: tlsOf(),
        inboxPrefix: userInboxPrefix(users[role].user),
      });
      conns.push(nc);
      return nc;
    },
    connectWith,
    log: () => log,
    stop: async () => {
      await Promise.all(conns.map((c) => c.close().catch(() => undefined)));
      await nats.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
