import { test } from 'node:test';
import assert from 'node:assert/strict';
import { impersonatedUser, impersonationChecks, parseImpersonation, type ImpersonationRequest } from '../filters/impersonation.js';
import { StatusError } from '../../../shared/api/status.js';
import type { UserInfo } from '../../../shared/api/types.js';

const caller: UserInfo = { username: 'admin', groups: ['ops', 'system:authenticated'] };

test('impersonation - headers parse into the requested identity; bad combinations are 400', () => {
  const ok: Array<[string, Record<string, string[]>, ImpersonationRequest | null]> = [
    ['no headers', { accept: ['*/*'] }, null],
    ['user only', { 'impersonate-user': ['alice'] }, { user: 'alice', groups: [], extra: {} }],
    ['repeated groups stay separate', { 'impersonate-user': ['alice'], 'impersonate-group': ['a, b', 'c'] }, { user: 'alice', groups: ['a, b', 'c'], extra: {} }],
    ['uid', { 'impersonate-user': ['alice'], 'impersonate-uid': ['u-1'] }, { user: 'alice', groups: [], uid: 'u-1', extra: {} }],
    [
      'extra keys are percent-decoded and lowercased, values kept',
      { 'impersonate-user': ['alice'], 'impersonate-extra-acme.com%2fproject': ['Blue', 'green'], 'impersonate-extra-scopes': ['view'] },
      { user: 'alice', groups: [], extra: { 'acme.com/project': ['Blue', 'green'], scopes: ['view'] } },
    ],
  ];
  for (const [name, headers, want] of ok) assert.deepEqual(parseImpersonation(headers), want, name);

  const bad: Array<[string, Record<string, string[]>]> = [
    ['group without user', { 'impersonate-group': ['system:masters'] }],
    ['uid without user', { 'impersonate-uid': ['x'] }],
    ['extra without user', { 'impersonate-extra-a': ['x'] }],
    ['empty user', { 'impersonate-user': [''] }],
    ['two users', { 'impersonate-user': ['a', 'b'] }],
    ['unknown impersonation header', { 'impersonate-user': ['a'], 'impersonate-everything': ['x'] }],
    ['malformed percent-encoding', { 'impersonate-user': ['a'], 'impersonate-extra-%zz': ['x'] }],
  ];
  for (const [name, headers] of bad) {
    assert.throws(
      () => parseImpersonation(headers),
      (e: unknown) => e instanceof StatusError && e.status.code === 400,
      name,
    );
  }
});

test('impersonation - one impersonate check per requested attribute, with the right resource', () => {
  const checks = impersonationChecks(caller, { user: 'alice', groups: ['a', 'b'], uid: 'u-1', extra: { scopes: ['view', 'edit'] } });
  const summary = checks.map((c) => [c.verb, c.apiGroup, c.resource, c.subresource ?? '', c.namespace ?? '', c.name]);
  assert.deepEqual(summary, [
    ['impersonate', '', 'users', '', '', 'alice'],
    ['impersonate', '', 'groups', '', '', 'a'],
    ['impersonate', '', 'groups', '', '', 'b'],
    ['impersonate', 'authentication.platform.io', 'uids', '', '', 'u-1'],
    ['impersonate', 'authentication.platform.io', 'userextras', 'scopes', '', 'view'],
    ['impersonate', 'authentication.platform.io', 'userextras', 'scopes', '', 'edit'],
  ]);
  for (const c of checks) assert.equal(c.user, caller, 'checked as the caller');

  const sa = impersonationChecks(caller, { user: 'system:serviceaccount:ns1:builder', groups: [], extra: {} });
  assert.deepEqual(
    sa.map((c) => [c.resource, c.namespace, c.name]),
    [['serviceaccounts', 'ns1', 'builder']],
  );
});

test('impersonation - the resulting identity', () => {
  const cases: Array<[string, ImpersonationRequest, UserInfo]> = [
    ['user gains system:authenticated', { user: 'alice', groups: ['a'], extra: {} }, { username: 'alice', groups: ['a', 'system:authenticated'] }],
    ['explicit system:unauthenticated is respected', { user: 'alice', groups: ['system:unauthenticated'], extra: {} }, { username: 'alice', groups: ['system:unauthenticated'] }],
    ['anonymous stays unauthenticated', { user: 'system:anonymous', groups: [], extra: {} }, { username: 'system:anonymous', groups: [] }],
    [
      'a service account without groups gets its token groups',
      { user: 'system:serviceaccount:ns1:builder', groups: [], extra: {} },
      { username: 'system:serviceaccount:ns1:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'] },
    ],
    ['uid and extra carried', { user: 'alice', groups: [], uid: 'u', extra: { k: ['v'] } }, { username: 'alice', uid: 'u', extra: { k: ['v'] }, groups: ['system:authenticated'] }],
  ];
  for (const [name, req, want] of cases) assert.deepEqual(impersonatedUser(req), want, name);
});

test('impersonation - extra keys named like Object.prototype members are ordinary keys', () => {
  // Header names arrive lowercased; `tostring` is as much a member name to guard as `toString`.
  for (const key of ['constructor', '__proto__', 'tostring', 'hasownproperty', 'valueof', 'isprototypeof']) {
    const req = parseImpersonation({ 'impersonate-user': ['bob'], [`impersonate-extra-${key}`]: ['a', 'b'] });
    assert.ok(req, key);
    assert.deepEqual(Object.keys(req.extra), [key], key);
    assert.deepEqual(req.extra[key], ['a', 'b'], key);
    assert.equal(Object.getPrototypeOf(req.extra), Object.prototype, key);
    assert.deepEqual(
      impersonationChecks({ username: 'admin', groups: [] }, req)
        .filter((c) => c.resource === 'userextras')
        .map((c) => [c.subresource, c.name]),
      [
        [key, 'a'],
        [key, 'b'],
      ],
      key,
    );
  }
});
