// The gateway's metrics in upstream's names, labels, help texts and buckets (k8s.io/apiserver's
// endpoints, filters, storage and cacher metrics at the reference release), served at /metrics in
// the Prometheus text format; filters/metrics.ts records each request when its response is done.
// Counting a request costs a handful of Map lookups and additions: series are found through
// nested maps (shared/metrics/families.ts), and what live state already knows — objects stored,
// requests in flight, the watch cache's figures — is read only when /metrics is scraped.

import type { FastifyReply } from 'fastify';
import { Counter, Gauge } from 'prom-client';
import type { AuditMetrics } from '../../shared/audit/backend.js';
import type { RequestInfo } from '../../shared/api/request-info.js';
import type { UserInfo } from '../../shared/api/types.js';
import { BusMetrics } from '../../shared/bus/metrics.js';
import { exponentialBuckets, SeriesIndex, type CounterCell, type GaugeCell, type HistogramCell } from '../../shared/metrics/families.js';
import { MetricsRegistry, type MetricsOptions } from '../../shared/metrics/registry.js';
import { StabilityLevel } from '../../shared/metrics/stability.js';
import type { Target } from '../../shared/registry/types.js';
import type { WatchCache } from '../../shared/store/watch-cache.js';
import type { ApiRequestState } from './request.js';

const { Alpha, Stable } = StabilityLevel;
const COMPONENT = 'apiserver';
const REQUEST_LABELS = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;
const RESOURCE_LABELS = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;
const GVK_LABELS = ['group', 'version', 'kind'] as const;
// Upstream's request latency buckets (since 1.25 with 5 ms and 25 ms in front of the 1.24 set, a
// superset: queries written for 1.24's buckets still work, and this server's requests are fast).
const LATENCY_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/** What the max-in-flight filter's counters tell (filters/max-in-flight.ts). */
export interface InFlightCounts {
  count(kind: 'readOnly' | 'mutating'): number;
}

export type AuthenticationResult = 'success' | 'failure' | 'error';

/** A watch's cells by its served group, version and kind: counted while it runs, per event sent. */
export interface WatchCells {
  watchers: GaugeCell;
  events: CounterCell;
  sizes: HistogramCell;
}

/** The cells of one (verb, dry_run, group, version, resource, subresource, scope) key. */
class RequestSeries {
  readonly duration: HistogramCell;
  private readonly totals = new Map<number, CounterCell>();
  private sizeCell: HistogramCell | undefined;
  constructor(
    private readonly m: GatewayMetrics,
    /** The REQUEST_LABELS values. */
    private readonly labels: readonly string[],
  ) {
    this.duration = m.duration.with(labels);
  }
  total(code: number): CounterCell {
    let c = this.totals.get(code);
    if (!c) this.totals.set(code, (c = this.m.requests.with([...this.labels, String(code)])));
    return c;
  }
  /** apiserver_response_sizes has no dry_run label. */
  sizes(): HistogramCell {
    return (this.sizeCell ??= this.m.responseSizes.with(this.labels.filter((_, i) => i !== 1)));
  }
}

export class GatewayMetrics {
  /** prom-client's registry with upstream's stability rules; `--show-hidden-metrics-for-version` applies here. */
  readonly registry = new MetricsRegistry();

  readonly requests = this.registry.counter({
    name: 'apiserver_request_total',
    help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
    stabilityLevel: Stable,
    labelNames: [...REQUEST_LABELS, 'code'],
  });
  readonly duration = this.registry.histogram({
    name: 'apiserver_request_duration_seconds',
    help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
    stabilityLevel: Stable,
    labelNames: REQUEST_LABELS,
    buckets: LATENCY_BUCKETS,
  });
  readonly responseSizes = this.registry.histogram({
    name: 'apiserver_response_sizes',
    help: 'Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.',
    stabilityLevel: Stable,
    labelNames: RESOURCE_LABELS,
    // 1 KB to 1 GB.
    buckets: exponentialBuckets(1000, 10, 7),
  });
  readonly longRunning = this.registry.gauge({
    name: 'apiserver_longrunning_requests',
    help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
    stabilityLevel: Alpha,
    labelNames: RESOURCE_LABELS,
  });
  /** The name apiserver_longrunning_requests replaced: hidden at the reference release. */
  readonly longRunningDeprecated = this.registry.gauge({
    name: 'apiserver_longrunning_gauge',
    help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
    stabilityLevel: Alpha,
    deprecatedVersion: '1.23.0',
    labelNames: RESOURCE_LABELS,
  });
  readonly registeredWatchers = this.registry.gauge({
    name: 'apiserver_registered_watchers',
    help: 'Number of currently registered watchers for a given resources',
    stabilityLevel: Alpha,
    deprecatedVersion: '1.23.0',
    labelNames: GVK_LABELS,
  });
  readonly watchEvents = this.registry.counter({
    name: 'apiserver_watch_events_total',
    help: 'Number of events sent in watch clients',
    stabilityLevel: Alpha,
    labelNames: GVK_LABELS,
  });
  readonly watchEventSizes = this.registry.histogram({
    name: 'apiserver_watch_events_sizes',
    help: 'Watch event size distribution in bytes',
    stabilityLevel: Alpha,
    labelNames: GVK_LABELS,
    // 1 KiB to 128 KiB.
    buckets: exponentialBuckets(1024, 2, 8),
  });

