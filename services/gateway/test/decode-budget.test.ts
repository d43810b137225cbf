// Every decoder a request body can reach, fed hostile bodies up to the size limit: what the gateway
// does on its event loop to decode one (all of it for small bodies; for the large ones DecodePool
// sends to a worker, the parse of the worker's answer) must end — a value or a 4xx Status — within
// about 100 ms, or one request stalls every other.
// Each case runs three times and the fastest run counts, so a busy machine (the rest of the suite
// runs beside this) does not turn a bounded decode into a failure; an unbounded one takes seconds.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../../shared/api/status.js';
import { JSON_MEDIA_TYPES, MAX_BODY_BYTES, parseMediaType, parseVettedJson } from '../../../shared/api/decode.js';
import { MAX_OBJECT_MEMBERS } from '../../../shared/api/json-scan.js';
import { envelope } from '../../../shared/proto/envelope.js';
import { decodePatchBody, decodeValue } from '../handlers/decode.js';
import { DecodePool, JSON_OFFLOAD_BYTES, WORKER_IDLE_MS, YAML_OFFLOAD_BYTES } from '../handlers/decode-pool.js';

const LOOP_BUDGET_MS = 100;

interface Case {
  name: string;
  contentType: string;
  body: Buffer;
  /** The decoder the handler calls for this media type. */
  patch?: boolean;
}

const utf8 = (s: string) => Buffer.from(s, 'utf8');
/** Fills `unit` up to about `bytes`. */
const fill = (unit: string, bytes: number) => unit.repeat(Math.floor(bytes / unit.length));
const NEAR_LIMIT = MAX_BODY_BYTES - 1024;
const INLINE_YAML = YAML_OFFLOAD_BYTES - 64;

/** `bK: &bK {<<: [*b(K-1), *b(K-1)], kK: v}`: each line doubles what the merge expands. */
function mergeChain(levels: number): string {
  let s = 'b0: &b0 {k0: v}\n';
  for (let k = 1; k <= levels; k++) s += `b${k}: &b${k} {<<: [*b${k - 1}, *b${k - 1}], k${k}: v}\n`;
  return s;
}

function laughs(): string {
  let s = 'a: &a [x,x,x,x,x,x,x,x,x,x]\n';
  for (let i = 1; i < 9; i++)
    s += `l${i}: &l${i} [${Array(10)
      .fill(i === 1 ? '*a' : `*l${i - 1}`)
      .join(',')}]\n`;
  return s;
}

/** Varint of a protobuf tag. */
function tag(field: number, wire: number): number[] {
  const out: number[] = [];
  let v = (field << 3) | wire;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}

/** `{"k0":1,"k1":1,…}` with keys as short as they can be, up to about `bytes`. */
function wideJson(bytes: number): string {
  const parts: string[] = [];
  let size = 2;
  for (let i = 0; size < bytes - 16; i++) {
    const member = `"${i.toString(36)}":1`;
    parts.push(member);
    size += member.length + 1;
  }
  return `{${parts.join(',')}}`;
}

/** One entry of ConfigMap.data (field 2): {key, value: "v"}. */
function dataEntry(key: string): Buffer {
  const k = Buffer.from(key, 'latin1');
  const entry = Buffer.from([...tag(1, 2), k.length, ...k, ...tag(2, 2), 1, 0x76]);
  return Buffer.from([...tag(2, 2), entry.length, ...entry]);
}

function protobuf(raw: Buffer): Buffer {
  return envelope('v1', 'ConfigMap', raw);
}

