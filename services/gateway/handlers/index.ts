// The route of every resource request once the filters passed it: build the handler's context,
// decode large bodies off the event loop, dispatch, and encode the reply.

import type { FastifyReply, FastifyRequest } from 'fastify';
import { pathNotFound } from '../../../shared/api/status.js';
import type { Targets } from '../../../shared/registry/target.js';
import type { ApiRequestState } from '../request.js';
import { send } from '../respond.js';
import { dispatch } from './dispatch.js';
import { deprecationWarning } from '../../../shared/registry/versions.js';
import type { DecodePool } from './decode-pool.js';
import { AuditAnnotation } from '../../../shared/audit/types.js';
import type { HandlerDeps, RequestContext } from './context.js';

export async function serveResource(req: FastifyRequest, reply: FastifyReply, api: ApiRequestState, deps: HandlerDeps, targets: Targets, decoder: DecodePool): Promise<FastifyReply> {
  const target = api.target;
  if (!target) throw pathNotFound();
  const body = Buffer.isBuffer(req.body) ? req.body : undefined;
  const contentType = req.headers['content-type'];
  const ctx: RequestContext = {
    info: api.info,
    target,
    user: api.user,
    query: api.query,
    headers: req.headers,
    body,
    contentType,
    decoded: body && contentType && decoder.offloads(body, contentType) ? await decoder.decode(body, contentType) : undefined,
    warnings: api.warnings,
    res: reply.raw,
    hijack: () => {
      reply.hijack();
    },
    onClose: (fn) => reply.raw.on('close', fn),
    audit: api.audit,
    deadline: api.deadline,
  };
  const { group, version } = target.served;
  if (version.deprecation) {
    api.warnings.push(deprecationWarning(group, version.name, target.kind, version.deprecation));
    deps.metrics.requestedDeprecated(group, version.name, api.info.resource, api.info.subresource, version.deprecation.removedIn);
    if (api.audit) {
      api.audit.annotate(AuditAnnotation.Deprecated, 'true');
      if (version.deprecation.removedIn) api.audit.annotate(AuditAnnotation.RemovedRelease, version.deprecation.removedIn);
    }
  }
  // Past the request's deadline the answer is upstream's 504; the handler's work is left to end on its own.
  const r = await (api.deadline ? api.deadline.race(dispatch(ctx, deps, targets)) : dispatch(ctx, deps, targets));
  if (!r) return reply; // streamed
  return send(req, reply, r, api.warnings, r.encoder);
}
