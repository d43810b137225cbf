import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NamespaceCache } from '../namespace-cache.js';
import { createNamespaceExists } from '../plugins/namespaces/namespace-exists.js';
import { pluginMatches } from '../chain.js';
import { CTX, rejects, request } from './scheduling-fixtures.js';

describe('NamespaceExists', () => {
  const live: string[] = [];
  const cache = new NamespaceCache(async (name) => {
    live.push(name);
    return name === 'fresh' ? { name, phase: 'Active', terminating: false, revision: 9 } : null;
  });
  cache.apply({ key: 'ns.team', ref: { group: '', resource: 'namespaces', name: 'team' }, revision: 1, object: { metadata: { name: 'team' }, status: { phase: 'Terminating' } } as never });
  const plugin = createNamespaceExists(cache);
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };

  it('allows writes in a namespace it knows, terminating or not, without a live read', async () => {
    for (const operation of ['CREATE', 'UPDATE', 'DELETE'] as const) {
      await plugin.validate!(request('configmaps', { namespace: 'team', operation, object: cm, phase: 'validating' }), CTX);
    }
    assert.deepEqual(live, []);
  });

  it('confirms a miss with a live read before refusing', async () => {
    await plugin.validate!(request('configmaps', { namespace: 'fresh', object: cm, phase: 'validating' }), CTX);
    await rejects(() => plugin.validate!(request('configmaps', { namespace: 'nowhere', object: cm, phase: 'validating' }), CTX), 404, 'namespaces "nowhere" not found');
    assert.deepEqual(live, ['fresh', 'nowhere']);
  });

  it('ignores cluster-scoped objects and namespaces themselves', async () => {
    await plugin.validate!(request('nodes', { object: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' } }, phase: 'validating' }), CTX);
    await plugin.validate!(request('namespaces', { name: 'nowhere', namespace: 'nowhere', sub: 'finalize', operation: 'UPDATE', phase: 'validating' }), CTX);
    assert.equal(pluginMatches(plugin.match, request('pods', { operation: 'CONNECT' })), false);
  });
});
