// A request's deadline bounds each of its NATS hops, against a real nats-server: a service that
// takes the request and never answers is waited for only until the deadline (then the deadline's
// own 504), an idempotent request is not sent again past it, and a request whose deadline already
// passed is not sent at all.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { NatsConnection } from '@nats-io/nats-core';
import { startTestNats, type TestNats } from '../support/nats.js';
import { timedRejection } from '../support/timing.js';
import { busRequest } from '../../shared/bus/client.js';
import { Subjects } from '../../shared/bus/subjects.js';
import { Deadline } from '../../shared/api/deadline.js';

const WRITE_TIMEOUT = 'Timeout: request did not complete within requested timeout - context deadline exceeded';

describe('bus requests within a deadline', () => {
  let nats: TestNats;
  let nc: NatsConnection;
  let silent: NatsConnection;
  const seen: string[] = [];
  before(async () => {
    nats = await startTestNats();
    nc = await nats.connect('client');
    // Takes every storage and authz request and never answers (a stopped replica).
    silent = await nats.connect('silent');
    silent.subscribe(Subjects.storageCreate, { callback: (_, m) => void seen.push(m.subject) });
    silent.subscribe(Subjects.authzAuthorize, { callback: (_, m) => void seen.push(m.subject) });
    await silent.flush();
  });
  after(async () => nats?.stop());

  it('a hop waits only what remains of the deadline, then fails with it', async () => {
    seen.length = 0;
    const { err, ms } = await timedRejection(busRequest(nc, Subjects.storageCreate, {}, 5_000, new Deadline(performance.now() + 300, true)));
    assert.equal(err.status.code, 504);
    assert.equal(err.status.reason, 'Timeout');
    assert.equal(err.status.message, WRITE_TIMEOUT);
    assert.ok(ms >= 280 && ms < 1_500, `${ms} ms`);
    assert.deepEqual(seen, [Subjects.storageCreate]);
  });

  it('an idempotent request is not sent again once the deadline has passed', async () => {
    seen.length = 0;
    const { err, ms } = await timedRejection(busRequest(nc, Subjects.authzAuthorize, {}, 5_000, new Deadline(performance.now() + 300, false)));
    assert.equal(err.status.message, 'Timeout: request did not complete within the allotted timeout');
    assert.ok(ms < 1_500, `${ms} ms`);
    assert.deepEqual(seen, [Subjects.authzAuthorize]);
  });

  it('past the deadline nothing is sent; the hop timeout still applies without one', async () => {
    seen.length = 0;
    const { err } = await timedRejection(busRequest(nc, Subjects.storageCreate, {}, 5_000, new Deadline(performance.now() - 1, true)));
    assert.equal(err.status.message, WRITE_TIMEOUT);
    const plain = await timedRejection(busRequest(nc, Subjects.storageCreate, {}, 200));
    assert.match(plain.err.status.message, /did not reply within 200ms/);
    await silent.flush();
    assert.deepEqual(seen, [Subjects.storageCreate], 'only the request without a deadline was sent');
  });
});
