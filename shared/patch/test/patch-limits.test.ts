import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { StatusError } from '../../api/status.js';
import { MAX_BODY_BYTES } from '../../api/decode.js';
import { MAX_OBJECT_BYTES } from '../../store/kv-bucket.js';
import { PatchType, applyPatch } from '../index.js';
import { MAX_JSON_PATCH_COPY_BYTES, MAX_PATCH_RESULT_BYTES, encodedSize } from '../limits.js';
import type { PatchJob, PatchOutcome } from './patch-worker.js';

/** Heap of the worker a hostile patch runs in: today's objects need a few MB, attacks need GBs. */
const WORKER_HEAP_MB = 256;
/**
 * A refused attack is answered in milliseconds on a quiet machine; the bound only tells bounded
 * work from work that grows with the attack (seconds to minutes), so it leaves room for a
 * machine busy with the rest of the suite.
 */
const REFUSED_WITHIN_MS = 4000;
/** Past this the worker is stopped and the patch counted as running away. */
const WORKER_TIMEOUT_MS = 8000;

const TSX_API = import.meta.resolve('tsx/esm/api');
const WORKER_URL = new URL('./patch-worker.ts', import.meta.url).href;

/** Runs the patch in a worker with a bounded heap and a deadline; resolves with what happened. */
function applyInWorker(job: PatchJob): Promise<PatchOutcome | { ok: false; ms: number; message: string; crashed: true }> {
  return new Promise((resolve) => {
    // Workers do not inherit tsx's loader; the entry loads the TypeScript worker through tsx's API.
    const entry = `import(${JSON.stringify(TSX_API)}).then((tsx) => tsx.tsImport(${JSON.stringify(WORKER_URL)}, ${JSON.stringify(import.meta.url)}))`;
    const worker = new Worker(entry, { eval: true, workerData: job, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    const timer = setTimeout(() => {
      void worker.terminate();
      resolve({ ok: false, ms: WORKER_TIMEOUT_MS, message: `still running after ${WORKER_TIMEOUT_MS} ms`, crashed: true });
    }, WORKER_TIMEOUT_MS);
    worker.once('message', (m: PatchOutcome) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(m);
    });
    worker.once('error', (err) => {
      clearTimeout(timer);
      resolve({ ok: false, ms: 0, message: `worker died: ${String(err)}`, crashed: true });
    });
  });
}

function copies(count: number, from: string, to: (i: number) => string): unknown[] {
  return Array.from({ length: count }, (_, i) => ({ op: 'copy', from, path: to(i) }));
}

const configMap = (data: Record<string, string>): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data });

/** An ownerReference carrying `keys` extra members, and `repeats` more items with the same uid. */
function repeatedOwnerReferences(keys: number, repeats: number): unknown {
  const first: Record<string, unknown> = { uid: 'u1', apiVersion: 'v1', kind: 'ConfigMap', name: 'owner' };
  for (let i = 0; i < keys; i++) first[`k${i}`] = 'v';
  return { metadata: { ownerReferences: [first, ...Array.from({ length: repeats }, () => ({ uid: 'u1' }))] } };
}

