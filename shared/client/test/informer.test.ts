import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../api/types.js';
import { Informer } from '../informer.js';
import { ApiError, type ApiClient, type WatchEvent } from '../rest.js';

const cm = (name: string, rv: number, data: Record<string, string> = {}): ApiObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: String(rv) }, data }) as ApiObject;

/** A server script: each list returns the next snapshot; each watch plays the next event list, then ends (or fails). */
function fakeClient(script: { lists: Array<{ rv: number; items: ApiObject[] }>; watches: Array<WatchEvent[] | ApiError> }) {
  const calls: string[] = [];
  let lists = 0;
  let watches = 0;
  const client = {
    async list() {
      const l = script.lists[Math.min(lists++, script.lists.length - 1)]!;
      calls.push(`list`);
      return { metadata: { resourceVersion: String(l.rv) }, items: l.items };
    },
    async watch(_ref: unknown, query: Record<string, unknown>, onEvent: (e: WatchEvent) => void, signal?: AbortSignal) {
      calls.push(`watch@${String(query.resourceVersion)}${query.allowWatchBookmarks ? '+bookmarks' : ''}`);
      const step = script.watches[watches++];
      if (step === undefined) {
        // Nothing more scripted: block until stopped.
        await new Promise<void>((r) => signal?.addEventListener('abort', () => r(), { once: true }));
        return;
      }
      if (step instanceof ApiError) throw step;
      for (const e of step) onEvent(e);
    },
  };
  return { client: client as unknown as ApiClient, calls };
}

test('informer - lists, then watches from the list, resumes from the last resourceVersion; handlers see adds, updates and deletes', async () => {
  const { client, calls } = fakeClient({
    lists: [{ rv: 10, items: [cm('a', 5)] }],
    watches: [
      [
        { type: 'ADDED', object: cm('b', 11) },
        { type: 'MODIFIED', object: cm('a', 12, { k: 'v' }) },
        { type: 'BOOKMARK', object: { metadata: { resourceVersion: '15' } } as ApiObject },
      ],
      [{ type: 'DELETED', object: cm('b', 16) }],
    ],
  });
  const seen: string[] = [];
  const inf = new Informer(client, { group: '', version: 'v1', resource: 'configmaps' }, { minBackoffMs: 1 });
  inf.addHandlers({
    onAdd: (o) => seen.push(`add ${o.metadata.name}`),
    onUpdate: (o, n) => seen.push(`update ${o.metadata.name} ${o.metadata.resourceVersion}->${n.metadata.resourceVersion}`),
    onDelete: (o) => seen.push(`delete ${o.metadata.name}`),
  });
  inf.start();
  await inf.synced;
  for (let i = 0; i < 50 && calls.length < 3; i++) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 20));
  await inf.stop();
  assert.deepEqual(seen, ['add a', 'add b', 'update a 5->12', 'delete b']);
  assert.deepEqual(calls, ['list', 'watch@10+bookmarks', 'watch@15+bookmarks', 'watch@16+bookmarks']);
  assert.deepEqual(
    inf.list().map((o) => o.metadata.name),
    ['a'],
  );
  assert.deepEqual((inf.get('ns/a') as { data?: unknown } | undefined)?.data, { k: 'v' });
});

test('informer - 410 Gone relists; what vanished meanwhile is reported deleted; other errors back off and resume', async () => {
  const { client, calls } = fakeClient({
    lists: [
      { rv: 10, items: [cm('a', 5), cm('b', 6)] },
      { rv: 40, items: [cm('a', 30), cm('c', 35)] },
    ],
    watches: [new ApiError(500, { message: 'boom', code: 500 }), new ApiError(410, { reason: 'Expired', code: 410 })],
  });
  const seen: string[] = [];
  const errors: unknown[] = [];
  const inf = new Informer(client, { group: '', version: 'v1', resource: 'configmaps' }, { minBackoffMs: 1, onError: (e) => errors.push(e) });
  inf.addHandlers({ onAdd: (o) => seen.push(`add ${o.metadata.name}`), onUpdate: (o) => seen.push(`update ${o.metadata.name}`), onDelete: (o) => seen.push(`delete ${o.metadata.name}`) });
  inf.start();
  for (let i = 0; i < 100 && calls.length < 5; i++) await new Promise((r) => setTimeout(r, 5));
  await inf.stop();
  assert.deepEqual(calls, ['list', 'watch@10+bookmarks', 'watch@10+bookmarks', 'list', 'watch@40+bookmarks']);
  assert.deepEqual(seen, ['add a', 'add b', 'update a', 'add c', 'delete b']);
  assert.equal(errors.length, 1, 'the 500 is reported; the 410 is routine');
  assert.equal(inf.lastResourceVersion(), '40');
});
