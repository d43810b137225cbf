import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nodeIdentity } from '../node-identity.js';

test('node identity - only system:node:<name> in group system:nodes is a node', () => {
  const cases: Array<[string, string, string[], string | undefined]> = [
    ['a node', 'system:node:n1', ['system:nodes', 'system:authenticated'], 'n1'],
    ['a node name with dots and colons', 'system:node:ip-10-0-0-1.ec2:x', ['system:nodes'], 'ip-10-0-0-1.ec2:x'],
    ['a node user without a name', 'system:node:', ['system:nodes'], ''],
    ['the name without the group', 'system:node:n1', ['developers'], undefined],
    ['the group without the name', 'n1', ['system:nodes'], undefined],
    ['a look-alike prefix', 'system:nodes:n1', ['system:nodes'], undefined],
    ['anyone else', 'jane', [], undefined],
  ];
  for (const [name, username, groups, want] of cases) assert.equal(nodeIdentity({ username, groups }), want, name);
});
