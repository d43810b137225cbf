// The handler of every request for a remote APIService's group/version, once the filters have
// authenticated, authorized and audited it as any other (kube-aggregator's proxy handler): the
// request goes to the backend with the user in the authenticating-proxy headers — the client's
// credentials (Authorization, impersonation headers, its own X-Remote-*) are not passed on — and
// the backend's status, headers and body come back as it sent them, streamed (a watch flows
// through as its events come). An APIService that is not Available, or whose backend cannot be
// reached, is answered 503 without the backend's address in it (which only the logs name).

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { serviceUnavailable } from '../../../shared/api/status.js';
import type { UserInfo } from '../../../shared/api/types.js';
import type { RemoteApiService } from '../../../shared/registry/builtin/apiregistration/remote-api-service.js';
import type { ApiRequestState } from '../request.js';
import { authProxyHeaders, isAuthProxyHeader, responseHeaders, type ApiServiceBackends } from './backends.js';

/** How long a backend may take to start answering (upstream's default request timeout); a stream's body then takes as long as it lasts. */
const HEADERS_TIMEOUT_MS = 60_000;

// Request headers that end at the gateway: the hop's own, the client's credentials (consumed by
// authentication), and the length (set again for the body sent).
const DROPPED = new Set(['host', 'connection', 'keep-alive', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect', 'content-length', 'authorization']);

/** The request headers the backend gets: the client's, less what ends here, plus the user's and X-Forwarded-For. */
export function forwardedHeaders(headers: FastifyRequest['headers'], user: UserInfo, clientAddress: string | undefined, bodyLength: number): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || DROPPED.has(k) || k.startsWith('impersonate-') || isAuthProxyHeader(k)) continue;
    out[k] = v;
  }
  Object.assign(out, authProxyHeaders(user));
  if (clientAddress) {
    const prior = out['x-forwarded-for'];
    out['x-forwarded-for'] = prior ? `${String(prior)}, ${clientAddress}` : clientAddress;
  }
  if (bodyLength) out['content-length'] = String(bodyLength);
  return out;
}

/** The 503 for an APIService that cannot be proxied to (its backend's address stays in the logs). */
export function unavailable(api: RemoteApiService, why: string) {
  return serviceUnavailable(`service unavailable: APIService "${api.name}" ${why}`);
}

/**
 * The start of every proxied request: a 503 when the APIService is not Available, then `open` (the
 * backend's request) with a signal that the client leaving (or the response ending) aborts, so a
 * watch or a tunnel is not left open. A backend that cannot be reached is a 503 (its address only
 * logged); undefined when the client left before the backend answered — nothing to tell anyone.
 */
export async function openForClient<T>(reply: FastifyReply, state: ApiRequestState, api: RemoteApiService, log: Logger, open: (signal: AbortSignal) => Promise<T>): Promise<T | undefined> {
  if (!api.available) throw unavailable(api, 'is not available');
  const done = new AbortController();
  reply.raw.once('close', () => done.abort());
  try {
    return await open(done.signal);
  } catch (err) {
    if (done.signal.aborted) return undefined;
    log.warn({ apiService: api.name, auditId: state.auditId, err: (err as Error).message }, 'remote APIService could not be reached');
    throw unavailable(api, 'could not be reached');
  }
}

export async function proxyToApiService(req: FastifyRequest, reply: FastifyReply, state: ApiRequestState, api: RemoteApiService, backends: ApiServiceBackends, log: Logger): Promise<FastifyReply> {
  const body = Buffer.isBuffer(req.body) ? req.body : undefined;
  const answer = await openForClient(reply, state, api, log, (signal) =>
    backends.open(api, {
      method: req.method,
      path: req.raw.url ?? state.path,
      headers: forwardedHeaders(req.headers, state.user, req.socket.remoteAddress, body?.length ?? 0),
      ...(body ? { body } : {}),
      headersTimeoutMs: HEADERS_TIMEOUT_MS,
      signal,
    }),
  );
  if (!answer) return reply;
  reply.code(answer.statusCode ?? 502).headers(responseHeaders(answer.headers));
  return reply.send(answer);
}
