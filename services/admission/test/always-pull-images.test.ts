import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import { createAlwaysPullImages } from '../plugins/pods/always-pull-images.js';
import { pluginMatches } from '../chain.js';
import { CTX, pod, rejects, request } from './scheduling-fixtures.js';

const policies = (p: ApiObject) => {
  const spec = p.spec as Record<string, Array<{ imagePullPolicy?: string }> | undefined>;
  return ['initContainers', 'containers', 'ephemeralContainers'].map((f) => (spec[f] ?? []).map((c) => c.imagePullPolicy));
};

describe('AlwaysPullImages', () => {
  const plugin = createAlwaysPullImages();
  const full = () =>
    pod({
      initContainers: [{ name: 'init', image: 'init:1', imagePullPolicy: 'IfNotPresent' }],
      containers: [
        { name: 'a', image: 'a:1', imagePullPolicy: 'Never' },
        { name: 'b', image: 'b:1' },
      ],
      ephemeralContainers: [{ name: 'debug', image: 'busybox:1', imagePullPolicy: 'IfNotPresent' }],
    });

  it('sets Always on every container of a new pod', async () => {
    const p = full();
    await plugin.mutate!(request('pods', { object: p }), CTX);
    assert.deepEqual(policies(p), [['Always'], ['Always', 'Always'], ['Always']]);
  });

  it('leaves an update alone unless it brings a new image', async () => {
    const old = full();
    const same = full();
    await plugin.mutate!(request('pods', { object: same, old, operation: 'UPDATE' }), CTX);
    assert.deepEqual(policies(same), [['IfNotPresent'], ['Never', undefined], ['IfNotPresent']]);
    await plugin.validate!(request('pods', { object: same, old, operation: 'UPDATE', phase: 'validating' }), CTX);

    const changed = full();
    (changed.spec as { containers: Array<{ image: string }> }).containers[1]!.image = 'b:2';
    await plugin.mutate!(request('pods', { object: changed, old, operation: 'UPDATE' }), CTX);
    assert.deepEqual(policies(changed), [['Always'], ['Always', 'Always'], ['Always']]);
  });

  it('refuses a final pod whose containers do not all pull always', async () => {
    const one = pod({ containers: [{ name: 'a', image: 'a:1', imagePullPolicy: 'IfNotPresent' }] });
    await rejects(
      () => plugin.validate!(request('pods', { object: one, phase: 'validating' }), CTX),
      403,
      'pods "web" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"',
    );
    await rejects(
      () => plugin.validate!(request('pods', { object: full(), phase: 'validating' }), CTX),
      403,
      '[pods "web" is forbidden: spec.initContainers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always", ' +
        'pods "web" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "Never": supported values: "Always", ' +
        'pods "web" is forbidden: spec.containers[1].imagePullPolicy: Unsupported value: "": supported values: "Always", ' +
        'pods "web" is forbidden: spec.ephemeralContainers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"]',
    );
  });

  it('runs on pod creates and updates, not on subresources', async () => {
    assert.equal(pluginMatches(plugin.match, request('pods', { operation: 'UPDATE' })), true);
    assert.equal(pluginMatches(plugin.match, request('pods', { operation: 'DELETE' })), false);
    const p = full();
    await plugin.mutate!(request('pods', { object: p, sub: 'ephemeralcontainers', operation: 'UPDATE', old: full() }), CTX);
    assert.deepEqual(policies(p)[0], ['IfNotPresent']);
  });
});
