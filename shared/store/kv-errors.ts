// The one place that interprets JetStream / KV failures. Callers ask what kind of failure an error
// is (a CAS mismatch, a value too large, a missing bucket, an unreachable JetStream) instead of
// matching codes and messages themselves; `kvFailureStatus` turns the infrastructure kinds into
// the Status a client should see.

import { ClosedConnectionError, DrainingConnectionError, InvalidArgumentError, NoRespondersError, RequestError, TimeoutError } from '@nats-io/nats-core';
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { requestEntityTooLarge, serviceUnavailable, timeout, type StatusError } from '../api/status.js';

export const KvErrorKind = {
  /** An expected-last-subject-sequence check failed: the key is not at the revision we named. */
  WrongLastSequence: 'WrongLastSequence',
  /** The value exceeds the stream's max message size or the server's max_payload. */
  TooLarge: 'TooLarge',
  StreamNotFound: 'StreamNotFound',
  /** JetStream did not answer in time. */
  Timeout: 'Timeout',
  /** JetStream cannot be reached or has no leader for the stream right now. */
  Unavailable: 'Unavailable',
  Unknown: 'Unknown',
} as const;
export type KvErrorKind = (typeof KvErrorKind)[keyof typeof KvErrorKind];

// Not in JetStreamApiCodes; observed from nats-server 2.9.10 (and unchanged in later servers).
const STREAM_MESSAGE_EXCEEDS_MAXIMUM = 10054;
const JETSTREAM_NOT_ENABLED = 10076;
const JETSTREAM_NOT_ENABLED_FOR_ACCOUNT = 10039;

export function kvErrorKind(err: unknown): KvErrorKind {
  if (err instanceof JetStreamApiError) {
    switch (err.code) {
      case JetStreamApiCodes.StreamWrongLastSequence:
      case JetStreamApiCodes.StreamWrongLastSequenceUnknown:
        return KvErrorKind.WrongLastSequence;
      case STREAM_MESSAGE_EXCEEDS_MAXIMUM:
        return KvErrorKind.TooLarge;
      case JetStreamApiCodes.StreamNotFound:
        return KvErrorKind.StreamNotFound;
      case JETSTREAM_NOT_ENABLED:
      case JETSTREAM_NOT_ENABLED_FOR_ACCOUNT:
        return KvErrorKind.Unavailable;
    }
    // 503 is how JetStream reports "temporarily unavailable" (no quorum, leader election).
    if (err.status === 503) return KvErrorKind.Unavailable;
    return KvErrorKind.Unknown;
  }
  // The client refuses a message above the server's max_payload before sending it.
  if (err instanceof InvalidArgumentError && err.message.includes('max_payload')) return KvErrorKind.TooLarge;
  if (err instanceof TimeoutError || (err instanceof RequestError && err.cause instanceof TimeoutError)) return KvErrorKind.Timeout;
  if (err instanceof NoRespondersError || (err instanceof RequestError && err.isNoResponders())) return KvErrorKind.Unavailable;
  if (err instanceof ClosedConnectionError || err instanceof DrainingConnectionError) return KvErrorKind.Unavailable;
  // The JetStream client turns "no responders" on a publish into this (class not exported).
  if (err instanceof Error && err.name === 'JetStreamNotEnabled') return KvErrorKind.Unavailable;
  return KvErrorKind.Unknown;
}

export function isWrongLastSequence(err: unknown): boolean {
  return kvErrorKind(err) === KvErrorKind.WrongLastSequence;
}

export function isStreamNotFound(err: unknown): boolean {
  return kvErrorKind(err) === KvErrorKind.StreamNotFound;
}

/**
 * The Status for a failure of the store itself, or null when the error is not one (the caller
 * rethrows it and it becomes a logged 500). CAS outcomes are the caller's to translate: only it
 * knows whether a wrong sequence means "already exists", "conflict" or "not found".
 */
export function kvFailureStatus(err: unknown, maxBytes: number): StatusError | null {
  switch (kvErrorKind(err)) {
    case KvErrorKind.TooLarge:
      return requestEntityTooLarge(`Request entity too large: limit is ${maxBytes}`);
    case KvErrorKind.Timeout:
      return timeout('Timeout: the object store did not answer in time', 1);
    case KvErrorKind.Unavailable:
      return serviceUnavailable('the object store is unavailable');
    case KvErrorKind.StreamNotFound:
      return serviceUnavailable('the object store bucket does not exist');
    default:
      return null;
  }
}