const cases: Case[] = [
  // JSON, inline at any allowed size.
  { name: 'JSON nested arrays to the size limit', contentType: 'application/json', body: utf8(fill('[', NEAR_LIMIT)) },
  { name: 'JSON nested objects to the size limit', contentType: 'application/json', body: utf8(fill('{"a":', NEAR_LIMIT)) },
  { name: 'JSON array of 1.5 M numbers', contentType: 'application/json', body: utf8(`[${fill('1,', NEAR_LIMIT - 4)}1]`) },
  // V8 builds an object of 250 k members in 150–250 ms however it is made (JSON.parse, structured
  // clone, a loop), so objects that wide exceed the budget whatever the decoder; 100 k is in it.
  { name: 'JSON object of 100 k distinct keys', contentType: 'application/json', body: utf8(`{${Array.from({ length: 100_000 }, (_, i) => `"k${i}":1`).join(',')}}`) },
  { name: 'JSON object of distinct short keys to the size limit (refused past MAX_OBJECT_MEMBERS)', contentType: 'application/json', body: utf8(wideJson(NEAR_LIMIT)) },
  { name: 'JSON object of one key repeated 350 k times', contentType: 'application/json', body: utf8(`{${fill('"a":1,', NEAR_LIMIT - 8)}"a":1}`) },
  { name: 'JSON string of escapes', contentType: 'application/json', body: utf8(`{"a":"${fill('\\u0041', NEAR_LIMIT - 16)}"}`) },
  { name: 'JSON long number literals', contentType: 'application/json', body: utf8(`[${fill('1.00000000000000000000000000000000000000001,', NEAR_LIMIT - 4)}1]`) },
  // YAML small enough to be decoded inline.
  { name: 'YAML merge keys chained 16 levels', contentType: 'application/yaml', body: utf8(mergeChain(16)) },
  { name: 'YAML merge keys chained 39 levels', contentType: 'application/yaml', body: utf8(mergeChain(39)) },
  {
    name: 'YAML merge keys chained to the inline size',
    contentType: 'application/yaml',
    body: utf8(
      mergeChain(300)
        .slice(0, INLINE_YAML)
        .replace(/[^\n]*$/, ''),
    ),
  },
  { name: 'YAML billion laughs', contentType: 'application/yaml', body: utf8(laughs()) },
  { name: 'YAML compact sequence after a key', contentType: 'application/yaml', body: utf8(`x: ${fill('- ', INLINE_YAML - 8)}y\n`) },
  { name: 'YAML compact sequence at line start', contentType: 'application/yaml', body: utf8(`${fill('- ', INLINE_YAML - 8)}y\n`) },
  { name: 'YAML compact keys', contentType: 'application/yaml', body: utf8(`${fill('a: ', INLINE_YAML - 8)}y\n`) },
  { name: 'YAML compact maps in sequences', contentType: 'application/yaml', body: utf8(`${fill('- a: ', INLINE_YAML - 8)}y\n`) },
  { name: 'YAML flow nesting', contentType: 'application/yaml', body: utf8(`x: ${fill('[', INLINE_YAML - 8)}\n`) },
  { name: 'YAML many aliases of one anchor', contentType: 'application/yaml', body: utf8(`a: &a x\nl:\n${fill('- *a\n', INLINE_YAML - 16)}`) },
  {
    name: 'YAML many anchors',
    contentType: 'application/yaml',
    body: utf8(
      Array.from({ length: 1500 }, (_, i) => `k${i}: &a${i} v\n`)
        .join('')
        .slice(0, INLINE_YAML)
        .replace(/[^\n]*$/, ''),
    ),
  },
  { name: 'YAML flow sequence of scalars', contentType: 'application/yaml', body: utf8(`x: [${fill('a,', INLINE_YAML - 8)}a]\n`) },
  { name: 'YAML custom tags', contentType: 'application/yaml', body: utf8(fill('- !foo x\n', INLINE_YAML)) },
  // Protobuf, inline at any allowed size.
  {
    name: 'protobuf unknown groups nested to the size limit',
    contentType: 'application/vnd.kubernetes.protobuf',
    body: protobuf(Buffer.from(fill(String.fromCharCode(...tag(9, 3)), NEAR_LIMIT - 64), 'latin1')),
  },
  {
    name: 'protobuf 1 M unknown varint fields',
    contentType: 'application/vnd.kubernetes.protobuf',
    body: protobuf(Buffer.from(fill(String.fromCharCode(...tag(9, 0), 1), NEAR_LIMIT - 64), 'latin1')),
  },
  {
    name: 'protobuf 500 k data entries',
    contentType: 'application/vnd.kubernetes.protobuf',
    // ConfigMap.data (field 2) entries of {key: "k", value: "v"}.
    body: protobuf(Buffer.from(fill(String.fromCharCode(...tag(2, 2), 6, ...tag(1, 2), 1, 0x6b, ...tag(2, 2), 1, 0x76), NEAR_LIMIT - 64), 'latin1')),
  },
  {
    name: 'protobuf 300 k distinct data keys (refused past MAX_OBJECT_MEMBERS)',
    contentType: 'application/vnd.kubernetes.protobuf',
    body: protobuf(Buffer.concat(Array.from({ length: 300_000 }, (_, i) => dataEntry(i.toString(36))))),
  },
  { name: 'protobuf truncated length', contentType: 'application/vnd.kubernetes.protobuf', body: protobuf(Buffer.from([...tag(1, 2), 0xff, 0xff, 0xff, 0xff, 0x0f])) },
  // Patch bodies: JSON for the JSON, merge and strategic merge patches; YAML for apply.
  {
    name: 'JSON patch of 1 M operations',
    contentType: 'application/json-patch+json',
    patch: true,
    body: utf8(`[${fill('{"op":"add","path":"/a","value":1},', NEAR_LIMIT - 64)}{"op":"test","path":"/a","value":1}]`),
  },
  { name: 'merge patch nested to the size limit', contentType: 'application/merge-patch+json', patch: true, body: utf8(fill('{"a":', NEAR_LIMIT)) },
  {
    name: 'strategic merge patch with 50 k directives',
    contentType: 'application/strategic-merge-patch+json',
    patch: true,
    body: utf8(`{${Array.from({ length: 50_000 }, (_, i) => `"$setElementOrder/k${i}":[]`).join(',')}}`),
  },
  { name: 'apply patch of merge keys chained 39 levels', contentType: 'application/apply-patch+yaml', patch: true, body: utf8(mergeChain(39)) },
  { name: 'apply patch of a compact sequence', contentType: 'application/apply-patch+yaml', patch: true, body: utf8(`x: ${fill('- ', INLINE_YAML - 8)}y\n`) },
];

