import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import { createPodNodeSelector, parsePodNodeSelectorConfig, type PodNodeSelectorConfig } from '../plugins/pods/pod-node-selector.js';
import { namespaceReader } from '../plugins/pods/namespace-objects.js';
import { selectorToLabels } from '../plugins/pods/pod-fields.js';
import { AdmissionConfigError } from '../config.js';
import { pluginMatches } from '../chain.js';
import { CTX, namespace, namespaceObjects, pod, rejects, request } from './scheduling-fixtures.js';

const ANNOTATION = 'scheduler.alpha.platform.io/node-selector';
const cfg = (configuration: unknown) => ({ configuration, dir: '/tmp', source: '/tmp/pns.yaml' });

describe('PodNodeSelector - configuration', () => {
  it("reads upstream's podNodeSelectorPluginConfig: the cluster default and per-namespace whitelists", () => {
    const c = parsePodNodeSelectorConfig(cfg({ podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'env=prod', team: 'env=prod, tier = web' } }));
    assert.deepEqual(c.clusterDefault, { env: 'prod' });
    assert.deepEqual(c.whitelists.get('team'), { env: 'prod', tier: 'web' });
    assert.deepEqual(parsePodNodeSelectorConfig(undefined), { clusterDefault: {}, whitelists: new Map() });
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ['not an object', 'env=prod', /must be an object with podNodeSelectorPluginConfig/],
    ['an unknown key', { podNodeSelector: {} }, /unknown field "podNodeSelector"/],
    ['a selector that is not a string', { podNodeSelectorPluginConfig: { team: 3 } }, /podNodeSelectorPluginConfig.team must be a node selector string/],
    ['a term without =', { podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'env' } }, /invalid selector: \[env\]/],
    ['a bad label key', { podNodeSelectorPluginConfig: { team: 'Bad Key=x' } }, /invalid label key "Bad Key"/],
    ['a bad label value', { podNodeSelectorPluginConfig: { team: 'k=-x' } }, /invalid label value: "-x": at key: "k"/],
  ];
  for (const [name, doc, want] of bad) {
    it(`fails the start on ${name}`, () => {
      assert.throws(
        () => parsePodNodeSelectorConfig(cfg(doc)),
        (err: Error) => err instanceof AdmissionConfigError && want.test(err.message) && err.message.includes('/tmp/pns.yaml'),
      );
    });
  }

  it('parses selectors as ConvertSelectorToLabelsMap: empty is none, set-based terms are refused', () => {
    assert.deepEqual(selectorToLabels(''), {});
    assert.deepEqual(selectorToLabels('a=1,b=2'), { a: '1', b: '2' });
    assert.throws(() => selectorToLabels('a!=1'), /invalid label key "a!"/);
    assert.throws(() => selectorToLabels('a==1'), /invalid selector: \[a  1\]/);
  });
});

describe('PodNodeSelector - admission', () => {
  const namespaces = namespaceObjects(
    namespace('default'),
    namespace('labelled', { [ANNOTATION]: 'env=dev,disk=ssd' }),
    namespace('emptied', { [ANNOTATION]: '' }),
    namespace('team', { [ANNOTATION]: 'env=prod' }),
    namespace('broken', { [ANNOTATION]: 'env' }),
  );
  const config: PodNodeSelectorConfig = { clusterDefault: { env: 'prod' }, whitelists: new Map([['team', { env: 'prod', tier: 'web' }]]) };
  const plugin = createPodNodeSelector(config, namespaceReader(namespaces));
  const nodeSelectorOf = (p: ApiObject) => (p.spec as { nodeSelector?: unknown }).nodeSelector;

  const merges: Array<{ name: string; ns: string; own?: Record<string, string>; want: Record<string, string> | undefined }> = [
    { name: 'a namespace without the annotation gets the cluster default', ns: 'default', want: { env: 'prod' } },
    { name: "the annotation replaces the cluster default and is merged with the pod's own", ns: 'labelled', own: { zone: 'a' }, want: { disk: 'ssd', env: 'dev', zone: 'a' } },
    { name: 'an empty annotation means no selector at all', ns: 'emptied', want: undefined },
    { name: 'the same label and value on both sides is no conflict', ns: 'labelled', own: { env: 'dev' }, want: { disk: 'ssd', env: 'dev' } },
    { name: "a pod within its namespace's whitelist passes", ns: 'team', own: { tier: 'web' }, want: { env: 'prod', tier: 'web' } },
  ];
  for (const c of merges) {
    it(c.name, async () => {
      const p = pod(c.own ? { nodeSelector: c.own } : {}, { namespace: c.ns });
      await plugin.mutate!(request('pods', { object: p, namespace: c.ns }), CTX);
      assert.deepEqual(nodeSelectorOf(p), c.want);
      await plugin.validate!(request('pods', { object: p, namespace: c.ns, phase: 'validating' }), CTX);
    });
  }

  const refusals: Array<{ name: string; ns: string; own: Record<string, string>; code: number; message: string }> = [
    {
      name: 'a pod selector giving a namespace label another value is refused',
      ns: 'labelled',
      own: { env: 'prod' },
      code: 403,
      message: 'pods "web" is forbidden: pod node label selector conflicts with its namespace node label selector',
    },
    {
      name: 'a conflict with the cluster default is refused too',
      ns: 'default',
      own: { env: 'dev' },
      code: 403,
      message: 'pods "web" is forbidden: pod node label selector conflicts with its namespace node label selector',
    },
    {
      name: "a label outside the namespace's whitelist is refused",
      ns: 'team',
      own: { tier: 'db' },
      code: 403,
      message: 'pods "web" is forbidden: pod node label selector labels conflict with its namespace whitelist',
    },
    { name: 'a namespace whose annotation is no selector is an internal error', ns: 'broken', own: {}, code: 500, message: 'Internal error occurred: invalid selector: [env]' },
    { name: 'a namespace that does not exist is an internal error', ns: 'nowhere', own: {}, code: 500, message: 'Internal error occurred: namespace nowhere does not exist' },
  ];
  for (const c of refusals) {
    it(c.name, async () => {
      const p = pod({ nodeSelector: c.own }, { namespace: c.ns });
      await rejects(() => plugin.mutate!(request('pods', { object: p, namespace: c.ns }), CTX), c.code, c.message);
      await rejects(() => plugin.validate!(request('pods', { object: p, namespace: c.ns, phase: 'validating' }), CTX), c.code, c.message);
    });
  }

  it('looks at pod creation only, as upstream, and not at subresources', async () => {
    assert.equal(pluginMatches(plugin.match, request('pods')), true);
    assert.equal(pluginMatches(plugin.match, request('pods', { operation: 'UPDATE' })), false);
    const p = pod({ nodeSelector: { env: 'dev' } });
    await plugin.mutate!(request('pods', { object: p, sub: 'binding' }), CTX);
    assert.deepEqual(nodeSelectorOf(p), { env: 'dev' });
  });
});
