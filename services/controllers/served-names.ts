// Which well-known names the controllers act on: the spec's, and upstream's twins too when the
// gateway serves upstream's names (`--upstream-group-aliases`). The controllers are API clients, so
// they ask the server they talk to rather than take a flag of their own that could disagree with
// it: a gateway serving a built-in group under both spellings serves upstream's names.

import { namesOfServedGroups, type WellKnownNames } from '../../shared/api/well-known-names.js';
import type { ApiClient } from '../../shared/client/rest.js';
import type { Logger } from '../../shared/log.js';

const ATTEMPTS = 5;
const RETRY_MS = 1_000;

/** The names the gateway serves, read from its group list; retries a few times, then fails (the term's start fails and is retried). */
export async function servedNames(client: ApiClient, log: Logger, signal?: AbortSignal): Promise<WellKnownNames> {
  for (let attempt = 1; ; attempt++) {
    try {
      const list = await client.request<{ groups?: Array<{ name?: string }> }>('GET', '/apis', { ...(signal ? { signal } : {}) });
      return namesOfServedGroups((list.groups ?? []).map((g) => g.name ?? ''));
    } catch (err) {
      if (attempt >= ATTEMPTS || signal?.aborted) throw err;
      log.warn({ err }, 'cannot read the served API groups yet; retrying');
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  }
}