/**
 * What the gateway's event loop spends on a body, and how the decode ended: an inline decode as
 * the handlers call it, or for a body DecodePool takes, the worker's answer and the parse of it
 * that is left to the loop (a vetted JSON body, or the JSON text of a YAML value).
 */
async function onLoop(pool: DecodePool, k: Case): Promise<{ ms: number; outcome: unknown }> {
  const timed = (run: () => unknown): { ms: number; outcome: unknown } => {
    let ms = Infinity;
    let outcome: unknown;
    // The event loop is held at least as long as the decode's CPU time on this thread, which is at
    // most both the wall time and the process's CPU time: the smaller of the two is a bound that
    // neither other processes on a busy machine (wall) nor V8's helper threads (CPU) inflate.
    for (let i = 0; i < 3 && ms > LOOP_BUDGET_MS / 4; i++) {
      const t = performance.now();
      const cpu = process.cpuUsage();
      try {
        run();
        outcome = undefined;
      } catch (err) {
        outcome = err;
      }
      const used = process.cpuUsage(cpu);
      ms = Math.min(ms, performance.now() - t, (used.user + used.system) / 1000);
    }
    return { ms, outcome };
  };
  if (!pool.offloads(k.body, k.contentType)) return timed(() => (k.patch ? decodePatchBody(k.body, k.contentType) : decodeValue(k.body, k.contentType)));
  let value: unknown;
  try {
    value = (await pool.decode(k.body, k.contentType)).value;
  } catch (err) {
    return { ms: 0, outcome: err };
  }
  if (JSON_MEDIA_TYPES.includes(parseMediaType(k.contentType).mediaType)) return timed(() => parseVettedJson(k.body));
  const text = JSON.stringify(value);
  return timed(() => JSON.parse(text));
}

test('decode budget - no body holds the event loop for more than ~100 ms, whatever the decoder', async () => {
  const pool = new DecodePool();
  const slow: string[] = [];
  try {
    for (const k of cases) {
      const { ms, outcome } = await onLoop(pool, k);
      if (outcome !== undefined) {
        assert.ok(outcome instanceof StatusError, `${k.name}: threw ${String(outcome)} instead of a Status`);
        assert.ok(outcome.code >= 400 && outcome.code < 500, `${k.name}: answered ${outcome.code} ${outcome.message}`);
      }
      if (ms > LOOP_BUDGET_MS) slow.push(`${k.name}: ${ms.toFixed(0)} ms (${k.body.length} bytes, ${outcome instanceof StatusError ? outcome.code : 'decoded'})`);
    }
  } finally {
    await pool.close();
  }
  assert.deepEqual(slow, [], 'decodes that held the event loop');
});

