// EventRateLimit: keeps a flood of Events from swamping the store. Each configured limit is a
// token bucket (qps refill, burst capacity) for the whole server, or one per namespace, user, or
// event source + involved object, the per-key buckets held in an LRU of cacheSize (a bucket
// evicted starts again full). A core Event create or update that finds any of its buckets empty is
// refused with 429 and a Retry-After of the time the emptiest bucket needs to refill one token.
// Dry runs are not counted: they never reach the store. Buckets are per admission replica, as
// upstream's are per API server.

import { AdmissionOperation, type AdmissionRequest } from '../../../../shared/bus/messages.js';
import { tooManyRequests, fieldErrorMessage, type FieldError } from '../../../../shared/api/status.js';
import { invalidValue, required, unsupported } from '../../../../shared/api/field-errors.js';
import { checkPluginConfiguration, type PluginConfiguration } from '../../plugin-configuration.js';
import { AdmissionConfigError } from '../../errors.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';

export const EVENT_RATE_LIMIT = 'EventRateLimit';

export const EVENT_RATE_LIMIT_CONFIGURATION_VERSIONS: readonly string[] = ['eventratelimit.admission.platform.io/v1alpha1', 'eventratelimit.admission.k8s.io/v1alpha1'];
export const EVENT_RATE_LIMIT_CONFIGURATION_KIND = 'Configuration';

export const LimitType = {
  Server: 'Server',
  Namespace: 'Namespace',
  User: 'User',
  SourceAndObject: 'SourceAndObject',
} as const;
export type LimitType = (typeof LimitType)[keyof typeof LimitType];

/** Buckets kept per limit when `cacheSize` is 0 or absent (upstream's). */
export const DEFAULT_CACHE_SIZE = 4096;

/** Upstream compares the request's kind: core Events only, created or updated (event series patch their count). */
export const EVENT_RATE_LIMIT_MATCH: PluginMatch = {
  operations: [AdmissionOperation.Create, AdmissionOperation.Update],
  resources: [{ group: '', resource: 'events' }],
};

export interface EventLimit {
  type: LimitType;
  qps: number;
  burst: number;
  /** Per-key limits only; 0 = DEFAULT_CACHE_SIZE. */
  cacheSize: number;
}

// ---- configuration --------------------------------------------------------------------------

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const LIMIT_FIELDS = ['type', 'qps', 'burst', 'cacheSize'];
const LIMIT_TYPES: readonly string[] = Object.values(LimitType);
const INT32_MAX = 2 ** 31 - 1;

/** An int32 field (the configuration's Go types); absent = 0; undefined once its error is reported. */
function int32(l: Json, field: string, at: string, errors: FieldError[]): number | undefined {
  const v = l[field];
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || Math.abs(v) > INT32_MAX) {
    errors.push(invalidValue(`${at}.${field}`, v, 'must be a 32-bit integer'));
    return undefined;
  }
  return v;
}

/** Upstream's rules: at least one limit; a known type; qps and burst positive; cacheSize not negative. */
export function validateEventLimits(raw: unknown): { limits: EventLimit[]; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const limits: EventLimit[] = [];
  if (raw !== undefined && raw !== null && !Array.isArray(raw)) return { limits, errors: [invalidValue('limits', raw, 'must be a list')] };
  const items = (raw ?? []) as unknown[];
  if (items.length === 0) errors.push(invalidValue('limits', [], 'must not be empty'));
  items.forEach((item, i) => {
    const at = `limits[${i}]`;
    if (!isObject(item)) {
      errors.push(invalidValue(at, item, 'must be an object'));
      return;
    }
    for (const key of Object.keys(item)) if (!LIMIT_FIELDS.includes(key)) errors.push(invalidValue(`${at}.${key}`, undefined, 'unknown field'));
    const type = item.type;
    if (type === undefined || type === null || type === '') errors.push(required(`${at}.type`, `supported values: ${LIMIT_TYPES.map((t) => JSON.stringify(t)).join(', ')}`));
    else if (typeof type !== 'string' || !LIMIT_TYPES.includes(type)) errors.push(unsupported(`${at}.type`, type, LIMIT_TYPES));
    const qps = int32(item, 'qps', at, errors);
    const burst = int32(item, 'burst', at, errors);
    const cacheSize = int32(item, 'cacheSize', at, errors);
    if (burst !== undefined && burst <= 0) errors.push(invalidValue(`${at}.burst`, burst, 'must be positive'));
    if (qps !== undefined && qps <= 0) errors.push(invalidValue(`${at}.qps`, qps, 'must be positive'));
    if (type !== LimitType.Server && cacheSize !== undefined && cacheSize < 0) errors.push(invalidValue(`${at}.cacheSize`, cacheSize, 'must not be negative'));
    limits.push({ type: type as LimitType, qps: qps ?? 0, burst: burst ?? 0, cacheSize: cacheSize ?? 0 });
  });
  return { limits, errors };
}

