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
