// Decodes request bodies off the event loop when parsing them could stall it: YAML over
// YAML_OFFLOAD_BYTES goes to a worker thread (the yaml library's time grows with the square of
// some hostile inputs' length: 2 KiB of `? ? ? …` in a flow collection takes ~50 ms, 8 KiB half a
// second), and JSON over JSON_OFFLOAD_BYTES is vetted there (nesting, numbers, duplicate fields,
// object width), so the event loop only runs JSON.parse on it.
//
// The worker takes one body at a time, each with a deadline (decodeDeadlineMs): a body still
// decoding at its deadline is refused (400) and the worker replaced, so no input, known or not,
// holds the decoder for longer; the bodies queued behind it go to the new worker. A body that
// exhausts the worker's heap is refused (413) the same way, alone.

import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DEFAULT_MAX_DEPTH, JSON_MEDIA_TYPES, parseMediaType, parseVettedJson, YAML_MEDIA_TYPES, type DecodedValue } from '../../../shared/api/decode.js';
import { scanJson } from '../../../shared/api/json-scan.js';
import { StatusError, badRequest, internalError, requestEntityTooLarge } from '../../../shared/api/status.js';
import type { DecodeJob, DecodeResult } from './decode-worker.js';

export const YAML_OFFLOAD_BYTES = 2 * 1024;
export const JSON_OFFLOAD_BYTES = 512 * 1024;
/**
 * An idle worker is stopped after this long: V8 keeps the heap a large body grew (650 MB after a
 * dense 3 MiB YAML) for as long as the thread lives, and a gateway at rest should not hold it.
 */
export const WORKER_IDLE_MS = 10_000;
/** The worker's heap limit: past it the body it holds is refused (413), not the gateway killed. */
export const WORKER_HEAP_MB = 1024;

/**
 * How long the worker may spend on one body: two seconds, and four per MiB. Dense YAML takes the
 * yaml library up to ~2.6 s per MiB on a busy 2-core machine (700,000 sequence items in 2.7 MiB:
 * 6.9 s), so an honest body gets about half again its need; hostile ones the pre-scan does not
 * recognise grow with the square of their length and meet the deadline instead.
 */
export function decodeDeadlineMs(bytes: number): number {
  return 2000 + Math.ceil((bytes / (1024 * 1024)) * 4000);
}

// The worker loads the way this module was loaded: the `.js` build in production, or in
// development the `.ts` source, for which it registers tsx itself (loader flags given to a worker
// on Node 20 do not apply to its own modules).
function workerBootstrap(): string {
  const self = fileURLToPath(import.meta.url);
  const fromSource = self.endsWith('.ts');
  const url = pathToFileURL(path.join(path.dirname(self), fromSource ? 'decode-worker.ts' : 'decode-worker.js')).href;
  const register = fromSource ? `(await import('tsx/esm/api')).register();` : '';
  return `(async () => { ${register} await import(${JSON.stringify(url)}); })();`;
}

/** Whether the body is JSON that decodeYaml's JSON path takes (a linear scan, no parse). */
function isJsonText(body: Buffer): boolean {
  let first = 0;
  while (first < body.length && (body[first] === 0x20 || body[first] === 0x0a || body[first] === 0x0d || body[first] === 0x09)) first++;
  if (body[first] !== 0x7b && body[first] !== 0x5b) return false;
  try {
    scanJson(body.toString('utf8'), DEFAULT_MAX_DEPTH);
    return true;
  } catch {
    return false;
  }
}

interface Job {
  id: number;
  body: Buffer;
  contentType: string;
  resolve(v: DecodedValue): void;
  reject(e: unknown): void;
}

export class DecodePool {
  private worker: Worker | undefined;
  /** Whether the worker has loaded its modules (deadlines run from then). */
  private ready = false;
  private readonly queue: Job[] = [];
  private current: Job | undefined;
  private deadline: NodeJS.Timeout | undefined;
  private next = 0;
  private idle: NodeJS.Timeout | undefined;

