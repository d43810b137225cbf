// One JSON exchange over HTTPS with the limits every outbound call of the server needs: a deadline
// for the whole exchange (not just the connect), a cap on the response size so a misbehaving
// backend cannot exhaust memory, and errors that name the endpoint but never a credential (the
// URL is shown without user info and query, and request headers never appear).

import https from 'node:https';

export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

export interface JsonRequestOptions {
  method: 'GET' | 'POST';
  agent: https.Agent;
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

/**
 * Sends one request and resolves with the status and parsed JSON body. Rejects on a network or
 * TLS error, on the deadline, on an oversized response and on a 2xx answer that is not JSON (a
 * caller cannot act on it); a non-2xx answer resolves, so the caller decides what it means.
 */
export function requestJson(url: URL, opts: JsonRequestOptions): Promise<JsonResponse> {
  const where = describeUrl(url);
  const maxBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers };
  if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(opts.body));
  }
  return new Promise<JsonResponse>((resolve, reject) => {
    let settled = false;
    const settle = (err: Error | null, value?: JsonResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) {
        req.destroy();
        reject(err);
      } else resolve(value!);
    };
    const fail = (message: string, cause?: unknown) => settle(new HttpJsonError(`${where}: ${message}`, cause === undefined ? undefined : { cause }));

    const req = https.request(url, { method: opts.method, agent: opts.agent, headers }, (res) => {
      const status = res.statusCode ?? 0;
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        res.destroy();
        fail(`response body of ${declared} bytes exceeds the limit of ${maxBytes}`);
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          res.destroy();
          fail(`response body exceeds the limit of ${maxBytes} bytes`);
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', (err) => fail(`reading the response failed: ${err.message}`, err));
      res.on('close', () => {
        if (!res.complete) fail('the connection closed before the response was complete');
      });
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const ok = status >= 200 && status < 300;
        if (ok && opts.ignoreSuccessBody) {
          settle(null, { status, body: undefined });
          return;
        }
        if (text.trim() === '') {
          if (ok) fail(`HTTP ${status} with an empty body`);
          else settle(null, { status, body: undefined });
          return;
        }
        try {
          settle(null, { status, body: JSON.parse(text) as unknown });
        } catch {
          // The text itself is not echoed: it is the backend's, and may quote what it was sent.
          if (ok) fail(`HTTP ${status} with a body that is not JSON`);
          else settle(null, { status, body: undefined });
        }
      });
    });
    req.on('error', (err) => fail(err.message, err));
    const timer = setTimeout(() => fail(`no response within ${opts.timeoutMs} ms`), opts.timeoutMs);
    req.end(opts.body);
  });
}
