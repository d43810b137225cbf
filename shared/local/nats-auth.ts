// NATS credentials of a local installation (`npm start`, and docker compose through `local-up
// --init-only`): a server certificate for NATS signed by the dev CA, one password per NATS user
// (created once, kept across restarts, 0600), and the `accounts` block that gives each user the
// permissions (and the store account's exports) of shared/bus/permissions.ts, rewritten on every start so it follows the code.

import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_BUCKET } from '../api/groups.js';
import { NATS_USER_ROLES, NatsUser, natsPermissions, type NatsUserRole } from '../bus/permissions.js';
import { natsAuthorizationConfig, type NatsUserEntry } from './nats-server.js';
import { ensureServingPair, type LocalPki } from './pki.js';

/** The compose service names of the NATS nodes, always in its certificate so `nats://nats-1:4222` and the routes between the nodes verify. */
export const COMPOSE_NATS_HOSTS: readonly string[] = ['nats', 'nats-1', 'nats-2', 'nats-3'];

export interface LocalNatsUser {
  user: string;
  password: string;
  /** The file `--nats-password-file` names. */
  passwordFile: string;
}

export interface LocalNatsAuth {
  dir: string;
  /** Verifies the server's certificate (the dev CA). */
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  users: Record<NatsUserRole, LocalNatsUser>;
  /** The `accounts` block alone, for a nats-server configuration to include (docker compose). */
  authorizationFile: string;
}

async function writePrivate(file: string, data: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, data, { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, file);
}

/** The password in `file`, or a new one written there. */
async function ensurePassword(file: string): Promise<string> {
  if (existsSync(file)) {
    const text = (await readFile(file, 'utf8')).trim();
    if (text) return text;
  }
  const password = randomBytes(24).toString('base64url');
  await writePrivate(file, `${password}\n`);
  return password;
}

/** Each user with its password and permissions, as nats-server's `authorization` block lists them. */
export function natsUserEntries(auth: Pick<LocalNatsAuth, 'users'>, bucket = DEFAULT_BUCKET): NatsUserEntry[] {
  const permissions = natsPermissions(bucket);
  return NATS_USER_ROLES.map((role) => ({ user: auth.users[role].user, password: auth.users[role].password, permissions: permissions[role] }));
}

/**
 * NATS's server certificate (`<pki>/nats-server.crt`, for 127.0.0.1, localhost, the compose nodes and
 * `serverNames`; serverAuth and clientAuth, for the routes), the users' passwords (`<dir>/nats-auth/<role>.password`) and the authorization
 * file, under the local directory `dir`.
 */
export async function ensureNatsAuth(dir: string, pki: LocalPki, opts: { serverNames?: string[]; bucket?: string } = {}): Promise<LocalNatsAuth> {
  const authDir = path.join(dir, 'nats-auth');
  await mkdir(authDir, { recursive: true, mode: 0o700 });
  const serverCertFile = path.join(pki.files.dir, 'nats-server.crt');
  const serverKeyFile = path.join(pki.files.dir, 'nats-server.key');
  // clientAuth too: a cluster's nodes dial each other's routes with this same pair. A pair written
  // before without it is reissued, as one missing a name is.
  await ensureServingPair(pki.ca, { cert: serverCertFile, key: serverKeyFile }, { commonName: 'platform-nats', dnsNames: [...COMPOSE_NATS_HOSTS, ...(opts.serverNames ?? [])], clientAuth: true });
  const users = {} as Record<NatsUserRole, LocalNatsUser>;
  for (const role of NATS_USER_ROLES) {
    const passwordFile = path.join(authDir, `${role}.password`);
    users[role] = { user: NatsUser[role], password: await ensurePassword(passwordFile), passwordFile };
  }
  const authorizationFile = path.join(authDir, 'authorization.conf');
  const header = '# Written by `npm start` / `local-up --init-only` from shared/bus/permissions.ts on every start: edits are lost.\n';
  await writePrivate(authorizationFile, header + natsAuthorizationConfig(natsUserEntries({ users }, opts.bucket), opts.bucket));
  return { dir: authDir, caFile: pki.files.caCert, serverCertFile, serverKeyFile, users, authorizationFile };
}

/** The `--nats-*` flags of a service connecting as `role` to a NATS that `auth` secures. */
export function natsAuthFlags(auth: LocalNatsAuth, role: NatsUserRole): string[] {
  return [`--nats-user=${auth.users[role].user}`, `--nats-password-file=${auth.users[role].passwordFile}`, `--nats-tls-ca-file=${auth.caFile}`];
}
