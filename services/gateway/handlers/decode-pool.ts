// Decodes request bodies off the event loop when parsing them would stall it: YAML over
// YAML_OFFLOAD_BYTES goes to a worker thread (the yaml library needs up to 2.5 ms per KiB of
// dense input), and JSON over JSON_OFFLOAD_BYTES is vetted there (nesting, numbers, duplicate
// fields), so the event loop only runs JSON.parse on it.

import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { JSON_MEDIA_TYPES, parseMediaType, parseVettedJson, YAML_MEDIA_TYPES, type DecodedValue } from '../../../shared/api/decode.js';
import { StatusError, internalError, requestEntityTooLarge } from '../../../shared/api/status.js';
import type { DecodeJob, DecodeResult } from './decode-worker.js';

export const YAML_OFFLOAD_BYTES = 16 * 1024;
export const JSON_OFFLOAD_BYTES = 512 * 1024;
/**
 * An idle worker is stopped after this long: V8 keeps the heap a large body grew (650 MB after a
 * dense 3 MiB YAML) for as long as the thread lives, and a gateway at rest should not hold it.
 */
export const WORKER_IDLE_MS = 10_000;
/** The worker's heap limit: past it the bodies it holds are refused (413), not the gateway killed. */
export const WORKER_HEAP_MB = 1024;

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

export class DecodePool {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve(v: DecodedValue): void; reject(e: unknown): void; body: Buffer }>();
  private next = 0;
  private idle: NodeJS.Timeout | undefined;

  constructor(private readonly idleMs = WORKER_IDLE_MS) {}

  /** Whether this body should be decoded by `decode` rather than inline. */
  offloads(body: Buffer | undefined, contentType: string | undefined): boolean {
    if (!body || body.length <= YAML_OFFLOAD_BYTES || !contentType) return false;
    try {
      const mt = parseMediaType(contentType).mediaType;
      return YAML_MEDIA_TYPES.includes(mt) || (body.length > JSON_OFFLOAD_BYTES && JSON_MEDIA_TYPES.includes(mt));
    } catch {
      return false; // the inline decoder reports the bad Content-Type
    }
  }

  decode(body: Buffer, contentType: string): Promise<DecodedValue> {
    clearTimeout(this.idle);
    const worker = this.start();
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, body });
      const job: DecodeJob = { id, body: new Uint8Array(body), contentType };
      worker.postMessage(job);
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(workerBootstrap(), { eval: true, execArgv: [], resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    w.unref();
    w.on('message', (r: DecodeResult) => {
      const p = this.pending.get(r.id);
      if (!p) return;
      this.pending.delete(r.id);
      if ('status' in r) p.reject(new StatusError(r.status));
      else p.resolve({ value: r.json === undefined ? parseVettedJson(p.body) : JSON.parse(r.json), duplicateFields: r.duplicateFields });
      if (this.pending.size === 0) this.retireWhenIdle(w);
    });
    const fail = (err: unknown) => {
      this.worker = undefined;
      clearTimeout(this.idle);
      const outOfMemory = (err as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
      for (const p of this.pending.values()) {
        p.reject(
          outOfMemory
            ? requestEntityTooLarge(`the request body needs more than ${WORKER_HEAP_MB} MiB to decode`)
            : internalError(`body decoder stopped: ${err instanceof Error ? err.message : String(err)}`),
        );
      }
      this.pending.clear();
    };
    w.on('error', fail);
    w.on('exit', (code) => {
      if (this.worker === w) fail(new Error(`exit code ${code}`));
    });
    this.worker = w;
    return w;
  }

  private retireWhenIdle(w: Worker): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      if (this.worker !== w || this.pending.size > 0) return;
      this.worker = undefined;
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
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}
