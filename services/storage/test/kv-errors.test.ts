// Translation of JetStream failures, with the shapes the client library produces.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidArgumentError, NoRespondersError, RequestError, TimeoutError } from '@nats-io/nats-core';
import { JetStreamApiError } from '@nats-io/jetstream';
import { KvErrorKind, kvErrorKind, kvFailureStatus } from '../../../shared/store/kv-errors.js';

const apiError = (err_code: number, code: number, description: string) => new JetStreamApiError({ err_code, code, description });

test('kv errors - classify what JetStream and the client report', () => {
  assert.equal(kvErrorKind(apiError(10071, 400, 'wrong last sequence: 1')), KvErrorKind.WrongLastSequence);
  assert.equal(kvErrorKind(apiError(10054, 400, 'message size exceeds maximum allowed')), KvErrorKind.TooLarge);
  assert.equal(kvErrorKind(InvalidArgumentError.format('payload', 'max_payload size exceeded')), KvErrorKind.TooLarge);
  assert.equal(kvErrorKind(apiError(10059, 404, 'stream not found')), KvErrorKind.StreamNotFound);
  assert.equal(kvErrorKind(apiError(10008, 503, 'JetStream system temporarily unavailable')), KvErrorKind.Unavailable);
  assert.equal(kvErrorKind(new TimeoutError()), KvErrorKind.Timeout);
  assert.equal(kvErrorKind(new RequestError('x', { cause: new NoRespondersError('$KV.objects.a') })), KvErrorKind.Unavailable);
  assert.equal(kvErrorKind(new Error('boom')), KvErrorKind.Unknown);
});

test('kv errors - store failures become Status errors; CAS outcomes and unknown errors do not', () => {
  assert.equal(kvFailureStatus(apiError(10054, 400, 'too big'), 1_572_864)?.status.code, 413);
  assert.equal(kvFailureStatus(new TimeoutError(), 1)?.status.code, 504);
  assert.equal(kvFailureStatus(apiError(10008, 503, 'unavailable'), 1)?.status.code, 503);
  assert.equal(kvFailureStatus(apiError(10071, 400, 'wrong last sequence: 3'), 1), null);
  assert.equal(kvFailureStatus(new Error('boom'), 1), null);
});
