import { describe, it } from 'node:test';
import { createLimitPodHardAntiAffinityTopology } from '../plugins/pods/limit-pod-hard-anti-affinity-topology.js';
import { CTX, pod, rejects, request } from './scheduling-fixtures.js';

const term = (topologyKey: string) => ({ labelSelector: { matchLabels: { app: 'web' } }, topologyKey });

describe('LimitPodHardAntiAffinityTopology', () => {
  const plugin = createLimitPodHardAntiAffinityTopology();
  const allowed: Array<[string, Record<string, unknown>]> = [
    ['no affinity', {}],
    ['required anti-affinity per host', { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('platform.io/hostname')] } } }],
    [
      'preferred anti-affinity over a zone',
      { affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: term('topology.platform.io/zone') }] } } },
    ],
    ['required pod affinity over a zone', { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('topology.platform.io/zone')] } } }],
  ];
  for (const [name, spec] of allowed) {
    it(`allows ${name}`, async () => {
      await plugin.validate!(request('pods', { object: pod(spec), phase: 'validating' }), CTX);
    });
  }

  it('refuses required anti-affinity over anything but the host', async () => {
    const spec = { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('platform.io/hostname'), term('topology.platform.io/zone')] } } };
    await rejects(
      () => plugin.validate!(request('pods', { object: pod(spec), phase: 'validating', operation: 'UPDATE' }), CTX),
      403,
      'pods "web" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey topology.platform.io/zone but only key platform.io/hostname is allowed',
    );
  });
});
