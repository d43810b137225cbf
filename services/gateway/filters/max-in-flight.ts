// `--max-requests-inflight` and `--max-mutating-requests-inflight` (kube-apiserver's
// WithMaxInFlightLimit): at most that many read and write requests run at once; one more is
// answered 429 with Retry-After at once, never queued. Long-running requests (watches, proxy,
// exec, attach, port-forward, logs) are not counted, health checks never wait on the limit, and
// members of system:masters are always served. 0 turns a limit off.

import type { RequestInfo } from '../../../shared/api/request-info.js';
import { tooManyRequests } from '../../../shared/api/status.js';
import { SYSTEM_MASTERS } from '../../../shared/api/groups.js';
import type { Filter } from './filter.js';
import type { GatewayMetrics } from '../metrics.js';
import { apiState } from './request-info.js';

export interface InFlightLimits {
  /** Non-mutating requests at once; 0: unlimited. */
  readOnly: number;
  mutating: number;
}

const MUTATING_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);
const HEALTH_PATH = /^\/(healthz|livez|readyz)(\/|$)/;

export type RequestKind = 'readOnly' | 'mutating';

/** Upstream's BasicLongRunningRequestCheck: watches and proxies, and the streaming subresources. */
export function isLongRunning(info: RequestInfo): boolean {
  if (LONG_RUNNING_VERBS.has(info.verb)) return true;
  return info.isResourceRequest && LONG_RUNNING_SUBRESOURCES.has(info.subresource);
}

/** Which limit a request counts against; null when it counts against none. */
export function inFlightKind(info: RequestInfo, path: string): RequestKind | null {
  if (isLongRunning(info)) return null;
  if (!info.isResourceRequest && HEALTH_PATH.test(path)) return null;
  return MUTATING_VERBS.has(info.verb) ? 'mutating' : 'readOnly';
}

/** Two counters and their limits; `tryAcquire` returns the release, or null when the limit is reached. */
export class InFlight {
  private readonly current: Record<RequestKind, number> = { readOnly: 0, mutating: 0 };

  constructor(
    private readonly limits: InFlightLimits,
    private readonly onChange: (kind: RequestKind, n: number) => void = () => undefined,
  ) {}

  tryAcquire(kind: RequestKind, force = false): (() => void) | null {
    const limit = this.limits[kind];
    if (!force && limit > 0 && this.current[kind] >= limit) return null;
    this.onChange(kind, ++this.current[kind]);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.onChange(kind, --this.current[kind]);
    };
  }

  count(kind: RequestKind): number {
    return this.current[kind];
  }
}

export function maxInFlightFilter(limits: InFlightLimits, metrics: GatewayMetrics): Filter {
  const inFlight = new InFlight(limits);
  metrics.observeInFlight(inFlight);
  return {
    name: 'max-in-flight',
    onRequest(req, reply) {
      const api = apiState(req);
      const kind = inFlightKind(api.info, api.path);
      if (!kind) return;
      let release = inFlight.tryAcquire(kind);
      if (!release) {
        // A system:masters member is so powerful that it always gets an answer (upstream).
        if (!api.user.groups.includes(SYSTEM_MASTERS)) {
          metrics.droppedRequests.inc({ request_kind: kind });
          throw tooManyRequests('Too many requests, please try again later.', 1);
        }
        release = inFlight.tryAcquire(kind, true)!;
      }
      // 'close' comes after the response is sent and also when the client goes away first.
      reply.raw.once('close', release);
    },
  };
}
