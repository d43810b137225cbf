// Upgrade requests for a remote APIService's group/version (kubectl exec, attach or port-forward on
// an aggregated resource), as kube-aggregator's upgrade-aware proxy handles them. The filters have
// authenticated, authorized and audited the request like any other (upgrades.ts routes it through
// them); it then goes to the backend as a plain proxied request does — front-proxy certificate,
// the user in X-Remote-* headers, the client's credentials dropped — with its Connection and
// Upgrade headers kept. A backend that switches protocols has its 101 and headers passed to the
// client and the bytes then flow both ways, raw, until either side ends, which closes both. Any
// other answer (a 400 or 403 refusing the upgrade) is passed on as it came, as is the same 503 as
// for plain requests when the APIService is unavailable or its backend unreachable.

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { RemoteApiService } from '../../../shared/registry/builtin/apiregistration/remote-api-service.js';
import type { ApiRequestState } from '../request.js';
import type { ClientTunnel } from '../upgrades.js';
import { responseHeaders, type ApiServiceBackends } from './backends.js';
import { forwardedHeaders, openForClient } from './proxy.js';

/** How long a backend may take to answer the upgrade; the switched connection then lasts as long as its ends keep it. */
const HEADERS_TIMEOUT_MS = 60_000;

/** The headers of an upgrade request to the backend: a proxied request's, with the client's Upgrade. */
export function upgradeRequestHeaders(req: FastifyRequest, state: ApiRequestState): Record<string, string | string[]> {
  const headers = forwardedHeaders(req.headers, state.user, req.socket.remoteAddress, 0);
  headers.connection = 'Upgrade';
  const upgrade = req.headers.upgrade;
  if (upgrade) headers.upgrade = upgrade;
  return headers;
}

/** The backend's 101 headers for the client, as sent (name case, order, repeats), less its audit ID: the gateway sets its own. */
export function switchedHeaders(rawHeaders: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() !== 'audit-id') out.push(rawHeaders[i]!, rawHeaders[i + 1]!);
  return out;
}

export async function proxyUpgradeToApiService(
  req: FastifyRequest,
  reply: FastifyReply,
  state: ApiRequestState,
  api: RemoteApiService,
  backends: ApiServiceBackends,
  client: ClientTunnel,
  log: Logger,
): Promise<FastifyReply> {
  const answer = await openForClient(reply, state, api, log, (signal) =>
    backends.openUpgrade(api, { method: req.method, path: req.raw.url ?? state.path, headers: upgradeRequestHeaders(req, state), headersTimeoutMs: HEADERS_TIMEOUT_MS, signal }),
  );
  if (!answer) return reply;
  const switched = answer.switched;
  if (!switched) {
    reply.code(answer.response.statusCode ?? 502).headers(responseHeaders(answer.response.headers));
    return reply.send(answer.response);
  }
  reply.hijack();
  if (client.socket.destroyed) {
    switched.socket.destroy();
    return reply;
  }
  // Through the response, so the audit and metrics filters see the 101 as this request's answer.
  reply.raw.writeHead(101, switchedHeaders(answer.response.rawHeaders));
  reply.raw.flushHeaders();
  splice(client, switched);
  return reply;
}

/** Pipes the two connections into each other, bytes already read first; either one ending or failing closes both. */
function splice(client: ClientTunnel, backend: { socket: Duplex; head: Buffer }): void {
  const a = client.socket;
  const b = backend.socket;
  const closeBoth = () => {
    a.destroy();
    b.destroy();
  };
  for (const s of [a, b]) {
    s.once('close', closeBoth);
    // An end passed on (the pipe ends the other side once its writes are out) is the stream's end.
    s.once('finish', closeBoth);
    s.on('error', closeBoth);
  }
  if (client.head.length) b.write(client.head);
  if (backend.head.length) a.write(backend.head);
  a.pipe(b);
  b.pipe(a);
}
