import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import { createExtendedResourceToleration, isExtendedResourceName } from '../plugins/pods/extended-resource-toleration.js';
import { CTX, pod, request } from './scheduling-fixtures.js';

describe('ExtendedResourceToleration', () => {
  const names: Array<[string, boolean]> = [
    ['example.com/gpu', true],
    ['nvidia.com/gpu', true],
    ['cpu', false],
    ['memory', false],
    ['hugepages-2Mi', false],
    ['platform.io/something', false],
    ['storage.platform.io/x', false],
    ['kubernetes.io/something', false],
    ['requests.example.com/gpu', false],
    ['example.com/-bad', false],
  ];
  for (const [name, want] of names) it(`${name} is ${want ? '' : 'not '}an extended resource`, () => assert.equal(isExtendedResourceName(name), want));

  const plugin = createExtendedResourceToleration();
  const gpu = (n: string) => ({ key: n, operator: 'Exists', effect: 'NoSchedule' });
  const cases: Array<{ name: string; spec: Record<string, unknown>; want: unknown }> = [
    {
      name: 'requests of containers and init containers give one toleration each, sorted',
      spec: {
        containers: [{ name: 'a', image: 'i', resources: { requests: { 'example.com/gpu': '1', cpu: '1' } } }],
        initContainers: [{ name: 'b', image: 'i', resources: { requests: { 'acme.io/fpga': '1', 'example.com/gpu': '2' } } }],
      },
      want: [gpu('acme.io/fpga'), gpu('example.com/gpu')],
    },
    { name: 'native resources only: nothing changes', spec: { containers: [{ name: 'a', image: 'i', resources: { requests: { cpu: '1', memory: '1Gi' } } }] }, want: undefined },
    { name: 'limits alone are not looked at', spec: { containers: [{ name: 'a', image: 'i', resources: { limits: { 'example.com/gpu': '1' } } }] }, want: undefined },
    {
      name: 'the same toleration already there is kept once, others stay',
      spec: { containers: [{ name: 'a', image: 'i', resources: { requests: { 'example.com/gpu': '1' } } }], tolerations: [{ key: 'x', operator: 'Exists' }, gpu('example.com/gpu')] },
      want: [{ key: 'x', operator: 'Exists' }, gpu('example.com/gpu')],
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const p: ApiObject = pod(c.spec);
      await plugin.mutate!(request('pods', { object: p }), CTX);
      assert.deepEqual((p.spec as { tolerations?: unknown }).tolerations, c.want);
    });
  }
});
