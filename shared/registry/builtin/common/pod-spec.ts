// PodSpec and PodTemplateSpec schemas, and (from pod-spec-rules.ts) the pod defaulting and
// validation rules shared by pods, pod templates and every workload controller that embeds a
// template. The parts: container (containers, probes, env), security-context, volume,
// pod-scheduling (affinity, tolerations, spread) and pod-status.

import { container, ephemeralContainer } from './container.js';
import { embeddedObjectMeta, localObjectReference, resourceRequirements } from './meta.js';
import { affinity, toleration, topologySpreadConstraint } from './pod-scheduling.js';
import { atomicList, bool, described, int32, int64, mapList, obj, partial, quantityMap, str, strEnum, strMap } from './schema.js';
import { podSecurityContext } from './security-context.js';
import { volume } from './volume.js';
import type { JsonSchema } from '../../../api/types.js';

export { defaultPodOnly, defaultPodSpec, defaultPodTemplate, defaultPullPolicy, podQosClass, validatePodSpec, validatePodTemplate } from './pod-spec-rules.js';
export { container } from './container.js';
export { affinity, nodeSelector, nodeSelectorTerm, toleration } from './pod-scheduling.js';
export { podStatus } from './pod-status.js';
export { seLinuxOptions } from './security-context.js';
export { persistentVolumeClaimSpec, volume } from './volume.js';

const podSpecProps = {
  volumes: { ...mapList(volume, ['name']), 'x-kubernetes-patch-strategy': 'merge,retainKeys' },
  initContainers: mapList(container, ['name']),
  containers: mapList(container, ['name']),
  ephemeralContainers: mapList(ephemeralContainer, ['name']),
  restartPolicy: strEnum('Always', 'OnFailure', 'Never'),
  terminationGracePeriodSeconds: int64,
  activeDeadlineSeconds: int64,
  dnsPolicy: strEnum('ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'),
  nodeSelector: { ...strMap, 'x-kubernetes-map-type': 'atomic' },
  serviceAccountName: str,
  serviceAccount: str,
  automountServiceAccountToken: bool,
  nodeName: str,
  hostNetwork: bool,
  hostPID: bool,
  hostIPC: bool,
  shareProcessNamespace: bool,
  securityContext: podSecurityContext,
  imagePullSecrets: mapList(localObjectReference, ['name']),
  hostname: str,
  subdomain: str,
  affinity,
  schedulerName: str,
  tolerations: atomicList(toleration),
  hostAliases: mapList(described(obj({ ip: str, hostnames: atomicList(str) }, ['ip']), { ip: 'Address the names resolve to.', hostnames: 'Names to add for the address.' }), ['ip']),
  priorityClassName: str,
  priority: int32,
  dnsConfig: described(
    obj({
      nameservers: atomicList(str),
      searches: atomicList(str),
      options: atomicList(described(obj({ name: str, value: str }), { name: 'Name of the resolver option (ndots, timeout, ...).', value: 'Value of the option, if it takes one.' })),
    }),
    {
      nameservers: 'Addresses of DNS servers, added to those the policy gives (at most 3 in all).',
      searches: 'Search domains, added to those the policy gives (at most 32).',
      options: 'Resolver options; one given here replaces the option of the same name from the policy.',
    },
  ),
  readinessGates: atomicList(described(obj({ conditionType: str }, ['conditionType']), { conditionType: 'Type of a condition in the status of the pod that must be True.' })),
  runtimeClassName: str,
  enableServiceLinks: bool,
  preemptionPolicy: strEnum('PreemptLowerPriority', 'Never'),
  overhead: quantityMap,
  topologySpreadConstraints: mapList(topologySpreadConstraint, ['topologyKey', 'whenUnsatisfiable']),
  setHostnameAsFQDN: bool,
  os: described(obj({ name: strEnum('linux', 'windows') }, ['name']), { name: 'linux or windows.' }),
  hostUsers: bool,
  schedulingGates: mapList(described(obj({ name: str }, ['name']), { name: 'Name of the gate, unique in the pod.' }), ['name']),
  resourceClaims: mapList(described(partial({ name: str }, ['name']), { name: 'Name containers use in resources.claims to refer to this claim.' }), ['name']),
  resources: resourceRequirements,
};

