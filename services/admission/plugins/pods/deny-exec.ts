// DenyEscalatingExec and DenyExecOnPrivileged (both deprecated upstream): no exec into or attach
// to a pod whose containers hold the host's privileges. DenyExecOnPrivileged looks only at
// privileged containers; DenyEscalatingExec also at the host network, PID and IPC namespaces.
// The pod is read as stored: the CONNECT request carries only the exec or attach options.

import { StatusError } from '../../../../shared/api/status.js';
import type { ApiObject } from '../../../../shared/api/types.js';
import { AdmissionOperation, type AdmissionRequest } from '../../../../shared/bus/messages.js';
import type { ObjectReader } from '../../../../shared/bus/storage-read.js';
import type { Logger } from '../../../../shared/log.js';
import { admissionForbidden } from '../../errors.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';
import { podContainers, rec } from './pod-fields.js';

export const DENY_ESCALATING_EXEC = 'DenyEscalatingExec';
export const DENY_EXEC_ON_PRIVILEGED = 'DenyExecOnPrivileged';

const PODS_CONNECT: PluginMatch = { operations: [AdmissionOperation.Connect], resources: [{ group: '', resource: 'pods' }] };
const EXEC_SUBRESOURCES = new Set(['exec', 'attach']);

/** Which of the pod's host privileges refuse an exec. */
export interface DenyExecChecks {
  hostNetwork: boolean;
  hostPID: boolean;
  hostIPC: boolean;
  privileged: boolean;
}

const ESCALATING: DenyExecChecks = { hostNetwork: true, hostPID: true, hostIPC: true, privileged: true };
const PRIVILEGED_ONLY: DenyExecChecks = { hostNetwork: false, hostPID: false, hostIPC: false, privileged: true };

/** Whether any container, init and ephemeral ones included, runs privileged. */
export function hasPrivilegedContainer(pod: ApiObject): boolean {
  return podContainers(rec(pod.spec)).some(({ container }) => rec(container.securityContext)?.privileged === true);
}

export function createDenyExec(name: string, checks: DenyExecChecks, read: ObjectReader): AdmissionPlugin {
  const deny = (req: AdmissionRequest, why: string): never => {
    throw admissionForbidden(req, why);
  };
  return {
    name,
    match: PODS_CONNECT,
    async validate(req) {
      if (req.resource.resource !== 'pods' || !EXEC_SUBRESOURCES.has(req.subResource ?? '')) return;
      let pod: ApiObject | null;
      try {
        pod = await read({ group: '', resource: 'pods', namespace: req.namespace ?? '', name: req.name });
      } catch (err) {
        // Upstream refuses when the pod cannot be read, with the read's error as the reason.
        if (err instanceof StatusError && err.status.reason === 'Forbidden') throw err;
        return deny(req, err instanceof Error ? err.message : String(err));
      }
      if (!pod) return deny(req, `pods "${req.name}" not found`);
      const spec = rec(pod.spec) ?? {};
      if (checks.hostNetwork && spec.hostNetwork === true) deny(req, 'cannot exec into or attach to a container using host network');
      if (checks.hostPID && spec.hostPID === true) deny(req, 'cannot exec into or attach to a container using host pid');
      if (checks.hostIPC && spec.hostIPC === true) deny(req, 'cannot exec into or attach to a container using host ipc');
      if (checks.privileged && hasPrivilegedContainer(pod)) deny(req, 'cannot exec into or attach to a privileged container');
    },
  };
}

function warnDeprecated(log: Logger, name: string): void {
  log.warn(`the ${name} admission plugin is deprecated and will be removed in v1.18`);
  log.warn('use of PodSecurityPolicy or a custom admission plugin to limit creation of pods is recommended instead');
}

export const denyEscalatingExecPlugin: PluginDefinition = {
  name: DENY_ESCALATING_EXEC,
  defaultEnabled: false,
  create: (deps) => {
    warnDeprecated(deps.log, DENY_ESCALATING_EXEC);
    return createDenyExec(DENY_ESCALATING_EXEC, ESCALATING, deps.read);
  },
};

export const denyExecOnPrivilegedPlugin: PluginDefinition = {
  name: DENY_EXEC_ON_PRIVILEGED,
  defaultEnabled: false,
  create: (deps) => {
    warnDeprecated(deps.log, DENY_EXEC_ON_PRIVILEGED);
    return createDenyExec(DENY_EXEC_ON_PRIVILEGED, PRIVILEGED_ONLY, deps.read);
  },
};
