// `npm start` on a terminal shows its services' JSON log lines readable; into a pipe, as they are.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { terminalLineFormat } from '../pretty-log.js';

const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
const line = (o: object) => JSON.stringify({ level: 30, time: Date.UTC(2026, 0, 2, 3, 4, 5), pid: 7, hostname: 'vm', name: 'gateway', ...o });

test('pretty log - on a terminal a log line is one readable line; a pipe gets the JSON as it is', async () => {
  const json = line({ address: 'https://127.0.0.1:6443', msg: 'gateway serving' });
  assert.deepEqual((await terminalLineFormat(false))(json), [json]);
  assert.deepEqual((await terminalLineFormat(undefined))(json), [json]);

  const tty = await terminalLineFormat(true);
  const [shown, ...more] = tty(json).map(plain);
  assert.match(shown!, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: gateway serving \{"address":"https:\/\/127\.0\.0\.1:6443"\}$/);
  assert.deepEqual(more, []);
  assert.doesNotMatch(shown!, /pid|hostname|"name"/, 'the prefix names the service already');
  assert.deepEqual(tty('[12] 2026/01/02 03:04:05.000000 [INF] Server is ready'), ['[12] 2026/01/02 03:04:05.000000 [INF] Server is ready'], "nats-server's own lines pass");

  const failed = tty(line({ level: 50, err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at here (x.ts:1:1)' }, msg: 'request failed' })).map(plain);
  assert.match(failed[0]!, /ERROR: request failed/);
  assert.ok(
    failed.some((l) => l.includes('at here (x.ts:1:1)')),
    'the stack, a line each',
  );
});
