// The webhook backend (`--audit-webhook-config-file`): events are POSTed as an EventList to the
// server a kubeconfig-format file names. Like upstream, every failure (network, TLS, timeout, a
// non-2xx answer) is retried with exponential backoff from `--audit-webhook-initial-backoff`
// (factor 1.5, 20% jitter, 5 attempts in all); a batch that still fails is reported by the caller.

import type { WebhookClient } from '../webhook/client-config.js';
import type { AuditErrors, AuditWriter } from './backend.js';
import { serializeEvents, type TruncateOptions } from './log-backend.js';
import { sleep } from '../ground/sleep.js';

export const WEBHOOK_PLUGIN = 'webhook';
export const DEFAULT_INITIAL_BACKOFF_MS = 10_000;
const ATTEMPTS = 5;
const FACTOR = 1.5;
const JITTER = 0.2;

export interface WebhookWriterOptions {
  apiVersion: string;
  initialBackoffMs: number;
  truncate: TruncateOptions | null;
  errors: AuditErrors;
}

export function webhookWriter(client: WebhookClient, opts: WebhookWriterOptions): AuditWriter {
  const stop = new AbortController();
  const post = async (body: string): Promise<void> => {
    let delay = opts.initialBackoffMs;
    for (let attempt = 1; ; attempt++) {
      let failure: unknown;
      try {
        const { status } = await client.postJsonText(body);
        if (status >= 200 && status < 300) return;
        failure = new Error(`the audit webhook answered HTTP ${status}`);
      } catch (err) {
        failure = err;
      }
      if (attempt >= ATTEMPTS || stop.signal.aborted) throw failure;
      await sleep(delay * (1 + Math.random() * JITTER), stop.signal);
      if (stop.signal.aborted) throw failure;
      delay *= FACTOR;
    }
  };
  return {
    name: WEBHOOK_PLUGIN,
    async write(events) {
      const texts = serializeEvents(events, opts.apiVersion, opts.truncate, opts.errors);
      for (const body of eventLists(texts, opts.apiVersion, opts.truncate?.maxBatchBytes ?? Infinity)) await post(body);
    },
    async close() {
      stop.abort();
      client.close();
    },
  };
}

/** EventList bodies of the serialized events, split so none passes `maxBytes` (a single larger event goes alone). */
export function eventLists(texts: readonly string[], apiVersion: string, maxBytes: number): string[] {
  const head = `{"kind":"EventList","apiVersion":${JSON.stringify(apiVersion)},"metadata":{},"items":[`;
  const out: string[] = [];
  let batch: string[] = [];
  let size = 0;
  for (const t of texts) {
    const n = Buffer.byteLength(t) + 1;
    if (batch.length && size + n > maxBytes) {
      out.push(`${head}${batch.join(',')}]}`);
      batch = [];
      size = 0;
    }
    batch.push(t);
    size += n;
  }
  if (batch.length) out.push(`${head}${batch.join(',')}]}`);
  return out;
}
