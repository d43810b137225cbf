// Spawns a local nats-server with JetStream for `npm start` and the test suites, and writes the
// configuration files NATS runs with (here and in docker compose): TLS, and one user per service
// with the permissions of shared/bus/permissions.ts. The binary is found by nats-server-binary.ts
// (PATH, then /usr/sbin where Debian's package puts it, or NATS_SERVER_BIN). max_payload is raised
// because objects may be 1.5 MB and request bodies 3 MiB.

import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { BUS_ACCOUNT, STORE_ACCOUNT, STORE_MAX_CONSUMERS, natsStoreServices, type NatsPermissions } from '../bus/permissions.js';
import { DEFAULT_BUCKET } from '../api/groups.js';
import { streamName } from '../bus/streams.js';
import { changeLogStream } from '../bus/streams.js';
import { natsServerBinary } from './nats-server-binary.js';

export const NATS_MAX_PAYLOAD = 8 * 1024 * 1024;

/** The server's TLS: its certificate and key, and the CA that client certificates must chain to when `verifyClients`. */
export interface NatsServerTls {
  certFile: string;
  keyFile: string;
  caFile?: string;
  /** Require a client certificate signed by `caFile` from every client (nats-server `verify: true`). */
  verifyClients?: boolean;
}

export interface NatsUserEntry {
  user: string;
  password: string;
  permissions: NatsPermissions;
}

export interface NatsConfigOptions {
  port: number;
  storeDir: string;
  host?: string;
  /** TLS required on every client connection. */
  tls?: NatsServerTls;
  /** Only these users may connect (inline `accounts` block). */
  users?: NatsUserEntry[];
  /** The bucket the users' permissions were made for (its streams' subjects are exported to them); default `objects`. */
  bucket?: string;
  /** Or an `include` of an accounts file written by natsAuthorizationConfig (docker compose). */
  include?: string;
  /** The HTTP monitoring port (/varz, /jsz, …) on 127.0.0.1. */
  monitorPort?: number;
  /** Go's pprof endpoints (/debug/pprof/heap, …) on 127.0.0.1. */
  profPort?: number;
}

