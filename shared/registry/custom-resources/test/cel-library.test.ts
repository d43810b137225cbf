// The functions upstream's Kubernetes CEL libraries give validation rules (lists, regex, URLs),
// each as upstream documents it, and the regex engine: Go's RE2 syntax, linear time on any value,
// constant patterns RE2 refuses caught when the definition is written.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileExpression, CostMeter } from '../cel-program.js';
import { compileRule } from '../validation-rules.js';
import { DYN } from '../cel-values.js';

const UNLIMITED = { perCall: Infinity, budget: Infinity, timeMs: Infinity };

/** `expr` evaluated with `self` bound: its value (true for the cases below), or its error. */
function run(expr: string, self: unknown = null): unknown {
  const compiled = compileExpression(expr, DYN, DYN);
  if ('error' in compiled) return `compile: ${compiled.error}`;
  const outcome = compiled.program.run({ self }, new CostMeter(UNLIMITED));
  return 'value' in outcome ? outcome.value : 'error' in outcome ? `error: ${outcome.error}` : outcome;
}

/** Each expression must evaluate to true. */
function table(name: string, exprs: string[]): void {
  describe(name, () => {
    for (const expr of exprs) it(expr, () => assert.equal(run(expr), true));
  });
}

table('cel library - lists', [
  '[1, 2, 3].isSorted()',
  '![3, 1].isSorted()',
  "['a', 'b', 'b'].isSorted()",
  '[].isSorted()',
  '[1, 2, 3].sum() == 6',
  '[1.5, 2.5].sum() == 4.0',
  '[].sum() == 0',
  '[3, 1, 2].min() == 1',
  "['b', 'c', 'a'].max() == 'c'",
  '[1, 2, 2, 3].indexOf(2) == 1',
  '[1, 2, 2, 3].lastIndexOf(2) == 2',
  '[1, 2].indexOf(9) == -1',
  // the strings extension's indexOf is still there beside the list one
  "'abcb'.indexOf('b') == 1 && 'abcb'.lastIndexOf('b') == 3",
]);

table('cel library - regex (RE2)', [
  "'abc 123'.find('[0-9]+') == '123'",
  "'abc 123'.find('xyz') == ''",
  "'123 abc 456'.findAll('[0-9]+') == ['123', '456']",
  "'123 abc 456'.findAll('[0-9]+', 1) == ['123']",
  "'123 abc 456'.findAll('xyz') == []",
  // Go's FindAllString: an empty match right after a match is skipped, others are kept
  "'1 2'.findAll('[0-9]*') == ['1', '2'] && 'a1'.findAll('[0-9]*') == ['', '1']",
  // Go-only syntax: inline flags, \\z, POSIX classes, named groups
  "'ABC'.matches('(?i)^abc$')",
  "'xAbCx'.find('(?i)abc') == 'AbC'",
  "'abc'.matches('c\\\\z') && !'abc\\n'.matches('c\\\\z')",
  "'a1'.matches('^[[:alpha:]][[:digit:]]$')",
  "'k=v'.find('(?P<key>[a-z])=') == 'k='",
  "'héllo'.findAll('[^a-z]') == ['é']",
]);

table('cel library - URLs', [
  "url('https://user:pass@example.com:80/path?query=val#fragment').getScheme() == 'https'",
  "url('/path').getScheme() == ''",
  "isURL('https://user:pass@example.com:80/path?query=val#fragment')",
  "isURL('/absolute-path')",
  "!isURL('https://a:b:c/')",
  "!isURL('../relative-path')",
  "!isURL('')",
  "url('https://example.com:80/').getHost() == 'example.com:80'",
  "url('https://example.com/').getHost() == 'example.com'",
  "url('https://[::1]:80/').getHost() == '[::1]:80'",
  "url('/path').getHost() == ''",
  "url('https://example.com:80/').getHostname() == 'example.com'",
  "url('https://127.0.0.1:80/').getHostname() == '127.0.0.1'",
  "url('https://[::1]:80/').getHostname() == '::1'",
  "url('https://example.com:80/').getPort() == '80'",
  "url('https://example.com/').getPort() == ''",
  "url('https://example.com/path').getEscapedPath() == '/path'",
  "url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'",
  "url('https://example.com/a%2Fb').getEscapedPath() == '/a%2Fb'",
  "url('https://example.com').getEscapedPath() == ''",
  "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
  "url('https://example.com/path?key with spaces=value with spaces').getQuery() == {'key with spaces': ['value with spaces']}",
  "url('https://example.com/path?a=%zz&b=1').getQuery() == {'b': ['1']}",
  "url('https://example.com/path?').getQuery() == {}",
  "url('https://example.com/path').getQuery() == {}",
  "url('HTTPS://Example.com').getScheme() == 'https' && url('HTTPS://Example.com').getHost() == 'Example.com'",
]);

describe('cel library - errors in upstream words', () => {
  const cases: Array<[string, unknown, string]> = [
    ["url('../relative-path')", null, 'error: URL parse error during conversion from string: parse "../relative-path": invalid URI for request'],
    ["url('https://a:b:c/')", null, 'error: URL parse error during conversion from string: parse "https://a:b:c/": invalid port ":c" after host'],
    ["url('https://exa mple.com/')", null, 'error: URL parse error during conversion from string: parse "https://exa mple.com/": invalid character " " in host name'],
    ["url('')", null, 'error: URL parse error during conversion from string: parse "": empty url'],
    ["'a'.find(self) == ''", '(', 'error: Illegal regex: error parsing regexp: missing closing ): `(`'],
    ["'a'.findAll(self) == []", 'a(?=b)', 'error: Illegal regex: error parsing regexp: invalid or unsupported Perl syntax: `(?=`'],
    ['[].min() == 0', null, 'error: min called on empty list'],
  ];
  for (const [expr, self, want] of cases) it(expr, () => assert.equal(run(expr, self), want));
});

describe('cel library - regex safety', () => {
  it('a pattern that backtracks exponentially in JavaScript runs in linear time', () => {
    const value = `${'a'.repeat(50_000)}!`;
    const started = performance.now();
    assert.equal(run("self.matches('^(a+)+$') || self.find('(a|aa)+$') != '' || self.findAll('(a*)*b').size() > 0", value), false);
    assert.ok(performance.now() - started < 1000, `took ${performance.now() - started} ms`);
  });

  it('a constant pattern RE2 refuses is refused when the rule is compiled, as upstream makes its program', () => {
    for (const [rule, detail] of [
      ["self.matches('(')", 'program instantiation failed: error parsing regexp: missing closing ): `(`'],
      ["self.find('a**') == ''", 'program instantiation failed: error parsing regexp: invalid nested repetition operator: `**`'],
      ["self.findAll('(?<=a)b').size() == 0", 'program instantiation failed: error parsing regexp: invalid or unsupported Perl syntax: `(?<`'],
    ])
      assert.deepEqual(compileRule({ rule }, { type: 'string' }, false).errors, [{ field: 'rule', detail }], rule);
  });
});
