import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthzAttributes, PolicyRule } from '../../../shared/bus/messages.js';
import type { UserInfo } from '../../../shared/api/types.js';
import { readRule, readRules, ruleAllows, subjectMatches, type Subject } from '../rbac/rules.js';
import { breakdownRule, compactRules, compactString, covers } from '../rbac/covers.js';
import { RBAC_GROUP } from '../../../shared/api/groups.js';

const jane: UserInfo = { username: 'jane', groups: ['dev', 'system:authenticated'] };

function res(verb: string, resource: string, extra: Partial<AuthzAttributes> = {}): AuthzAttributes {
  return { user: jane, verb, isResourceRequest: true, path: '/x', apiGroup: '', resource, namespace: 'a', ...extra };
}
function url(verb: string, path: string): AuthzAttributes {
  return { user: jane, verb, isResourceRequest: false, path };
}

test('rbac rules - one rule against one request', () => {
  const cases: Array<{ name: string; rule: PolicyRule; req: AuthzAttributes; want: boolean }> = [
    // verbs
    { name: 'exact verb', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, req: res('get', 'pods', { name: 'p' }), want: true },
    { name: 'other verb', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, req: res('delete', 'pods', { name: 'p' }), want: false },
    { name: 'verb *', rule: { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, req: res('deletecollection', 'pods'), want: true },
    { name: 'verbs are case-sensitive', rule: { verbs: ['Get'], apiGroups: [''], resources: ['pods'] }, req: res('get', 'pods'), want: false },
    { name: 'no verbs allow nothing', rule: { verbs: [], apiGroups: ['*'], resources: ['*'] }, req: res('get', 'pods'), want: false },
    // api groups
    { name: '"" is the core group', rule: { verbs: ['get'], apiGroups: [''], resources: ['deployments'] }, req: res('get', 'deployments', { apiGroup: 'apps' }), want: false },
    { name: 'named group', rule: { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] }, req: res('get', 'deployments', { apiGroup: 'apps' }), want: true },
    { name: 'named group is not core', rule: { verbs: ['get'], apiGroups: ['apps'], resources: ['pods'] }, req: res('get', 'pods'), want: false },
    { name: 'group *', rule: { verbs: ['get'], apiGroups: ['*'], resources: ['pods'] }, req: res('get', 'pods'), want: true },
    { name: 'missing apiGroup in request is core', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, req: res('get', 'pods', { apiGroup: undefined }), want: true },
    { name: 'rule without groups', rule: { verbs: ['get'], resources: ['pods'] }, req: res('get', 'pods'), want: false },
    // resources and sub-resources
    { name: 'resource does not include its sub-resources', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, req: res('get', 'pods', { subresource: 'log' }), want: false },
    { name: 'pods/log', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, req: res('get', 'pods', { subresource: 'log' }), want: true },
    { name: 'pods/log is not pods', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, req: res('get', 'pods'), want: false },
    { name: 'pods/log is not pods/exec', rule: { verbs: ['create'], apiGroups: [''], resources: ['pods/log'] }, req: res('create', 'pods', { subresource: 'exec' }), want: false },
    { name: '*/scale any resource', rule: { verbs: ['update'], apiGroups: ['*'], resources: ['*/scale'] }, req: res('update', 'deployments', { apiGroup: 'apps', subresource: 'scale' }), want: true },
    { name: '*/scale not the resource', rule: { verbs: ['update'], apiGroups: ['*'], resources: ['*/scale'] }, req: res('update', 'deployments', { apiGroup: 'apps' }), want: false },
    {
      name: '*/scale not other sub-resources',
      rule: { verbs: ['update'], apiGroups: ['*'], resources: ['*/scale'] },
      req: res('update', 'deployments', { apiGroup: 'apps', subresource: 'status' }),
      want: false,
    },
    { name: 'pods/* any sub-resource of pods', rule: { verbs: ['create'], apiGroups: [''], resources: ['pods/*'] }, req: res('create', 'pods', { subresource: 'exec' }), want: true },
    { name: 'pods/* not pods', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods/*'] }, req: res('get', 'pods'), want: false },
    { name: 'pods/* not services/proxy', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods/*'] }, req: res('get', 'services', { subresource: 'proxy' }), want: false },
    { name: '* everything, sub-resources too', rule: { verbs: ['get'], apiGroups: [''], resources: ['*'] }, req: res('get', 'pods', { subresource: 'log' }), want: true },
    { name: 'resources are case-sensitive', rule: { verbs: ['get'], apiGroups: [''], resources: ['Pods'] }, req: res('get', 'pods'), want: false },
    // resource names
    { name: 'named object', rule: { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cm'] }, req: res('get', 'configmaps', { name: 'cm' }), want: true },
    { name: 'other object', rule: { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cm'] }, req: res('get', 'configmaps', { name: 'other' }), want: false },
    { name: 'names never allow list', rule: { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cm'] }, req: res('list', 'configmaps'), want: false },
    { name: 'names never allow watch', rule: { verbs: ['watch'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cm'] }, req: res('watch', 'configmaps', { name: '' }), want: false },
    { name: 'names never allow create without a name', rule: { verbs: ['create'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cm'] }, req: res('create', 'configmaps'), want: false },
    { name: 'no names: any object', rule: { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }, req: res('get', 'configmaps', { name: 'x' }), want: true },
    { name: 'names are case-sensitive', rule: { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['CM'] }, req: res('get', 'configmaps', { name: 'cm' }), want: false },
    // non-resource URLs
    { name: 'exact URL', rule: { verbs: ['get'], nonResourceURLs: ['/healthz'] }, req: url('get', '/healthz'), want: true },
    { name: 'exact URL, other path', rule: { verbs: ['get'], nonResourceURLs: ['/healthz'] }, req: url('get', '/healthz/etcd'), want: false },
    { name: 'URL prefix*', rule: { verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, req: url('get', '/healthz/etcd'), want: true },
    { name: 'URL prefix* does not match the bare prefix without slash', rule: { verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, req: url('get', '/healthz'), want: false },
    { name: 'URL *', rule: { verbs: ['get'], nonResourceURLs: ['*'] }, req: url('get', '/anything'), want: true },
    { name: 'URL verb', rule: { verbs: ['get'], nonResourceURLs: ['/healthz'] }, req: url('post', '/healthz'), want: false },
    { name: 'resource rule never allows a URL', rule: { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, req: url('get', '/healthz'), want: false },
    { name: 'URL rule never allows a resource', rule: { verbs: ['*'], nonResourceURLs: ['*'] }, req: res('get', 'pods'), want: false },
  ];
  for (const c of cases) assert.equal(ruleAllows(c.rule, c.req), c.want, c.name);
});

test('rbac rules - subjects name users, groups and service accounts, case-sensitively', () => {
  const sa: UserInfo = { username: 'system:serviceaccount:ns1:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1'] };
  const cases: Array<{ name: string; s: Subject; user: UserInfo; ns: string; want: boolean }> = [
    { name: 'user', s: { kind: 'User', apiGroup: RBAC_GROUP, name: 'jane' }, user: jane, ns: '', want: true },
    { name: 'user, defaulted group', s: { kind: 'User', name: 'jane' }, user: jane, ns: '', want: true },
    { name: 'user of a foreign api group', s: { kind: 'User', apiGroup: 'rbac.example.com', name: 'jane' }, user: jane, ns: '', want: false },
    { name: "user in upstream's spelling of the RBAC group (stock manifests)", s: { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'jane' }, user: jane, ns: '', want: true },
    { name: 'other user', s: { kind: 'User', apiGroup: RBAC_GROUP, name: 'bob' }, user: jane, ns: '', want: false },
    { name: 'user names are case-sensitive', s: { kind: 'User', apiGroup: RBAC_GROUP, name: 'Jane' }, user: jane, ns: '', want: false },
    { name: 'group', s: { kind: 'Group', apiGroup: RBAC_GROUP, name: 'dev' }, user: jane, ns: '', want: true },
    { name: 'a group named like the user is not the user', s: { kind: 'Group', apiGroup: RBAC_GROUP, name: 'jane' }, user: jane, ns: '', want: false },
    { name: 'a user named like a group is not the group', s: { kind: 'User', apiGroup: RBAC_GROUP, name: 'dev' }, user: jane, ns: '', want: false },
    { name: 'service account', s: { kind: 'ServiceAccount', name: 'builder', namespace: 'ns1' }, user: sa, ns: '', want: true },
    { name: 'service account of another namespace', s: { kind: 'ServiceAccount', name: 'builder', namespace: 'ns2' }, user: sa, ns: '', want: false },
    { name: 'service account defaults to the binding namespace', s: { kind: 'ServiceAccount', name: 'builder' }, user: sa, ns: 'ns1', want: true },
    { name: 'service account without any namespace names nobody', s: { kind: 'ServiceAccount', name: 'builder' }, user: sa, ns: '', want: false },
    {
      name: '... not even a user named with an empty namespace',
      s: { kind: 'ServiceAccount', name: 'builder' },
      user: { username: 'system:serviceaccount::builder', groups: [] },
      ns: '',
      want: false,
    },
    { name: 'service account with a non-core api group', s: { kind: 'ServiceAccount', apiGroup: RBAC_GROUP, name: 'builder', namespace: 'ns1' }, user: sa, ns: '', want: false },
    {
      name: 'a user impersonating the service account name matches (same user name)',
      s: { kind: 'ServiceAccount', name: 'builder', namespace: 'ns1' },
      user: { username: 'system:serviceaccount:ns1:builder', groups: [] },
      ns: '',
      want: true,
    },
    { name: 'unknown kind', s: { kind: 'Robot', name: 'jane' }, user: jane, ns: '', want: false },
  ];
  for (const c of cases) assert.equal(subjectMatches(c.s, c.user, c.ns), c.want, c.name);
});

test('rbac rules - malformed stored rules grant nothing instead of failing', () => {
  assert.deepEqual(readRules([{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [] }, { verbs: 'get' }, null, { verbs: ['get'], resources: [1] }]), [
    { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
  ]);
  assert.deepEqual(readRules('nope'), []);
  assert.equal(readRule({ apiGroups: [''] })?.verbs.length, 0, 'no verbs: a rule that allows nothing');
});

test('rbac covers - held rules cover requested rules piece by piece; wildcards only help the holder', () => {
  const pods: PolicyRule = { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] };
  const cases: Array<{ name: string; held: PolicyRule[]; want: PolicyRule[]; covered: boolean }> = [
    { name: 'same rule', held: [pods], want: [pods], covered: true },
    { name: 'subset of verbs', held: [pods], want: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], covered: true },
    { name: 'more verbs', held: [pods], want: [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods'] }], covered: false },
    {
      name: 'split across two held rules',
      held: [
        { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
        { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
      ],
      want: [pods],
      covered: true,
    },
    {
      name: 'held * covers everything',
      held: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      want: [{ verbs: ['escalate'], apiGroups: ['x'], resources: ['y/z'], resourceNames: ['n'] }],
      covered: true,
    },
    {
      name: 'granting * needs *',
      held: [{ verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], apiGroups: [''], resources: ['pods'] }],
      want: [{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }],
      covered: false,
    },
    {
      name: 'held */scale covers deployments/scale',
      held: [{ verbs: ['update'], apiGroups: ['apps'], resources: ['*/scale'] }],
      want: [{ verbs: ['update'], apiGroups: ['apps'], resources: ['deployments/scale'] }],
      covered: true,
    },
    {
      name: 'held pods/* covers pods/exec, not pods',
      held: [{ verbs: ['get'], apiGroups: [''], resources: ['pods/*'] }],
      want: [{ verbs: ['get'], apiGroups: [''], resources: ['pods/exec', 'pods'] }],
      covered: false,
    },
    { name: 'held pods does not cover pods/log', held: [pods], want: [{ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }], covered: false },
    {
      name: 'held names cover those names only',
      held: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }],
      want: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }],
      covered: true,
    },
    {
      name: 'held names do not cover all names',
      held: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }],
      want: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }],
      covered: false,
    },
    { name: 'held URL prefix covers longer URLs', held: [{ verbs: ['get'], nonResourceURLs: ['/logs/*'] }], want: [{ verbs: ['get'], nonResourceURLs: ['/logs/a', '/logs/*'] }], covered: true },
    { name: 'held URL does not cover its prefix pattern', held: [{ verbs: ['get'], nonResourceURLs: ['/logs/a'] }], want: [{ verbs: ['get'], nonResourceURLs: ['/logs/*'] }], covered: false },
    { name: 'resource rules never cover URLs', held: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], want: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }], covered: false },
    { name: 'nothing requested', held: [], want: [], covered: true },
  ];
  for (const c of cases) assert.equal(covers(c.held, c.want).covered, c.covered, c.name);
  assert.deepEqual(breakdownRule({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }), [
    { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
    { verbs: ['list'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
  ]);
  assert.deepEqual(compactRules(covers([], [pods, { verbs: ['get'], nonResourceURLs: ['/x'] }]).missing).map(compactString), [
    '{NonResourceURLs:["/x"], Verbs:["get"]}',
    '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}',
  ]);
});
