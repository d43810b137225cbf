import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AuthzAttributes } from '../../../shared/bus/messages.js';
import type { UserInfo } from '../../../shared/api/types.js';
import { OptionsError } from '../../../shared/config/options.js';
import { silentLogger } from '../../../shared/log.js';
import { AbacPolicyError, parseAbacPolicies } from '../abac/policy.js';
import { abacMode, createAbacAuthorizer } from '../authorizers/abac.js';
import type { ModeContext } from '../types.js';

const v1 = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'abac.authorization.platform.io/v1beta1', kind: 'Policy', spec });

// One file with every kind of line the format allows.
const POLICY_FILE = [
  '# platform ABAC policy',
  '',
  v1({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' }),
  v1({ user: 'bob', namespace: 'projectCaribou', resource: 'pods', readonly: true }),
  v1({ group: 'system:unauthenticated', nonResourcePath: '/healthz', readonly: true }),
  v1({ user: '*', nonResourcePath: '/version', readonly: true }),
  v1({ group: 'ops', nonResourcePath: '/logs/*' }),
  v1({ user: 'kate', namespace: 'shop', resource: 'deployments', apiGroup: 'apps' }),
  v1({ user: 'carl', resource: 'nodes', readonly: true }),
  v1({ group: '*', namespace: 'public', resource: 'configmaps', readonly: true }),
  '   # indented comment',
  JSON.stringify({ user: 'legacy', readonly: true }),
  '',
].join('\n');

const user = (username: string, ...groups: string[]): UserInfo => ({ username, groups: [...groups, username === 'system:anonymous' ? 'system:unauthenticated' : 'system:authenticated'] });
const res = (u: UserInfo, verb: string, resource: string, namespace?: string, apiGroup = '', extra: Partial<AuthzAttributes> = {}): AuthzAttributes => ({
  user: u,
  verb,
  isResourceRequest: true,
  path: '/x',
  apiGroup,
  resource,
  ...(namespace ? { namespace } : {}),
  ...extra,
});
const nonRes = (u: UserInfo, verb: string, p: string): AuthzAttributes => ({ user: u, verb, isResourceRequest: false, path: p });

test('abac - policy file: comments and blank lines skipped, versioned and legacy lines converted', () => {
  const policies = parseAbacPolicies(POLICY_FILE);
  assert.equal(policies.length, 9);
  assert.deepEqual(policies[0], { user: 'alice', group: '', readonly: false, apiGroup: '*', resource: '*', namespace: '*', nonResourcePath: '', line: 3 });
  // `user: "*"` is every authenticated subject, as upstream converts it.
  assert.deepEqual(policies[3], { user: '', group: 'system:authenticated', readonly: true, apiGroup: '', resource: '', namespace: '', nonResourcePath: '/version', line: 6 });
  // Legacy: unset fields are wildcards, the subject defaults to every authenticated user.
  assert.deepEqual(policies[8], { user: 'legacy', group: '', readonly: true, apiGroup: '*', resource: '*', namespace: '*', nonResourcePath: '*', line: 12 });
  assert.deepEqual(parseAbacPolicies('\n# nothing\n'), []);
  assert.deepEqual(parseAbacPolicies('{"apiVersion":"abac.authorization.platform.io/v0","kind":"Policy","user":"x","resource":"pods"}')[0], {
    user: 'x',
    group: '',
    readonly: false,
    apiGroup: '*',
    resource: 'pods',
    namespace: '*',
    nonResourcePath: '',
    line: 1,
  });
});

test('abac - a malformed line fails the whole file, naming its line', () => {
  const good = v1({ user: 'alice', namespace: '*', resource: '*' });
  const cases: Array<[string, string, RegExp]> = [
    ['not JSON', '{user: alice}', /policy\.jsonl, line 3: not a JSON object/],
    ['JSON but not an object', '["alice"]', /line 3: not a JSON object/],
    ['wrong apiVersion', JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec: { user: 'a' } }), /line 3: unsupported apiVersion/],
    ['wrong kind', JSON.stringify({ apiVersion: 'abac.authorization.platform.io/v1beta1', kind: 'Role', spec: { user: 'a' } }), /line 3: kind must be "Policy"/],
    ['misspelt field (would widen nothing, but hides intent)', v1({ user: 'a', namespce: 'x' }), /line 3: unknown field "namespce"/],
    ['fields outside spec', JSON.stringify({ apiVersion: 'abac.authorization.platform.io/v1beta1', kind: 'Policy', user: 'a' }), /line 3: unknown field "user" \(policy fields belong under "spec"\)/],
    ['no spec', JSON.stringify({ apiVersion: 'abac.authorization.platform.io/v1beta1', kind: 'Policy' }), /line 3: "spec" must be an object/],
    ['readonly as a string', v1({ user: 'a', readonly: 'true' }), /line 3: field "readonly" must be a boolean/],
    ['user as a number', v1({ user: 7 }), /line 3: field "user" must be a string/],
  ];
  for (const [name, line, err] of cases) {
    assert.throws(
      () => parseAbacPolicies(`${good}\n# c\n${line}\n${good}`, 'policy.jsonl'),
      (e: unknown) => e instanceof AbacPolicyError && e instanceof OptionsError && err.test(e.message),
      name,
    );
  }
});

