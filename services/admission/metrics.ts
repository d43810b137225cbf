// What the admission service's /metrics shows besides the process's own metrics: upstream's
// admission latencies — per plugin (apiserver_admission_controller_admission_duration_seconds) and
// per phase (apiserver_admission_step_admission_duration_seconds), `type` admit for the mutating
// phase and validate for the validating one — and upstream's admission webhook families, which the
// webhook plugins record into (`webhook*` methods).

import { AdmissionPhase, type AdmissionRequest } from '../../shared/bus/messages.js';
import { SeriesIndex, type CounterCell, type HistogramCell } from '../../shared/metrics/families.js';
import type { MetricsRegistry } from '../../shared/metrics/registry.js';
import { StabilityLevel } from '../../shared/metrics/stability.js';
import type { AdmissionObserver } from './chain.js';

const { Alpha, Stable } = StabilityLevel;
const BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];

export type WebhookRejectionErrorType = 'calling_webhook_error' | 'apiserver_internal_error' | 'no_error';

const stepType = (phase: string): string => (phase === AdmissionPhase.Mutating ? 'admit' : 'validate');
/** Upstream bounds the code label: anything above 600 is 600. */
const codeLabel = (code: number): string => String(Math.min(code, 600));

export class AdmissionMetrics implements AdmissionObserver {
  private readonly controllers: SeriesIndex<HistogramCell>;
  private readonly steps: SeriesIndex<HistogramCell>;
  private readonly webhookLatency: SeriesIndex<HistogramCell>;
  private readonly webhookRejections: SeriesIndex<CounterCell>;
  private readonly webhookRequests: SeriesIndex<CounterCell>;
  private readonly webhookFailOpen: SeriesIndex<CounterCell>;
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
    this.controllers = new SeriesIndex(4, (v) => controller.with(v));
    this.steps = new SeriesIndex(3, (v) => step.with(v));
    this.webhookLatency = new SeriesIndex(4, (v) => webhook.with(v));
    this.webhookRejections = new SeriesIndex(5, (v) => rejection.with(v));
    this.webhookRequests = new SeriesIndex(5, (v) => requests.with(v));
    this.webhookFailOpen = new SeriesIndex(2, (v) => failOpen.with(v));
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

  /** One call of an admission webhook, with the HTTP status it answered (0 when none). */
  webhook(name: string, req: AdmissionRequest, rejected: boolean, code: number, seconds: number): void {
    const type = stepType(req.phase);
    this.webhookLatency.get([name, type, req.operation, String(rejected)]).observe(seconds);
    this.webhookRequests.get([name, type, req.operation, codeLabel(code), String(rejected)]).inc();
  }

  /** A webhook's rejection (spec, Events: Metrics). */
  webhookRejection(name: string, req: AdmissionRequest, errorType: WebhookRejectionErrorType, rejectionCode: number): void {
    this.webhookRejections.get([name, stepType(req.phase), req.operation, errorType, codeLabel(rejectionCode)]).inc();
  }

  /** A failing webhook let the request through (failurePolicy Ignore). */
  webhookFailedOpen(name: string, req: AdmissionRequest): void {
    this.webhookFailOpen.get([name, stepType(req.phase)]).inc();
  }
}
