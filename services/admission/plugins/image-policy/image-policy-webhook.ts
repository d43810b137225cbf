// ImagePolicyWebhook: a pod is admitted only when an outside backend accepts its images. Each pod
// create or update (and each ephemeral-containers update) is sent as an ImageReview
// (`imagepolicy.platform.io/v1alpha1`) over TLS to the server a kubeconfig-format client
// configuration names; answers are cached for allowTTL/denyTTL and transient failures retried
// with backoff. When the backend cannot be asked, `defaultAllow` decides: failing open marks the
// pod (`alpha.image-policy.platform.io/failed-open`) and the audit event, as upstream does.
//
// Upstream decides in the validating phase, on the final object, and we do too. Upstream also
// writes the failed-open annotation from there, which our chain forbids (a validating plugin
// never changes the object), so with defaultAllow a mutating hook asks first and only marks the
// pod when the backend cannot be reached; the validating hook still makes the decision.

import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { HttpJsonError } from '../../../../shared/webhook/http-json.js';
import { loadWebhookClient, WebhookConfigError, type WebhookClient } from '../../../../shared/webhook/client-config.js';
import { TtlCache } from '../../../../shared/ground/ttl-cache.js';
import { AdmissionOperation, type AdmissionRequest } from '../../../../shared/bus/messages.js';
import type { ApiObject } from '../../../../shared/api/types.js';
import { AdmissionConfigError, admissionForbidden } from '../../errors.js';
import type { PluginConfiguration } from '../../plugin-configuration.js';
import type { AdmissionContext, AdmissionPlugin, PluginDefinition, PluginDeps, PluginMatch } from '../../types.js';
import { goDuration } from './go-duration.js';

export const IMAGE_POLICY_WEBHOOK = 'ImagePolicyWebhook';

export const IMAGE_REVIEW_API_VERSION = 'imagepolicy.platform.io/v1alpha1';
/** Upstream's spelling, accepted in a backend's answer. */
const UPSTREAM_IMAGE_REVIEW_API_VERSION = 'imagepolicy.k8s.io/v1alpha1';
const IMAGE_REVIEW_KIND = 'ImageReview';

/** Every audit annotation this plugin writes starts with this (upstream: lower-cased plugin name). */
export const AUDIT_KEY_PREFIX = 'imagepolicywebhook.image-policy.platform.io/';
export const FAILED_OPEN_AUDIT_KEY = `${AUDIT_KEY_PREFIX}failed-open`;
/** Set on a pod admitted although the backend could not be asked. */
export const FAILED_OPEN_POD_ANNOTATION = 'alpha.image-policy.platform.io/failed-open';
/** Pod annotations whose key contains this are sent to the backend. */
const FORWARDED_ANNOTATION_MARK = '.image-policy.platform.io/';

const EPHEMERAL_CONTAINERS = 'ephemeralcontainers';
/** Upstream's LRU size for answers. */
const RESPONSE_CACHE_ENTRIES = 1024;
/** Upstream's retry schedule around the configured first delay. */
const RETRY_STEPS = 5;
const RETRY_FACTOR = 1.5;
const RETRY_JITTER = 0.2;
/**
 * How long a failure seen by the mutating hook stands for the same review, so the validating
 * phase of that request does not wait for an unreachable backend a second time.
 */
export const RECENT_FAILURE_MS = 5_000;

export const IMAGE_POLICY_MATCH: PluginMatch = {
  operations: [AdmissionOperation.Create, AdmissionOperation.Update],
  resources: [{ group: '', resource: 'pods' }],
  // The backend call and its retries.
  timeoutSeconds: 35,
};

// ---- configuration --------------------------------------------------------------------------

export interface ImagePolicySettings {
  /** Absolute path of the backend's client configuration. */
  kubeConfigFile: string;
  /** 0 = answers of that kind are not cached. */
  allowTtlMs: number;
  denyTtlMs: number;
  retryBackoffMs: number;
  defaultAllow: boolean;
}

const NS_PER_MS = 1_000_000n;
const NS_PER_S = 1_000_000_000n;

interface DurationRule {
  field: string;
  /** Nanoseconds per unit the field is written in. */
  unit: bigint;
  min: bigint;
  max: bigint;
  fallback: bigint;
}

