// What the admission service's /metrics shows besides the process's own metrics: upstream's
// admission latencies — per plugin (apiserver_admission_controller_admission_duration_seconds) and
// per phase (apiserver_admission_step_admission_duration_seconds), `type` admit for the mutating
// phase and validate for the validating one — and upstream's admission webhook families, which the
// webhook plugins record into (WebhookMetrics, `type` admit or validating as upstream labels them).

import { AdmissionPhase, type AdmissionRequest } from '../../shared/bus/messages.js';
import { SeriesIndex, type CounterCell, type HistogramCell } from '../../shared/metrics/families.js';
import type { MetricsRegistry } from '../../shared/metrics/registry.js';
import { StabilityLevel } from '../../shared/metrics/stability.js';
import type { AdmissionObserver } from './chain.js';

const { Alpha, Stable } = StabilityLevel;
const BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];

export type WebhookRejectionErrorType = 'calling_webhook_error' | 'apiserver_internal_error' | 'no_error';

const stepType = (phase: string): string => (phase === AdmissionPhase.Mutating ? 'admit' : 'validate');
/** The webhook families say `validating` where the plugin families say `validate` (upstream's labels). */
const webhookType = (phase: string): string => (phase === AdmissionPhase.Mutating ? 'admit' : 'validating');
/** Upstream bounds the code label: anything above 600 is 600. */
const codeLabel = (code: number): string => String(Math.min(code, 600));

export class AdmissionMetrics implements AdmissionObserver {
  private readonly controllers: SeriesIndex<HistogramCell>;
  private readonly steps: SeriesIndex<HistogramCell>;
  private readonly webhooks: WebhookMetrics;
  private readonly key = ['', '', '', '', ''];

  constructor(registry: MetricsRegistry) {
    const controller = registry.histogram({
      name: 'apiserver_admission_controller_admission_duration_seconds',
      help: 'Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
      stabilityLevel: Stable,
      labelNames: ['name', 'type', 'operation', 'rejected'],
      buckets: BUCKETS,
    });
    const step = registry.histogram({
      name: 'apiserver_admission_step_admission_duration_seconds',
      help: 'Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).',
      stabilityLevel: Stable,
      labelNames: ['type', 'operation', 'rejected'],
      buckets: BUCKETS,
    });
    this.controllers = new SeriesIndex(4, (v) => controller.with(v));
    this.steps = new SeriesIndex(3, (v) => step.with(v));
    this.webhooks = webhookMetrics(registry);
  }

  /** One plugin's hook (the chain's AdmissionObserver). */
  plugin(name: string, req: AdmissionRequest, rejected: boolean, seconds: number): void {
    const k = this.key;
    k[0] = name;
    k[1] = stepType(req.phase);
    k[2] = req.operation;
    k[3] = rejected ? 'true' : 'false';
    this.controllers.get(k).observe(seconds);
  }

  /** One phase of one request: every plugin of the phase that ran. */
  step(req: AdmissionRequest, rejected: boolean, seconds: number): void {
    const k = this.key;
    k[0] = stepType(req.phase);
    k[1] = req.operation;
    k[2] = rejected ? 'true' : 'false';
    this.steps.get(k).observe(seconds);
  }

  webhook(name: string, req: AdmissionRequest, rejected: boolean, code: number, seconds: number): void {
    this.webhooks.call(name, req, rejected, code, seconds);
  }

  webhookRejection(name: string, req: AdmissionRequest, errorType: WebhookRejectionErrorType, rejectionCode: number): void {
    this.webhooks.rejection(name, req, errorType, rejectionCode);
  }

  webhookFailedOpen(name: string, req: AdmissionRequest): void {
    this.webhooks.failedOpen(name, req);
  }
}

/**
 * Upstream's admission webhook families. One set per metrics registry, shared by the two webhook
 * plugins and the service (a family can be registered only once): get it with `webhookMetrics`.
 */
export class WebhookMetrics {
  private readonly latency: SeriesIndex<HistogramCell>;
  private readonly rejections: SeriesIndex<CounterCell>;
  private readonly requests: SeriesIndex<CounterCell>;
  private readonly failOpen: SeriesIndex<CounterCell>;

  constructor(registry: MetricsRegistry) {
    const webhook = registry.histogram({
      name: 'apiserver_admission_webhook_admission_duration_seconds',
      help: 'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
      stabilityLevel: Stable,
      labelNames: ['name', 'type', 'operation', 'rejected'],
      buckets: BUCKETS,
    });
    const rejection = registry.counter({
      name: 'apiserver_admission_webhook_rejection_count',
      help: 'Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
      stabilityLevel: Alpha,
      labelNames: ['name', 'type', 'operation', 'error_type', 'rejection_code'],
    });
    const requests = registry.counter({
      name: 'apiserver_admission_webhook_request_total',
      help: 'Admission webhook request total, identified by name and broken out for each admission type (validating or mutating) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
      stabilityLevel: Alpha,
      labelNames: ['name', 'type', 'operation', 'code', 'rejected'],
    });
    const failOpen = registry.counter({
      name: 'apiserver_admission_webhook_fail_open_count',
      help: 'Admission webhook fail open count, identified by name and broken out for each admission type (validating or mutating).',
      stabilityLevel: Alpha,
      labelNames: ['name', 'type'],
    });
    this.latency = new SeriesIndex(4, (v) => webhook.with(v));
    this.rejections = new SeriesIndex(5, (v) => rejection.with(v));
    this.requests = new SeriesIndex(5, (v) => requests.with(v));
    this.failOpen = new SeriesIndex(2, (v) => failOpen.with(v));
  }

  /** One call of an admission webhook, with the HTTP status it answered (0 when none). */
  call(name: string, req: AdmissionRequest, rejected: boolean, code: number, seconds: number): void {
    const type = webhookType(req.phase);
    this.latency.get([name, type, req.operation, String(rejected)]).observe(seconds);
    this.requests.get([name, type, req.operation, codeLabel(code), String(rejected)]).inc();
  }

  /** A webhook's rejection (spec, Events: Metrics). */
  rejection(name: string, req: AdmissionRequest, errorType: WebhookRejectionErrorType, rejectionCode: number): void {
    this.rejections.get([name, webhookType(req.phase), req.operation, errorType, codeLabel(rejectionCode)]).inc();
  }

  /** A failing webhook let the request through (failurePolicy Ignore). */
  failedOpen(name: string, req: AdmissionRequest): void {
    this.failOpen.get([name, webhookType(req.phase)]).inc();
  }
}

const webhookFamilies = new WeakMap<MetricsRegistry, WebhookMetrics>();

/** The webhook families of `registry`, registered on first use. */
export function webhookMetrics(registry: MetricsRegistry): WebhookMetrics {
  let m = webhookFamilies.get(registry);
  if (!m) webhookFamilies.set(registry, (m = new WebhookMetrics(registry)));
  return m;
}
