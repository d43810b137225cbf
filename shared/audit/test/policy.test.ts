import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuditPolicyError, parsePolicy, PolicyChecker, type AuditAttributes, type AuditSubject } from '../policy.js';
import { stagesOf } from '../types.js';

const jane: AuditSubject = { username: 'jane', groups: ['developers', 'system:authenticated'] };
const admin: AuditSubject = { username: 'platform-admin', groups: ['system:masters', 'system:authenticated'] };

function res(verb: string, resource: string, o: Partial<AuditAttributes> = {}): AuditAttributes {
  return { verb, isResourceRequest: true, path: '', apiGroup: '', resource, subresource: '', namespace: '', name: '', ...o };
}
function url(path: string, verb = 'get'): AuditAttributes {
  return { verb, isResourceRequest: false, path, apiGroup: '', resource: '', subresource: '', namespace: '', name: '' };
}

function checker(rules: string, top = ''): PolicyChecker {
  return new PolicyChecker(parsePolicy(`apiVersion: audit.platform.io/v1\nkind: Policy\n${top}rules:\n${rules}`));
}

test('audit policy - every rule field decides whether a rule matches', () => {
  type Case = [name: string, rule: string, user: AuditSubject | undefined, attrs: AuditAttributes, matches: boolean];
  const cases: Case[] = [
    ['no conditions: everything', '{level: Metadata}', jane, res('get', 'pods'), true],
    ['no conditions: even a failed authentication', '{level: Metadata}', undefined, url('/api'), true],
    ['users: named', '{level: Metadata, users: [jane]}', jane, res('get', 'pods'), true],
    ['users: another', '{level: Metadata, users: [bob]}', jane, res('get', 'pods'), false],
    ['users: no user at all', '{level: Metadata, users: [jane]}', undefined, res('get', 'pods'), false],
    ['userGroups: one of the groups', '{level: Metadata, userGroups: [qa, developers]}', jane, res('get', 'pods'), true],
    ['userGroups: none of them', '{level: Metadata, userGroups: [system:masters]}', jane, res('get', 'pods'), false],
    ['userGroups: no user', '{level: Metadata, userGroups: [system:unauthenticated]}', undefined, res('get', 'pods'), false],
    ['verbs: listed', '{level: Metadata, verbs: [get, list]}', jane, res('list', 'pods'), true],
    ['verbs: not listed', '{level: Metadata, verbs: [create]}', jane, res('watch', 'pods'), false],
    ['verbs: non-resource requests use the method', '{level: Metadata, verbs: [get]}', jane, url('/healthz'), true],
    ['resources: core group by default', '{level: Metadata, resources: [{resources: [pods]}]}', jane, res('get', 'pods'), true],
    ['resources: other group', '{level: Metadata, resources: [{group: apps, resources: [pods]}]}', jane, res('get', 'pods'), false],
    ['resources: group only, every resource', '{level: Metadata, resources: [{group: apps}]}', jane, res('get', 'deployments', { apiGroup: 'apps' }), true],
    ['resources: group *', '{level: Metadata, resources: [{group: "*", resources: [deployments]}]}', jane, res('get', 'deployments', { apiGroup: 'apps' }), true],
    ['resources: a resource does not cover its subresources', '{level: Metadata, resources: [{resources: [pods]}]}', jane, res('get', 'pods', { subresource: 'log' }), false],
    ['resources: resource/subresource', '{level: Metadata, resources: [{resources: [pods/log]}]}', jane, res('get', 'pods', { subresource: 'log' }), true],
    ['resources: */subresource', '{level: Metadata, resources: [{resources: ["*/status"]}]}', jane, res('update', 'nodes', { subresource: 'status' }), true],
    ['resources: */subresource, main resource', '{level: Metadata, resources: [{resources: ["*/status"]}]}', jane, res('update', 'nodes'), false],
    ['resources: resource/*', '{level: Metadata, resources: [{resources: ["pods/*"]}]}', jane, res('create', 'pods', { subresource: 'eviction' }), true],
    ['resources: * covers subresources', '{level: Metadata, resources: [{resources: ["*"]}]}', jane, res('get', 'pods', { subresource: 'log' }), true],
    ['resourceNames: named', '{level: Metadata, resources: [{resources: [configmaps], resourceNames: [a, b]}]}', jane, res('get', 'configmaps', { name: 'b' }), true],
    ['resourceNames: another', '{level: Metadata, resources: [{resources: [configmaps], resourceNames: [a]}]}', jane, res('get', 'configmaps', { name: 'c' }), false],
    ['resourceNames: a list has no name', '{level: Metadata, resources: [{resources: [configmaps], resourceNames: [a]}]}', jane, res('list', 'configmaps'), false],
    ['resources: never a non-resource URL', '{level: Metadata, resources: [{resources: ["*"]}]}', jane, url('/version'), false],
    ['namespaces: listed', '{level: Metadata, namespaces: [kube-system, team]}', jane, res('get', 'pods', { namespace: 'team' }), true],
    ['namespaces: not listed', '{level: Metadata, namespaces: [kube-system]}', jane, res('get', 'pods', { namespace: 'team' }), false],
    ['namespaces: "" is cluster scope', '{level: Metadata, namespaces: [""]}', jane, res('get', 'nodes'), true],
    ['namespaces: never a non-resource URL', '{level: Metadata, namespaces: [""]}', jane, url('/version'), false],
    ['nonResourceURLs: exact', '{level: Metadata, nonResourceURLs: [/version]}', jane, url('/version'), true],
    ['nonResourceURLs: prefix*', '{level: Metadata, nonResourceURLs: ["/healthz*"]}', jane, url('/healthz/etcd'), true],
    ['nonResourceURLs: *', '{level: Metadata, nonResourceURLs: ["*"]}', jane, url('/openapi/v2'), true],
    ['nonResourceURLs: other path', '{level: Metadata, nonResourceURLs: [/version]}', jane, url('/versions'), false],
    ['nonResourceURLs: never a resource', '{level: Metadata, nonResourceURLs: ["*"]}', jane, res('get', 'pods'), false],
    [
      'all conditions together',
      '{level: Metadata, users: [jane], verbs: [delete], namespaces: [team], resources: [{resources: [secrets]}]}',
      jane,
      res('delete', 'secrets', { namespace: 'team', name: 's' }),
      true,
    ],
    [
      'all conditions, one fails',
      '{level: Metadata, users: [jane], verbs: [delete], namespaces: [team], resources: [{resources: [secrets]}]}',
      jane,
      res('delete', 'secrets', { namespace: 'other', name: 's' }),
      false,
    ],
  ];
  for (const [name, rule, user, attrs, expected] of cases) {
    const level = checker(`  - ${rule}\n`).evaluate(user, attrs).level;
    assert.equal(level, expected ? 'Metadata' : 'None', name);
  }
});

