// Pods: the unit of scheduling. Spec is mostly immutable after creation; status belongs to the
// node agent and is written through /status.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn, since } from '../common/columns.js';
import { asArray, asObject, at, pathSelectors, type Json } from '../common/field-errors.js';
import { defaultPodOnly, defaultPodSpec, podQosClass, podSpec, podStatus, validatePodSpec } from '../common/pod-spec.js';
import { described, obj } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { podActions } from './pod-rest.js';
import { ephemeralContainersStrategy, validateEphemeralContainers, validateNoEphemeralContainersOnCreate } from './pod-ephemeral-containers.js';
import { evictionAction } from '../policy/eviction.js';
import { forbidden } from '../../../api/field-errors.js';
import { cloneJson, jsonEqual } from '../../../patch/json-value.js';

const schema = described(
  obj({ spec: podSpec, status: podStatus }),
  {
    spec: 'What the pod runs: its containers, volumes and scheduling rules. Fixed at creation apart from container images, activeDeadlineSeconds, added tolerations and a few more.',
    status: 'What the node agent and the scheduler last observed of the pod. Written through the status subresource; ignored on create and on updates of the pod itself.',
  },
  'A pod: one or more containers that are scheduled together onto one node, share its network address and volumes, and live and die together. The smallest unit the platform runs.',
);

function containerStatuses(o: ApiObject): Json[] {
  return asArray(at(o, 'status.containerStatuses')).map((c) => asObject(c) ?? {});
}

/** kubectl's STATUS column: the most telling reason among pod and container states. */
export function podDisplayStatus(o: ApiObject): string {
  const status = asObject(o.status) ?? {};
  let reason = typeof status.reason === 'string' && status.reason ? status.reason : String(status.phase ?? 'Unknown');
  asArray(status.initContainerStatuses).forEach((c, i) => {
    const st = asObject(asObject(c)?.state) ?? {};
    const term = asObject(st.terminated);
    const wait = asObject(st.waiting);
    if (term && term.exitCode === 0) return;
    if (term) reason = term.reason ? `Init:${String(term.reason)}` : `Init:ExitCode:${String(term.exitCode)}`;
    else if (wait && wait.reason && wait.reason !== 'PodInitializing') reason = `Init:${String(wait.reason)}`;
    else if (reason === String(status.phase ?? 'Unknown') || reason.startsWith('Init:')) reason = `Init:${i}/${asArray(at(o, 'spec.initContainers')).length}`;
  });
  if (!reason.startsWith('Init:')) {
    for (const c of containerStatuses(o).reverse()) {
      const st = asObject(c.state) ?? {};
      const wait = asObject(st.waiting);
      const term = asObject(st.terminated);
      if (wait?.reason) reason = String(wait.reason);
      else if (term?.reason) reason = String(term.reason);
      else if (term) reason = term.signal ? `Signal:${String(term.signal)}` : `ExitCode:${String(term.exitCode)}`;
    }
  }
  if (o.metadata.deletionTimestamp) reason = status.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  return reason;
}

function readyCell(o: ApiObject): string {
  const total = asArray(at(o, 'spec.containers')).length;
  const ready = containerStatuses(o).filter((c) => c.ready === true).length;
  return `${ready}/${total}`;
}

function restartsCell(o: ApiObject): string {
  let restarts = 0;
  let lastRestart: string | undefined;
  for (const c of containerStatuses(o)) {
    restarts += typeof c.restartCount === 'number' ? c.restartCount : 0;
    const finished = at(c, 'lastState.terminated.finishedAt');
    if (typeof finished === 'string' && (!lastRestart || finished > lastRestart)) lastRestart = finished;
  }
  return lastRestart && restarts > 0 ? `${restarts} (${since(lastRestart)} ago)` : String(restarts);
}

function readinessGatesCell(o: ApiObject): string {
  const gates = asArray(at(o, 'spec.readinessGates')).map((g) => String(asObject(g)?.conditionType ?? ''));
  if (!gates.length) return '<none>';
  const conds = asArray(at(o, 'status.conditions')).map((c) => asObject(c) ?? {});
  const ok = gates.filter((g) => conds.some((c) => c.type === g && c.status === 'True')).length;
  return `${ok}/${gates.length}`;
}

// Fields a pod update may change; everything else in spec is fixed at creation.
function mutableMasked(spec: unknown): Json {
  const s = cloneJson(asObject(spec) ?? {});
  for (const list of ['containers', 'initContainers']) for (const c of asArray(s[list])) delete (asObject(c) ?? {}).image;
  delete s.activeDeadlineSeconds;
  delete s.tolerations;
  delete s.terminationGracePeriodSeconds;
  delete s.schedulingGates;
  return s;
}

function validatePodUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  if (jsonEqual(mutableMasked(o.spec), mutableMasked(old.spec))) return [];
  return [
    forbidden(
      'spec',
      'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
    ),
  ];
}

function validatePod(o: ApiObject): FieldError[] {
  return [...validatePodSpec(o.spec, 'spec'), ...validateEphemeralContainers(o.spec)];
}

export const pods: ResourceType = {
  group: '',
  versions: [{ name: 'v1', schema }],
  kind: 'Pod',
  plural: 'pods',
  singular: 'pod',
  scope: 'Namespaced',
  returnDeletedObject: true,
  shortNames: ['po'],
  categories: ['all'],
  subresources: {
    status: true,
    others: [
      { name: 'ephemeralcontainers', kind: 'Pod', verbs: ['get', 'patch', 'update'] },
      { name: 'log', kind: 'Pod', verbs: ['get'] },
      { name: 'exec', kind: 'PodExecOptions', verbs: ['create', 'get'] },
      { name: 'attach', kind: 'PodAttachOptions', verbs: ['create', 'get'] },
      { name: 'portforward', kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
      { name: 'proxy', kind: 'PodProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] },
      { name: 'binding', kind: 'Binding', verbs: ['create'] },
      { name: 'eviction', kind: 'Eviction', verbs: ['create'] },
    ],
  },
  columns: [
    { name: 'Ready', type: 'string', description: 'The aggregate readiness state of this pod for accepting traffic.', cell: readyCell },
    { name: 'Status', type: 'string', description: 'The aggregate status of the containers in this pod.', cell: podDisplayStatus },
    { name: 'Restarts', type: 'string', description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.', cell: restartsCell },
    ageColumn,
    { name: 'IP', type: 'string', priority: 1, description: 'IP address allocated to the pod.', cell: (o) => (at(o, 'status.podIP') as string | undefined) || '<none>' },
    { name: 'Node', type: 'string', priority: 1, description: 'Name of the Node this pod is assigned to.', cell: (o) => (at(o, 'spec.nodeName') as string | undefined) || '<none>' },
    {
      name: 'Nominated Node',
      type: 'string',
      priority: 1,
      description: 'Name of the node the pod is nominated to run on.',
      cell: (o) => (at(o, 'status.nominatedNodeName') as string | undefined) || '<none>',
    },
    { name: 'Readiness Gates', type: 'string', priority: 1, description: 'Pod readiness gates.', cell: readinessGatesCell },
  ],
  fieldSelectors: {
    ...pathSelectors('spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'status.phase', 'status.podIP', 'status.nominatedNodeName'),
    'spec.hostNetwork': (o) => String(at(o, 'spec.hostNetwork') === true),
  },
  strategy: {
    defaults(o) {
      const spec = asObject(o.spec);
      defaultPodSpec(spec);
      defaultPodOnly(spec);
    },
    prepareForCreate(o) {
      o.status = { phase: 'Pending', qosClass: podQosClass(asObject(o.spec)) };
    },
    validate: (o) => [...validatePod(o), ...validateNoEphemeralContainersOnCreate(o)],
    validateUpdate: updateValidation(validatePod, validatePodUpdate),
    deletion: {
      // Upstream's CheckGracefulDelete: a pod on a node is given its grace period to stop (its
      // agent removes it); one that never ran on a node, or has finished, goes at once.
      gracePeriodSeconds(o, requested) {
        const phase = at(o, 'status.phase');
        if (!at(o, 'spec.nodeName') || phase === 'Succeeded' || phase === 'Failed') return 0;
        if (requested !== undefined) return Math.max(requested, 0);
        const own = at(o, 'spec.terminationGracePeriodSeconds');
        return typeof own === 'number' ? own : 30;
      },
    },
    subresources: {
      // The binding hook's write (pod-rest.ts): only the node, the binding's annotations and the
      // PodScheduled condition come from it; the binding was validated and admitted as such.
      binding: {
        prepareForUpdate(o, old) {
          const next = cloneJson(old);
          next.spec = { ...(asObject(next.spec) ?? {}), nodeName: asObject(o.spec)?.nodeName };
          if (o.metadata.annotations) next.metadata.annotations = o.metadata.annotations;
          next.status = o.status;
          return next;
        },
        validateUpdate: () => [],
      },
      // Adds ephemeral containers (kubectl debug); everything else is kept from the stored pod.
      ephemeralcontainers: ephemeralContainersStrategy(validatePod),
    },
  },
  rest: { actions: { ...podActions, eviction: evictionAction } },
};
