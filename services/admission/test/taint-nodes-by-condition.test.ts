import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import { createTaintNodesByCondition } from '../plugins/nodes/taint-nodes-by-condition.js';
import { pluginMatches } from '../chain.js';
import { CTX, request } from './scheduling-fixtures.js';

describe('TaintNodesByCondition', () => {
  const plugin = createTaintNodesByCondition();
  const node = (taints?: unknown[]): ApiObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, ...(taints ? { spec: { taints } } : {}) });
  const NOT_READY = { key: 'node.platform.io/not-ready', effect: 'NoSchedule' };
  const cases: Array<{ name: string; taints?: unknown[]; want: unknown[] }> = [
    { name: 'a new node without spec gets the not-ready taint', want: [NOT_READY] },
    { name: 'its own taints come first', taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }], want: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }, NOT_READY] },
    {
      name: 'a node registering with the taint keeps it once',
      taints: [{ key: 'node.platform.io/not-ready', value: 'x', effect: 'NoSchedule' }],
      want: [{ key: 'node.platform.io/not-ready', value: 'x', effect: 'NoSchedule' }],
    },
    {
      name: 'the not-ready taint with another effect is another taint',
      taints: [{ key: 'node.platform.io/not-ready', effect: 'NoExecute' }],
      want: [{ key: 'node.platform.io/not-ready', effect: 'NoExecute' }, NOT_READY],
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const n = node(c.taints);
      await plugin.mutate!(request('nodes', { object: n }), CTX);
      assert.deepEqual((n.spec as { taints: unknown[] }).taints, c.want);
    });
  }

  it('runs on node creation only', () => {
    assert.equal(pluginMatches(plugin.match, request('nodes')), true);
    assert.equal(pluginMatches(plugin.match, request('nodes', { operation: 'UPDATE' })), false);
    assert.equal(pluginMatches(plugin.match, request('pods')), false);
  });
});
