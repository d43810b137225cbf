import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gitVersionOf, parseEmulatedVersion, SERVED_RELEASE } from '../version.js';

test('version - the served release is the reference release, reported as its .0 with this implementation as build metadata', () => {
  assert.equal(SERVED_RELEASE, '1.24');
  assert.equal(gitVersionOf(SERVED_RELEASE), 'v1.24.0+platform.0.1.0');
  assert.equal(gitVersionOf('1.28'), 'v1.28.0+platform.0.1.0');
});

test('version - --emulated-version takes <major>.<minor>, or upstream kube=<major>.<minor>', () => {
  const rows: Array<[string, string]> = [
    ['1.24', '1.24'],
    ['1.28', '1.28'],
    ['1.9', '1.9'],
    ['1.0', '1.0'],
    ['kube=1.31', '1.31'],
    [' 1.30 ', '1.30'],
  ];
  for (const [value, want] of rows) assert.equal(parseEmulatedVersion(value), want, value);
});

test('version - a bad --emulated-version is refused with a message naming the flag and what is wrong', () => {
  const rows: Array<[string, RegExp]> = [
    ['', /^--emulated-version: "" is not a release of the form <major>\.<minor> \(for example 1\.24\)$/],
    ['1.28.3', /"1\.28\.3" is not a release of the form <major>\.<minor>/],
    ['v1.28', /"v1\.28" is not a release of the form <major>\.<minor>/],
    ['1', /is not a release of the form/],
    ['latest', /is not a release of the form/],
    ['1.x', /is not a release of the form/],
    ['2.0', /^--emulated-version: major version 2 does not exist: the releases are 1\.<minor>$/],
    ['0.24', /major version 0 does not exist/],
    ['wardle=1.2', /^--emulated-version: unknown component "wardle": only kube \(the default\) is served here$/],
    ['1.024', /the minor version has a leading zero/],
    ['1.1000', /the minor version is out of range/],
  ];
  for (const [value, message] of rows) {
    assert.throws(
      () => parseEmulatedVersion(value),
      (e: unknown) => e instanceof RangeError && message.test(e.message),
      value,
    );
  }
});
