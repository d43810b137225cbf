// The gateway: the HTTP(S) front of the API. It parses each request, authenticates and
// authorizes it through the authn/authz services, serves discovery, OpenAPI and health, answers
// reads from its watch cache and sends writes through admission to the storage service.

import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { NatsConnection } from '@nats-io/nats-core';
import type { KV } from '@nats-io/kv';
import YAML from 'yaml';
import type { Logger } from 'pino';
import { failure, forbidden, methodNotSupported, StatusError, StatusReason, toStatus, type Status } from '../../shared/api/status.js';
import { bearerToken } from '../../shared/api/bearer-token.js';
import { MAX_BODY_BYTES } from '../../shared/api/decode.js';
import { negotiate, type Offer } from '../../shared/api/negotiate.js';
import { parseRequestInfo, type RequestInfo } from '../../shared/api/request-info.js';
import { ServiceName } from '../../shared/bus/subjects.js';
import { Registry } from '../../shared/registry/registry.js';
import { servedSubresourceVerbs } from '../../shared/registry/subresources.js';
import { BucketNotFoundError, lastRevision, openObjectBucket } from '../../shared/store/kv-bucket.js';
import { escapeToken } from '../../shared/store/key-codec.js';
import { busRequest } from '../../shared/bus/client.js';
import { Subjects } from '../../shared/bus/subjects.js';
import type { EscalationCheckReply, EscalationCheckRequest } from '../../shared/bus/messages.js';
import type { UserInfo } from '../../shared/api/types.js';
import { startCacheFeed, type CacheFeed } from '../../shared/store/kv-feed.js';
import { WatchCache } from '../../shared/store/watch-cache.js';
import { defaultHandlerOptions, ResourceHandlers, warningHeaders, type HandlerOptions, type RequestContext } from './handlers.js';
import { attributesFor, defaultIdentityOptions, Identity, type Credentials, type IdentityOptions } from './identity.js';
import { Discovery } from './discovery-routes.js';
import { runChecks, type HealthCheck } from './health.js';
import type { Reply } from './reply.js';
import { ensureSystemNamespaces } from './bootstrap.js';
import { GatewayMetrics } from './metrics.js';
import { AdmissionInterestCache, AuthnInterestCache } from './service-interest.js';
import { asksForImpersonation, impersonatedUser, impersonationChecks, parseImpersonation } from './impersonation.js';
import { Reviews } from './reviews.js';
import { DecodePool } from './decode-pool.js';
import { resolveTarget, Route, routeOf, type Target } from './target.js';

export interface GatewayConfig {
  bucket: string;
  /** PEM material; without it the gateway serves plain HTTP (tests, or TLS terminated in front). */
  tls?: { cert: string; key: string; clientCA?: string };
  watchWindowMs: number;
  bookmarkIntervalMs: number;
  servicePingTimeoutMs: number;
  identity: IdentityOptions;
  handlers: HandlerOptions;
}

export const defaultGatewayConfig: GatewayConfig = {
  bucket: 'objects',
  watchWindowMs: 5 * 60_000,
  bookmarkIntervalMs: 10_000,
  servicePingTimeoutMs: 1_000,
  identity: defaultIdentityOptions,
  handlers: defaultHandlerOptions,
};

export interface GatewayDeps {
  nc: NatsConnection;
  registry: Registry;
  config?: Partial<GatewayConfig>;
  log: Logger;
}

export interface GatewayService {
  app: FastifyInstance;
  cache: WatchCache;
  /** Resolves once the watch cache holds the initial state. */
  ready: Promise<void>;
  close(): Promise<void>;
}

const RESPONSE_OFFERS: Offer[] = [{ mediaType: 'application/json' }, { mediaType: 'application/yaml' }];