test('audit policy - the first matching rule wins; no match is None', () => {
  const c = checker(
    [
      '  - level: None',
      '    users: [system:kube-proxy]',
      '  - level: RequestResponse',
      '    resources: [{group: "", resources: [configmaps]}]',
      '  - level: Request',
      '    userGroups: [system:masters]',
      '  - level: Metadata',
      '    namespaces: [team]',
      '',
    ].join('\n'),
  );
  assert.equal(c.evaluate({ username: 'system:kube-proxy', groups: ['system:masters'] }, res('get', 'configmaps')).level, 'None', 'an earlier None wins over later rules');
  assert.equal(c.evaluate(admin, res('get', 'configmaps')).level, 'RequestResponse');
  assert.equal(c.evaluate(admin, res('get', 'pods', { namespace: 'team' })).level, 'Request');
  assert.equal(c.evaluate(jane, res('get', 'pods', { namespace: 'team' })).level, 'Metadata');
  assert.equal(c.evaluate(jane, res('get', 'pods', { namespace: 'other' })).level, 'None');
});

test('audit policy - omitStages is the union of the policy and the rule; omitManagedFields as upstream', () => {
  const c = checker(
    ['  - level: Metadata', '    users: [jane]', '    omitStages: [ResponseStarted]', '    omitManagedFields: false', '  - level: Request', '    users: [platform-admin]', ''].join('\n'),
    'omitStages: [RequestReceived]\nomitManagedFields: true\n',
  );
  const j = c.evaluate(jane, res('get', 'pods'));
  assert.deepEqual(stagesOf(j.omitStages), ['RequestReceived', 'ResponseStarted']);
  assert.equal(j.omitManagedFields, false, 'a rule overrides the policy');
  const a = c.evaluate(admin, res('get', 'pods'));
  assert.deepEqual(stagesOf(a.omitStages), ['RequestReceived']);
  assert.equal(a.omitManagedFields, true, 'unset: the policy default');
  const none = c.evaluate({ username: 'bob' }, res('get', 'pods'));
  assert.equal(none.level, 'None');
  assert.deepEqual(stagesOf(none.omitStages), ['RequestReceived']);
});

test("audit policy - upstream's apiVersion and a stock policy file are read", () => {
  const p = parsePolicy(`
apiVersion: audit.k8s.io/v1
kind: Policy
metadata: {name: stock}
omitStages: ["RequestReceived"]
rules:
  - level: None
    resources:
      - group: ""
        resources: ["endpoints", "services", "services/status"]
  - level: None
    nonResourceURLs: ["/healthz*", "/version", "/swagger*"]
  - level: Metadata
    resources:
      - group: ""
        resources: ["secrets", "configmaps"]
  - level: RequestResponse
    resources:
      - group: ""
        resources: ["pods"]
        resourceNames: ["controller-leader"]
  - level: Metadata
    omitStages: ["RequestReceived"]
`);
  assert.equal(p.rules.length, 5);
  assert.deepEqual(p.rules[3]!.resources, [{ group: '', resources: ['pods'], resourceNames: ['controller-leader'] }]);
});

