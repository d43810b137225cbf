// What the webhook matcher hands on (matcher.ts): the webhook to call with the resource and kind it
// sees the request as, and what matching needs from its surroundings. Types only, apart from the
// matcher, so the steps after it (conditions.ts, review.ts) need not import it.

import type { GroupVersionKind, GroupVersionResource } from '../../../../shared/api/types.js';
import type { ApiTypes } from './api-types.js';
import type { Webhook } from './webhooks.js';

/** A webhook to call, and the resource and kind it sees the request as. */
export interface Invocation {
  webhook: Webhook;
  resource: GroupVersionResource;
  subResource: string;
  kind: GroupVersionKind;
}

export interface MatchEnvironment {
  /** The equivalents of a request's resource (only asked for when an Exact match failed). */
  types(): ApiTypes;
  /** A namespace's labels from the cache, else the store; null when it does not exist. */
  namespaceLabels(name: string): Promise<Record<string, string> | null>;
}
