import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { serviceUnavailable } from '../../../shared/api/status.js';
import type { ApiObject, ObjectRef } from '../../../shared/api/types.js';
import type { ObjectReader } from '../../../shared/bus/storage-read.js';
import { silentLogger } from '../../../shared/log.js';
import { pluginMatches } from '../chain.js';
import { createDenyExec, denyEscalatingExecPlugin, denyExecOnPrivilegedPlugin, DENY_ESCALATING_EXEC } from '../plugins/pods/deny-exec.js';
import type { PluginDeps } from '../types.js';
import { CTX, pod, rejects, request } from './scheduling-fixtures.js';

const privileged = [{ name: 'c', image: 'i', securityContext: { privileged: true } }];
const STORE: Record<string, ApiObject> = {
  plain: pod({}, { name: 'plain' }),
  'host-network': pod({ hostNetwork: true }, { name: 'host-network' }),
  'host-pid': pod({ hostPID: true }, { name: 'host-pid' }),
  'host-ipc': pod({ hostIPC: true }, { name: 'host-ipc' }),
  privileged: pod({ containers: privileged }, { name: 'privileged' }),
  'privileged-init': pod({ initContainers: privileged }, { name: 'privileged-init' }),
  'privileged-ephemeral': pod({ ephemeralContainers: privileged }, { name: 'privileged-ephemeral' }),
  'not-privileged': pod({ containers: [{ name: 'c', image: 'i', securityContext: { privileged: false } }] }, { name: 'not-privileged' }),
};
const reads: ObjectRef[] = [];
const read: ObjectReader = async (ref) => {
  reads.push(ref);
  if (ref.name === 'unreadable') throw serviceUnavailable('storage is unavailable');
  return STORE[ref.name] ?? null;
};

const connect = (name: string, sub = 'exec') =>
  request('pods', { operation: 'CONNECT', name, sub, phase: 'validating', kind: 'PodExecOptions', object: { apiVersion: 'v1', kind: 'PodExecOptions', metadata: {}, command: ['sh'] } as ApiObject });

describe('DenyEscalatingExec and DenyExecOnPrivileged', () => {
  const escalating = createDenyExec('DenyEscalatingExec', { hostNetwork: true, hostPID: true, hostIPC: true, privileged: true }, read);
  const privilegedOnly = createDenyExec('DenyExecOnPrivileged', { hostNetwork: false, hostPID: false, hostIPC: false, privileged: true }, read);
  const table: Array<[string, string | null, string | null]> = [
    // pod, DenyEscalatingExec's reason, DenyExecOnPrivileged's reason
    ['plain', null, null],
    ['not-privileged', null, null],
    ['host-network', 'cannot exec into or attach to a container using host network', null],
    ['host-pid', 'cannot exec into or attach to a container using host pid', null],
    ['host-ipc', 'cannot exec into or attach to a container using host ipc', null],
    ['privileged', 'cannot exec into or attach to a privileged container', 'cannot exec into or attach to a privileged container'],
    ['privileged-init', 'cannot exec into or attach to a privileged container', 'cannot exec into or attach to a privileged container'],
    ['privileged-ephemeral', 'cannot exec into or attach to a privileged container', 'cannot exec into or attach to a privileged container'],
    ['missing', 'pods "missing" not found', 'pods "missing" not found'],
    ['unreadable', 'storage is unavailable', 'storage is unavailable'],
  ];
  for (const [name, escalatingWhy, privilegedWhy] of table) {
    for (const sub of ['exec', 'attach']) {
      it(`${sub} into ${name}`, async () => {
        for (const [plugin, why] of [
          [escalating, escalatingWhy],
          [privilegedOnly, privilegedWhy],
        ] as const) {
          if (why === null) await plugin.validate!(connect(name, sub), CTX);
          else await rejects(() => plugin.validate!(connect(name, sub), CTX), 403, `pods "${name}" is forbidden: ${why}`);
        }
      });
    }
  }

  it("reads the pod from the request's namespace, and only for exec and attach", async () => {
    reads.length = 0;
    await escalating.validate!(request('pods', { operation: 'CONNECT', name: 'privileged', sub: 'portforward', phase: 'validating' }), CTX);
    await escalating.validate!(request('pods', { operation: 'CONNECT', name: 'privileged', sub: 'proxy', phase: 'validating' }), CTX);
    assert.equal(reads.length, 0);
    await escalating.validate!(request('pods', { operation: 'CONNECT', name: 'plain', sub: 'exec', namespace: 'team', phase: 'validating' }), CTX);
    assert.deepEqual(reads, [{ group: '', resource: 'pods', namespace: 'team', name: 'plain' }]);
    assert.equal(pluginMatches(escalating.match, connect('x')), true);
    assert.equal(pluginMatches(escalating.match, request('pods', { operation: 'CREATE' })), false);
  });

  it('warns at start that the plugins are deprecated', async () => {
    for (const definition of [denyEscalatingExecPlugin, denyExecOnPrivilegedPlugin]) {
      const warnings: string[] = [];
      const log = Object.assign(Object.create(silentLogger()), { warn: (m: string) => warnings.push(m) });
      const plugin = await definition.create({ log, read } as unknown as PluginDeps);
      assert.match(warnings[0]!, new RegExp(`^the ${plugin.name} admission plugin is deprecated and will be removed in v1.18$`));
      assert.equal(warnings.length, 2);
    }
    assert.equal(DENY_ESCALATING_EXEC, 'DenyEscalatingExec');
  });
});