test('audit policy - mistakes fail with the field they are in', () => {
  const head = 'apiVersion: audit.platform.io/v1\nkind: Policy\n';
  const cases: Array<[string, RegExp]> = [
    [`${head}rules:\n  - level: Verbose\n`, /rules\[0\]\.level: unknown level "Verbose": the levels are None, Metadata, Request, RequestResponse/],
    [`${head}rules:\n  - {}\n`, /rules\[0\]\.level: required/],
    [`${head}rules:\n  - level: None\n    user: [jane]\n`, /rules\[0\]: unknown field "user"/],
    [`${head}rulez: []\n`, /<root>: unknown field "rulez"/],
    [`${head}rules:\n  - level: None\n    resources: [{group: "", resource: [pods]}]\n`, /rules\[0\]\.resources\[0\]: unknown field "resource"/],
    [`${head}omitStages: [Done]\nrules:\n  - level: None\n`, /omitStages\[0\]: unknown stage "Done"/],
    [`${head}rules:\n  - level: None\n    omitStages: [ResponseStarted, Later]\n`, /rules\[0\]\.omitStages\[1\]: unknown stage "Later"/],
    [`${head}rules: []\n`, /rules: a policy needs at least one rule/],
    [`apiVersion: audit.platform.io/v1beta1\nkind: Policy\nrules:\n  - level: None\n`, /apiVersion: must be one of audit\.platform\.io\/v1, audit\.k8s\.io\/v1/],
    [`apiVersion: audit.platform.io/v1\nkind: Policies\nrules:\n  - level: None\n`, /kind: must be Policy/],
    [`${head}rules:\n  - level: None\n    nonResourceURLs: [healthz]\n`, /nonResourceURLs\[0\]: "healthz" must begin with "\/"/],
    [`${head}rules:\n  - level: None\n    nonResourceURLs: ["/a*b"]\n`, /"\*" may only be the last character/],
    [`${head}rules:\n  - level: None\n    nonResourceURLs: [/version]\n    namespaces: [a]\n`, /both resources .* and non-resource URLs/],
    [`${head}rules:\n  - level: None\n    resources: [{group: rbac.authorization.platform.io/v1}]\n`, /is not a group name/],
    [`${head}rules:\n  - level: None\n    resources: [{resourceNames: [a]}]\n`, /resourceNames need at least one resource/],
    [`${head}rules:\n  - level: None\n    users: jane\n`, /rules\[0\]\.users: must be a list of strings/],
    [`${head}rules:\n  - level: None\n    omitManagedFields: yes please\n`, /rules\[0\]\.omitManagedFields: must be true or false/],
    [`${head}rules:\n  - level: None\n  level: x\n: [\n`, /not valid YAML/],
  ];
  for (const [text, re] of cases) {
    assert.throws(
      () => parsePolicy(text),
      (err: Error) => err instanceof AuditPolicyError && re.test(err.message),
      `${re}`,
    );
  }
});

test('audit policy - the shipped example policy (deploy/audit-policy.yaml) decides as its comments say', async () => {
  const { readFile } = await import('node:fs/promises');
  const text = await readFile(new URL('../../../deploy/audit-policy.yaml', import.meta.url), 'utf8');
  const c = new PolicyChecker(parsePolicy(text));
  const cases: Array<[string, AuditAttributes, string]> = [
    ['probes', url('/readyz'), 'None'],
    ['discovery', url('/apis/apps/v1'), 'None'],
    ['lease renewals', res('update', 'leases', { apiGroup: 'coordination.platform.io', namespace: 'platform-system', name: 'l' }), 'None'],
    ['secrets never with data', res('create', 'secrets', { namespace: 'a' }), 'Metadata'],
    ['token requests', res('create', 'serviceaccounts', { namespace: 'a', name: 'x', subresource: 'token' }), 'Metadata'],
    ['reads', res('list', 'pods', { namespace: 'a' }), 'Metadata'],
    ['writes', res('patch', 'deployments', { apiGroup: 'apps', namespace: 'a', name: 'd' }), 'RequestResponse'],
  ];
  for (const [name, attrs, level] of cases) assert.equal(c.evaluate(jane, attrs).level, level, name);
  assert.deepEqual(stagesOf(c.evaluate(jane, res('get', 'pods')).omitStages), ['RequestReceived']);
  assert.equal(c.evaluate(jane, res('get', 'pods')).omitManagedFields, true);
});
