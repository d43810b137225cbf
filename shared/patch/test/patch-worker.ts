// Applies one patch in a worker thread so a test can bound its memory (the worker's heap limit)
// and its time (the test terminates it): a patch that runs away fails its test instead of taking
// the test process down. Not a test file itself; patch-limits.test.ts starts it.

import { parentPort, workerData } from 'node:worker_threads';
import { StatusError } from '../../api/status.js';
import { applyPatch } from '../index.js';
import type { JsonSchema } from '../../api/types.js';

export interface PatchJob {
  type: string;
  original: unknown;
  patch: unknown;
  schema?: JsonSchema;
}

export type PatchOutcome = { ok: true; ms: number } | { ok: false; ms: number; code?: number; reason?: string; message: string };

const job = workerData as PatchJob;
const start = performance.now();
let outcome: PatchOutcome;
try {
  applyPatch(job.type, job.original, job.patch, job.schema);
  outcome = { ok: true, ms: performance.now() - start };
} catch (err) {
  const ms = performance.now() - start;
  outcome = err instanceof StatusError ? { ok: false, ms, code: err.code, reason: err.status.reason, message: err.message } : { ok: false, ms, message: String(err) };
}
parentPort!.postMessage(outcome);