const DURATIONS: readonly DurationRule[] = [
  { field: 'retryBackoff', unit: NS_PER_MS, min: 1n, max: 5n * 60n * NS_PER_S, fallback: 500n * NS_PER_MS },
  { field: 'allowTTL', unit: NS_PER_S, min: NS_PER_S, max: 30n * 60n * NS_PER_S, fallback: 5n * 60n * NS_PER_S },
  { field: 'denyTTL', unit: NS_PER_S, min: NS_PER_S, max: 30n * 60n * NS_PER_S, fallback: 30n * NS_PER_S },
];

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Upstream's sentinels: 0 (or absent) is the default, -1 switches the cache or the delay off. */
function normalizeDuration(rule: DurationRule, value: unknown, fail: (msg: string) => never): bigint {
  if (value === undefined || value === null) return rule.fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) fail(`imagePolicy.${rule.field} must be an integer, not ${JSON.stringify(value)}`);
  if (value === 0) return rule.fallback;
  if (value === -1) return 0n;
  const ns = BigInt(value) * rule.unit;
  if (ns < rule.min || ns > rule.max) fail(`imagePolicy.${rule.field}: valid value is between ${goDuration(rule.min)} and ${goDuration(rule.max)}, got ${goDuration(ns)}`);
  return ns;
}

const SETTINGS_FIELDS = ['kubeConfigFile', 'allowTTL', 'denyTTL', 'retryBackoff', 'defaultAllow'];

/**
 * Reads the plugin's configuration: upstream's `{imagePolicy: {...}}` document, unversioned
 * (upstream has no kind for it; an `apiVersion` or `kind` beside `imagePolicy` is ignored, as
 * upstream's decoder ignores it). `kubeConfigFile` is relative to the configuration's directory.
 */
export function parseImagePolicyConfiguration(cfg: PluginConfiguration | undefined): ImagePolicySettings {
  const at = `admission plugin ${IMAGE_POLICY_WEBHOOK}`;
  if (!cfg) throw new AdmissionConfigError(`${at} needs a configuration (imagePolicy.kubeConfigFile) in --admission-control-config-file`);
  const fail = (msg: string): never => {
    throw new AdmissionConfigError(`${at}: configuration from ${cfg.source}: ${msg}`);
  };
  const doc = cfg.configuration;
  if (!isObject(doc)) fail('must be an object with an imagePolicy entry');
  const top = doc as Json;
  for (const key of Object.keys(top)) if (!['imagePolicy', 'apiVersion', 'kind'].includes(key)) fail(`unknown field ${JSON.stringify(key)}`);
  const policy = top.imagePolicy;
  if (!isObject(policy)) fail('imagePolicy is required and must be an object');
  const p = policy as Json;
  for (const key of Object.keys(p)) if (!SETTINGS_FIELDS.includes(key)) fail(`unknown field imagePolicy.${key}`);
  if (typeof p.kubeConfigFile !== 'string' || p.kubeConfigFile === '') fail('imagePolicy.kubeConfigFile is required');
  if (p.defaultAllow !== undefined && p.defaultAllow !== null && typeof p.defaultAllow !== 'boolean') fail('imagePolicy.defaultAllow must be true or false');
  const [retryBackoff, allowTtl, denyTtl] = DURATIONS.map((rule) => normalizeDuration(rule, p[rule.field], fail)) as [bigint, bigint, bigint];
  const toMs = (ns: bigint) => Number(ns) / Number(NS_PER_MS);
  return {
    kubeConfigFile: path.resolve(cfg.dir, p.kubeConfigFile as string),
    allowTtlMs: toMs(allowTtl),
    denyTtlMs: toMs(denyTtl),
    retryBackoffMs: toMs(retryBackoff),
    defaultAllow: p.defaultAllow === true,
  };
}

// ---- the review -----------------------------------------------------------------------------

/** `spec` of an ImageReview, fields in upstream's order and left out when empty (Go's omitempty). */
export interface ImageReviewSpec {
  containers?: Array<{ image?: string }>;
  annotations?: Record<string, string>;
  namespace?: string;
}

