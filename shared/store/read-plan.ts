// The resourceVersion semantics of get, list and watch (the spec's tables) as a pure decision:
// which state a read must observe. The gateway executes the plan against its watch cache.

import { badRequest } from '../api/status.js';
import { decodeContinue, type ContinueToken } from './continue-token.js';

export const ReadMode = {
  /** Wait until the cache has applied the stream's last revision, then read the current state. */
  Consistent: 'Consistent',
  /** Read whatever the cache has now. */
  Any: 'Any',
  /** Wait until the cache has reached `revision`, then read the current state. */
  NotOlderThan: 'NotOlderThan',
  /** Read the state exactly at `revision` (410 when outside the window). */
  Exact: 'Exact',
} as const;
export type ReadMode = (typeof ReadMode)[keyof typeof ReadMode];

export interface ReadPlan {
  mode: ReadMode;
  revision: number;
  /** For a continued list: where to start and whether the snapshot is consistent. */
  continueFrom?: ContinueToken;
}

export interface ListReadOptions {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  limit?: number;
  continue?: string;
}

export function parseResourceVersion(rv: string | undefined, what = 'resourceVersion'): number | undefined {
  if (rv === undefined || rv === '') return undefined;
  if (!/^\d+$/.test(rv) || rv.length > 16) throw badRequest(`invalid ${what}: ${JSON.stringify(rv)}: must be a non-negative integer`);
  return Number(rv);
}

export function planGet(resourceVersion: string | undefined): ReadPlan {
  const rv = parseResourceVersion(resourceVersion);
  if (rv === undefined) return { mode: ReadMode.Consistent, revision: 0 };
  if (rv === 0) return { mode: ReadMode.Any, revision: 0 };
  return { mode: ReadMode.NotOlderThan, revision: rv };
}

export function planList(o: ListReadOptions): ReadPlan {
  const rv = parseResourceVersion(o.resourceVersion);
  const match = o.resourceVersionMatch || undefined;
  if (match !== undefined && match !== 'Exact' && match !== 'NotOlderThan') {
    throw badRequest(`resourceVersionMatch: Unsupported value: ${JSON.stringify(match)}: supported values: "Exact", "NotOlderThan"`);
  }
  if (o.continue) {
    if (match !== undefined) throw badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided');
    if (rv !== undefined && rv !== 0) throw badRequest('specifying resource version is not allowed when using continue');
    const token = decodeContinue(o.continue);
    return token.rv === -1 ? { mode: ReadMode.Any, revision: 0, continueFrom: token } : { mode: ReadMode.Exact, revision: token.rv, continueFrom: token };
  }
  if (match !== undefined && rv === undefined) {
    throw badRequest(`resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`);
  }
  if (match === 'Exact') {
    if (rv === 0) throw badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
    return { mode: ReadMode.Exact, revision: rv! };
  }
  if (match === 'NotOlderThan') {
    return rv === 0 ? { mode: ReadMode.Any, revision: 0 } : { mode: ReadMode.NotOlderThan, revision: rv! };
  }
  if (rv === undefined) return { mode: ReadMode.Consistent, revision: 0 };
  if (rv === 0) return { mode: ReadMode.Any, revision: 0 };
  // A non-zero version with a limit asks for that exact snapshot; without one, "not older than".
  return o.limit && o.limit > 0 ? { mode: ReadMode.Exact, revision: rv } : { mode: ReadMode.NotOlderThan, revision: rv };
}

export interface WatchReadOptions {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  sendInitialEvents?: boolean;
  allowWatchBookmarks?: boolean;
}

export interface WatchPlan {
  /** How to establish the starting state. */
  mode: ReadMode;
  /** Events strictly after this revision are sent (for Consistent/Any: the state read). */
  revision: number;
  /** Send the starting state as synthetic ADDED events. */
  initialEvents: boolean;
  /** After the initial events, send a BOOKMARK marking their end (streaming lists). */
  initialEventsEndBookmark: boolean;
}

export function planWatch(o: WatchReadOptions): WatchPlan {
  const rv = parseResourceVersion(o.resourceVersion);
  if (o.sendInitialEvents !== undefined) {
    if (o.resourceVersionMatch !== 'NotOlderThan') {
      throw badRequest('resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
    }
    if (o.sendInitialEvents && !o.allowWatchBookmarks) throw badRequest('allowWatchBookmarks: Required value: allowWatchBookmarks must be true when sendInitialEvents is set');
    if (!o.sendInitialEvents) {
      if (rv === undefined) throw badRequest('resourceVersion: Required value: sendInitialEvents=false requires a resourceVersion');
      return { mode: ReadMode.Exact, revision: rv, initialEvents: false, initialEventsEndBookmark: false };
    }
    if (rv === undefined) return { mode: ReadMode.Consistent, revision: 0, initialEvents: true, initialEventsEndBookmark: true };
    if (rv === 0) return { mode: ReadMode.Any, revision: 0, initialEvents: true, initialEventsEndBookmark: true };
    return { mode: ReadMode.NotOlderThan, revision: rv, initialEvents: true, initialEventsEndBookmark: true };
  }
  if (o.resourceVersionMatch) throw badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
  if (rv === undefined) return { mode: ReadMode.Consistent, revision: 0, initialEvents: true, initialEventsEndBookmark: false };
  if (rv === 0) return { mode: ReadMode.Any, revision: 0, initialEvents: true, initialEventsEndBookmark: false };
  return { mode: ReadMode.Exact, revision: rv, initialEvents: false, initialEventsEndBookmark: false };
}
