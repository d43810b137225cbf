// Read paths: a GET of one ConfigMap (served from the watch cache) against a bare fastify route
// that returns a similar object over the same TLS setup, and full / chunked lists of 10,000.

import { decodeObject } from '../shared/proto/envelope.js';
import type { HttpClient } from './http.js';
import { median, type Operation } from './load.js';

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** One GET of `path` (JSON unless `accept` says otherwise); anything but 200 is an error. */
export function getOp(client: HttpClient, path: string, accept?: string): Operation {
  return async () => {
    const res = await client.request('GET', path, undefined, { accept });
    if (res.status !== 200) throw new Error(`GET ${path} → ${res.status}: ${res.body.toString().slice(0, 300)}`);
  };
}

export interface ListTiming {
  /** Median wall time of one full list, ms (request sent → last byte received). */
  fullMs: number;
  /** Median wall time of a chunked list (all pages, following `continue`), ms. */
  chunkedMs: number;
  pages: number;
  items: number;
  bytes: number;
}

/**
 * Times a full list and a chunked list of one namespace (every namespace when `namespace` is ''). Both are consistent reads (no
 * resourceVersion), as kubectl sends them. One untimed warm-up of each first: the first list
 * after writes pays for sorting the keys and serializing objects never read before.
 */
export async function timeLists(client: HttpClient, namespace: string, opts: { runs: number; chunkRuns: number; limit: number; accept?: string }): Promise<ListTiming> {
  const path = namespace ? `/api/v1/namespaces/${namespace}/configmaps` : '/api/v1/configmaps';
  const parse = (body: Buffer) => (opts.accept === PROTOBUF ? decodeObject(body) : JSON.parse(body.toString())) as { items: unknown[]; metadata: { continue?: string } };
  let items = 0;
  let bytes = 0;
  const full = async () => {
    // Both timings include decoding the body, as a client must: a chunked list cannot go on
    // without reading each page's continue token.
    const t = performance.now();
    const res = await client.request('GET', path, undefined, { accept: opts.accept });
    if (res.status !== 200) throw new Error(`GET ${path} → ${res.status}: ${res.body.toString().slice(0, 300)}`);
    items = parse(res.body).items.length;
    const ms = performance.now() - t;
    bytes = res.body.length;
    return ms;
  };
  let pages = 0;
  const chunked = async () => {
    const t = performance.now();
    let cont = '';
    pages = 0;
    do {
      const res = await client.request('GET', `${path}?limit=${opts.limit}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`, undefined, { accept: opts.accept });
      if (res.status !== 200) throw new Error(`chunked list page ${pages} → ${res.status}: ${res.body.toString().slice(0, 300)}`);
      cont = parse(res.body).metadata.continue ?? '';
      pages++;
    } while (cont);
    return performance.now() - t;
  };
  await full();
  await chunked();
  const fullTimes: number[] = [];
  for (let i = 0; i < opts.runs; i++) fullTimes.push(await full());
  const chunkTimes: number[] = [];
  for (let i = 0; i < opts.chunkRuns; i++) chunkTimes.push(await chunked());
  return { fullMs: median(fullTimes), chunkedMs: median(chunkTimes), pages, items, bytes };
}