/** Reads and checks the plugin's Configuration; a missing or wrong one stops the service from starting. */
export function parseEventRateLimitConfiguration(cfg: PluginConfiguration | undefined): EventLimit[] {
  const at = `admission plugin ${EVENT_RATE_LIMIT}`;
  if (!cfg) throw new AdmissionConfigError(`${at} needs a configuration in --admission-control-config-file: limits: Invalid value: []: must not be empty`);
  const doc = checkPluginConfiguration(EVENT_RATE_LIMIT, cfg, {
    apiVersions: EVENT_RATE_LIMIT_CONFIGURATION_VERSIONS,
    kind: EVENT_RATE_LIMIT_CONFIGURATION_KIND,
    fields: ['limits'],
  });
  const { limits, errors } = validateEventLimits(doc.limits);
  if (errors.length) {
    const summary = errors.length === 1 ? fieldErrorMessage(errors[0]!) : `[${errors.map(fieldErrorMessage).join(', ')}]`;
    throw new AdmissionConfigError(`${at}: configuration from ${cfg.source}: ${summary}`);
  }
  return limits;
}

// ---- buckets --------------------------------------------------------------------------------

/** A token bucket that starts full, refills `qps` tokens a second up to `burst` (golang.org/x/time/rate). */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    nowMs: number,
  ) {
    this.tokens = burst;
    this.last = nowMs;
  }

  private refill(nowMs: number): void {
    if (nowMs > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + ((nowMs - this.last) / 1000) * this.qps);
      this.last = nowMs;
    }
  }

  /** Takes one token if there is one. */
  tryAccept(nowMs: number): boolean {
    this.refill(nowMs);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Seconds until one token is available (0 when one is). */
  secondsUntilToken(nowMs: number): number {
    this.refill(nowMs);
    return this.tokens >= 1 ? 0 : (1 - this.tokens) / this.qps;
  }
}

/** Buckets by key, least recently used evicted past `size`. */
export class BucketCache {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly size: number,
    private readonly create: () => TokenBucket,
  ) {}

  get(key: string): TokenBucket {
    let bucket = this.buckets.get(key);
    if (bucket) {
      this.buckets.delete(key);
    } else {
      bucket = this.create();
      if (this.buckets.size >= this.size) this.buckets.delete(this.buckets.keys().next().value!);
    }
    this.buckets.set(key, bucket);
    return bucket;
  }

  get entries(): number {
    return this.buckets.size;
  }
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const rec = (v: unknown): Json => (isObject(v) ? v : {});

/** The bucket key of a request under one limit type (upstream's key functions). */
export function limitKey(type: LimitType, req: AdmissionRequest): string {
  switch (type) {
    case LimitType.Server:
      return '';
    case LimitType.Namespace:
      return req.namespace ?? '';
    case LimitType.User:
      return req.userInfo?.username ?? '';
    case LimitType.SourceAndObject: {
      const event = req.object;
      if (!event) return '';
      const source = rec(event.source);
      const involved = rec(event.involvedObject);
      return [source.component, source.host, involved.kind, involved.namespace, involved.name, involved.uid, involved.apiVersion].map(str).join('');
    }
  }
}

interface Enforcer {
  type: LimitType;
  bucket(key: string): TokenBucket;
}

function enforcer(limit: EventLimit, now: () => number): Enforcer {
  const create = () => new TokenBucket(limit.qps, limit.burst, now());
  if (limit.type === LimitType.Server) {
    const single = create();
    return { type: limit.type, bucket: () => single };
  }
  const cache = new BucketCache(limit.cacheSize || DEFAULT_CACHE_SIZE, create);
  return { type: limit.type, bucket: (key) => cache.get(key) };
}

export function createEventRateLimit(limits: readonly EventLimit[], now: () => number = Date.now): AdmissionPlugin {
  const enforcers = limits.map((l) => enforcer(l, now));
  return {
    name: EVENT_RATE_LIMIT,
    match: EVENT_RATE_LIMIT_MATCH,
    validate(req) {
      if (req.kind.group !== '' || req.kind.kind !== 'Event') return;
      if (req.dryRun) return;
      const t = now();
      const refused: string[] = [];
      let retryAfter = 0;
      // Every limit takes its token, as upstream's: one refusal does not spare the others.
      for (const e of enforcers) {
        const key = limitKey(e.type, req);
        const bucket = e.bucket(key);
        if (bucket.tryAccept(t)) continue;
        refused.push(`limit reached on type ${e.type} for key ${key}`);
        retryAfter = Math.max(retryAfter, bucket.secondsUntilToken(t));
      }
      if (!refused.length) return;
      const message = refused.length === 1 ? refused[0]! : `[${refused.join(', ')}]`;
      throw tooManyRequests(`Too many requests: ${message}`, Math.max(1, Math.ceil(retryAfter)));
    },
  };
}

export const eventRateLimitPlugin: PluginDefinition = {
  name: EVENT_RATE_LIMIT,
  defaultEnabled: false,
  create: (deps) => createEventRateLimit(parseEventRateLimitConfiguration(deps.config)),
};
