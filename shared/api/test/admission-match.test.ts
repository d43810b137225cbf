import { test } from 'node:test';
import assert from 'node:assert/strict';
import { admissionMatches } from '../admission-match.js';

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
