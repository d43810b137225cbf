// Who counts as a node agent: user `system:node:<name>` in group `system:nodes`. Shared by the
// Node authorizer (what a node may do) and the NodeRestriction admission plugin (what it may
// change), which must agree exactly on who is a node and which node.

import type { UserInfo } from './types.js';

export const NODES_GROUP = 'system:nodes';
export const NODE_USER_PREFIX = 'system:node:';
/** Where node heartbeat leases live; a node may touch only its own lease there. */
export const NODE_LEASE_NAMESPACE = 'platform-node-lease';

/** The node name of a node agent, '' for a node user without a name, undefined for anyone else. */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.username.startsWith(NODE_USER_PREFIX) || !(user.groups ?? []).includes(NODES_GROUP)) return undefined;
  return user.username.slice(NODE_USER_PREFIX.length);
}
