import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createDefaultTolerationSeconds } from '../plugins/pods/default-toleration-seconds.js';
import { pluginMatches } from '../chain.js';
import { CTX, pod, request } from './scheduling-fixtures.js';

const NOT_READY = { key: 'node.platform.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
const UNREACHABLE = { key: 'node.platform.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 120 };

describe('DefaultTolerationSeconds', () => {
  const plugin = createDefaultTolerationSeconds(300, 120);
  const cases: Array<{ name: string; tolerations?: unknown[]; want: unknown[] }> = [
    { name: "a pod without tolerations gets both, with the flags' seconds", want: [NOT_READY, UNREACHABLE] },
    {
      name: 'a pod tolerating not-ready for NoExecute keeps its own and gets unreachable',
      tolerations: [{ key: 'node.platform.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }],
      want: [{ key: 'node.platform.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }, UNREACHABLE],
    },
    {
      name: 'an empty effect tolerates NoExecute too',
      tolerations: [{ key: 'node.platform.io/unreachable', operator: 'Exists' }],
      want: [{ key: 'node.platform.io/unreachable', operator: 'Exists' }, NOT_READY],
    },
    { name: 'an empty key with Exists tolerates everything', tolerations: [{ operator: 'Exists' }], want: [{ operator: 'Exists' }] },
    {
      name: 'a NoSchedule toleration of the taint is not enough',
      tolerations: [{ key: 'node.platform.io/not-ready', operator: 'Exists', effect: 'NoSchedule' }],
      want: [{ key: 'node.platform.io/not-ready', operator: 'Exists', effect: 'NoSchedule' }, NOT_READY, UNREACHABLE],
    },
    {
      name: 'unrelated tolerations stay first',
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }],
      want: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }, NOT_READY, UNREACHABLE],
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const p = pod(c.tolerations ? { tolerations: c.tolerations } : {});
      await plugin.mutate!(request('pods', { object: p }), CTX);
      assert.deepEqual((p.spec as { tolerations: unknown[] }).tolerations, c.want);
    });
  }

  it('runs on pod creates and updates only, never on subresources', async () => {
    assert.equal(pluginMatches(plugin.match, request('pods', { operation: 'UPDATE' })), true);
    assert.equal(pluginMatches(plugin.match, request('pods', { operation: 'DELETE' })), false);
    assert.equal(pluginMatches(plugin.match, request('configmaps')), false);
    const p = pod();
    await plugin.mutate!(request('pods', { object: p, sub: 'status', operation: 'UPDATE' }), CTX);
    assert.equal((p.spec as { tolerations?: unknown }).tolerations, undefined);
  });
});
