// The filter chain, in the order every request passes it (kube-apiserver's handler chain). Each
// filter is one file. Audit is in the chain only when a policy is configured.

import type { FastifyInstance } from 'fastify';
import type { Filter } from './filter.js';
import type { Logger } from 'pino';
import type { AuthnInterestCache, AuthzInterestCache } from '../../../shared/bus/service-interest.js';
import type { Targets } from '../../../shared/registry/target.js';
import type { Identity } from '../identity.js';
import { requestInfoFilter } from './request-info.js';
import { requestDeadlineFilter } from './request-deadline.js';
import { authenticationFilter } from './authentication.js';
import { impersonationFilter } from './impersonation.js';
import { routeFilter } from './route.js';
import { authorizationFilter } from './authorization.js';
import { metricsFilter } from './metrics.js';
import type { GatewayMetrics } from '../metrics.js';
import { maxInFlightFilter, type InFlightLimits } from './max-in-flight.js';
import { shutdownFilter } from './shutdown.js';
import { auditFilter } from './audit.js';
import type { Auditor } from '../../../shared/audit/backend.js';

export interface FilterDeps {
  identity: Identity;
  authnInterest: AuthnInterestCache;
  authzInterest: AuthzInterestCache;
  clientCertificates: boolean;
  targets: Targets;
  metrics: GatewayMetrics;
  log: Logger;
  inFlight: InFlightLimits;
  /** Answers new requests 429 + Retry-After once it returns true (`--shutdown-send-retry-after` while draining). */
  refuseNewRequests(): boolean;
  /** `--audit-policy-file` and its backends; null: no auditing, and no audit filter. */
  auditor: Auditor | null;
  /** `--request-timeout`: the longest a non-long-running request may take (`?timeout=` may ask for less). */
  requestTimeoutMs: number;
}

export function filterChain(d: FilterDeps): Filter[] {
  return [
    requestInfoFilter(d.targets.registry.canonicalGroup), //       audit ID, RequestInfo (canonical group), req.api
    requestDeadlineFilter(d.requestTimeoutMs), //                   → api.deadline (400 for a malformed ?timeout=)
    shutdownFilter(d.refuseNewRequests), //                         429 + Retry-After while draining, when asked to
    authenticationFilter(d), //                                   → api.user (401 for anonymous under AlwaysAllow)
    ...(d.auditor ? [auditFilter(d.auditor)] : []), //             → api.audit; stages RequestReceived … ResponseComplete
    impersonationFilter(d.identity), //                            → api.user, api.impersonator
    maxInFlightFilter(d.inFlight, d.metrics), //                    429 + Retry-After beyond the in-flight limits
    routeFilter(d.targets), //                                     → api.target; 404/405 before authz
    authorizationFilter(d.identity), //                            403 unless allowed
    metricsFilter(d.metrics), //                                   on response: counts and latency
  ];
}

/** Runs the filters in order as one fastify hook per phase (a filter with nothing to wait for costs no promise). */
export function installFilters(app: FastifyInstance, filters: readonly Filter[]): void {
  const before = filters.filter((f) => f.onRequest);
  const after = filters.filter((f) => f.onResponse);
  app.addHook('onRequest', async (req, reply) => {
    for (const f of before) {
      const pending = f.onRequest!(req, reply);
      if (pending) await pending;
    }
  });
  app.addHook('onResponse', async (req, reply) => {
    for (const f of after) await f.onResponse!(req, reply);
  });
  const sending = filters.filter((f) => f.onSend);
  if (!sending.length) return;
  app.addHook('onSend', (req, reply, payload, done) => {
    let i = 0;
    const next = (err?: unknown): void => {
      if (err) return done(err as Error);
      while (i < sending.length) {
        const pending = sending[i++]!.onSend!(req, reply);
        if (pending) return void pending.then(() => next(), next);
      }
      done(null, payload);
    };
    next();
  });
}
