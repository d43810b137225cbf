// PodStatus: what the node agent (and the scheduler) report about a pod, written through the
// pod's /status subresource.

import { conditionList } from './meta.js';
import { anyValue, atomicList, bool, described, int32, int64, mergeList, obj, partial, str, strEnum, time } from './schema.js';
import type { JsonSchema } from '../../../api/types.js';

const containerState = described(
  obj({
    waiting: described(obj({ reason: str, message: str }), {
      reason: 'Why the container is not running yet, in CamelCase (ContainerCreating, ImagePullBackOff, CrashLoopBackOff).',
      message: 'Readable details of why it waits.',
    }),
    running: described(obj({ startedAt: time }), { startedAt: 'When the container last started.' }),
    terminated: described(obj({ exitCode: int32, signal: int32, reason: str, message: str, startedAt: time, finishedAt: time, containerID: str }, ['exitCode']), {
      exitCode: 'Exit status of the last run.',
      signal: 'Signal that ended the container, if one did.',
      reason: 'Why it ended, in CamelCase (Completed, Error, OOMKilled).',
      message: 'Readable details of the end: the termination message of the container when it wrote one.',
      startedAt: 'When the run started.',
      finishedAt: 'When the run ended.',
      containerID: 'ID of the container run, as `<runtime>://<id>`.',
    }),
  }),
  {
    waiting: 'Set while the container is not running yet, or waits to restart.',
    running: 'Set while the container runs.',
    terminated: 'Set once the container has ended.',
  },
  'The state of a container: exactly one of waiting, running and terminated. None given means waiting.',
);

/** Newer kubelets report extra fields (allocatedResources, user, volumeMounts); kept as sent. */
const containerStatus = described(
  partial({ name: str, state: containerState, lastState: containerState, ready: bool, restartCount: int32, image: str, imageID: str, containerID: str, started: bool }, [
    'name',
    'ready',
    'restartCount',
    'image',
    'imageID',
  ]),
  {
    name: 'Name of the container, as in the spec.',
    state: 'Current state of the container.',
    lastState: 'State in which the previous run of the container ended, to see why it restarted. Empty before any restart.',
    ready: 'Whether the container passes its readiness probe (or runs, without one).',
    restartCount: 'How many times the node agent restarted the container. Counts may be lost when the pod is rebuilt on the node.',
    image: 'Image the container runs, as the runtime names it; it may differ from the image of the spec.',
    imageID: 'ID of the image the container runs, usually a digest.',
    containerID: 'ID of the container, as `<runtime>://<id>`.',
    started: 'Whether the container has passed its startup probe (or runs, without one).',
  },
  'What the node agent last reported about one container.',
);

const podIp = (what: string): JsonSchema => described(obj({ ip: str }, ['ip']), { ip: `An address of the ${what}.` });

const podCondition = described(
  obj({ type: str, observedGeneration: int64, status: str, lastProbeTime: { type: ['string', 'null'], format: 'date-time' }, lastTransitionTime: time, reason: str, message: str }, ['type', 'status']),
  {
    type: 'Which condition: PodScheduled, Initialized, ContainersReady, Ready, or a type named by a readiness gate.',
    observedGeneration: 'The metadata.generation of the pod the condition was computed from.',
    status: 'Whether the condition holds: True, False or Unknown.',
    lastProbeTime: 'When the condition was last checked.',
    lastTransitionTime: 'When status last changed.',
    reason: 'Machine-readable reason for the last transition, in CamelCase.',
    message: 'Readable details of the last transition.',
  },
  'One aspect of the state of a pod.',
);

const statuses = (which: string): string => `What the node agent last reported about each ${which} container, one entry per container.`;

export const podStatus: JsonSchema = described(
  obj({
    observedGeneration: int64,
    phase: strEnum('Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'),
    conditions: conditionList(podCondition),
    message: str,
    reason: str,
    nominatedNodeName: str,
    hostIP: str,
    hostIPs: atomicList(podIp('node')),
    podIP: str,
    podIPs: mergeList(podIp('pod'), 'ip'),
    startTime: time,
    initContainerStatuses: atomicList(containerStatus),
    containerStatuses: atomicList(containerStatus),
    ephemeralContainerStatuses: atomicList(containerStatus),
    qosClass: strEnum('Guaranteed', 'Burstable', 'BestEffort'),
    resize: str,
    resourceClaimStatuses: atomicList(anyValue),
  }),
  {
    observedGeneration: 'The metadata.generation of the pod this status was computed from.',
    phase:
      'Where the pod is in its life: Pending (accepted, not all containers started), Running (bound to a node, a container runs), Succeeded or Failed (all containers ended, for good), Unknown (its node cannot be reached).',
    conditions: 'Conditions of the pod: scheduled, initialized, containers ready, ready.',
    message: 'Readable details of why the pod is in this state.',
    reason: 'Short reason, in CamelCase, why the pod is in this state (Evicted, NodeLost).',
    nominatedNodeName: 'Node the scheduler means to run the pod on once the pods it preempts there are gone. Not a promise: the pod may end up elsewhere.',
    hostIP: 'Primary address of the node the pod runs on. Empty until the pod is bound.',
    hostIPs: 'Addresses of the node the pod runs on, the first being hostIP; one per address family at most.',
    podIP: 'Primary address of the pod. Empty until one is allocated.',
    podIPs: 'Addresses of the pod, the first being podIP; one per address family at most.',
    startTime: 'When the node agent accepted the pod, before its images were pulled.',
    initContainerStatuses: statuses('init'),
    containerStatuses: statuses('app'),
    ephemeralContainerStatuses: statuses('ephemeral'),
    qosClass:
      'Quality of service class, from the requests and limits of the containers: Guaranteed (limits equal requests for cpu and memory), Burstable, or BestEffort (none set). Set by the server on create.',
    resize: 'Progress of an in-place resize of the resources of the pod.',
    resourceClaimStatuses: 'Names of the claims made for the entries of spec.resourceClaims.',
  },
  'The state of a pod as last observed by its node agent and the scheduler. It may lag behind.',
);