test('patch limits - hostile patches are refused quickly with a bounded heap', async () => {
  const big = 'x'.repeat(50 * 1024);
  const cases: Array<{ name: string; job: PatchJob; code: number; message: RegExp }> = [
    {
      // Issue 9 B1: a 52 KB body that drove the gateway to its 4 GB heap.
      name: 'copying a 50 KB object into itself 40 times',
      job: { type: PatchType.JSON, original: configMap({}), patch: [{ op: 'add', path: '/x', value: { a: big } }, ...copies(40, '/x', (i) => `/x/c${i}`)] },
      code: 422,
      message: /Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728/,
    },
    {
      name: 'copying a tiny object into itself 23 times (1.1 KB body)',
      job: { type: PatchType.JSON, original: configMap({}), patch: [{ op: 'add', path: '/x', value: { a: 'b' } }, ...copies(23, '/x', (i) => `/x/c${i}`)] },
      code: 422,
      message: /accumulated size increase of copy/,
    },
    {
      name: 'appending a 50 KB array to itself 25 times',
      job: { type: PatchType.JSON, original: configMap({}), patch: [{ op: 'add', path: '/x', value: new Array(25_000).fill(0) }, ...copies(25, '/x', () => '/x/-')] },
      code: 422,
      message: /accumulated size increase of copy/,
    },
    {
      name: '10,000 inserts at the front of a 750,000-element array',
      job: {
        type: PatchType.JSON,
        original: configMap({}),
        patch: [{ op: 'add', path: '/x', value: new Array(750_000).fill(0) }, ...Array.from({ length: 9_999 }, () => ({ op: 'add', path: '/x/0', value: 0 }))],
      },
      code: 413,
      message: /would move more than \d+ array elements/,
    },
    {
      name: 'more operations than the cap',
      job: { type: PatchType.JSON, original: configMap({}), patch: Array.from({ length: 20_000 }, () => ({ op: 'test', path: '/kind', value: 'ConfigMap' })) },
      code: 413,
      message: /^The allowed maximum operations in a JSON patch is 10000, got 20000$/,
    },
    {
      name: 'JSON patch adds past the object limit',
      job: {
        type: PatchType.JSON,
        original: configMap({}),
        patch: [
          { op: 'add', path: '/data/a', value: 'a'.repeat(1_000_000) },
          { op: 'add', path: '/data/b', value: 'b'.repeat(1_000_000) },
        ],
      },
      code: 413,
      message: /the patched object would be larger than the limit of 1572864 bytes/,
    },
    {
      name: 'merge patch past the object limit',
      job: { type: PatchType.Merge, original: configMap({ a: 'a'.repeat(1_000_000) }), patch: { data: { b: 'b'.repeat(1_000_000) } } },
      code: 413,
      message: /the patched object would be larger than the limit of 1572864 bytes/,
    },
    {
      // Each repeated item re-merges (and used to re-copy) the 50,000-member item before it.
      name: 'strategic merge list repeating one merge key',
      job: { type: PatchType.Strategic, original: configMap({}), patch: repeatedOwnerReferences(50_000, 2_000), schema: { type: 'object' } },
      code: 413,
      message: /strategic merge patch would take more than \d+ steps/,
    },
  ];
  // Every case runs and every problem is reported, not just the first.
  const problems: string[] = [];
  for (const c of cases) {
    const out = await applyInWorker(c.job);
    if (out.ok) problems.push(`${c.name}: applied in ${Math.round(out.ms)} ms`);
    else if ('crashed' in out) problems.push(`${c.name}: ${out.message}`);
    else if (out.code !== c.code || !c.message.test(out.message)) problems.push(`${c.name}: ${out.code} ${out.message}`);
    else if (out.ms >= REFUSED_WITHIN_MS) problems.push(`${c.name}: refused only after ${Math.round(out.ms)} ms`);
  }
  assert.deepEqual(problems, []);
});

test('patch limits - array indices that are huge, negative or not numbers are refused', () => {
  const doc = { a: [1, 2, 3] };
  const cases: Array<{ name: string; op: Record<string, unknown> }> = [
    { name: 'add far past the end', op: { op: 'add', path: '/a/99999999', value: 0 } },
    { name: 'add past 2^53', op: { op: 'add', path: '/a/99999999999999999999', value: 0 } },
    { name: 'replace far past the end', op: { op: 'replace', path: '/a/4294967295', value: 0 } },
    { name: 'remove a negative index', op: { op: 'remove', path: '/a/-1' } },
    { name: 'add at a negative index', op: { op: 'add', path: '/a/-2', value: 0 } },
    { name: 'copy to a huge index', op: { op: 'copy', from: '/a', path: '/a/6666666666' } },
    { name: 'move from a huge index', op: { op: 'move', from: '/a/99999999', path: '/b' } },
    { name: 'exponent notation', op: { op: 'add', path: '/a/1e3', value: 0 } },
  ];
  for (const c of cases) {
    assert.throws(
      () => applyPatch(PatchType.JSON, doc, [c.op]),
      (err: unknown) => err instanceof StatusError && err.code === 422,
      c.name,
    );
  }
  assert.deepEqual(doc, { a: [1, 2, 3] }, 'the original is not changed');
});

