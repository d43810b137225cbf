// Prints the nats-server `accounts` block for the platform's NATS users, for an existing NATS (the
// Helm chart's nats.url with nats.auth.mode users) — the same block the chart's bundled NATS and
// `npm start` run with: the store account holding JetStream and the bus account with one user per
// service, with the permissions, exports and imports of shared/bus/permissions.ts. The server
// needs JetStream enabled (a `jetstream {}` block); the bucket's streams live in PLATFORM_STORE. Passwords are nats-server environment references
// ($NATS_PASSWORD_STORAGE, …): set them in the server's environment (or replace them with bcrypt
// hashes), and give the services the same passwords (the chart's nats.auth.existingSecret).
//
//   node --import tsx scripts/nats-authorization.ts [--bucket=objects] [--monitor] [--user-<service>=<name> ...]

import { parseArgs } from 'node:util';
import { DEFAULT_BUCKET } from '../shared/api/groups.js';
import { NATS_USER_ROLES, NatsUser, natsPermissions, type NatsUserRole } from '../shared/bus/permissions.js';
import { natsAuthorizationTemplate } from '../shared/local/nats-server.js';
import { isEntryPoint } from './entry-point.js';

/** The block for `bucket`, the five services (and the monitor user when asked), named as `names` says. */
export function natsAuthorizationBlock(o: { bucket?: string; monitor?: boolean; names?: Partial<Record<NatsUserRole, string>> } = {}): string {
  const users = { ...NatsUser, ...o.names };
  const permissions = natsPermissions(o.bucket ?? DEFAULT_BUCKET, users);
  const roles = NATS_USER_ROLES.filter((r) => r !== 'monitor' || o.monitor);
  return natsAuthorizationTemplate(
    roles.map((role) => ({ role, user: users[role], permissions: permissions[role] })),
    o.bucket ?? DEFAULT_BUCKET,
  );
}

if (isEntryPoint(import.meta.url)) {
  const options = Object.fromEntries([['bucket', { type: 'string' }], ['monitor', { type: 'boolean' }], ...NATS_USER_ROLES.map((r) => [`user-${r}`, { type: 'string' }])]);
  try {
    const { values } = parseArgs({ options: options as never, strict: true });
    const v = values as Record<string, string | boolean | undefined>;
    const names = Object.fromEntries(NATS_USER_ROLES.filter((r) => typeof v[`user-${r}`] === 'string').map((r) => [r, v[`user-${r}`] as string]));
    process.stdout.write(natsAuthorizationBlock({ ...(typeof v.bucket === 'string' ? { bucket: v.bucket } : {}), monitor: v.monitor === true, names }));
  } catch (err) {
    process.stderr.write(`nats-authorization: ${(err as Error).message}\nusage: nats-authorization [--bucket=objects] [--monitor] [--user-<service>=<name> ...]\n`);
    process.exit(2);
  }
}
