// One JSON exchange over HTTPS with the limits every outbound call of the server needs: a deadline
// for the whole exchange (not just the connect), a cap on the response size so a misbehaving
// backend cannot exhaust memory, and errors that name the endpoint but never a credential (the
// URL is shown without user info and query, and request headers never appear).

import { EventEmitter } from 'node:events';
import type { Dispatcher } from 'undici';

export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

export interface JsonRequestOptions {
  method: 'GET' | 'POST';
  /** The connection pool (tls-dispatcher.ts): which CAs are trusted, what is presented, keep-alive. */
  dispatcher: Dispatcher;
  headers?: Record<string, string>;
  /** Serialized JSON body (POST). */
  body?: string;
  timeoutMs: number;
  maxResponseBytes?: number;
  /** Only the status matters (audit webhooks may answer 200 with no body): a 2xx resolves whatever its body. */
  ignoreSuccessBody?: boolean;
}

export interface JsonResponse {
  status: number;
  /** The parsed body; `undefined` for an empty body, or a non-JSON body of a non-2xx answer. */
  body: unknown;
}

export class HttpJsonError extends Error {
  override name = 'HttpJsonError';
}

/** The URL as error messages show it: scheme, host, port and path only. */
export function describeUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

type ResponseBody = Dispatcher.ResponseData['body'];
const noop = () => undefined;

/** The body's bytes, or an HttpJsonError (without the endpoint) once they pass `maxBytes`. */
async function readCapped(body: ResponseBody, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    // Leaving the loop destroys the stream, and with it the connection.
    if (size > maxBytes) throw new HttpJsonError(`response body exceeds the limit of ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}

/** A complete answer's status and text as the caller gets it; an HttpJsonError (without the endpoint) when it cannot act on it. */
function interpret(status: number, text: string, ignoreSuccessBody: boolean | undefined): JsonResponse {
  const ok = status >= 200 && status < 300;
  if (ok && ignoreSuccessBody) return { status, body: undefined };
  if (text.trim() === '') {
    if (ok) throw new HttpJsonError(`HTTP ${status} with an empty body`);
    return { status, body: undefined };
  }
  try {
    return { status, body: JSON.parse(text) as unknown };
  } catch {
    // The text itself is not echoed: it is the backend's, and may quote what it was sent.
    if (ok) throw new HttpJsonError(`HTTP ${status} with a body that is not JSON`);
    return { status, body: undefined };
  }
}

/** Aborts the call's request when emitted (undici takes an emitter as well as an AbortSignal, for less work per call). */
class Deadline extends EventEmitter {
  expired = false;
}

async function exchange(url: URL, opts: JsonRequestOptions, signal: Deadline): Promise<JsonResponse> {
  const maxBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers };
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  // undici's request() on the pool itself; user info in the URL is never sent (nor shown), and undici sets Content-Length.
  const res = await opts.dispatcher.request({ origin: url.origin, path: `${url.pathname}${url.search}`, method: opts.method, headers, body: opts.body ?? null, signal });
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.body.on('error', noop).destroy();
    throw new HttpJsonError(`response body of ${declared} bytes exceeds the limit of ${maxBytes}`);
  }
  let bytes: Buffer;
  try {
    bytes = await readCapped(res.body, maxBytes);
  } catch (err) {
    if (err instanceof HttpJsonError || signal.expired) throw err;
    throw new HttpJsonError(`reading the response failed: ${(err as Error).message}`, { cause: err });
  }
  return interpret(res.statusCode, bytes.toString('utf8'), opts.ignoreSuccessBody);
}

/**
 * Sends one request and resolves with the status and parsed JSON body. Rejects on a network or
 * TLS error, on the deadline, on an oversized response and on a 2xx answer that is not JSON (a
 * caller cannot act on it); a non-2xx answer resolves, so the caller decides what it means.
 */
export function requestJson(url: URL, opts: JsonRequestOptions): Promise<JsonResponse> {
  const where = describeUrl(url);
  const deadline = new Deadline();
  return new Promise<JsonResponse>((resolve, reject) => {
    // The deadline settles the call itself: undici reports an abort only once the request has a
    // connection, and one still being dialled may take until the pool's connect timeout.
    const timer = setTimeout(() => {
      deadline.expired = true;
      deadline.emit('abort');
      reject(new HttpJsonError(`${where}: no response within ${opts.timeoutMs} ms`));
    }, opts.timeoutMs);
    exchange(url, opts, deadline).then(
      (res) => {
        clearTimeout(timer);
        resolve(res);
      },
      (err: Error) => {
        clearTimeout(timer);
        // After the deadline the call has already failed; what undici says then (an AbortError, a destroyed body) is moot.
        if (deadline.expired) return;
        if (err instanceof HttpJsonError) reject(new HttpJsonError(`${where}: ${err.message}`, err.cause === undefined ? undefined : { cause: err.cause }));
        else reject(new HttpJsonError(`${where}: ${err.message}`, { cause: err }));
      },
    );
  });
}
