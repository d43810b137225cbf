// The read figures of the table: full and chunked lists of the seeded ConfigMaps (JSON and
// protobuf), and GETs of one of them from the cache, consistent and in protobuf, interleaved with
// the bare fastify route of the baseline process.

import type { HttpClient } from './http.js';
import { combine, interleaved, roundRatio, type LoadOptions, type LoadResult } from './load.js';
import { getOp, PROTOBUF, timeLists } from './reads.js';
import { ms, rate, type Row } from './report.js';

export interface ListTargets {
  /** Objects in `namespace`, which every full list must return. */
  objects: number;
  fullListMs: number;
  chunkedOverFull: number;
}

export async function listFigures(gw: HttpClient, namespace: string, t: ListTargets): Promise<Row[]> {
  const rows: Row[] = [];
  const n = t.objects.toLocaleString('en-US');
  const lists = await timeLists(gw, namespace, { runs: 7, chunkRuns: 3, limit: 500 });
  if (lists.items !== t.objects) throw new Error(`full list returned ${lists.items} items, expected ${t.objects}`);
  rows.push({
    figure: `full list of ${n} (median of 7)`,
    measured: ms(lists.fullMs),
    limit: `${(lists.bytes / 2 ** 20).toFixed(1)} MiB body`,
    target: `≤ ${t.fullListMs} ms`,
    ok: lists.fullMs <= t.fullListMs,
  });
  const chunkedRatio = Math.round((lists.chunkedMs / lists.fullMs) * 100) / 100;
  rows.push({
    figure: `chunked list limit=500 (${lists.pages} pages, median of 3)`,
    measured: ms(lists.chunkedMs),
    limit: `${ms(lists.chunkedMs / lists.pages)} per page; full list ${ms(lists.fullMs)}`,
    ratio: chunkedRatio,
    target: `≤ ${t.chunkedOverFull}× full`,
    ok: chunkedRatio <= t.chunkedOverFull,
  });
  const pbLists = await timeLists(gw, namespace, { runs: 7, chunkRuns: 1, limit: 500, accept: PROTOBUF });
  if (pbLists.items !== t.objects) throw new Error(`protobuf list returned ${pbLists.items} items, expected ${t.objects}`);
  rows.push({
    figure: `full list of ${n} in protobuf (median of 7)`,
    measured: ms(pbLists.fullMs),
    limit: `${(pbLists.bytes / 2 ** 20).toFixed(1)} MiB body; JSON list ${ms(lists.fullMs)}`,
    ratio: Math.round((lists.fullMs / pbLists.fullMs) * 100) / 100,
  });
  return rows;
}

/** GETs of one ConfigMap (`one`) from the cache, consistent, and in protobuf, interleaved with the bare route. */
export async function getFigures(
  gw: HttpClient,
  bare: HttpClient,
  one: string,
  o: { load: LoadOptions; rounds: number; anyRatio: number; consistentRatio: number },
): Promise<{ rows: Row[]; results: LoadResult[] }> {
  const gets = await interleaved(
    { bare: getOp(bare, one), any: getOp(gw, `${one}?resourceVersion=0`), consistent: getOp(gw, one), protobuf: getOp(gw, `${one}?resourceVersion=0`, PROTOBUF) },
    o.rounds,
    o.load,
  );
  const [baseline, getAny, getConsistent, getProtobuf] = [combine(gets.bare), combine(gets.any), combine(gets.consistent), combine(gets.protobuf)];
  const bareText = `bare fastify ${rate(baseline.rate)} p99 ${ms(baseline.p99Ms)}`;
  const c = o.load.concurrency;
  const anyRatio = roundRatio(gets.any, gets.bare);
  const consistentRatio = roundRatio(gets.consistent, gets.bare);
  const rows: Row[] = [
    { figure: `GET resourceVersion=0 (c=${c})`, measured: `${rate(getAny.rate)} p99 ${ms(getAny.p99Ms)}`, limit: bareText, ratio: anyRatio, target: `≥ ${o.anyRatio}`, ok: anyRatio >= o.anyRatio },
    {
      figure: `GET consistent (c=${c})`,
      measured: `${rate(getConsistent.rate)} p99 ${ms(getConsistent.p99Ms)}`,
      limit: bareText,
      ratio: consistentRatio,
      target: `≥ ${o.consistentRatio}`,
      ok: consistentRatio >= o.consistentRatio,
    },
    {
      figure: `GET resourceVersion=0 in protobuf (c=${c})`,
      measured: `${rate(getProtobuf.rate)} p99 ${ms(getProtobuf.p99Ms)}`,
      limit: `JSON ${rate(getAny.rate)}`,
      ratio: roundRatio(gets.protobuf, gets.any),
    },
  ];
  return { rows, results: [baseline, getAny, getConsistent, getProtobuf] };
}
