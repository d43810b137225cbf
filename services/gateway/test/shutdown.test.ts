// `--shutdown-send-retry-after`: while the gateway drains, a request is answered 429 with
// Retry-After and Connection: close (a documented retryable answer), and before it nothing changes.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { createServer } from '../server.js';
import { installFilters } from '../filters/chain.js';
import { requestInfoFilter } from '../filters/request-info.js';
import { shutdownFilter } from '../filters/shutdown.js';

describe('shutdown filter', () => {
  it('refuses with 429, Retry-After and Connection: close only once draining', async () => {
    let draining = false;
    const app = createServer(undefined, pino({ level: 'silent' }));
    installFilters(app, [requestInfoFilter((g) => g), shutdownFilter(() => draining)]);
    app.get('/*', async () => ({ ok: true }));
    try {
      assert.equal((await app.inject({ method: 'GET', url: '/api/v1/pods' })).statusCode, 200);
      draining = true;
      const r = await app.inject({ method: 'GET', url: '/api/v1/pods' });
      assert.equal(r.statusCode, 429);
      assert.equal(r.headers['retry-after'], '1');
      assert.equal(r.headers.connection, 'close');
      const status = r.json();
      assert.deepEqual([status.reason, status.message, status.details.retryAfterSeconds], ['TooManyRequests', 'The apiserver is shutting down, please try again later.', 1]);
    } finally {
      await app.close();
    }
  });
});
