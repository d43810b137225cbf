// Worker thread that decodes large YAML bodies, so the gateway's event loop keeps serving while
// the YAML parser runs (about 0.25 s per MiB). Replies with JSON text, which the main thread parses
// far faster than structured clone would copy the object tree.

import { parentPort } from 'node:worker_threads';
import { decodeBody } from '../../../shared/api/decode.js';
import { toStatus } from '../../../shared/api/status.js';

export interface DecodeJob {
  id: number;
  body: Uint8Array;
  contentType: string;
}

export type DecodeResult = { id: number; json: string; duplicateFields: string[] } | { id: number; status: ReturnType<typeof toStatus> };

parentPort?.on('message', (job: DecodeJob) => {
  let result: DecodeResult;
  try {
    const { value, duplicateFields } = decodeBody(Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength), job.contentType);
    result = { id: job.id, json: JSON.stringify(value), duplicateFields };
  } catch (err) {
    result = { id: job.id, status: toStatus(err) };
  }
  parentPort!.postMessage(result);
});
