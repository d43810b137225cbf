// Requests to JetStream through the bus's request mux instead of the JetStream client: the storage
// service's publish of every write (a request to the stream's subject, answered with its ack) and
// the consistent reads' STREAM.INFO. nats.js's request builds an error object (with its stack) for
// every answered request when it cleans up, plus a timer and promises of its own; the mux also sends
// the requests of one event-loop turn together. Failures are the ones nats.js throws, so
// kv-errors.ts reads them alike: the stream's refusal (a JetStreamApiError: wrong last sequence, too
// large), a TimeoutError, no responders (no JetStream for the subject), or the client's refusal to
// send (above max_payload).

import { TimeoutError, type MsgHdrs, type NatsConnection } from '@nats-io/nats-core';
import { JetStreamApiError, JetStreamError, type ApiError } from '@nats-io/jetstream';
import { decodeJson, requestOnce } from '../bus/client.js';
import { StatusError } from '../api/status.js';

/** As the JetStream client's default. */
export const STREAM_PUBLISH_TIMEOUT_MS = 5_000;

interface PubAckReply {
  stream?: string;
  seq?: number;
}

/**
 * One request to JetStream (its API, or a stream's subject for a publish) through the mux: the
 * reply's JSON, or the stream's refusal as a JetStreamApiError.
 */
export async function jetStreamRequest<T>(nc: NatsConnection, subject: string, data: Uint8Array, timeoutMs: number, headers?: MsgHdrs): Promise<T> {
  let reply: Uint8Array;
  try {
    reply = (await requestOnce(nc, subject, data, timeoutMs, headers)).data;
  } catch (err) {
    throw clientError(err);
  }
  const answer = decodeJson<T & { error?: ApiError }>(reply);
  if (answer.error) throw new JetStreamApiError(answer.error);
  return answer;
}

/** Publishes `data` to a stream's subject and answers the sequence the stream stored it at. */
export async function publishToStream(nc: NatsConnection, subject: string, data: Uint8Array, headers: MsgHdrs, timeoutMs = STREAM_PUBLISH_TIMEOUT_MS): Promise<number> {
  const ack = await jetStreamRequest<PubAckReply>(nc, subject, data, timeoutMs, headers);
  if (!ack.stream || typeof ack.seq !== 'number') throw new JetStreamError('invalid ack response');
  return ack.seq;
}

/** The mux's Status as the error the NATS client would have thrown. */
function clientError(err: unknown): unknown {
  if (!(err instanceof StatusError)) return err;
  // Not sent (closed connection, above max_payload, refused permission) or no responders.
  if (err.cause instanceof Error) return err.cause;
  if (err.code === 504) return new TimeoutError({ cause: err });
  return err;
}
