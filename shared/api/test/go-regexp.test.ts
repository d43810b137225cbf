import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileGoRegexp, goRegexpProblem } from '../go-regexp.js';

describe('Go regular expressions (RE2)', () => {
  const matches: Array<[pattern: string, value: string, expected: boolean]> = [
    ['^(?i)(abort|warn)?$', 'WARN', true],
    ['^(?i)(abort|warn)?$', 'stop', false],
    ['^[[:alpha:]]+$', 'abc', true],
    ['^[[:alpha:]]+$', 'ab1', false],
    ['^\\pL+\\z', 'été', true],
    ['^a\\z', 'a\n', false],
    ['(?P<word>b)', 'abc', true],
    ['b', 'abc', true], // unanchored, as JSON Schema's pattern
    ['^\\-x$', '-x', true],
    ['(?s)a.b', 'a\nb', true],
    ['a.b', 'a\nb', false],
  ];
  for (const [pattern, value, expected] of matches) {
    it(`${pattern} ${expected ? 'matches' : 'does not match'} ${JSON.stringify(value)}`, () => {
      assert.equal(goRegexpProblem(pattern), undefined);
      assert.equal(compileGoRegexp(pattern).test(value), expected);
    });
  }

  const refused: Array<[pattern: string, message: string]> = [
    ['^(?=red)', 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`'],
    ['(?<=a)b', 'error parsing regexp: invalid or unsupported Perl syntax: `(?<`'],
    ['(?<name>a)', 'error parsing regexp: invalid or unsupported Perl syntax: `(?<`'],
    ['(a)\\1', 'error parsing regexp: invalid escape sequence: `\\1`'],
    ['a{2,1}', 'error parsing regexp: invalid repeat count: `{2,1}`'],
    ['(', 'error parsing regexp: missing closing ): `(`'],
  ];
  for (const [pattern, message] of refused) {
    it(`${pattern} is refused as Go refuses it`, () => {
      assert.equal(goRegexpProblem(pattern), message);
    });
  }

  it('compiling what RE2 refuses throws', () => {
    assert.throws(() => compileGoRegexp('(a)\\1'), /invalid escape sequence/);
  });

  it('runs in linear time where a backtracking engine would not return (a+)+$ on 100,000 a and a !', () => {
    const re = compileGoRegexp('(a+)+$');
    const start = performance.now();
    assert.equal(re.test(`${'a'.repeat(100_000)}!`), false);
    assert.ok(performance.now() - start < 2_000, `took ${performance.now() - start} ms`);
  });
});
