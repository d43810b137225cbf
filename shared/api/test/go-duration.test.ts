import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseGoDuration } from '../go-duration.js';

test("go duration - parses as Go's time.ParseDuration does, with its error messages", () => {
  const ok: Array<[string, number]> = [
    ['0', 0],
    ['5s', 5_000],
    ['1m0s', 60_000],
    ['2h45m', 9_900_000],
    ['1.5s', 1_500],
    ['.5s', 500],
    ['1.s', 1_000],
    ['300ms', 300],
    ['-1s', -1_000],
    ['+2m', 120_000],
    ['1500us', 1.5],
    ['1000000ns', 1],
    ['2µs', 0.002],
  ];
  for (const [s, ms] of ok) assert.equal(parseGoDuration(s), ms, s);
  const bad: Array<[string, string]> = [
    ['', 'time: invalid duration ""'],
    ['abc', 'time: invalid duration "abc"'],
    ['.s', 'time: invalid duration ".s"'],
    ['-', 'time: invalid duration "-"'],
    ['5', 'time: missing unit in duration "5"'],
    ['1s5', 'time: missing unit in duration "1s5"'],
    ['5 s', 'time: unknown unit " s" in duration "5 s"'],
    ['3d', 'time: unknown unit "d" in duration "3d"'],
    // Past int64 nanoseconds (about 292 years), as Go refuses them.
    ['9223372036854775808ns', 'time: invalid duration "9223372036854775808ns"'],
    ['99999999999h', 'time: invalid duration "99999999999h"'],
    ['2562048h', 'time: invalid duration "2562048h"'],
    ['1e400s', 'time: unknown unit "e" in duration "1e400s"'],
    [`1${'0'.repeat(400)}s`, `time: invalid duration "1${'0'.repeat(400)}s"`],
    ['2562047h48m', 'time: invalid duration "2562047h48m"'],
  ];
  assert.equal(parseGoDuration('9223372036854775807ns'), 9223372036854.775807);
  assert.equal(parseGoDuration('2562047h'), 2562047 * 3_600_000);
  for (const [s, message] of bad) assert.throws(() => parseGoDuration(s), { message }, s);
});