  constructor(
    private readonly idleMs = WORKER_IDLE_MS,
    private readonly deadlineOf: (bytes: number) => number = decodeDeadlineMs,
  ) {}

  /** Whether this body should be decoded by `decode` rather than inline. */
  offloads(body: Buffer | undefined, contentType: string | undefined): boolean {
    if (!body || body.length <= YAML_OFFLOAD_BYTES || !contentType) return false;
    try {
      const mt = parseMediaType(contentType).mediaType;
      if (JSON_MEDIA_TYPES.includes(mt)) return body.length > JSON_OFFLOAD_BYTES;
      if (!YAML_MEDIA_TYPES.includes(mt)) return false;
      // JSON sent as YAML (client-go's and kubectl's server-side apply) takes decodeYaml's JSON
      // path, inline like any JSON body; YAML that only starts like JSON (a flow mapping) does not.
      return body.length > JSON_OFFLOAD_BYTES || !isJsonText(body);
    } catch {
      return false; // the inline decoder reports the bad Content-Type
    }
  }

  decode(body: Buffer, contentType: string): Promise<DecodedValue> {
    clearTimeout(this.idle);
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.next++, body, contentType, resolve, reject });
      this.pump();
    });
  }

  /** Sends the next body when the worker is free. */
  private pump(): void {
    if (this.current) return;
    const job = this.queue.shift();
    if (!job) {
      if (this.worker) this.retireWhenIdle(this.worker);
      return;
    }
    this.current = job;
    const w = this.start();
    const message: DecodeJob = { id: job.id, body: new Uint8Array(job.body), contentType: job.contentType };
    w.postMessage(message);
    if (this.ready) this.armDeadline(job);
  }

  private armDeadline(job: Job): void {
    clearTimeout(this.deadline);
    const ms = this.deadlineOf(job.body.length);
    this.deadline = setTimeout(() => {
      if (this.current !== job) return;
      this.replaceWorker(badRequest(`the request body could not be decoded within ${ms / 1000} s`));
    }, ms);
  }

  /** Ends the current body with `err`, stops its worker and goes on with a new one. */
  private replaceWorker(err: unknown): void {
    clearTimeout(this.deadline);
    const w = this.worker;
    this.worker = undefined;
    this.ready = false;
    if (w) void w.terminate();
    const job = this.current;
    this.current = undefined;
    job?.reject(err);
    this.pump();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    clearTimeout(this.idle);
    const w = new Worker(workerBootstrap(), { eval: true, execArgv: [], resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    w.unref();
    w.on('message', (r: DecodeResult | { ready: true }) => {
      if (this.worker !== w) return;
      if ('ready' in r) {
        this.ready = true;
        if (this.current) this.armDeadline(this.current);
        return;
      }
      const job = this.current;
      if (!job || job.id !== r.id) return;
      clearTimeout(this.deadline);
      this.current = undefined;
      try {
        if ('status' in r) job.reject(new StatusError(r.status));
        else job.resolve({ value: r.json === undefined ? parseVettedJson(job.body) : JSON.parse(r.json), duplicateFields: r.duplicateFields });
      } catch (err) {
        job.reject(err);
      }
      this.pump();
    });
    const fail = (err: unknown) => {
      if (this.worker !== w) return;
      const outOfMemory = (err as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.replaceWorker(
        outOfMemory
          ? requestEntityTooLarge(`the request body needs more than ${WORKER_HEAP_MB} MiB to decode`)
          : internalError(`body decoder stopped: ${err instanceof Error ? err.message : String(err)}`),
      );
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`exit code ${code}`)));
    this.worker = w;
    this.ready = false;
    return w;
  }

  private retireWhenIdle(w: Worker): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      if (this.worker !== w || this.current || this.queue.length > 0) return;
      this.worker = undefined;
      this.ready = false;
      void w.terminate();
    }, this.idleMs);
    this.idle.unref();
  }

  /** Whether a worker thread is running (it is stopped once idle). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  async close(): Promise<void> {
    clearTimeout(this.idle);
    clearTimeout(this.deadline);
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}
