// Request/reply over NATS with Status semantics: no responders → 503, timeout → 504, an error
// reply → the Status it carries.

import { NoRespondersError, RequestError, TimeoutError, type NatsConnection, type Msg } from '@nats-io/nats-core';
import { StatusError, isStatus, serviceUnavailable, timeout, internalError } from '../api/status.js';
import { ERROR_CODE_HEADER } from './subjects.js';

export const DEFAULT_BUS_TIMEOUT_MS = 5_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeJson(v: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(v));
}

export function decodeJson<T>(data: Uint8Array): T {
  return JSON.parse(decoder.decode(data)) as T;
}

/** Turns an error reply into the StatusError it carries; returns null for a value reply. */
export function replyError(msg: Msg): StatusError | null {
  const code = msg.headers?.get(ERROR_CODE_HEADER);
  if (!code) return null;
  try {
    const body = msg.data.length ? decodeJson<unknown>(msg.data) : null;
    if (isStatus(body)) return new StatusError(body);
  } catch {
    // fall through: a non-Status error body
  }
  const description = msg.headers?.get('Nats-Service-Error') ?? 'error';
  return internalError(`${description} (code ${code})`);
}

function isNoResponders(err: unknown): boolean {
  if (err instanceof NoRespondersError) return true;
  return err instanceof RequestError && (err.isNoResponders?.() || err.cause instanceof NoRespondersError);
}

function isTimeout(err: unknown): boolean {
  return err instanceof TimeoutError || (err instanceof RequestError && err.cause instanceof TimeoutError);
}

/** Sends a JSON request and returns the decoded JSON reply, or throws a StatusError. */
export async function busRequest<Res>(nc: NatsConnection, subject: string, body: unknown, timeoutMs = DEFAULT_BUS_TIMEOUT_MS): Promise<Res> {
  let msg: Msg;
  try {
    msg = await nc.request(subject, encodeJson(body), { timeout: timeoutMs });
  } catch (err) {
    if (isNoResponders(err)) throw serviceUnavailable(`no service is answering ${subject}`);
    if (isTimeout(err)) throw timeout(`the service answering ${subject} did not reply within ${timeoutMs}ms`);
    throw serviceUnavailable(`request on ${subject} failed: ${(err as Error).message}`);
  }
  const error = replyError(msg);
  if (error) throw error;
  return decodeJson<Res>(msg.data);
}
