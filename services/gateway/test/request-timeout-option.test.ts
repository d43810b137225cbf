// `--request-timeout` at start: a positive duration. A negative one is refused in upstream's words,
// and 0 (with which every request but watches would fail 504 at once) is refused too.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseOptions } from '../../../shared/config/options.js';
import { requestTimeoutOption } from '../filters/request-deadline.js';
import { gatewayOptionSpecs } from '../options.js';

const flag = (value: string): number => requestTimeoutOption(parseOptions(gatewayOptionSpecs, [`--request-timeout=${value}`], {})['request-timeout']);

test('request timeout option - positive durations are taken, zero and negative ones refused with a clear message', () => {
  const cases: [string, number | RegExp][] = [
    ['1m0s', 60_000],
    ['3s', 3_000],
    ['500ms', 500],
    ['90', 90_000],
    ['0s', /--request-timeout must be positive/],
    ['0', /--request-timeout must be positive/],
    ['-1s', /--request-timeout: "-1s" can not be negative value/],
    ['-1m30s', /--request-timeout: "-1m30s" can not be negative value/],
    ['-x', /--request-timeout: invalid duration "-x"/],
  ];
  for (const [value, want] of cases) {
    if (typeof want === 'number') assert.equal(flag(value), want, value);
    else assert.throws(() => flag(value), want, value);
  }
  assert.throws(() => requestTimeoutOption(-1), /--request-timeout can not be negative value/);
});

test('request timeout option - from the environment too, as from a flag', () => {
  assert.throws(() => parseOptions(gatewayOptionSpecs, [], { PLATFORM_REQUEST_TIMEOUT: '-5s' }), /can not be negative value/);
  assert.throws(() => requestTimeoutOption(parseOptions(gatewayOptionSpecs, [], { PLATFORM_REQUEST_TIMEOUT: '0s' })['request-timeout']), /must be positive/);
});