export interface ImageReviewStatus {
  allowed: boolean;
  reason?: string;
  auditAnnotations?: Record<string, string>;
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/**
 * What is sent for this request, or undefined when it is not the plugin's (another resource, a
 * pod subresource other than ephemeralcontainers, no object). A pod's own request reviews its
 * containers then its init containers; the ephemeralcontainers subresource its ephemeral ones.
 */
export function imageReviewSpec(req: AdmissionRequest): ImageReviewSpec | undefined {
  const sub = req.subResource ?? '';
  if (req.resource.group !== '' || req.resource.resource !== 'pods') return undefined;
  if (sub !== '' && sub !== EPHEMERAL_CONTAINERS) return undefined;
  const pod = req.object;
  if (!pod) return undefined;
  const podSpec = isObject(pod.spec) ? pod.spec : {};
  const containers = sub === '' ? [...list(podSpec.containers), ...list(podSpec.initContainers)] : list(podSpec.ephemeralContainers);
  const spec: ImageReviewSpec = {};
  if (containers.length) {
    spec.containers = containers.map((c) => {
      const image = isObject(c) && typeof c.image === 'string' ? c.image : '';
      return image ? { image } : {};
    });
  }
  const forwarded = Object.entries(pod.metadata?.annotations ?? {})
    .filter(([k]) => k.includes(FORWARDED_ANNOTATION_MARK))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (forwarded.length) spec.annotations = Object.fromEntries(forwarded);
  if (req.namespace) spec.namespace = req.namespace;
  return spec;
}

/** The request body: an ImageReview as upstream's client serializes it. */
export function imageReview(spec: ImageReviewSpec): Json {
  return { apiVersion: IMAGE_REVIEW_API_VERSION, kind: IMAGE_REVIEW_KIND, metadata: { creationTimestamp: null }, spec, status: { allowed: false } };
}

/** The answer's status; throws with what is wrong when the body is not an ImageReview. */
export function readImageReviewStatus(body: unknown): ImageReviewStatus {
  if (!isObject(body)) throw new Error('the answer is not an ImageReview object');
  if (body.kind !== undefined && body.kind !== IMAGE_REVIEW_KIND) throw new Error(`the answer is a ${JSON.stringify(body.kind)}, not an ImageReview`);
  if (body.apiVersion !== undefined && body.apiVersion !== IMAGE_REVIEW_API_VERSION && body.apiVersion !== UPSTREAM_IMAGE_REVIEW_API_VERSION) {
    throw new Error(`the answer's apiVersion ${JSON.stringify(body.apiVersion)} is not ${IMAGE_REVIEW_API_VERSION}`);
  }
  // An answer without a status allows nothing (Go's zero value), as upstream reads it.
  const status = body.status ?? {};
  if (!isObject(status)) throw new Error("the answer's status is not an object");
  if (status.allowed !== undefined && status.allowed !== null && typeof status.allowed !== 'boolean') throw new Error('status.allowed is not a boolean');
  const out: ImageReviewStatus = { allowed: status.allowed === true };
  if (typeof status.reason === 'string' && status.reason) out.reason = status.reason;
  if (status.auditAnnotations !== undefined && status.auditAnnotations !== null) {
    if (!isObject(status.auditAnnotations) || !Object.values(status.auditAnnotations).every((v) => typeof v === 'string')) {
      throw new Error('status.auditAnnotations is not a map of strings');
    }
    if (Object.keys(status.auditAnnotations).length) out.auditAnnotations = status.auditAnnotations as Record<string, string>;
  }
  return out;
}

export function deniedMessage(status: ImageReviewStatus): string {
  return status.reason ? `image policy webhook backend denied one or more images: ${status.reason}` : 'one or more images rejected by webhook backend';
}

// ---- the plugin -----------------------------------------------------------------------------

export interface ImagePolicyWebhookOptions {
  settings: Omit<ImagePolicySettings, 'kubeConfigFile'>;
  client: Pick<WebhookClient, 'postJson' | 'close'>;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

type Outcome = { status: ImageReviewStatus } | { failure: string };
type Attempt = Outcome & { retry?: boolean };

/** Transient failures upstream's webhook client retries: a reset connection, 429, 500, 504. */
const RETRIED_STATUS = new Set([429, 500, 504]);

function isConnectionReset(err: unknown): boolean {
  const cause = (err as { cause?: { code?: unknown } }).cause;
  return cause?.code === 'ECONNRESET';
}

/** A failure is remembered without the failed-open mark, which the mutating hook adds itself. */
function failureKey(spec: ImageReviewSpec): string {
  const unmarked: ImageReviewSpec = {};
  if (spec.containers) unmarked.containers = spec.containers;
  const annotations = Object.entries(spec.annotations ?? {}).filter(([k]) => k !== FAILED_OPEN_POD_ANNOTATION);
  if (annotations.length) unmarked.annotations = Object.fromEntries(annotations);
  if (spec.namespace) unmarked.namespace = spec.namespace;
  return JSON.stringify(unmarked);
}

/** The backend as the hooks ask it: answers cached for their TTL, failures for a moment, transient failures retried. */
class ImagePolicyBackend {
  private readonly settings: ImagePolicyWebhookOptions['settings'];
  private readonly client: ImagePolicyWebhookOptions['client'];
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly answers: TtlCache<ImageReviewStatus>;
  private readonly recentFailures: TtlCache<string>;

  constructor(opts: ImagePolicyWebhookOptions) {
    const now = opts.now ?? Date.now;
    this.settings = opts.settings;
    this.client = opts.client;
    this.sleep = opts.sleep ?? ((ms: number) => delay(ms));
    this.random = opts.random ?? Math.random;
    this.answers = new TtlCache<ImageReviewStatus>(RESPONSE_CACHE_ENTRIES, now);
    this.recentFailures = new TtlCache<string>(RESPONSE_CACHE_ENTRIES, now);
  }

