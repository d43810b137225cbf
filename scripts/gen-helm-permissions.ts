// Development tool: writes helm/platform-apiserver/files/nats-permissions.json, the NATS users'
// permissions the Helm chart configures, from shared/bus/permissions.ts, so the chart cannot drift
// from the table `npm start` and compose run with. What the chart's values decide (the bucket, each
// service's user name) is written as a placeholder that the chart's `platform.natsPermissions`
// replaces. Rerun it after changing permissions.ts (the chart's tests fail until then):
//
//   npm run gen:helm-permissions

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NATS_USER_ROLES, NatsUser, natsPermissions, type NatsUserRole } from '../shared/bus/permissions.js';
import { isEntryPoint } from './entry-point.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const HELM_PERMISSIONS_FILE = path.join(root, 'helm/platform-apiserver/files/nats-permissions.json');

/**
 * Stand-ins for `.Values.bucket` and `.Values.nats.auth.userNames.<role>`. Both values allow only
 * `[A-Za-z0-9_-]` (values.schema.json), and no subject has a double underscore of its own, so
 * the template's textual replacement touches nothing else.
 */
const BUCKET_PLACEHOLDER = '__BUCKET__';
function userPlaceholder(role: NatsUserRole): string {
  return `__USER_${role.toUpperCase()}__`;
}

/** The chart runs a user per service; the monitor user is `npm start`'s own (readiness, statistics). */
const CHART_ROLES = NATS_USER_ROLES.filter((r) => r !== 'monitor');

/** The file's text: role → {publish, subscribe, allow_responses}, in permissions.ts's order of users. */
export function helmPermissionsJson(): string {
  const users = { ...NatsUser, ...Object.fromEntries(CHART_ROLES.map((r) => [r, userPlaceholder(r)])) };
  const all = natsPermissions(BUCKET_PLACEHOLDER, users);
  // allow_responses as nats-server spells it; deliveries are the store account's exports, which
  // the chart's template writes from the user names itself.
  const out = Object.fromEntries(CHART_ROLES.map((r) => [r, { publish: all[r].publish, subscribe: all[r].subscribe, allow_responses: all[r].allowResponses }]));
  return `${JSON.stringify(out, null, 2)}\n`;
}

if (isEntryPoint(import.meta.url)) {
  writeFileSync(HELM_PERMISSIONS_FILE, helmPermissionsJson());
  process.stdout.write(`wrote ${path.relative(process.cwd(), HELM_PERMISSIONS_FILE)}\n`);
}
