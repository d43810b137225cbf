// The authz service: answers `authz.authorize` with the chain's decision (protobuf, shared/bus/
// auth-messages.ts), `authz.rules` with what a user may do (SelfSubjectRulesReview) and
// `authz.escalation` for RBAC writes. It holds the RBAC
// objects in memory from a watch of the object bucket, whatever the modes, because escalation
// checks need them. No environment access; main.ts reads the flags and passes an AuthzConfig.

import type { NatsConnection } from '@nats-io/nats-core';
import { silentLogger, type Logger } from '../../shared/log.js';
import type { UserInfo } from '../../shared/api/types.js';
import type { AuthzAttributes, AuthzInterest, AuthzReply, EscalationCheckReply, EscalationCheckRequest, RulesReviewReply, RulesReviewRequest } from '../../shared/bus/messages.js';
import { badRequest } from '../../shared/api/status.js';
import { jsonEndpoint, protoEndpoint, startJsonService } from '../../shared/bus/service.js';
import { AuthzMessages } from '../../shared/bus/auth-messages.js';
import { ServiceName, Subjects } from '../../shared/bus/subjects.js';
import { groupFilter, startObjectFeed, type ObjectFeed } from '../../shared/store/object-feed.js';
import { createPrivilegedGroupsAuthorizer } from './authorizers/privileged-groups.js';
import { buildModeAuthorizers } from './modes.js';
import { runAuthzChain } from './chain.js';
import { RbacState } from './rbac/state.js';
import { checkEscalation } from './rbac/escalation.js';
import { startBootstrapPolicy, type BootstrapPolicyJob } from './rbac/bootstrap-policy.js';
import { startAggregation, type AggregationController } from './rbac/aggregation.js';
import { createInternalStore } from './internal-store.js';
import { createBuiltinRegistry } from '../../shared/registry/builtin-registry.js';
import type { Registry } from '../../shared/registry/registry.js';
import type { Authorizer, AuthzConfig, ModeContext } from './types.js';
import { canonicalGroupNames, DEFAULT_BUCKET, RBAC_GROUP } from '../../shared/api/groups.js';
import { wellKnownNames } from '../../shared/api/well-known-names.js';
import { instrumentBus } from '../../shared/bus/client.js';
import { BusMetrics } from '../../shared/bus/metrics.js';
import { MetricsRegistry } from '../../shared/metrics/registry.js';
import { AuthzMetrics } from './metrics.js';

export type { AuthzConfig } from './types.js';

export const AUTHZ_SERVICE_VERSION = '0.2.0';

export interface AuthzServiceDeps {
  nc: NatsConnection;
  config: AuthzConfig;
  log?: Logger;
  /** How long start-up waits for the RBAC objects before serving anyway (decisions deny meanwhile). */
  syncTimeoutMs?: number;
  /** How long start-up then waits for the default RBAC policy to be written. */
  bootstrapWaitMs?: number;
  /** The resource types RBAC bootstrap and aggregation write through (default: the built-in types). */
  registry?: Registry;
  /** Where the decisions are counted (main.ts serves it at /metrics); default: a registry of its own. */
  metrics?: MetricsRegistry;
}

export interface AuthzService {
  /** Resolves once the RBAC objects have been loaded. */
  readonly synced: Promise<void>;
  stop(): Promise<void>;
}

function validUser(u: unknown): u is UserInfo {
  return Boolean(u) && typeof u === 'object' && typeof (u as UserInfo).username === 'string' && Array.isArray((u as UserInfo).groups);
}

/** Merges what every mode grants; a mode that cannot list its rules makes the answer incomplete. */
export function rulesReview(authorizers: Authorizer[], req: RulesReviewRequest): RulesReviewReply {
  const reply: RulesReviewReply = { resourceRules: [], nonResourceRules: [], incomplete: false };
  const errors: string[] = [];
  for (const a of authorizers) {
    if (!a.rulesFor) {
      reply.incomplete = true;
      continue;
    }
    const r = a.rulesFor(req.user, req.namespace);
    reply.resourceRules.push(...r.resourceRules);
    reply.nonResourceRules.push(...r.nonResourceRules);
    if (r.incomplete) reply.incomplete = true;
    if (r.evaluationError) errors.push(r.evaluationError);
  }
  if (errors.length) reply.evaluationError = errors.join('; ');
  return reply;
}