export async function createGatewayService(deps: GatewayDeps): Promise<GatewayService> {
  const config: GatewayConfig = { ...defaultGatewayConfig, ...deps.config };
  const { nc, registry, log } = deps;
  const kv: KV = await openBucketWhenProvisioned(nc, config.bucket, log);
  const cache = new WatchCache({ windowMs: config.watchWindowMs });
  const identity = new Identity(nc, config.identity);
  // Any change to an RBAC object invalidates every cached authorization decision.
  const rbacKeys = `${escapeToken(RBAC_GROUP)}.`;
  const feed: CacheFeed = startCacheFeed(kv, cache, { log, onChange: (key, revision) => key.startsWith(rbacKeys) && identity.rbacChanged(revision) });
  const admission = new AdmissionInterestCache(nc, log);
  void admission.start();
  const authnInterest = new AuthnInterestCache(nc, log);
  void authnInterest.start();
  const handlers = new ResourceHandlers(nc, registry, cache, () => lastRevision(nc, config.bucket), admission, config.handlers);
  const reviews = new Reviews(nc, handlers, config.handlers.busTimeoutMs);
  handlers.writeGuard = async (ctx, object) => {
    const t = ctx.target;
    if (t.served.group !== RBAC_GROUP || !RBAC_KINDS.has(t.kind)) return;
    const req: EscalationCheckRequest = { user: ctx.user, object };
    if (ctx.info.namespace) req.namespace = ctx.info.namespace;
    const reply = await busRequest<EscalationCheckReply>(nc, Subjects.authzEscalation, req, config.handlers.busTimeoutMs);
    if (!reply.allowed) throw forbidden(t.gr, object.metadata.name ?? '', reply.message ?? 'attempting to grant RBAC permissions not currently held');
  };
  const discovery = new Discovery(registry);
  const targets = new Map<string, Target>();
  const metrics = new GatewayMetrics();
  const decoder = new DecodePool();
  let shuttingDown = false;

  const timers = [
    setInterval(() => cache.sendBookmarks(), config.bookmarkIntervalMs),
    setInterval(() => cache.compact(), Math.min(10_000, config.watchWindowMs)),
  ];
  for (const t of timers) t.unref();

  const pingCache = new Map<string, number>();
  const pingService = (name: string) => async () => {
    const okUntil = pingCache.get(name) ?? 0;
    if (okUntil > Date.now()) return;
    await nc.request(`$SRV.PING.${name}`, undefined, { timeout: config.servicePingTimeoutMs });
    pingCache.set(name, Date.now() + 1_000);
  };
  const natsCheck: HealthCheck = {
    name: 'nats',
    check: () => {
      if (nc.isClosed()) throw new Error('NATS connection closed');
    },
  };
  const livez: HealthCheck[] = [{ name: 'ping', check: () => undefined }, natsCheck];
  const readyz: HealthCheck[] = [
    ...livez,
    {
      name: 'watch-cache',
      check: () => {
        if (!cache.synced || !feed.healthy()) throw new Error('watch cache not synced');
      },
    },
    ...Object.values(ServiceName).map((n) => ({ name: `service-${n.replace(/^platform-/, '')}`, check: pingService(n) })),
    {
      name: 'shutdown',
      check: () => {
        if (shuttingDown) throw new Error('shutting down');
      },
    },
  ];

  const app = Fastify({
    logger: false,
    bodyLimit: MAX_BODY_BYTES,
    ...(config.tls
      ? {
          https: {
            cert: config.tls.cert,
            key: config.tls.key,
            ...(config.tls.clientCA ? { ca: config.tls.clientCA, requestCert: true, rejectUnauthorized: false } : {}),
          },
        }
      : {}),
  }) as unknown as FastifyInstance;

  // Request metrics: labels come from the parsed RequestInfo stored on the request.
  app.decorateRequest('apiInfo', null);
  app.decorateRequest('startedAt', 0);
  app.addHook('onRequest', async (req) => {
    (req as ApiRequest).startedAt = performance.now();
  });
  app.addHook('onResponse', async (req, reply) => {
    const info = (req as ApiRequest).apiInfo;
    if (!info) return;
    const labels = {
      verb: metricVerb(info, req.headers['content-type']),
      group: info.apiGroup,
      version: info.apiVersion,
      resource: info.resource,
      subresource: info.subresource,
      scope: !info.isResourceRequest ? '' : info.namespace ? 'namespace' : info.name ? 'cluster' : 'cluster',
      component: 'apiserver',
    };
    metrics.requests.inc({ ...labels, code: String(reply.statusCode) });
    // Until the audit pipeline exists, an impersonated request is recorded with both identities.
    const impersonator = (req as ApiRequest).impersonator;
    if (impersonator) {
      log.info({ auditID: reply.getHeader('audit-id'), user: (req as ApiRequest).user?.username, impersonatedBy: impersonator.username, verb: info.verb, uri: req.raw.url, code: reply.statusCode }, 'impersonated request');
    }
    metrics.duration.observe(labels, (performance.now() - (req as ApiRequest).startedAt) / 1000);
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES }, (_req, body, done) => done(null, body));

  const send = (req: FastifyRequest, reply: FastifyReply, r: Reply, warnings: string[], query?: URLSearchParams) => {
    if (warnings.length) for (const [k, v] of Object.entries(warningHeaders(warnings))) reply.header(k, v);
    query ??= new URLSearchParams(queryOf(req.raw.url ?? ''));
    const pretty = query.has('pretty') && query.get('pretty') !== 'false' && query.get('pretty') !== '0';
    if (r.etag) {
      reply.header('etag', r.etag);
      if (req.headers['if-none-match'] === r.etag) return reply.code(304).send();
    }
    if (r.contentType) return reply.code(r.code).type(r.contentType).send(r.body as string);
    const offer = negotiate(req.headers.accept, RESPONSE_OFFERS);
    reply.code(r.code);
    if (offer.mediaType === 'application/yaml') {
      const value = r.raw ? JSON.parse(r.body as string) : r.body;
      return reply.type('application/yaml').send(YAML.stringify(value));
    }
    reply.type('application/json');
    if (r.raw && !pretty) return reply.send(r.body as string);
    const value = r.raw ? JSON.parse(r.body as string) : r.body;
    return reply.send(pretty ? JSON.stringify(value, null, 2) + '\n' : JSON.stringify(value));
  };

  const sendStatus = (req: FastifyRequest, reply: FastifyReply, status: Status, warnings: string[] = []) => {
    if (status.details?.retryAfterSeconds) reply.header('retry-after', String(status.details.retryAfterSeconds));
    if (reply.raw.headersSent) {
      reply.raw.end();
      return reply;
    }
    let accept = req.headers.accept;
    try {
      negotiate(accept, RESPONSE_OFFERS);
    } catch {
      accept = undefined; // errors are always readable: fall back to JSON
    }
    return send({ ...req, headers: { ...req.headers, accept } } as FastifyRequest, reply, { code: status.code, body: status }, warnings);
  };

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    let status: Status;
    if (err instanceof StatusError) status = err.status;
    else if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') status = failure(413, StatusReason.RequestEntityTooLarge, `the request body is larger than ${MAX_BODY_BYTES} bytes`).status;
    else if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') status = failure(415, StatusReason.UnsupportedMediaType, err.message).status;
    else if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) status = failure(err.statusCode, StatusReason.BadRequest, err.message).status;
    else {
      log.error({ err, url: req.raw.url }, 'request failed');
      status = toStatus(err);
    }
    return sendStatus(req, reply, status);
  });

  app.setNotFoundHandler((req, reply) => sendStatus(req, reply, notFoundPath().status));

  // Only a gateway that asks for client certificates needs to look for them on each request.
  const clientCertificates = Boolean(config.tls?.clientCA);
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const auditId = randomUUID();
    reply.header('audit-id', auditId);
    const url = req.raw.url ?? '/';
    const path = pathOf(url);
    const query = new URLSearchParams(queryOf(url));
    const info = parseRequestInfo(req.method, path, query);
    (req as ApiRequest).apiInfo = info;
    let user = await identity.authenticate(credentialsOf(req.raw, clientCertificates, authnInterest));
    if (asksForImpersonation(req.raw.headers)) {
      const wanted = parseImpersonation(distinctHeaders(req.raw));
      stripImpersonation(req.raw);
      if (wanted) {
        // Every requested attribute must be allowed to the caller before the request runs as it.
        for (const attrs of impersonationChecks(user, wanted)) await identity.authorize(attrs);
        (req as ApiRequest).impersonator = user;
        user = impersonatedUser(wanted);
      }
    }
    (req as ApiRequest).user = user;
    // A served type addressed at a path that is none of its routes (a cluster-scoped type, the
    // namespaces included, inside `namespaces/<ns>/`) is answered before any role is consulted:
    // authorizing it against the namespace it carries would let that namespace's grants act on
    // objects outside it. An unserved type is 404 after authorization, as upstream.
    const target = info.isResourceRequest ? targetFor(info) : undefined;
    await identity.authorize(attributesFor(user, info));
    const warnings: string[] = [];

    if (!info.isResourceRequest) {
      const r = await nonResource(path, query, req);
      if (r) return r.text !== undefined ? reply.code(r.code).type(r.type ?? 'text/plain; charset=utf-8').send(r.text) : send(req, reply, r.reply!, warnings);
      return sendStatus(req, reply, notFoundPath().status);
    }

    if (!target) throw notFoundPath();
    const body = req.body as Buffer | undefined;
    const contentType = req.headers['content-type'];
    const ctx: RequestContext = {
      info,
      target,
      user,
      query,
      body,
      contentType,
      warnings,
      res: reply.raw,
      hijack: () => reply.hijack(),
      onClose: (fn) => reply.raw.on('close', fn),
    };
    if (decoder.offloads(body, contentType)) ctx.decoded = await decoder.decode(body!, contentType!);
    if (target.served.version.deprecated) warnings.push(target.served.version.deprecationWarning ?? `${target.apiVersion} ${target.kind} is deprecated`);
    const r = await dispatch(ctx);
    if (r.code === 0) return reply; // streamed
    return send(req, reply, r, warnings, query);
  };

  /** The served type a resource request names (undefined if none); throws if the path is not one of its routes. */
  const targetFor = (info: RequestInfo): Target | undefined => {
    const key = `${info.apiGroup}/${info.apiVersion}/${info.resource}`;
    let t = targets.get(key);
    if (!t) {
      const served = registry.lookup(info.apiGroup, info.apiVersion, info.resource);
      if (!served) return undefined;
      t = resolveTarget(registry, served);
      targets.set(key, t);
    }
    switch (routeOf(t, info)) {
      case Route.Served:
        return t;
      case Route.MethodNotAllowed:
        throw failure(405, StatusReason.MethodNotAllowed, `${info.verb} is only supported on namespaced ${t.type.plural} within a namespace`);
      default:
        throw notFoundPath();
    }
  };

  const dispatch = (ctx: RequestContext): Promise<Reply> => {
    const { info, target: t } = ctx;
    const verbs = t.type.verbs ?? ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
    const sub = info.subresource;
    if (sub === 'token' && t.kind === 'ServiceAccount' && t.served.group === '') {
      if (info.verb !== 'create') throw methodNotSupported(t.gr, info.verb);
      return reviews.tokenRequest(ctx);
    }
    if (t.type.virtual) {
      if (sub) throw notFoundPath();
      if (info.verb !== 'create') throw methodNotSupported(t.gr, info.verb);
      return reviews.create(ctx);
    }
    if (sub) {
      const subVerbs = servedSubresourceVerbs(t.type, sub);
      if (!subVerbs) throw notFoundPath();
      if (!subVerbs.includes(info.verb)) throw methodNotSupported(t.gr, info.verb);
    } else if (!verbs.includes(info.verb)) {
      throw methodNotSupported(t.gr, info.verb);
    }
    switch (info.verb) {
      case 'get':
        return handlers.get(ctx);
      case 'list':
        return handlers.list(ctx);
      case 'watch':
        metrics.watchers.inc({ group: t.served.group, version: t.served.version.name, resource: t.type.plural });
        return handlers.watch(ctx);
      case 'create':
        return handlers.create(ctx);
      case 'update':
        return handlers.update(ctx);
      case 'patch':
        return handlers.patch(ctx);
      case 'delete':
        return handlers.delete(ctx);
      case 'deletecollection':
        return handlers.deleteCollection(ctx);
      default:
        throw methodNotSupported(t.gr, info.verb);
    }
  };

  interface NonResourceReply {
    code: number;
    text?: string;
    type?: string;
    reply?: Reply;
  }

  const nonResource = async (path: string, query: URLSearchParams, req: FastifyRequest): Promise<NonResourceReply | null> => {
    const health = /^\/(healthz|livez|readyz)(?:\/([^/]+))?\/?$/.exec(path);
    if (health) {
      const endpoint = health[1]!;
      const checks = endpoint === 'livez' ? livez : readyz;
      const r = await runChecks(endpoint, checks, query, health[2]);
      return r ? { code: r.code, text: r.text } : null;
    }
    if (path === '/metrics') return { code: 200, text: await metrics.text(), type: 'text/plain; version=0.0.4; charset=utf-8' };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      throw failure(405, StatusReason.MethodNotAllowed, `the server does not allow this method on the requested resource`);
    }
    const doc = discovery.document(path, query, req.headers.accept);
    if (doc) return { code: 200, reply: doc };
    return null;
  };

  app.route({ method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'], url: '/*', handler });
  app.route({ method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'], url: '/', handler });

  const ready = (async () => {
    await feed.synced;
    // The storage service may still be starting: keep trying for a while before giving up.
    for (let attempt = 0; ; attempt++) {
      try {
        await ensureSystemNamespaces(nc, cache, log);
        return;
      } catch (err) {
        if (attempt >= 60 || shuttingDown) throw err;
        log.warn({ err: (err as Error).message }, 'cannot create system namespaces yet; retrying');
        await new Promise((r) => setTimeout(r, 1_000));
      }
    }
  })();
  ready.catch(() => undefined);

  return {
    app,
    cache,
    ready,
    close: async () => {
      shuttingDown = true;
      for (const t of timers) clearInterval(t);
      admission.stop();
      authnInterest.stop();
      await decoder.close();
      cache.closeAll();
      await app.close();
      await feed.stop();
    },
  };
}

/** The storage service provisions the bucket; a gateway started first waits for it (up to a minute). */
async function openBucketWhenProvisioned(nc: NatsConnection, bucket: string, log: Logger): Promise<KV> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await openObjectBucket(nc, { bucket, create: false });
    } catch (err) {
      if (!(err instanceof BucketNotFoundError) || attempt >= 60) throw err;
      if (attempt === 0) log.info({ bucket }, 'waiting for the storage service to provision the bucket');
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
}

// apiserver_request_total uses HTTP-style verbs (POST, LIST, WATCH, APPLY, …), not RBAC verbs.
const METRIC_VERBS: Record<string, string> = { create: 'POST', update: 'PUT', patch: 'PATCH', delete: 'DELETE', deletecollection: 'DELETECOLLECTION', get: 'GET', list: 'LIST', watch: 'WATCH' };
function metricVerb(info: RequestInfo, contentType: string | undefined): string {
  if (!info.isResourceRequest) return info.verb.toUpperCase();
  if (info.verb === 'patch' && contentType?.startsWith('application/apply-patch')) return 'APPLY';
  return METRIC_VERBS[info.verb] ?? info.verb.toUpperCase();
}

interface ApiRequest extends FastifyRequest {
  apiInfo: RequestInfo | null;
  startedAt: number;
  /** Who the request runs as (after impersonation). */
  user?: UserInfo;
  /** The authenticated caller, when it impersonates `user` (both are recorded). */
  impersonator?: UserInfo;
}

const RBAC_GROUP = 'rbac.authorization.platform.io';
const RBAC_KINDS = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

function queryOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? '' : url.slice(q + 1);
}