test('patch limits - large but honest patches still apply', () => {
  const half = 'h'.repeat(600_000);
  const manyKeys: Record<string, string> = {};
  for (let i = 0; i < 50_000; i++) manyKeys[`key-${i}`] = `value-${i}`;
  const containers = Array.from({ length: 1_000 }, (_, i) => ({ name: `c${i}`, image: 'nginx:1.24', env: Array.from({ length: 20 }, (_, j) => ({ name: `E${j}`, value: 'v' })) }));
  const str = { type: 'string' };
  const podSchema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          containers: {
            type: 'array',
            'x-kubernetes-patch-merge-key': 'name',
            'x-kubernetes-patch-strategy': 'merge',
            items: {
              type: 'object',
              properties: { name: str, image: str, env: { type: 'array', 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge', items: { type: 'object' } } },
            },
          },
        },
      },
    },
  };
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', finalizers: Array.from({ length: 10_000 }, (_, i) => `f${i}`) }, spec: { containers } };
  const cases: Array<{ name: string; type: string; original: unknown; patch: unknown; schema?: Record<string, unknown>; check: (out: any) => void }> = [
    {
      name: 'JSON patch copying a 600 KB value once',
      type: PatchType.JSON,
      original: configMap({ a: half }),
      patch: [{ op: 'copy', from: '/data/a', path: '/data/b' }],
      check: (out) => assert.equal(out.data.b.length, 600_000),
    },
    {
      name: 'JSON patch of 10,000 operations on a 50,000-key map',
      type: PatchType.JSON,
      original: configMap(manyKeys),
      patch: Array.from({ length: 10_000 }, (_, i) => ({ op: 'replace', path: `/data/key-${i * 5}`, value: 'new' })),
      check: (out) => assert.equal(out.data['key-49995'], 'new'),
    },
    {
      name: 'JSON patch inserting 2,000 items at the front of a 10,000-item list',
      type: PatchType.JSON,
      original: pod,
      patch: Array.from({ length: 2_000 }, (_, i) => ({ op: 'add', path: '/metadata/finalizers/0', value: `n${i}` })),
      check: (out) => assert.equal(out.metadata.finalizers.length, 12_000),
    },
    {
      name: 'merge patch replacing a 1.4 MB value',
      type: PatchType.Merge,
      original: configMap({ a: half }),
      patch: { data: { a: 'n'.repeat(1_400_000) } },
      check: (out) => assert.equal(out.data.a.length, 1_400_000),
    },
    {
      name: 'strategic merge touching every one of 1,000 containers',
      type: PatchType.Strategic,
      original: pod,
      schema: podSchema,
      patch: {
        metadata: { '$deleteFromPrimitiveList/finalizers': ['f1', 'f2'], finalizers: ['g'] },
        spec: {
          '$setElementOrder/containers': containers.map((c) => ({ name: c.name })).reverse(),
          containers: containers.map((c) => ({ name: c.name, image: 'nginx:1.25', env: [{ name: 'E0', value: 'w' }] })),
        },
      },
      check: (out) => {
        assert.equal(out.spec.containers.length, 1_000);
        assert.equal(out.spec.containers[0].name, 'c999');
        assert.equal(out.spec.containers[0].image, 'nginx:1.25');
        assert.equal(out.spec.containers[0].env.length, 20);
        assert.equal(out.metadata.finalizers.length, 9_999);
      },
    },
    {
      name: 'strategic merge of one key into a 50,000-key map',
      type: PatchType.Strategic,
      original: configMap(manyKeys),
      patch: { data: { 'key-7': 'seven' } },
      check: (out) => assert.equal(Object.keys(out.data).length, 50_000),
    },
  ];
  for (const c of cases) c.check(applyPatch(c.type, c.original, c.patch, c.schema));
});

test('patch limits - the limits are the server-wide ones', () => {
  assert.equal(MAX_PATCH_RESULT_BYTES, MAX_OBJECT_BYTES, 'a patch result may be as large as a stored object');
  assert.equal(MAX_JSON_PATCH_COPY_BYTES, MAX_BODY_BYTES, 'copies may add as much as a request body (upstream AccumulatedCopySizeLimit)');
});

test('patch limits - encoded size is a lower bound that stops at the limit', () => {
  // Exact for plain ASCII; escapes and multi-byte characters are only ever undercounted.
  const exact: unknown[] = [null, true, false, 0, -1.5, 1e21, '', 'ab', [], {}, [1, [2, {}]], { a: 1, 'b c': [null, 'x'] }];
  for (const v of exact) assert.equal(encodedSize(v, Number.MAX_SAFE_INTEGER), JSON.stringify(v).length, JSON.stringify(v));
  for (const v of ['a"b', 'é', { 'é\n': ['\u0000'] }]) assert.ok(encodedSize(v, Number.MAX_SAFE_INTEGER) < Buffer.byteLength(JSON.stringify(v)), JSON.stringify(v));
  // A deep value neither overflows the stack nor is walked past the limit.
  let deep: unknown = 0;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  assert.equal(encodedSize(deep, Number.MAX_SAFE_INTEGER), 200_001);
  assert.ok(encodedSize(new Array(1_000_000).fill(0), 10) > 10);
});
