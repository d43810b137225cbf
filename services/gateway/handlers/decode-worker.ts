// Worker thread that decodes large YAML bodies and vets large JSON ones, so the gateway's event
// loop keeps serving while the YAML parser runs (about 0.25 s per MiB) or the JSON scanner checks
// nesting, numbers and duplicate fields. A YAML value comes back as JSON text, which the main
// thread parses far faster than structured clone would copy the object tree; a JSON body comes
// back as vetted, and the main thread parses the body it already holds.

import { parentPort } from 'node:worker_threads';
import { DEFAULT_MAX_DEPTH, decodeBody, vetJsonBody } from '../../../shared/api/decode.js';
import { scanJson } from '../../../shared/api/json-scan.js';
import { toStatus } from '../../../shared/api/status.js';

export interface DecodeJob {
  id: number;
  body: Uint8Array;
  contentType: string;
}

/** `json` is the value as JSON text; absent for a vetted JSON body, which the caller parses itself. */
export type DecodeResult = { id: number; json?: string; duplicateFields: string[] } | { id: number; status: ReturnType<typeof toStatus> };

parentPort?.on('message', (job: DecodeJob) => {
  let result: DecodeResult;
  try {
    const body = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
    const vetted = vetJsonBody(body, job.contentType);
    if (vetted) result = { id: job.id, duplicateFields: vetted };
    else {
      const { value, duplicateFields } = decodeBody(body, job.contentType);
      const json = JSON.stringify(value);
      // The main thread parses this text: an object as wide as the JSON scanner refuses (merge keys
      // can widen a mapping past its source) is refused here too. Depth was checked on the YAML.
      scanJson(json, DEFAULT_MAX_DEPTH + 1);
      result = { id: job.id, json, duplicateFields };
    }
  } catch (err) {
    result = { id: job.id, status: toStatus(err) };
  }
  parentPort!.postMessage(result);
});
// Loaded: the pool's deadlines run from here, not from the thread's start.
parentPort?.postMessage({ ready: true });