function notFoundPath(): StatusError {
  return failure(404, StatusReason.NotFound, 'the server could not find the requested resource', {});
}

/** Every header's values, repeated headers kept apart (Node joins most of them with ", "). */
function distinctHeaders(raw: IncomingMessage): Record<string, string[]> {
  // Header names are the client's: `constructor` or `__proto__` must not meet inherited members.
  const out = Object.create(null) as Record<string, string[]>;
  const list = raw.rawHeaders;
  for (let i = 0; i + 1 < list.length; i += 2) (out[list[i]!.toLowerCase()] ??= []).push(list[i + 1]!);
  return out;
}

/** Impersonation headers never travel further than the gateway. */
function stripImpersonation(raw: IncomingMessage): void {
  for (const name of Object.keys(raw.headers)) if (name.startsWith('impersonate-')) delete raw.headers[name];
}

/** Credentials the request carries: bearer token, client certificate chain, front-proxy headers. */
function credentialsOf(raw: IncomingMessage, clientCertificates: boolean, interest: AuthnInterestCache): Credentials {
  const creds: Credentials = {};
  const auth = raw.headers.authorization;
  if (auth !== undefined) {
    const token = bearerToken(auth);
    if (token !== undefined) creds.token = token;
    // The credential is consumed here; nothing downstream (admission, proxies) ever sees it.
    delete raw.headers.authorization;
  }
  const socket = raw.socket as TLSSocket;
  if (clientCertificates && typeof socket.getPeerCertificate === 'function') {
    const chain: string[] = [];
    let cert = socket.getPeerCertificate(true);
    const seen = new Set<string>();
    while (cert && cert.raw && !seen.has(cert.fingerprint256)) {
      seen.add(cert.fingerprint256);
      chain.push(`-----BEGIN CERTIFICATE-----\n${cert.raw.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`);
      cert = cert.issuerCertificate;
    }
    if (chain.length) creds.certificates = chain;
  }
  // Front-proxy headers go to the authn service and are then removed, whether or not they were
  // trusted: a client must never be able to pass them on.
  let headers: Record<string, string[]> | undefined;
  let distinct: Record<string, string[]> | undefined;
  for (const k of Object.keys(raw.headers)) {
    if (!interest.wants(k)) continue;
    distinct ??= distinctHeaders(raw);
    const v = distinct[k];
    if (v !== undefined) (headers ??= {})[k] = v;
    delete raw.headers[k];
  }
  if (headers) creds.headers = headers;
  return creds;
}
