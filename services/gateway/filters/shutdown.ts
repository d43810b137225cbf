// `--shutdown-send-retry-after`: once the gateway drains at shutdown, a request that arrives on a
// connection still open is answered 429 with Retry-After and `Connection: close`, so the client
// retries on another gateway instead of losing the request (upstream's WithRetryAfter).

import { tooManyRequests } from '../../../shared/api/status.js';
import type { Filter } from './filter.js';

export function shutdownFilter(refuse: () => boolean): Filter {
  return {
    name: 'shutdown',
    onRequest(_req, reply) {
      if (!refuse()) return;
      reply.header('connection', 'close');
      throw tooManyRequests('The apiserver is shutting down, please try again later.', 1);
    },
  };
}
