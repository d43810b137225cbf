// The first filter: the audit ID, the parsed RequestInfo, and the request state the later
// filters complete (`req.api`).

import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { internalError } from '../../../shared/api/status.js';
import { parseRequestInfo } from '../../../shared/api/request-info.js';
import type { CanonicalGroup } from '../../../shared/api/groups.js';
import { NOBODY, type ApiRequestState } from '../request.js';
import type { Filter } from './filter.js';

/** `canonicalGroup` names the group an alias in the URL stands for (upstream spellings, when served). */
export function requestInfoFilter(canonicalGroup: CanonicalGroup): Filter {
  return {
    name: 'request-info',
    onRequest(req, reply) {
      const startedAt = performance.now();
      // A caller's own Audit-ID is kept (upstream: it ties the request to the caller's records).
      const given = req.headers['audit-id'];
      const auditId = typeof given === 'string' && given !== '' ? given : randomUUID();
      // On the raw response, so streams the handlers write themselves (watches) carry it too.
      reply.raw.setHeader('audit-id', auditId);
      const url = req.raw.url ?? '/';
      const q = url.indexOf('?');
      const path = q < 0 ? url : url.slice(0, q);
      const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
      const info = parseRequestInfo(req.method, path, query);
      if (info.apiGroup) info.apiGroup = canonicalGroup(info.apiGroup);
      req.api = { startedAt, auditId, path, query, info, user: NOBODY, warnings: [], audit: null };
    },
  };
}

/** The request state; every filter after request-info and every handler may rely on it. */
export function apiState(req: FastifyRequest): ApiRequestState {
  if (!req.api) throw internalError('request state missing: the request-info filter did not run');
  return req.api;
}