// eslint-disable-next-line max-lines-per-function -- the service's composition root: each statement wires one part, read top to bottom
export async function createAuthzService(deps: AuthzServiceDeps): Promise<AuthzService> {
  const log = deps.log ?? silentLogger();
  const bucket = deps.config.bucket ?? DEFAULT_BUCKET;
  const feeds: ObjectFeed[] = [];
  const feed: ModeContext['feed'] = (filters, onEvent) => {
    const f = startObjectFeed({ nc: deps.nc, bucket, filters, onEvent, log });
    feeds.push(f);
    return f;
  };
  const canonicalGroup = canonicalGroupNames(deps.config.upstreamGroupAliases ?? false);
  const rbac = new RbacState(canonicalGroup);
  const rbacFeed = feed([groupFilter(RBAC_GROUP)], (e) => rbac.apply(e));
  let synced = false;
  const syncedP = rbacFeed.synced.then(() => void (synced = true));

  const ctx: ModeContext = { nc: deps.nc, config: deps.config, log, rbac, feed };
  let modeAuthorizers: Authorizer[];
  try {
    modeAuthorizers = await buildModeAuthorizers(ctx);
  } catch (err) {
    for (const f of feeds) await f.stop();
    throw err;
  }
  const authorizers: Authorizer[] = [createPrivilegedGroupsAuthorizer(), ...modeAuthorizers];
  const onError = (authorizer: string, err: unknown) => log.error({ err, authorizer }, 'authorizer failed');
  const metricsRegistry = deps.metrics ?? new MetricsRegistry();
  const metrics = new AuthzMetrics(metricsRegistry);
  instrumentBus(deps.nc, new BusMetrics(metricsRegistry));
  const authorize = async (attrs: AuthzAttributes): Promise<AuthzReply> => {
    // One group, whichever spelling a request or an access review names it by.
    if (attrs.apiGroup) attrs = { ...attrs, apiGroup: canonicalGroup(attrs.apiGroup) };
    const start = performance.now();
    const reply = await runAuthzChain(authorizers, attrs, { onError, onDecision: metrics.decided });
    metrics.chain(reply.decision, (performance.now() - start) / 1000);
    // The revision of the RBAC objects the decision reflects (-1 while they are still loading),
    // so a gateway never caches an answer older than an RBAC change it has already seen.
    reply.revision = synced ? rbacFeed.revision() : -1;
    return reply;
  };

  // The default roles and the ClusterRole aggregation start once the RBAC objects are loaded (an
  // aggregate computed from a partial view would shrink roles for a while), in the background:
  // the storage service may not be up yet, and decisions must not wait for it.
  let stopping = false;
  // Bootstrap and aggregation write through the generic store, like any API request.
  // With upstream's names served, a namespace the bootstrap makes (kube-system, kube-public) gets upstream's name label too, as the gateway's would.
  const registry = deps.registry ?? createBuiltinRegistry({ upstreamGroupAliases: deps.config.upstreamGroupAliases ?? false });
  const internal = createInternalStore({ nc: deps.nc, registry, log });
  let bootstrap: BootstrapPolicyJob | undefined;
  let aggregation: AggregationController | undefined;
  void syncedP.then(() => {
    if (stopping) return;
    bootstrap = startBootstrapPolicy({ internal, log, names: wellKnownNames(deps.config.upstreamGroupAliases ?? false) });
    aggregation = startAggregation({ internal, rbac, log });
  });

  await Promise.race([syncedP, new Promise((r) => setTimeout(r, deps.syncTimeoutMs ?? 3_000).unref())]);
  if (!synced) log.warn({ bucket }, 'RBAC objects not loaded yet; serving anyway');
  // As upstream's readiness waits for its bootstrap-roles step, the service starts answering (and
  // so turns the gateway's readiness green) once the default policy is written, or after a bound
  // when the storage service is not there yet.
  if (bootstrap) {
    const written = await Promise.race([bootstrap.done.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), deps.bootstrapWaitMs ?? 10_000).unref())]);
    if (!written) log.warn('default RBAC policy not written yet; serving anyway');
  }

  const service = await startJsonService(deps.nc, {
    name: ServiceName.authz,
    version: AUTHZ_SERVICE_VERSION,
    description: 'authorizes requests',
    endpoints: [
      protoEndpoint<AuthzAttributes, AuthzReply>(Subjects.authzAuthorize, AuthzMessages.attributes, AuthzMessages.reply, (attrs) => {
        if (!attrs || typeof attrs !== 'object' || !validUser(attrs.user)) throw badRequest('authorization attributes need a user with groups');
        return authorize(attrs);
      }),
      jsonEndpoint<RulesReviewRequest, RulesReviewReply>(Subjects.authzRules, (req) => {
        if (!req || !validUser(req.user) || typeof req.namespace !== 'string') throw badRequest('a rules review needs a user and a namespace');
        return rulesReview(authorizers, req);
      }),
      // Shape errors are 400s (checkEscalation validates); the check itself uses the whole chain.
      jsonEndpoint<EscalationCheckRequest, EscalationCheckReply>(Subjects.authzEscalation, (req) => checkEscalation(req, { rbac, authorize })),
      // The gateways turn anonymous access off when a mode is AlwaysAllow (upstream's ApplyAuthorization).
      jsonEndpoint<unknown, AuthzInterest>(Subjects.authzInterest, () => ({ modes: [...deps.config.modes] })),
    ],
    log,
  });
  log.info({ modes: deps.config.modes }, 'authz service started');
  return {
    synced: syncedP,
    stop: async () => {
      stopping = true;
      // Requests already taken are answered before what they need goes away.
      await service.stop();
      bootstrap?.stop();
      await aggregation?.stop();
      internal.stop();
      await bootstrap?.done;
      for (const a of authorizers) await a.stop?.();
      for (const f of feeds) await f.stop();
    },
  };
}