  async decide(spec: ImageReviewSpec, rememberFailure: boolean): Promise<Outcome> {
    const key = JSON.stringify(spec);
    const cached = this.answers.get(key);
    if (cached) return { status: cached };
    const failed = this.recentFailures.get(failureKey(spec));
    if (failed !== undefined) return { failure: failed };
    const outcome = await this.ask(spec);
    if ('status' in outcome) this.answers.set(key, outcome.status, outcome.status.allowed ? this.settings.allowTtlMs : this.settings.denyTtlMs);
    else if (rememberFailure) this.recentFailures.set(failureKey(spec), outcome.failure, RECENT_FAILURE_MS);
    return outcome;
  }

  private async ask(spec: ImageReviewSpec): Promise<Outcome> {
    const body = imageReview(spec);
    let wait = this.settings.retryBackoffMs;
    for (let step = 1; ; step++) {
      const result = await this.attempt(body);
      if (!result.retry || step === RETRY_STEPS) return 'status' in result ? { status: result.status } : { failure: result.failure };
      await this.sleep(wait + this.random() * RETRY_JITTER * wait);
      wait *= RETRY_FACTOR;
    }
  }

  private async attempt(body: Json): Promise<Attempt> {
    let res: { status: number; body: unknown };
    try {
      res = await this.client.postJson(body);
    } catch (err) {
      const message = err instanceof HttpJsonError ? err.message : `calling the image policy backend failed: ${(err as Error).message}`;
      return { failure: message, retry: isConnectionReset(err) };
    }
    if (res.status < 200 || res.status >= 300) return { failure: `Error contacting webhook: ${res.status}`, retry: RETRIED_STATUS.has(res.status) };
    try {
      return { status: readImageReviewStatus(res.body) };
    } catch (err) {
      return { failure: `the image policy backend's answer cannot be read: ${(err as Error).message}` };
    }
  }
}

export function createImagePolicyWebhook(opts: ImagePolicyWebhookOptions): AdmissionPlugin {
  const { settings, client } = opts;
  const backend = new ImagePolicyBackend(opts);
  const plugin: AdmissionPlugin = {
    name: IMAGE_POLICY_WEBHOOK,
    match: IMAGE_POLICY_MATCH,
    async validate(req: AdmissionRequest, ctx: AdmissionContext) {
      const spec = imageReviewSpec(req);
      if (!spec) return;
      const outcome = await backend.decide(spec, false);
      if ('failure' in outcome) {
        ctx.log.warn({ plugin: IMAGE_POLICY_WEBHOOK, error: outcome.failure, defaultAllow: settings.defaultAllow }, 'image policy backend could not be asked');
        if (settings.defaultAllow) {
          ctx.annotate(FAILED_OPEN_AUDIT_KEY, 'true');
          return;
        }
        throw admissionForbidden(req, outcome.failure);
      }
      for (const [k, v] of Object.entries(outcome.status.auditAnnotations ?? {})) ctx.annotate(AUDIT_KEY_PREFIX + k, v);
      if (!outcome.status.allowed) throw admissionForbidden(req, deniedMessage(outcome.status));
    },
    async stop() {
      client.close();
    },
  };
  if (settings.defaultAllow) {
    // Asks about the object as it stands in the mutating chain only to learn whether the backend
    // can be reached: a pod admitted without it carries the mark. Decisions are the validating hook's.
    plugin.mutate = async (req: AdmissionRequest, ctx: AdmissionContext): Promise<ApiObject | void> => {
      const spec = imageReviewSpec(req);
      if (!spec || !req.object) return;
      const outcome = await backend.decide(spec, true);
      if (!('failure' in outcome)) return;
      const meta = req.object.metadata;
      meta.annotations = { ...meta.annotations, [FAILED_OPEN_POD_ANNOTATION]: 'true' };
      ctx.annotate(FAILED_OPEN_AUDIT_KEY, 'true');
    };
  }
  return plugin;
}

async function buildImagePolicyWebhook(deps: PluginDeps): Promise<AdmissionPlugin> {
  const settings = parseImagePolicyConfiguration(deps.config);
  let client: WebhookClient;
  try {
    client = await loadWebhookClient(settings.kubeConfigFile);
  } catch (err) {
    if (err instanceof WebhookConfigError) throw new AdmissionConfigError(`admission plugin ${IMAGE_POLICY_WEBHOOK}: kubeConfigFile ${err.message}`);
    throw err;
  }
  const { kubeConfigFile: _file, ...rest } = settings;
  return createImagePolicyWebhook({ settings: rest, client });
}

export const imagePolicyWebhookPlugin: PluginDefinition = {
  name: IMAGE_POLICY_WEBHOOK,
  defaultEnabled: false,
  create: buildImagePolicyWebhook,
};