test('abac - decisions: Allow for a matching line, NoOpinion otherwise', () => {
  const abac = createAbacAuthorizer(parseAbacPolicies(POLICY_FILE));
  const alice = user('alice');
  const bob = user('bob');
  const anon = user('system:anonymous');
  const jane = user('jane', 'ops');
  const cases: Array<[string, AuthzAttributes, 'Allow' | 'NoOpinion']> = [
    ['wildcards: alice may do anything on resources anywhere', res(alice, 'delete', 'secrets', 'kube', '', { name: 's' }), 'Allow'],
    ['wildcards: alice in any group', res(alice, 'create', 'deployments', 'a', 'apps'), 'Allow'],
    ['wildcards: cluster-scoped too', res(alice, 'delete', 'nodes', undefined, '', { name: 'n1' }), 'Allow'],
    ['resource line does not cover non-resource paths', nonRes(alice, 'get', '/healthz'), 'NoOpinion'],
    ['readonly: bob may list pods in his namespace', res(bob, 'list', 'pods', 'projectCaribou'), 'Allow'],
    ['readonly: bob may watch them', res(bob, 'watch', 'pods', 'projectCaribou'), 'Allow'],
    ['readonly: bob may read a pod sub-resource (resource matches, like upstream)', res(bob, 'get', 'pods', 'projectCaribou', '', { subresource: 'log', name: 'p' }), 'Allow'],
    ['readonly: bob may not create pods', res(bob, 'create', 'pods', 'projectCaribou'), 'NoOpinion'],
    ['readonly: bob may not delete pods', res(bob, 'delete', 'pods', 'projectCaribou', '', { name: 'p' }), 'NoOpinion'],
    ['namespace: not in another namespace', res(bob, 'get', 'pods', 'other', '', { name: 'p' }), 'NoOpinion'],
    ['resource: not another resource', res(bob, 'get', 'secrets', 'projectCaribou', '', { name: 's' }), 'NoOpinion'],
    ['apiGroup unset = core only', res(bob, 'get', 'pods', 'projectCaribou', 'metrics.platform.io', { name: 'p' }), 'NoOpinion'],
    ['apiGroup named', res(user('kate'), 'update', 'deployments', 'shop', 'apps', { name: 'd' }), 'Allow'],
    ['apiGroup named: not the core group', res(user('kate'), 'update', 'deployments', 'shop', '', { name: 'd' }), 'NoOpinion'],
    ['namespace unset = cluster-scoped only', res(user('carl'), 'get', 'nodes', undefined, '', { name: 'n' }), 'Allow'],
    ['namespace unset: not a namespaced request', res(user('carl'), 'get', 'nodes', 'default', '', { name: 'n' }), 'NoOpinion'],
    ['other user matches nothing', res(user('mallory'), 'get', 'pods', 'projectCaribou', '', { name: 'p' }), 'NoOpinion'],
    ['user match is exact (case-sensitive)', res(user('Alice'), 'get', 'pods', 'a', '', { name: 'p' }), 'NoOpinion'],
    ['group: anonymous may GET /healthz', nonRes(anon, 'get', '/healthz'), 'Allow'],
    ['group: anonymous may HEAD /healthz (a read)', nonRes(anon, 'head', '/healthz'), 'Allow'],
    ['group: anonymous may not POST /healthz', nonRes(anon, 'post', '/healthz'), 'NoOpinion'],
    ['exact path: not a longer one', nonRes(anon, 'get', '/healthz/etcd'), 'NoOpinion'],
    ['user "*" is every authenticated user', nonRes(bob, 'get', '/version'), 'Allow'],
    ['user "*" is not anonymous', nonRes(anon, 'get', '/version'), 'NoOpinion'],
    ['group "*" is every authenticated user', res(bob, 'get', 'configmaps', 'public', '', { name: 'c' }), 'Allow'],
    ['group "*" is not anonymous', res(anon, 'get', 'configmaps', 'public', '', { name: 'c' }), 'NoOpinion'],
    ['group line: member, prefix path', nonRes(jane, 'post', '/logs/kube/today'), 'Allow'],
    ['group line: prefix includes the bare prefix', nonRes(jane, 'get', '/logs/'), 'Allow'],
    ['group line: prefix is not a loose string prefix', nonRes(jane, 'get', '/logsX'), 'NoOpinion'],
    ['group line: non-member', nonRes(user('joe', 'dev'), 'get', '/logs/x'), 'NoOpinion'],
    ['legacy: read everything, resources', res(user('legacy'), 'list', 'secrets', 'any', 'apps'), 'Allow'],
    ['legacy: read everything, paths', nonRes(user('legacy'), 'get', '/metrics'), 'Allow'],
    ['legacy: but readonly', res(user('legacy'), 'create', 'secrets', 'any'), 'NoOpinion'],
  ];
  for (const [name, attrs, want] of cases) {
    const d = abac.authorize(attrs) as { decision: string; reason?: string };
    assert.equal(d.decision, want, name);
    if (want === 'NoOpinion') assert.equal(d.reason, 'No policy matched.', name);
  }
});

