// What every resource handler works with: the request as the filters left it, the body, the raw
// response for streams, and the gateway's store, reader and limits.

import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { ApiObject, UserInfo } from '../../../shared/api/types.js';
import type { RequestInfo } from '../../../shared/api/request-info.js';
import type { DecodedValue } from '../../../shared/api/decode.js';
import type { Body, Encoder } from '../../../shared/codec/index.js';
import type { Registry } from '../../../shared/registry/registry.js';
import type { Target } from '../../../shared/registry/types.js';
import type { GenericStore } from '../../../shared/registry/rest/generic-store.js';
import type { WriteRequest } from '../../../shared/registry/rest/store-types.js';
import { servedAsync } from '../../../shared/registry/rest/stored-form.js';
import { defaultManager } from '../../../shared/fieldmanager/managed.js';
import type { ServicePorts } from '../../../shared/registry/types.js';
import type { CacheReader } from '../reads/reader.js';
import type { GatewayMetrics } from '../metrics.js';
import type { WatchBudget } from './watch-sink.js';
import type { FeatureGates } from '../../../shared/config/feature-gates.js';
import type { AuditAnnotator } from '../../../shared/audit/event.js';
import type { AuthzAttributes } from '../../../shared/bus/messages.js';
import { attributesFor } from '../identity.js';
import type { Deadline } from '../../../shared/api/deadline.js';

export interface HandlerOptions {
  busTimeoutMs: number;
  /** How long a read waits for a requested (future) resourceVersion before 504. */
  resourceVersionWaitMs: number;
  /** Upper bound of a watch without timeoutSeconds. */
  maxWatchSeconds: number;
  /** A watcher whose unsent bytes exceed this is closed. */
  watchBufferBytes: number;
  /** Unsent bytes of all watches together; once spent, new watches get 429 and lagging watchers are closed. */
  maxWatchBufferedBytes: number;
  /**
   * How long a write without a resourceVersion keeps retrying compare-and-swap races it lost
   * (upstream's GuaranteedUpdate retries until it wins); past it the answer is 504, never 409.
   */
  updateRetryMs: number;
}

export const defaultHandlerOptions: HandlerOptions = {
  busTimeoutMs: 5_000,
  resourceVersionWaitMs: 3_000,
  maxWatchSeconds: 1800,
  watchBufferBytes: 4 * 1024 * 1024,
  maxWatchBufferedBytes: 256 * 1024 * 1024,
  updateRetryMs: 10_000,
};

export interface HandlerDeps {
  registry: Registry;
  store: GenericStore;
  reader: CacheReader;
  /** The other services, as REST hooks ask them. */
  services: ServicePorts;
  metrics: GatewayMetrics;
  watchBudget: WatchBudget;
  options: HandlerOptions;
  /** `--feature-gates`, for the handlers whose behaviour a gate changes (list: APIListChunking). */
  features: FeatureGates;
  /** Asks the authorizers (through the gateway's decision cache); rejects with the upstream-shaped 403. */
  authorize(attrs: AuthzAttributes): Promise<void>;
}

export interface RequestContext {
  readonly info: RequestInfo;
  readonly target: Target;
  readonly user: UserInfo;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer | undefined;
  readonly contentType: string | undefined;
  /** The body decoded ahead of time off the event loop (large YAML); decoded inline otherwise. */
  readonly decoded: DecodedValue | undefined;
  /** Accumulates `Warning` headers (299 "..."). */
  readonly warnings: string[];
  /** The raw response, for streams, and the call that takes it over from fastify. */
  readonly res: ServerResponse;
  hijack(): void;
  /** Called when the client goes away. */
  onClose(fn: () => void): void;
  /** The request's audit record (null when not audited): admission annotations go there. */
  readonly audit: AuditAnnotator | null;
  /** The request's deadline (none for long-running requests): every hop and cache wait of the request ends by then. */
  readonly deadline?: Deadline;
}

/** A handler's answer; null when it wrote the response itself (watch streams, proxies). */
export type Reply = { code: number; body: Body; encoder?: Encoder } | null;

export type Handler = (ctx: RequestContext, deps: HandlerDeps) => Promise<Reply>;

/** The namespace a request addresses; a cluster-scoped type has none (even at `namespaces/<name>`). */
export function namespaceOf(ctx: RequestContext): string | undefined {
  return ctx.target.namespaced ? ctx.info.namespace || undefined : undefined;
}

/** The field manager of this request: `?fieldManager=`, else the client's user agent (upstream's default). */
export function managerOf(ctx: RequestContext): string {
  return ctx.query.get('fieldManager') || defaultManager(ctx.headers['user-agent']);
}

/** The generic store's view of this request's write. */
export function writeRequest(ctx: RequestContext, dryRun: boolean, name = ctx.info.name): WriteRequest {
  return {
    target: ctx.target,
    user: ctx.user,
    namespace: namespaceOf(ctx),
    name,
    subresource: ctx.info.subresource,
    dryRun,
    warnings: ctx.warnings,
    manager: managerOf(ctx),
    audit: ctx.audit,
    deadline: ctx.deadline,
  };
}

/**
 * The store's view of an apply or PUT: the filter authorized its patch or update, and if it ends
 * up creating the object the store asks for `create` too, as the same (possibly impersonated)
 * user on the same object, as upstream's patch and update handlers do.
 */
export function writeRequestMayCreate(ctx: RequestContext, deps: HandlerDeps, dryRun: boolean): WriteRequest {
  const attrs: AuthzAttributes = { ...attributesFor(ctx.user, ctx.info), verb: 'create' };
  return { ...writeRequest(ctx, dryRun), authorizeCreate: () => deps.authorize(attrs) };
}

/** A stored object in the target's served form (through its conversion webhook when it has one). */
export function servedObject(ctx: RequestContext, o: ApiObject): Promise<ApiObject> {
  return servedAsync(ctx.target, o);
}

export function warningHeaders(warnings: string[]): Record<string, string[]> {
  if (!warnings.length) return {};
  return { warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`) };
}
