import { test } from 'node:test';
import assert from 'node:assert/strict';
import { admissionMatches, ruledOutByNamespace, type AdmissionMatch } from '../admission-match.js';

test('admission match - operations and group/resources with wildcards', () => {
  const rows: Array<[Parameters<typeof admissionMatches>[0], string, string, string, boolean]> = [
    [undefined, 'CREATE', '', 'pods', true],
    [{}, 'DELETE', 'apps', 'deployments', true],
    [{ operations: ['CREATE'] }, 'CREATE', '', 'pods', true],
    [{ operations: ['CREATE'] }, 'UPDATE', '', 'pods', false],
    [{ operations: ['*'] }, 'CONNECT', '', 'pods', true],
    [{ resources: [{ group: '', resource: 'pods' }] }, 'CREATE', '', 'pods', true],
    [{ resources: [{ group: '', resource: 'pods' }] }, 'CREATE', 'apps', 'pods', false],
    [{ resources: [{ group: '*', resource: 'pods' }] }, 'CREATE', 'apps', 'pods', true],
    [{ resources: [{ group: 'apps', resource: '*' }] }, 'CREATE', 'apps', 'deployments', true],
    [{ resources: [] }, 'CREATE', '', 'pods', false],
  ];
  for (const [m, op, g, r, want] of rows) assert.equal(admissionMatches(m, op, g, r), want, JSON.stringify([m, op, g, r]));
});

test('admission match - a match for some user groups leaves other users out; a caller that does not know the user still matches', () => {
  const m = { operations: ['UPDATE'], resources: [{ group: 'coordination.platform.io', resource: 'leases' }], userGroups: ['system:nodes'] };
  assert.equal(admissionMatches(m, 'UPDATE', 'coordination.platform.io', 'leases', ['system:nodes', 'system:authenticated']), true);
  assert.equal(admissionMatches(m, 'UPDATE', 'coordination.platform.io', 'leases', ['system:authenticated']), false);
  assert.equal(admissionMatches(m, 'UPDATE', 'coordination.platform.io', 'leases'), true);
  assert.equal(admissionMatches({ resources: [{ group: '', resource: 'pods' }] }, 'CREATE', '', 'pods', ['anyone']), true, 'no user groups: every user');
});

test('admission match - a namespace condition rules a plugin out only for objects inside a namespace the facts clear', () => {
  const facts = {
    active: (ns: string) => ns === 'live' || ns === 'quota',
    holds: (ns: string, group: string, resource: string) => ns === 'quota' && group === '' && resource === 'resourcequotas',
  };
  const lifecycle: AdmissionMatch = { namespace: 'inactive' };
  const quota: AdmissionMatch = { operations: ['CREATE'], namespace: { holds: { group: '', resource: 'resourcequotas' } } };
  const plain: AdmissionMatch = { operations: ['CREATE'] };
  const rows: Array<[AdmissionMatch, string | undefined, string, string, boolean, boolean]> = [
    [lifecycle, 'live', '', 'configmaps', true, true],
    [lifecycle, 'gone', '', 'configmaps', true, false],
    [lifecycle, 'live', '', 'namespaces', true, false], // a namespace itself: the immortal check must run
    [lifecycle, undefined, '', 'nodes', true, false], // cluster-scoped
    [lifecycle, 'live', '', 'configmaps', false, false], // no facts (the admission service itself)
    [quota, 'live', 'apps', 'deployments', true, true],
    [quota, 'quota', 'apps', 'deployments', true, false],
    [quota, 'gone', '', 'pods', true, true],
    [plain, 'live', '', 'pods', true, false], // no condition
  ];
  for (const [match, namespace, group, resource, withFacts, out] of rows) {
    assert.equal(ruledOutByNamespace(match, namespace, group, resource, withFacts ? facts : undefined), out, JSON.stringify([match, namespace, resource, withFacts]));
  }
});
