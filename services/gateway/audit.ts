// Auditing's flags (upstream's `--audit-*`), and the start-up that turns them into a policy and
// backends: the policy file is read strictly, the log file opened and the webhook's client
// configuration read before the gateway serves, so any mistake stops the start with its message.
// No policy file means no auditing, as upstream (backends given without one are warned about).

import { mkdir, open, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { OptionsError, type OptionSpecs } from '../../shared/config/options.js';
import { AuditPolicyError, parsePolicy, PolicyChecker } from '../../shared/audit/policy.js';
import { auditErrors, Auditor, BACKEND_MODES, createBackend, type AuditErrors, type AuditMetrics, type AuditWriter, type BackendMode, type BatchOptions } from '../../shared/audit/backend.js';
import { LOG_FORMATS, openLogWriter, type LogFormat, type TruncateOptions } from '../../shared/audit/log-backend.js';
import { DEFAULT_INITIAL_BACKOFF_MS, webhookWriter } from '../../shared/audit/webhook-backend.js';
import { AUDIT_API_VERSION, AUDIT_API_VERSIONS } from '../../shared/audit/types.js';
import { loadWebhookClient, WebhookConfigError } from '../../shared/webhook/client-config.js';

const MODES = BACKEND_MODES.join(', ');
const VERSIONS = AUDIT_API_VERSIONS.join(', ');

export const auditOptionSpecs = {
  'audit-policy-file': { type: 'string', description: 'audit policy (audit.platform.io/v1 or audit.k8s.io/v1 Policy); without it nothing is audited' },
  'audit-log-path': { type: 'string', description: "write audit events to this file ('-': standard output); needs --audit-policy-file" },
  'audit-log-format': { type: 'string', default: 'json', description: `format of the audit log: json (one Event object per line) or legacy (one key="value" line per event)` },
  'audit-log-maxsize': { type: 'number', default: 100, description: 'megabytes of audit log before it is rotated; 0: never rotated' },
  'audit-log-maxbackup': { type: 'number', default: 100, description: 'rotated audit log files kept; 0: all' },
  'audit-log-maxage': { type: 'number', default: 366, description: 'days a rotated audit log file is kept (by the time in its name); 0: forever' },
  'audit-log-compress': { type: 'boolean', default: false, description: 'gzip rotated audit log files' },
  'audit-log-version': { type: 'string', default: AUDIT_API_VERSION, description: `API version the log's events are written in: ${VERSIONS}` },
  // Upstream's default is blocking; here a request never waits for the audit log unless asked to.
  'audit-log-mode': {
    type: 'string',
    default: 'batch',
    description: `${MODES}: batch writes in the background from a bounded buffer (a full buffer drops and counts events); blocking makes each request wait for its events; blocking-strict also fails a request whose first event cannot be written`,
  },
  'audit-log-batch-buffer-size': { type: 'number', default: 10_000, description: 'events the audit log buffers in batch mode' },
  'audit-log-batch-max-size': { type: 'number', default: 1_000, description: 'events written at once in batch mode' },
  'audit-log-batch-max-wait': { type: 'duration', default: '0s', description: 'how long a smaller batch waits for more events in batch mode (0: written at once)' },
  'audit-log-batch-throttle-enable': { type: 'boolean', default: false, description: 'limit the rate of audit log batches' },
  'audit-log-batch-throttle-qps': { type: 'number', default: 10, description: 'audit log batches per second when throttled' },
  'audit-log-batch-throttle-burst': { type: 'number', default: 15, description: 'audit log batches at once when throttled' },
  'audit-log-truncate-enabled': { type: 'boolean', default: false, description: 'drop the objects of audit log events larger than the max event size (the event says so), and events still too large' },
  'audit-log-truncate-max-event-size': { type: 'number', default: 100 * 1024, description: 'bytes of one audit log event when truncating' },
  'audit-log-truncate-max-batch-size': { type: 'number', default: 10 * 1024 * 1024, description: 'bytes of one audit log batch when truncating' },
  'audit-webhook-config-file': { type: 'string', description: 'kubeconfig-format file naming the server audit events are POSTed to (EventList); needs --audit-policy-file' },
  'audit-webhook-initial-backoff': { type: 'duration', default: '10s', description: 'wait before the first retry of a failed audit webhook call (then ×1.5, 5 attempts in all)' },
  // Upstream 1.24 still takes the batch-era name, deprecated.
  'audit-webhook-batch-initial-backoff': {
    type: 'duration',
    aliasOf: 'audit-webhook-initial-backoff',
    deprecated: 'Deprecated, use --audit-webhook-initial-backoff instead.',
    description: 'old name of --audit-webhook-initial-backoff',
  },
  'audit-webhook-version': { type: 'string', default: AUDIT_API_VERSION, description: `API version the webhook's events are sent in: ${VERSIONS}` },
  'audit-webhook-mode': {
    type: 'string',
    default: 'batch',
    description: `${MODES}: batch sends from a bounded buffer in the background (a full buffer drops and counts events); blocking makes each request wait for its events to be sent; blocking-strict also fails a request whose first event cannot be sent`,
  },
  'audit-webhook-batch-buffer-size': { type: 'number', default: 10_000, description: 'events the audit webhook buffers in batch mode' },
  'audit-webhook-batch-max-size': { type: 'number', default: 400, description: 'events per audit webhook call in batch mode' },
  'audit-webhook-batch-max-wait': { type: 'duration', default: '30s', description: 'how long a smaller batch waits for more events before it is sent' },
  'audit-webhook-batch-throttle-enable': { type: 'boolean', default: true, description: 'limit the rate of audit webhook calls' },
  'audit-webhook-batch-throttle-qps': { type: 'number', default: 10, description: 'audit webhook calls per second when throttled' },
  'audit-webhook-batch-throttle-burst': { type: 'number', default: 15, description: 'audit webhook calls at once (and in a burst) when throttled' },
  'audit-webhook-truncate-enabled': {
    type: 'boolean',
    default: false,
    description: 'drop the objects of audit webhook events larger than the max event size, and split batches larger than the max batch size',
  },
  'audit-webhook-truncate-max-event-size': { type: 'number', default: 100 * 1024, description: 'bytes of one audit webhook event when truncating' },
  'audit-webhook-truncate-max-batch-size': { type: 'number', default: 10 * 1024 * 1024, description: 'bytes of one audit webhook call when truncating' },
} satisfies OptionSpecs;

type Flags = Record<string, string | number | boolean | string[] | undefined>;

export interface BackendOptions {
  mode: BackendMode;
  batch: BatchOptions;
  truncate: TruncateOptions | null;
  apiVersion: string;
}

/** The audit configuration as read from the flags (nothing opened yet). */
export interface AuditOptions {
  policyFile: string | undefined;
  log: (BackendOptions & { path: string; format: LogFormat; maxSizeMB: number; maxBackups: number; maxAgeDays: number; compress: boolean }) | null;
  webhook: (BackendOptions & { configFile: string; initialBackoffMs: number }) | null;
}

function backendOptions(o: Flags, plugin: 'log' | 'webhook', concurrency: number): BackendOptions {
  const f = (name: string) => o[`audit-${plugin}-${name}`];
  const num = (name: string, min: number): number => {
    const v = Number(f(name));
    if (!Number.isFinite(v) || v < min) throw new OptionsError(`--audit-${plugin}-${name} must be a number of at least ${min}, got ${JSON.stringify(f(name))}`);
    return v;
  };
  const mode = String(f('mode'));
  if (!BACKEND_MODES.includes(mode)) throw new OptionsError(`--audit-${plugin}-mode: unknown mode ${JSON.stringify(mode)}; the modes are ${MODES}`);
  const apiVersion = String(f('version'));
  if (!AUDIT_API_VERSIONS.includes(apiVersion)) throw new OptionsError(`--audit-${plugin}-version: ${JSON.stringify(apiVersion)} is not one of ${VERSIONS}`);
  const throttled = f('batch-throttle-enable') === true;
  const truncate = f('truncate-enabled') === true ? { maxEventBytes: num('truncate-max-event-size', 1), maxBatchBytes: num('truncate-max-batch-size', 1) } : null;
  if (truncate && truncate.maxBatchBytes < truncate.maxEventBytes)
    throw new OptionsError(`--audit-${plugin}-truncate-max-batch-size must not be smaller than --audit-${plugin}-truncate-max-event-size`);
  return {
    mode: mode as BackendMode,
    batch: {
      bufferSize: num('batch-buffer-size', 1),
      maxBatchSize: num('batch-max-size', 1),
      maxBatchWaitMs: num('batch-max-wait', 0),
      throttle: throttled ? { qps: num('batch-throttle-qps', Number.MIN_VALUE), burst: num('batch-throttle-burst', 1) } : null,
      concurrency,
    },
    truncate,
    apiVersion,
  };
}

/** Checks and converts the `--audit-*` flags (parsed by shared/config/options). */
export function auditOptionsFrom(o: Flags): AuditOptions {
  const logPath = o['audit-log-path'] as string | undefined;
  const hookFile = o['audit-webhook-config-file'] as string | undefined;
  let log: AuditOptions['log'] = null;
  if (logPath) {
    const format = String(o['audit-log-format']);
    if (!LOG_FORMATS.includes(format)) throw new OptionsError(`--audit-log-format: unknown format ${JSON.stringify(format)}; the formats are ${LOG_FORMATS.join(', ')}`);
    for (const k of ['maxsize', 'maxbackup', 'maxage'] as const) {
      const v = Number(o[`audit-log-${k}`]);
      if (!Number.isInteger(v) || v < 0) throw new OptionsError(`--audit-log-${k} must be a whole number of at least 0, got ${JSON.stringify(o[`audit-log-${k}`])}`);
    }
    // One batch at a time: a file's lines stay in the order the events happened.
    log = {
      ...backendOptions(o, 'log', 1),
      path: logPath,
      format: format as LogFormat,
      maxSizeMB: Number(o['audit-log-maxsize']),
      maxBackups: Number(o['audit-log-maxbackup']),
      maxAgeDays: Number(o['audit-log-maxage']),
      compress: o['audit-log-compress'] === true,
    };
  }
  let webhook: AuditOptions['webhook'] = null;
  if (hookFile) {
    const b = backendOptions(o, 'webhook', 1);
    // Batches are sent concurrently, as upstream's, but never more at once than a burst may hold.
    b.batch.concurrency = b.batch.throttle?.burst ?? 15;
    webhook = { ...b, configFile: hookFile, initialBackoffMs: Number(o['audit-webhook-initial-backoff'] ?? DEFAULT_INITIAL_BACKOFF_MS) };
  }
  return { policyFile: (o['audit-policy-file'] as string | undefined) || undefined, log, webhook };
}

/** The policy and opened backends, before the gateway's metrics exist. */
export interface AuditSetup {
  checker: PolicyChecker;
  /** Each backend's writer is built once the metrics (which count its errors) exist. */
  backends: Array<{ mode: BackendMode; batch: BatchOptions; open(errors: AuditErrors): Promise<AuditWriter> }>;
}

/** Reads the policy and checks the backends' files; null when nothing is to be audited. */
export async function loadAudit(opts: AuditOptions, log: Logger): Promise<AuditSetup | null> {
  if (!opts.policyFile) {
    if (opts.log || opts.webhook) log.warn('audit backends are configured but --audit-policy-file is not: nothing will be audited');
    return null;
  }
  let text: string;
  try {
    text = await readFile(opts.policyFile, 'utf8');
  } catch (err) {
    throw new OptionsError(`--audit-policy-file ${opts.policyFile}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let checker: PolicyChecker;
  try {
    checker = new PolicyChecker(parsePolicy(text));
  } catch (err) {
    if (err instanceof AuditPolicyError) throw new OptionsError(`--audit-policy-file ${opts.policyFile}: ${err.message}`);
    throw err;
  }
  const setup: AuditSetup = { checker, backends: [] };
  const l = opts.log;
  if (l) {
    if (l.path !== '-') await ensureWritable(l.path);
    setup.backends.push({
      mode: l.mode,
      batch: l.batch,
      open: (errors) =>
        openLogWriter({
          path: l.path,
          format: l.format,
          apiVersion: l.apiVersion,
          rotation: { maxSizeBytes: l.maxSizeMB * 1024 * 1024, maxBackups: l.maxBackups, maxAgeDays: l.maxAgeDays, compress: l.compress },
          truncate: l.truncate,
          errors,
        }),
    });
  }
  const w = opts.webhook;
  if (w) {
    let client;
    try {
      client = await loadWebhookClient(w.configFile);
    } catch (err) {
      if (err instanceof WebhookConfigError) throw new OptionsError(`--audit-webhook-config-file ${err.message}`);
      throw err;
    }
    setup.backends.push({
      mode: w.mode,
      batch: w.batch,
      open: async (errors) => webhookWriter(client, { apiVersion: w.apiVersion, initialBackoffMs: w.initialBackoffMs, truncate: w.truncate, errors }),
    });
  }
  if (!setup.backends.length) log.warn('--audit-policy-file is set but no audit backend is (--audit-log-path, --audit-webhook-config-file): nothing will be written');
  return setup;
}

/** The auditor of a gateway: the policy, and each backend in its mode with errors counted on `metrics`. */
export async function createAuditor(setup: AuditSetup, metrics: AuditMetrics, log: Logger): Promise<Auditor> {
  const errors = auditErrors(metrics, log);
  const backends = [];
  for (const b of setup.backends) backends.push(createBackend(await b.open(errors), b.mode, b.batch, errors, log));
  return new Auditor(setup.checker, backends, metrics);
}

/** Upstream creates the log (owner-only) at start-up: a path it cannot write fails the start, not the first request. */
async function ensureWritable(file: string): Promise<void> {
  try {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await (await open(file, 'a', 0o600)).close();
  } catch (err) {
    throw new OptionsError(`--audit-log-path ${file}: cannot write: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