export interface LocalNats {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export function natsConfig(o: NatsConfigOptions): string {
  return [
    `listen: "${o.host ?? '127.0.0.1'}:${o.port}"`,
    `max_payload: ${NATS_MAX_PAYLOAD}`,
    `jetstream {`,
    `  store_dir: ${JSON.stringify(o.storeDir)}`,
    `}`,
    ...(o.tls ? natsTlsConfig(o.tls) : []),
    ...(o.users ? [natsAuthorizationConfig(o.users, o.bucket)] : []),
    ...(o.include ? [`include ${JSON.stringify(o.include)}`] : []),
    ...(o.monitorPort ? [`http: "127.0.0.1:${o.monitorPort}"`] : []),
    ...(o.profPort ? [`prof_port: ${o.profPort}`] : []),
    '',
  ].join('\n');
}

/** A `tls` block: every client must speak TLS (nats-server refuses a plain CONNECT). */
export function natsTlsConfig(t: NatsServerTls): string[] {
  return [
    `tls {`,
    `  cert_file: ${JSON.stringify(t.certFile)}`,
    `  key_file: ${JSON.stringify(t.keyFile)}`,
    ...(t.caFile ? [`  ca_file: ${JSON.stringify(t.caFile)}`] : []),
    ...(t.verifyClients ? ['  verify: true'] : []),
    // The default half second is too short for a client on a busy machine (several services starting at once).
    '  timeout: 5',
    `}`,
  ];
}

/**
 * The two accounts of shared/bus/permissions.ts: the store account (JetStream, no user) exporting
 * to the bus account its JetStream API, the bucket's and change log's put subjects and, as
 * streams, the inbox prefix of each user whose `deliveries` name it; the bus account with the
 * users (one line each, from `userLine`) importing exactly those. One text for every renderer, so
 * the Helm chart's template can be compared with it byte for byte. Subjects are quoted strings:
 * nats-server never reads those as `$VARIABLE` references, so `$KV.objects.>` stays literal.
 */
function accountsBlock(bucket: string, users: Array<{ line: string; permissions: NatsPermissions }>): string {
  const q = (x: string) => JSON.stringify(x);
  const services = natsStoreServices(bucket);
  const deliveries = users.flatMap((u) => u.permissions.deliveries);
  return [
    'accounts {',
    `  ${STORE_ACCOUNT}: {`,
    `    jetstream: {max_consumers: ${STORE_MAX_CONSUMERS}}`,
    '    exports: [',
    ...services.map((e) => `      {service: ${q(e.subject)}, response_type: ${e.responses}, accounts: [${BUS_ACCOUNT}]}`),
    ...deliveries.map((d) => `      {stream: ${q(d)}, accounts: [${BUS_ACCOUNT}]}`),
    '    ]',
    '  }',
    `  ${BUS_ACCOUNT}: {`,
    '    users: [',
    ...users.map((u) => `      ${u.line}`),
    '    ]',
    '    imports: [',
    ...services.map((e) => `      {service: {account: ${STORE_ACCOUNT}, subject: ${q(e.subject)}}}`),
    ...deliveries.map((d) => `      {stream: {account: ${STORE_ACCOUNT}, subject: ${q(d)}}}`),
    '    ]',
    '  }',
    '}',
    '',
  ].join('\n');
}

/** A user's permissions as nats-server reads them (JSON, which its configuration format includes). */
function permissionsJson(p: NatsPermissions): string {
  return JSON.stringify({ publish: { allow: p.publish }, subscribe: { allow: p.subscribe }, ...(p.allowResponses ? { allow_responses: true } : {}) });
}

/** The `accounts` block with each user, its password and its permissions, for the bucket `bucket`. */
export function natsAuthorizationConfig(users: NatsUserEntry[], bucket: string = DEFAULT_BUCKET): string {
  return accountsBlock(
    bucket,
    users.map((u) => ({ line: `{user: ${JSON.stringify(u.user)}, password: ${JSON.stringify(u.password)}, permissions: ${permissionsJson(u.permissions)}}`, permissions: u.permissions })),
  );
}

/** The environment variable a templated authorization block reads a user's password from. */
export function natsPasswordVariable(role: string): string {
  return `NATS_PASSWORD_${role.toUpperCase()}`;
}

/**
 * The `accounts` block whose passwords are nats-server environment references
 * (`$NATS_PASSWORD_STORAGE`, …), for a configuration that must hold no secret: the Helm chart's
 * bundled NATS renders exactly this (its tests compare), and scripts/nats-authorization.ts prints
 * it for an existing NATS.
 */
export function natsAuthorizationTemplate(entries: Array<{ role: string; user: string; permissions: NatsPermissions }>, bucket: string = DEFAULT_BUCKET): string {
  const list = (xs: string[]) => xs.map((x) => JSON.stringify(x)).join(', ');
  return accountsBlock(
    bucket,
    entries.map(({ role, user, permissions: p }) => ({
      line: `{user: ${JSON.stringify(user)}, password: $${natsPasswordVariable(role)}, permissions: {"publish": {"allow": [${list(p.publish)}]}, "subscribe": {"allow": [${list(p.subscribe)}]}${p.allowResponses ? ', "allow_responses": true' : ''}}}`,
      permissions: p,
    })),
  );
}

/**
 * Resolves when nats-server says it is ready (it logs that once its listeners are up). Its log,
 * not a probe connection: with TLS required a bare TCP probe would be logged as a failed handshake.
 */
function waitForReady(child: ChildProcess, port: number, deadlineMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const done = (err?: Error) => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      if (err) reject(err);
      else resolve();
    };
    const onData = (b: Buffer) => {
      // Only the tail matters: the line may arrive split over two chunks.
      seen = (seen + b.toString()).slice(-4096);
      if (seen.includes('Server is ready')) done();
    };
    const onExit = (code: number | null) => done(new Error(`nats-server exited with code ${code}${seen ? `: ${seen.trim().split('\n').slice(-3).join(' | ')}` : ''}`));
    const timer = setTimeout(() => done(new Error(`nats-server did not become ready on ${port} in time`)), deadlineMs);
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

/**
 * Moves the bucket's streams written before JetStream had an account of its own (nats-server's
 * global account, `$G`) into the store account, so a data directory from an earlier version keeps
 * its objects. nats-server keeps an account's streams in `<store_dir>/jetstream/<account>/streams`
 * and restores whatever it finds there; it must not be running.
 */
export async function adoptGlobalStreams(storeDir: string, bucket: string): Promise<string[]> {
  const from = path.join(storeDir, 'jetstream', '$G', 'streams');
  const to = path.join(storeDir, 'jetstream', STORE_ACCOUNT, 'streams');
  const present = new Set(await readdir(from).catch(() => [] as string[]));
  const already = new Set(await readdir(to).catch(() => [] as string[]));
  const moved: string[] = [];
  for (const stream of [streamName(bucket), changeLogStream(bucket)]) {
    if (!present.has(stream) || already.has(stream)) continue;
    await mkdir(to, { recursive: true });
    await rename(path.join(from, stream), path.join(to, stream));
    moved.push(stream);
  }
  return moved;
}

/**
 * Starts nats-server with JetStream storing under `dataDir`, with TLS and users when given.
 * `detached` puts it in its own process group, so a terminal's Ctrl-C reaches only its supervisor,
 * which stops it last.
 */
export async function startLocalNats(
  dataDir: string,
  opts: { port?: number; binary?: string; log?: (line: string) => void; detached?: boolean } & Pick<NatsConfigOptions, 'tls' | 'users' | 'bucket' | 'monitorPort' | 'profPort'> = {},
): Promise<LocalNats> {
  const port = opts.port ?? (await freePort());
  await mkdir(dataDir, { recursive: true });
  if (opts.users) await adoptGlobalStreams(path.join(dataDir, 'jetstream'), opts.bucket ?? DEFAULT_BUCKET);
  const conf = path.join(dataDir, 'nats-server.conf');
  // 0600: it may hold the users' passwords.
  await writeFile(
    conf,
    natsConfig({
      port,
      storeDir: path.join(dataDir, 'jetstream'),
      ...(opts.tls ? { tls: opts.tls } : {}),
      ...(opts.users ? { users: opts.users } : {}),
      ...(opts.bucket ? { bucket: opts.bucket } : {}),
      ...(opts.monitorPort ? { monitorPort: opts.monitorPort } : {}),
      ...(opts.profPort ? { profPort: opts.profPort } : {}),
    }),
    { mode: 0o600 },
  );
  await chmod(conf, 0o600);
  const child = spawn(opts.binary ?? natsServerBinary(), ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'], detached: opts.detached ?? false });
  const spawnError = new Promise<never>((_, reject) => child.once('error', (e) => reject(new Error(`cannot start nats-server: ${e.message}`))));
  const onData = (b: Buffer) => opts.log?.(b.toString());
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  await Promise.race([waitForReady(child, port, 15_000), spawnError]);
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      }),
  };
}
