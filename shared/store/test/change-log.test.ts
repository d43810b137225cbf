// The change log's pure parts: the header that tells what a write replaced. Its behaviour against
// a real nats-server is in test/integration/change-log.test.ts.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePrevHeader, prevHeader } from '../change-log.js';

test('change log - what a write replaced, as its header says it', () => {
  for (const [replaced, header] of [
    [null, 'none'],
    [{ revision: 7 }, '7'],
    [{ revision: 7, json: '{"a":"b c"}' }, '7 {"a":"b c"}'],
  ] as const) {
    assert.equal(prevHeader(replaced), header);
    assert.deepEqual(parsePrevHeader(header), replaced ?? 'none');
  }
  for (const bad of [undefined, '', '0', '-3', 'x {}', '1.5']) assert.equal(parsePrevHeader(bad), undefined, String(bad));
});
