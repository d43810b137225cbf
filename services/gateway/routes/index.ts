// Non-resource paths: /healthz, /livez, /readyz (and their per-check paths), /metrics, and the
// discovery and OpenAPI documents. They pass the same filters as resource requests.

import type { FastifyReply, FastifyRequest } from 'fastify';
import { methodNotAllowed, pathNotFound } from '../../../shared/api/status.js';
import type { GatewayMetrics } from '../metrics.js';
import type { ApiRequestState } from '../request.js';
import { send } from '../respond.js';
import type { Discovery } from './discovery.js';
import { HEALTH_PATH, runChecks } from '../../../shared/health/checks.js';
import type { GatewayHealth } from './health.js';

export interface NonResourceDeps {
  health: GatewayHealth;
  metrics: GatewayMetrics;
  discovery: Discovery;
}

export async function serveNonResource(req: FastifyRequest, reply: FastifyReply, api: ApiRequestState, d: NonResourceDeps): Promise<FastifyReply> {
  const health = HEALTH_PATH.exec(api.path);
  if (health) {
    const endpoint = health[1]!;
    const r = await runChecks(endpoint, endpoint === 'livez' ? d.health.livez : d.health.readyz, api.query, health[2]);
    if (!r) throw pathNotFound();
    return reply.code(r.code).type('text/plain; charset=utf-8').send(r.text);
  }
  if (api.path === '/metrics')
    return reply
      .code(200)
      .type('text/plain; version=0.0.4; charset=utf-8')
      .send(await d.metrics.text());
  if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed();
  const doc = d.discovery.document(api.path, req.headers.accept);
  if (!doc) throw pathNotFound();
  return send(req, reply, doc, api.warnings);
}
