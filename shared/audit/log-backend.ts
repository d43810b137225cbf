// The log backend (`--audit-log-path`): one line per event, upstream's `json` (the Event object)
// or `legacy` (key="value" text) format, to a rotated file or to standard output (`-`).

import type { AuditErrors, AuditWriter } from './backend.js';
import { boundedJson, legacyLine, type AuditEvent } from './event.js';
import { RotatingFile, type RotationOptions } from './rotating-file.js';

export const LogFormat = { Json: 'json', Legacy: 'legacy' } as const;
export type LogFormat = (typeof LogFormat)[keyof typeof LogFormat];
export const LOG_FORMATS: readonly string[] = Object.values(LogFormat);

/** `--audit-<plugin>-truncate-*`: events larger than maxEventBytes lose their objects (or are dropped); batches are split at maxBatchBytes. */
export interface TruncateOptions {
  maxEventBytes: number;
  maxBatchBytes: number;
}

export const TRUNCATE_PLUGIN = 'truncate';
export const LOG_PLUGIN = 'log';

/** The events as texts within the size limit; those that cannot fit are reported and left out. */
export function serializeEvents(events: readonly AuditEvent[], apiVersion: string, truncate: TruncateOptions | null, errors: AuditErrors): string[] {
  const out: string[] = [];
  for (const ev of events) {
    if (!truncate) {
      out.push(ev.json(apiVersion));
      continue;
    }
    const b = boundedJson(ev, apiVersion, truncate.maxEventBytes);
    if (b) out.push(b.text);
    else errors.report(TRUNCATE_PLUGIN, [ev], new Error(`event is larger than ${truncate.maxEventBytes} bytes even after truncating`));
  }
  return out;
}

export interface LogWriterOptions {
  /** A file, or `-` for standard output. */
  path: string;
  format: LogFormat;
  apiVersion: string;
  rotation: RotationOptions;
  truncate: TruncateOptions | null;
  errors: AuditErrors;
}

export async function openLogWriter(opts: LogWriterOptions): Promise<AuditWriter> {
  const out = opts.path === '-' ? stdoutSink() : await RotatingFile.open(opts.path, opts.rotation);
  const lines = (events: readonly AuditEvent[]): string[] => (opts.format === LogFormat.Legacy ? events.map(legacyLine) : serializeEvents(events, opts.apiVersion, opts.truncate, opts.errors));
  return {
    name: LOG_PLUGIN,
    async write(events) {
      const l = lines(events);
      if (l.length) await out.write(`${l.join('\n')}\n`);
    },
    close: () => out.close(),
  };
}

function stdoutSink(): { write(text: string): Promise<void>; close(): Promise<void> } {
  return {
    write: (text) => new Promise((resolve, reject) => process.stdout.write(text, (err) => (err ? reject(err) : resolve()))),
    close: async () => undefined,
  };
}
