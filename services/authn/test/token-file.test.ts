import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCsv } from '../csv.js';
import { createStaticTokenAuthenticator, parseTokenFile } from '../authenticators/token-file.js';

test('csv - records, quoting and line numbers', () => {
  const cases: Array<{ name: string; text: string; want: Array<[number, string[]]> }> = [
    {
      name: 'plain rows',
      text: 'a,b,c\nd,e,f\n',
      want: [
        [1, ['a', 'b', 'c']],
        [2, ['d', 'e', 'f']],
      ],
    },
    {
      name: 'CRLF and no trailing newline',
      text: 'a,b\r\nc,d',
      want: [
        [1, ['a', 'b']],
        [2, ['c', 'd']],
      ],
    },
    {
      name: 'blank and space-only lines are skipped',
      text: '\na,b\n   \n\nc,d\n\n',
      want: [
        [2, ['a', 'b']],
        [5, ['c', 'd']],
      ],
    },
    { name: 'quoted commas', text: 't,u,i,"g1,g2"', want: [[1, ['t', 'u', 'i', 'g1,g2']]] },
    { name: 'doubled quotes inside quotes', text: '"say ""hi""",x', want: [[1, ['say "hi"', 'x']]] },
    {
      name: 'quoted newline keeps later line numbers right',
      text: 'a,"x\ny"\nb,c',
      want: [
        [1, ['a', 'x\ny']],
        [3, ['b', 'c']],
      ],
    },
    { name: 'spaces around unquoted and quoted fields', text: ' a , b ,  "c d"  ', want: [[1, ['a', 'b', 'c d']]] },
    { name: 'empty fields', text: 'a,,c,', want: [[1, ['a', '', 'c', '']]] },
    { name: 'byte order mark', text: '\ufeffa,b', want: [[1, ['a', 'b']]] },
  ];
  for (const c of cases) {
    assert.deepEqual(
      parseCsv(c.text).map((r) => [r.line, r.fields]),
      c.want,
      c.name,
    );
  }
});

test('csv - malformed input reports the line', () => {
  const cases: Array<{ text: string; err: RegExp }> = [
    { text: 'a,b\nc,"unterminated\n', err: /line 2: quoted field is not terminated/ },
    { text: 'a,b\n\nc,d"e', err: /line 3: a quote may only start a field/ },
    { text: 'a,"b"x', err: /line 1: unexpected text after a closing quote/ },
  ];
  for (const c of cases) assert.throws(() => parseCsv(c.text), c.err, c.text);
});

test('token file - columns map to user, uid and groups', () => {
  const entries = parseTokenFile(['tok1,alice,uid-1', 'tok2,bob,uid-2,"dev,ops"', 'tok3,carol,,single', 'tok4,dan,uid-4," a , ,b ",extra,columns', 'tok5,erin,uid-5,""'].join('\n'), 'tokens.csv');
  assert.deepEqual(
    entries.map((e) => [e.line, e.user]),
    [
      [1, { username: 'alice', uid: 'uid-1', groups: [] }],
      [2, { username: 'bob', uid: 'uid-2', groups: ['dev', 'ops'] }],
      [3, { username: 'carol', groups: ['single'] }],
      [4, { username: 'dan', uid: 'uid-4', groups: ['a', 'b'] }],
      [5, { username: 'erin', uid: 'uid-5', groups: [] }],
    ],
  );
});

test('token file - malformed rows fail with file, line and no token value', () => {
  const cases: Array<{ text: string; err: RegExp }> = [
    { text: 'secret-a,alice,1\nsecret-b,bob\n', err: /^tokens\.csv: line 2: expected at least 3 columns \(token, user name, user uid\), found 2$/ },
    { text: 'secret-a,alice,1\n\n\nsecret-a,bob,2\n', err: /^tokens\.csv: line 4: duplicate token \(first defined on line 1\)$/ },
    { text: ',alice,1', err: /^tokens\.csv: line 1: the token column is empty$/ },
    { text: 'secret-a,,1', err: /^tokens\.csv: line 1: the user name column is empty$/ },
    { text: '"secret a",alice,1', err: /^tokens\.csv: line 1: the token contains whitespace$/ },
    { text: 'secret-a,alice,1,"g1,g2\n', err: /^tokens\.csv: line 1: quoted field is not terminated$/ },
  ];
  for (const c of cases) {
    assert.throws(
      () => parseTokenFile(c.text, 'tokens.csv'),
      (err: Error) => {
        assert.match(err.message, c.err);
        assert.doesNotMatch(err.message, /secret/);
        return true;
      },
    );
  }
});

test('token file - authenticator matches whole tokens only and returns a copy', async () => {
  const a = createStaticTokenAuthenticator(parseTokenFile('abc123,alice,u1,"g"\nxyz789,bob,u2\n'));
  const ok = a.authenticateToken('xyz789', []);
  assert.deepEqual(ok, { kind: 'ok', user: { username: 'bob', uid: 'u2', groups: [] } });
  for (const wrong of ['abc12', 'abc1234', 'ABC123', 'xyz789 ', '']) assert.deepEqual(a.authenticateToken(wrong, []), { kind: 'skip' }, wrong);
  const first = await a.authenticateToken('abc123', []);
  assert.equal(first.kind, 'ok');
  if (first.kind === 'ok') first.user.groups.push('mutated');
  assert.deepEqual(a.authenticateToken('abc123', []), { kind: 'ok', user: { username: 'alice', uid: 'u1', groups: ['g'] } });
});