export const podSpec: JsonSchema = described(
  obj(podSpecProps, ['containers']),
  {
    volumes: 'Volumes the containers of the pod can mount, by name.',
    initContainers:
      'Containers run one at a time, in order, before the app containers start; each must end successfully before the next starts. A failed one is retried as restartPolicy says. Init containers with restartPolicy Always are sidecars that keep running.',
    containers: 'The app containers of the pod, started together once the init containers are done. At least one. Containers cannot be added or removed later.',
    ephemeralContainers: 'Debugging containers added to the running pod. They are added through the ephemeralcontainers subresource, never on create, and cannot be removed.',
    restartPolicy:
      'What the node agent does when a container ends: Always restarts it, OnFailure restarts it only after a non-zero exit, Never leaves it. Restarts back off exponentially up to five minutes. Defaults to Always.',
    terminationGracePeriodSeconds:
      'Seconds the containers get to stop after a deletion: they first receive their stop signal (after the preStop hooks) and are killed when the time is up. Defaults to 30; 0 stops them at once.',
    activeDeadlineSeconds: 'Seconds the pod may be active on a node, counted from its start, before it is failed and its containers are stopped. A positive number; may only be lowered later.',
    dnsPolicy:
      'How the pod resolves names: ClusterFirst (the cluster DNS, then the node resolver for other domains), ClusterFirstWithHostNet (the same for pods on the host network), Default (the resolver of the node), or None (only dnsConfig). Defaults to ClusterFirst.',
    nodeSelector: 'Labels a node must carry, with these values, for the pod to run there.',
    serviceAccountName: 'Service account the pod runs as; its token is what the containers get. Defaults to the service account named default of the namespace.',
    serviceAccount: 'Deprecated spelling of serviceAccountName, kept in step with it by the server.',
    automountServiceAccountToken: 'Whether a token of the service account is mounted into the containers. Unset follows the setting of the service account.',
    nodeName: 'Node the pod is bound to. Normally set by the scheduler through the binding subresource; given on create it skips scheduling.',
    hostNetwork: 'Use the network of the node instead of a network of its own: the pod sees the interfaces of the host, and its container ports are host ports. Defaults to false.',
    hostPID: 'Use the process namespace of the node, so containers see the processes of the host. Defaults to false.',
    hostIPC: 'Use the IPC namespace of the node. Defaults to false.',
    shareProcessNamespace: 'Put all containers of the pod in one process namespace, so they see and can signal each other; the first process is not PID 1. Defaults to false.',
    securityContext: 'Security settings of the pod, and defaults for those of its containers.',
    imagePullSecrets: 'Secrets in the namespace of the pod holding registry credentials the node uses to pull the images.',
    hostname: 'Host name the pod sees. Defaults to the name of the pod.',
    subdomain: 'When set, the fully qualified name of the pod is `<hostname>.<subdomain>.<namespace>.svc.<cluster domain>`, served by a headless service of that name.',
    affinity: 'Rules about the nodes and the neighbouring pods the pod may or prefers to run with.',
    schedulerName: 'Scheduler that places the pod. Defaults to default-scheduler.',
    tolerations: 'Node taints the pod tolerates. May be added to while the pod exists, never removed.',
    hostAliases: 'Entries added to the /etc/hosts file of the pod.',
    priorityClassName: 'PriorityClass of the pod, which gives it its priority. Without one the pod gets the global default class, or priority 0.',
    priority: 'Priority of the pod, set by the Priority admission plugin from priorityClassName. A higher number is scheduled first and may preempt lower ones.',
    dnsConfig: 'DNS settings merged into those dnsPolicy gives; with dnsPolicy None, all of them.',
    readinessGates: 'Further conditions of the pod that must be True for it to be Ready, set by other controllers.',
    runtimeClassName: 'RuntimeClass whose handler runs the containers. Without one the default handler of the node is used.',
    enableServiceLinks: 'Whether the containers get environment variables about the services of the namespace (like Docker links). Defaults to true for pods.',
    preemptionPolicy: 'PreemptLowerPriority (the default) lets the pod preempt pods of lower priority; Never does not. Normally set from the PriorityClass.',
    overhead: 'Resources the runtime itself uses for the pod, on top of those of its containers. Set from the RuntimeClass on create.',
    topologySpreadConstraints: 'How the pod is spread, with matching pods, over zones, nodes and other domains.',
    setHostnameAsFQDN: 'Make the host name of the pod its fully qualified name rather than the short one. Defaults to false.',
    os: 'Operating system the pod needs; used for validation and scheduling.',
    hostUsers: 'Whether the pod uses the user namespace of the host. False gives the pod a user namespace of its own. Defaults to true.',
    schedulingGates: 'Gates that keep the pod from being scheduled while any remains. Only set on create; later they can only be removed.',
    resourceClaims: 'Dynamically allocated resources the pod needs, which containers can then use.',
    resources: 'Resources of the pod as a whole, shared by its containers.',
  },
  'What a pod runs and how: its containers and volumes, where it may be scheduled, and its security and restart settings.',
);

export const podTemplateSpec: JsonSchema = described(
  obj({ metadata: embeddedObjectMeta, spec: podSpec }),
  {
    metadata: 'Labels and annotations of the pods made from the template. The labels must match the selector of the controller.',
    spec: 'Spec of the pods made from the template.',
  },
  'A template from which controllers make pods.',
);