test('abac - rules review lists the lines that apply to the user in the namespace', () => {
  const abac = createAbacAuthorizer(parseAbacPolicies(POLICY_FILE));
  assert.deepEqual(abac.rulesFor!(user('bob'), 'projectCaribou'), {
    resourceRules: [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }],
    nonResourceRules: [{ verbs: ['get', 'list', 'watch'], nonResourceURLs: ['/version'] }],
    incomplete: false,
  });
  // The namespace decides which namespaced lines count.
  assert.deepEqual(abac.rulesFor!(user('bob'), 'public').resourceRules, [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'] }]);
  assert.deepEqual(abac.rulesFor!(user('alice'), 'x').resourceRules, [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
  // Anonymous gets only what names system:unauthenticated.
  assert.deepEqual(abac.rulesFor!(user('system:anonymous'), 'public'), {
    resourceRules: [],
    nonResourceRules: [{ verbs: ['get', 'list', 'watch'], nonResourceURLs: ['/healthz'] }],
    incomplete: false,
  });
});

test('abac - the mode reads --authorization-policy-file at start-up; a bad file fails it', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'abac-'));
  try {
    const ctx = (policyFile?: string) => ({ config: { modes: ['ABAC'], ...(policyFile ? { policyFile } : {}) }, log: silentLogger() }) as unknown as ModeContext;
    const file = path.join(dir, 'policy.jsonl');
    await writeFile(file, POLICY_FILE);
    const abac = await abacMode(ctx(file));
    assert.equal((await abac.authorize(res(user('alice'), 'get', 'pods', 'a', '', { name: 'p' }))).decision, 'Allow');

    const bad = path.join(dir, 'bad.jsonl');
    await writeFile(bad, `${v1({ user: 'a', resource: '*' })}\n{oops\n`);
    await assert.rejects(Promise.resolve(abacMode(ctx(bad))), new RegExp(`${bad.replace(/[/.]/g, '\\$&')}, line 2: not a JSON object`));
    await assert.rejects(Promise.resolve(abacMode(ctx(path.join(dir, 'missing.jsonl')))), /--authorization-policy-file: cannot read .*missing\.jsonl: ENOENT/);
    await assert.rejects(Promise.resolve(abacMode(ctx())), /ABAC needs --authorization-policy-file/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("abac - with --upstream-group-aliases a line naming upstream's spelling of a group grants the branded group", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'abac-'));
  try {
    const file = path.join(dir, 'policy.jsonl');
    await writeFile(file, `${v1({ user: 'alice', apiGroup: 'rbac.authorization.k8s.io', resource: 'roles', namespace: '*' })}\n`);
    const mode = (upstreamGroupAliases: boolean) => abacMode({ config: { modes: ['ABAC'], policyFile: file, upstreamGroupAliases }, log: silentLogger() } as unknown as ModeContext);
    const roles = (group: string) => res(user('alice'), 'get', 'roles', 'a', group, { name: 'r' });
    const on = await mode(true);
    assert.equal((await on.authorize(roles('rbac.authorization.platform.io'))).decision, 'Allow');
    assert.equal((await on.authorize(roles('apps'))).decision, 'NoOpinion');
    const off = await mode(false);
    assert.equal((await off.authorize(roles('rbac.authorization.platform.io'))).decision, 'NoOpinion');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