  /** The max-in-flight filter's counters, read at scrape time. */
  private inFlight: InFlightCounts | undefined;
  readonly inflight = this.registry.gauge({
    name: 'apiserver_current_inflight_requests',
    // Upstream reports the maximum of the last second; this is the count at scrape time.
    help: 'Number of requests in flight now, per request kind (readOnly, mutating); long-running requests are not counted.',
    stabilityLevel: Stable,
    labelNames: ['request_kind'],
    collect: () => {
      for (const kind of ['readOnly', 'mutating'] as const) this.inflight.with([kind]).set(this.inFlight?.count(kind) ?? 0);
    },
  });
  readonly droppedRequests = this.registry.define(
    {
      name: 'apiserver_dropped_requests_total',
      help: "Number of requests dropped with 'Try again later' response. Use apiserver_request_total and/or apiserver_request_terminations_total metrics instead.",
      stabilityLevel: Alpha,
      deprecatedVersion: '1.24.0',
    },
    (o) => new Counter({ ...o, labelNames: ['request_kind'] as const }),
  );
  readonly deprecatedApis = this.registry.define(
    {
      name: 'apiserver_requested_deprecated_apis',
      help: 'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
      stabilityLevel: Stable,
    },
    (o) => new Gauge({ ...o, labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'] as const }),
  );

  // Authentication as upstream's filter records it: every attempt, the cached answers included.
  readonly authenticationAttempts = this.registry.counter({
    name: 'authentication_attempts',
    help: 'Counter of authenticated attempts.',
    stabilityLevel: Alpha,
    labelNames: ['result'],
  });
  readonly authenticationDuration = this.registry.histogram({
    name: 'authentication_duration_seconds',
    help: 'Authentication duration in seconds broken out by result.',
    stabilityLevel: Alpha,
    labelNames: ['result'],
    buckets: exponentialBuckets(0.001, 2, 15),
  });
  readonly authenticatedUsers = this.registry.counter({
    name: 'authenticated_user_requests',
    help: 'Counter of authenticated requests broken out by username.',
    stabilityLevel: Alpha,
    labelNames: ['username'],
  });

  // Storage and the watch cache, read from the watch cache when scraped.
  private cache: WatchCache | undefined;
  readonly storageObjects = this.registry.gauge({
    name: 'apiserver_storage_objects',
    help: 'Number of stored objects at the time of last check split by kind.',
    stabilityLevel: Stable,
    labelNames: ['resource'],
    collect: () => this.fromCache((s, r) => this.storageObjects.with([r]).set(s.objects)),
  });
  readonly cacheInitEvents = this.registry.counter({
    name: 'apiserver_init_events_total',
    help: 'Counter of init events processed in watch cache broken by resource type.',
    stabilityLevel: Alpha,
    labelNames: ['resource'],
    collect: () => this.fromCache((s, r) => (this.cacheInitEvents.with([r]).value = s.initEvents)),
  });
  readonly cacheEventsDispatched = this.registry.counter({
    name: 'apiserver_watch_cache_events_dispatched_total',
    help: 'Counter of events dispatched in watch cache broken by resource type.',
    stabilityLevel: Alpha,
    labelNames: ['resource'],
    collect: () => this.fromCache((s, r) => (this.cacheEventsDispatched.with([r]).value = s.dispatched)),
  });
  readonly cacheTerminatedWatchers = this.registry.counter({
    name: 'apiserver_terminated_watchers_total',
    help: 'Counter of watchers closed due to unresponsiveness broken by resource type.',
    stabilityLevel: Alpha,
    labelNames: ['resource'],
    collect: () => this.fromCache((s, r) => (this.cacheTerminatedWatchers.with([r]).value = s.terminatedWatchers)),
  });
  readonly cacheInitializations = this.registry.counter({
    // Sic: the reference release's name (namespace and subsystem both say watch_cache).
    name: 'apiserver_watch_cache_watch_cache_initializations_total',
    help: 'Counter of watch cache initializations broken by resource type.',
    stabilityLevel: Alpha,
    labelNames: ['resource'],
    // One cache holds every resource: each was (re)initialized whenever the cache was.
    collect: () => this.fromCache((_s, r) => (this.cacheInitializations.with([r]).value = this.cache!.initializations)),
  });
  readonly cacheResourceVersion = this.registry.gauge({
    // Upstream's since 1.27; the resource label as the reference release's cacher metrics have it.
    name: 'apiserver_watch_cache_resource_version',
    help: 'Current resource version of watch cache broken by resource type.',
    stabilityLevel: Alpha,
    labelNames: ['resource'],
    collect: () => this.fromCache((_s, r) => this.cacheResourceVersion.with([r]).set(this.cache!.revision)),
  });

  /** NATS round trips per contract (platform_bus_request_duration_seconds); service.ts instruments the gateway's connection. */
  readonly bus = new BusMetrics(this.registry);

  readonly auditEvents = new Counter({
    name: 'apiserver_audit_event_total',
    help: 'Counter of audit events generated and sent to the audit backend.',
    registers: [this.registry],
  });
  readonly auditErrors = new Counter({
    name: 'apiserver_audit_error_total',
    help: 'Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.',
    labelNames: ['plugin'] as const,
    registers: [this.registry],
  });
  readonly auditLevels = new Counter({
    name: 'apiserver_audit_level_total',
    help: 'Counter of policy levels for audit events (1 per request).',
    labelNames: ['level'] as const,
    registers: [this.registry],
  });
  readonly auditRejected = new Counter({
    name: 'apiserver_audit_requests_rejected_total',
    help: 'Counter of apiserver requests rejected due to an error in audit logging backend.',
    registers: [this.registry],
  });
  /** The audit metrics as the audit backends count them. */
  readonly audit: AuditMetrics = {
    event: () => this.auditEvents.inc(),
    level: (level) => this.auditLevels.inc({ level }),
    error: (plugin, events) => this.auditErrors.inc({ plugin }, events),
    rejected: () => this.auditRejected.inc(),
  };

  private readonly series = new SeriesIndex<RequestSeries>(REQUEST_LABELS.length - 1, (labels) => new RequestSeries(this, [...labels, COMPONENT]));
  private readonly longRunningCells = new SeriesIndex<[GaugeCell, GaugeCell]>(RESOURCE_LABELS.length - 1, (labels) => [
    this.longRunning.with([...labels, COMPONENT]),
    this.longRunningDeprecated.with([...labels, COMPONENT]),
  ]);
  private readonly watchCellsByTarget = new WeakMap<Target, WatchCells>();
  private readonly authResults = new Map<string, [CounterCell, HistogramCell]>();
  private readonly authUsers = new Map<string, CounterCell>();

  constructor(opts: MetricsOptions = {}) {
    this.registry.processMetrics();
    this.registry.configure(opts);
  }

  /** A request reached a deprecated version (spec, Versioning rule 10). */
  requestedDeprecated(group: string, version: string, resource: string, subresource: string, removedRelease = ''): void {
    this.deprecatedApis.set({ group, version, resource, subresource, removed_release: removedRelease }, 1);
  }

  /** The max-in-flight filter's counters, whose counts apiserver_current_inflight_requests reports. */
  observeInFlight(inFlight: InFlightCounts): void {
    this.inFlight = inFlight;
  }

  /** The watch cache whose figures apiserver_storage_objects and apiserver_watch_cache_* report. */
  observeCache(cache: WatchCache): void {
    this.cache = cache;
  }

  private fromCache(each: (s: ReturnType<WatchCache['resourceStats']>[number], resource: string) => void): void {
    if (!this.cache) return;
    // Upstream's resource label: `configmaps` for the core group, `deployments.apps` otherwise.
    for (const s of this.cache.resourceStats()) each(s, s.group ? `${s.resource}.${s.group}` : s.resource);
  }

  /** Counts and times one finished request (and, for GET and LIST, the size of `reply`'s body). */
  observeRequest(api: ApiRequestState, method: string, contentType: string | undefined, code: number, reply: FastifyReply): void {
    const info = api.info;
    const scope = cleanScope(info);
    const verb = metricVerb(info, method, scope, contentType);
    // A path no served type has (a 404, or a 401 before routing) must not add a series per path.
    const served = !info.isResourceRequest || api.target !== undefined;
    const key = SCRATCH;
    key[0] = verb;
    key[1] = dryRunLabel(api.query);
    key[2] = served ? info.apiGroup : '';
    key[3] = served ? info.apiVersion : '';
    key[4] = served ? info.resource : '';
    key[5] = served ? info.subresource : '';
    key[6] = scope;
    const s = this.series.get(key);
    s.total(code).inc();
    s.duration.observe((performance.now() - api.startedAt) / 1000);
    if (verb === 'GET' || verb === 'LIST') {
      const n = contentLength(reply);
      if (n >= 0) s.sizes().observe(n);
    }
  }

  /** A long-running request (watch, proxy, exec, log…) began; the returned cells are decremented when it ends. */
  longRunningStarted(api: ApiRequestState, method: string): [GaugeCell, GaugeCell] {
    const info = api.info;
    const scope = cleanScope(info);
    const key = SCRATCH;
    key[0] = metricVerb(info, method, scope, undefined);
    key[1] = info.apiGroup;
    key[2] = info.apiVersion;
    key[3] = info.resource;
    key[4] = info.subresource;
    key[5] = scope;
    const cells = this.longRunningCells.get(key);
    cells[0].inc();
    cells[1].inc();
    return cells;
  }

  /** The cells of the watches of one served type and version. */
  watchCells(t: Target): WatchCells {
    let c = this.watchCellsByTarget.get(t);
    if (!c) {
      const gvk = [t.served.group, t.served.version.name, t.kind];
      this.watchCellsByTarget.set(t, (c = { watchers: this.registeredWatchers.with(gvk), events: this.watchEvents.with(gvk), sizes: this.watchEventSizes.with(gvk) }));
    }
    return c;
  }

  /** One authentication as the filter saw it (the gateway's cache included). */
  authenticated(result: AuthenticationResult, seconds: number, user?: UserInfo): void {
    let cells = this.authResults.get(result);
    if (!cells) this.authResults.set(result, (cells = [this.authenticationAttempts.with([result]), this.authenticationDuration.with([result])]));
    cells[0].inc();
    cells[1].observe(seconds);
    if (!user) return;
    const name = compressUsername(user.username);
    let u = this.authUsers.get(name);
    if (!u) this.authUsers.set(name, (u = this.authenticatedUsers.with([name])));
    u.inc();
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

/** Reused for every series lookup (the event loop runs one request's bookkeeping at a time). */
const SCRATCH: string[] = ['', '', '', '', '', '', ''];

function contentLength(reply: FastifyReply): number {
  const v = reply.getHeader('content-length');
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : -1;
}

/** Upstream's CleanScope: a named object is "resource", else its namespace's, the cluster's, or none. */
export function cleanScope(info: RequestInfo): string {
  if (info.name) return 'resource';
  if (info.namespace) return 'namespace';
  if (info.isResourceRequest) return 'cluster';
  return '';
}

// apiserver_request_total uses HTTP-style verbs (POST, LIST, WATCH, APPLY, …), not RBAC verbs.
const METRIC_VERBS: Record<string, string> = { create: 'POST', update: 'PUT', patch: 'PATCH', delete: 'DELETE', deletecollection: 'DELETECOLLECTION', get: 'GET', list: 'LIST', watch: 'WATCH' };
const METHOD_VERBS: Record<string, string> = { GET: 'GET', HEAD: 'GET', POST: 'POST', PUT: 'PUT', PATCH: 'PATCH', DELETE: 'DELETE', OPTIONS: 'OPTIONS' };
const CONNECT_SUBRESOURCES = new Set(['proxy', 'exec', 'attach', 'portforward']);

/** Upstream's reported verb: the resource verb in HTTP style, APPLY for server-side apply, CONNECT for connections, `other` for the unknown. */
export function metricVerb(info: RequestInfo, method: string, scope: string, contentType: string | undefined): string {
  if (!info.isResourceRequest) return METHOD_VERBS[method] ?? 'other';
  if (info.verb === 'patch' && contentType?.startsWith('application/apply-patch')) return 'APPLY';
  if (CONNECT_SUBRESOURCES.has(info.subresource)) return 'CONNECT';
  const v = METRIC_VERBS[info.verb];
  if (v) return v;
  // A GET the RequestInfo names otherwise (a subresource read): GET of one object, LIST of many.
  if (method === 'GET' || method === 'HEAD') return scope === 'resource' ? 'GET' : 'LIST';
  return METHOD_VERBS[method] ?? 'other';
}

/** Upstream's dry_run label: empty when not asked, the sorted distinct values when valid (All), `invalid` otherwise. */
export function dryRunLabel(query: URLSearchParams): string {
  if (!query.has('dryRun')) return '';
  const values = query.getAll('dryRun');
  return values.every((v) => v === 'All') ? 'All' : 'invalid';
}

/** Upstream's compressUsername: a few well-known users by name, the rest as email_id or other. */
function compressUsername(username: string): string {
  switch (username) {
    case 'admin':
    case 'client':
    case 'kube_proxy':
    case 'kubelet':
    case 'system:serviceaccount:platform-system:default':
      return username;
    default:
      return username.includes('@') ? 'email_id' : 'other';
  }
}