test('decode budget - YAML larger than the inline size goes to the worker, and its hostile forms are 400 there', async () => {
  const pool = new DecodePool();
  try {
    const hostile = [
      `x: ${fill('- ', 100_000)}y\n`,
      `${'#'.repeat(YAML_OFFLOAD_BYTES)}\n${mergeChain(39)}`,
      `${fill('- ', 100_000)}y\n`,
      // A mapping wider than MAX_OBJECT_MEMBERS: the loop would have to parse the worker's JSON of it.
      Array.from({ length: MAX_OBJECT_MEMBERS + 1 }, (_, i) => `k${i.toString(36)}: 1\n`).join(''),
      // Runs the yaml library recursed or rescanned on once each (a stack overflow, 500, after
      // 15 s of the worker for 2 MB; 100 KB of `? ` in a flow collection would take minutes).
      `a: [1,${fill('- ', 1_000_000)}`,
      `a: [\n${fill('- x\n', 400_000)}]`,
      `a: [${fill('? ', 100_000)}x]`,
      `a: [${fill('b: ', 100_000)}x]`,
      `a: ${fill('&a ', 100_000)}x`,
      `${fill('- !t ', 100_000)}x`,
    ];
    for (const text of hostile) {
      const body = utf8(text);
      assert.ok(pool.offloads(body, 'application/yaml'));
      const t = performance.now();
      await assert.rejects(pool.decode(body, 'application/yaml'), (err: unknown) => err instanceof StatusError && err.code === 400);
      assert.ok(performance.now() - t < 5000, `the worker took ${(performance.now() - t).toFixed(0)} ms`);
    }
  } finally {
    await pool.close();
  }
});

test('decode budget - a body still decoding at its deadline is refused alone: the worker is replaced and the bodies behind it decode', async () => {
  // Dense YAML the pre-scan lets through, with a deadline far below what it needs.
  const pool = new DecodePool(WORKER_IDLE_MS, (bytes) => (bytes > 1024 * 1024 ? 300 : 10_000));
  try {
    const slow = utf8(`l:\n${'- a\n'.repeat(400_000)}`);
    const t = performance.now();
    const refused = pool.decode(slow, 'application/yaml');
    const behind = [pool.decode(utf8(`a: [${'1,'.repeat(2_000)}1]\n`), 'application/apply-patch+yaml'), pool.decode(utf8(`b: ${'x'.repeat(4_000)}\n`), 'application/yaml')];
    await assert.rejects(refused, (err: unknown) => err instanceof StatusError && err.code === 400 && /could not be decoded within 0.3 s/.test(err.message));
    assert.ok(performance.now() - t < 5_000, `refused after ${(performance.now() - t).toFixed(0)} ms`);
    const [a, b] = await Promise.all(behind);
    assert.equal((a!.value as { a: number[] }).a.length, 2_001);
    assert.equal((b!.value as { b: string }).b.length, 4_000);
  } finally {
    await pool.close();
  }
});

test('decode budget - the worker gives its memory back once idle', async () => {
  // A deadline that cannot bite: this test is about memory, on a machine the suite keeps busy.
  const pool = new DecodePool(300, () => 120_000);
  try {
    const rssBefore = process.memoryUsage().rss;
    // Dense YAML: the parser's nodes for 700 k sequence items grow the worker's heap by hundreds of MB.
    const value = (await pool.decode(utf8(`l:\n${'- a\n'.repeat(700_000)}`), 'application/yaml')).value as { l: string[] };
    assert.equal(value.l.length, 700_000);
    assert.ok(pool.running);
    const grown = process.memoryUsage().rss - rssBefore;
    for (let i = 0; i < 50 && pool.running; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(pool.running, false, 'the idle worker was stopped');
    await new Promise((r) => setTimeout(r, 200));
    const left = process.memoryUsage().rss - rssBefore;
    assert.ok(left < grown / 2, `RSS grew ${(grown / 2 ** 20).toFixed(0)} MiB while decoding and kept ${(left / 2 ** 20).toFixed(0)} MiB once idle`);
    // A new body starts a new worker.
    assert.deepEqual((await pool.decode(utf8(`a: [${'1,'.repeat(10_000)}1]\n`), 'application/yaml')).value, { a: Array(10_001).fill(1) });
  } finally {
    await pool.close();
  }
});

test('decode budget - JSON sent as YAML stays inline up to the JSON limit; YAML that only starts like JSON goes to the worker', () => {
  const pool = new DecodePool();
  const json = utf8(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { big: 'x'.repeat(100_000) } }));
  assert.equal(pool.offloads(json, 'application/apply-patch+yaml'), false);
  assert.equal(pool.offloads(utf8(`  ${fill('[', 5_000)}`), 'application/yaml'), true, 'too deep for JSON: the YAML path, off the loop');
  assert.equal(pool.offloads(utf8(`{${fill('? ', 5_000)}x}`), 'application/yaml'), true);
  assert.equal(pool.offloads(utf8(`{a: ${'x'.repeat(5_000)}}`), 'application/yaml'), true);
  assert.equal(pool.offloads(utf8(`a: ${'x'.repeat(1_000)}`), 'application/yaml'), false, 'small YAML stays inline');
  assert.equal(pool.offloads(utf8(JSON.stringify({ big: 'x'.repeat(JSON_OFFLOAD_BYTES) })), 'application/apply-patch+yaml'), true);
});
