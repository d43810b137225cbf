// PodSpec, PodTemplateSpec and PodStatus schemas, and (from pod-spec-rules.ts) the pod
// defaulting and validation rules shared by pods, pod templates and every workload controller
// that embeds a template.

import { conditionList, embeddedObjectMeta, labelSelector, localObjectReference, resourceRequirements, typedLocalObjectReference } from './meta.js';
import { anyValue, atomicList, bool, int32, int64, intOrString, mapList, mergeList, obj, partial, quantity, quantityMap, str, strEnum, strMap, time } from './schema.js';
import type { JsonSchema } from '../../../api/types.js';

export { defaultPodOnly, defaultPodSpec, defaultPodTemplate, defaultPullPolicy, podQosClass, validatePodSpec, validatePodTemplate } from './pod-spec-rules.js';

const keyToPath = obj({ key: str, path: str, mode: int32 }, ['key', 'path']);
const optionalKeyRef = obj({ name: str, key: str, optional: bool }, ['key'], { 'x-kubernetes-map-type': 'atomic' });
const objectFieldSelector = obj({ apiVersion: str, fieldPath: str }, ['fieldPath'], { 'x-kubernetes-map-type': 'atomic' });
const resourceFieldSelector = obj({ containerName: str, resource: str, divisor: quantity }, ['resource'], { 'x-kubernetes-map-type': 'atomic' });

const envVar = obj(
  {
    name: str,
    value: str,
    valueFrom: obj({ fieldRef: objectFieldSelector, resourceFieldRef: resourceFieldSelector, configMapKeyRef: optionalKeyRef, secretKeyRef: optionalKeyRef }),
  },
  ['name'],
);

const envFromSource = obj({
  prefix: str,
  configMapRef: obj({ name: str, optional: bool }, undefined, { 'x-kubernetes-map-type': 'atomic' }),
  secretRef: obj({ name: str, optional: bool }, undefined, { 'x-kubernetes-map-type': 'atomic' }),
});

const containerPort = obj({ name: str, hostPort: int32, containerPort: int32, protocol: strEnum('TCP', 'UDP', 'SCTP'), hostIP: str }, ['containerPort']);

const execAction = obj({ command: atomicList(str) });
const httpGetAction = obj({ path: str, port: intOrString, host: str, scheme: strEnum('HTTP', 'HTTPS'), httpHeaders: atomicList(obj({ name: str, value: str }, ['name', 'value'])) }, ['port']);
const tcpSocketAction = obj({ port: intOrString, host: str }, ['port']);
const grpcAction = obj({ port: int32, service: str }, ['port']);

const probe = obj({
  exec: execAction,
  httpGet: httpGetAction,
  tcpSocket: tcpSocketAction,
  grpc: grpcAction,
  initialDelaySeconds: int32,
  timeoutSeconds: int32,
  periodSeconds: int32,
  successThreshold: int32,
  failureThreshold: int32,
  terminationGracePeriodSeconds: int64,
});

const lifecycleHandler = obj({ exec: execAction, httpGet: httpGetAction, tcpSocket: tcpSocketAction, sleep: obj({ seconds: int64 }, ['seconds']) });

export const seLinuxOptions: JsonSchema = obj({ user: str, role: str, type: str, level: str });
const windowsOptions = obj({ gmsaCredentialSpecName: str, gmsaCredentialSpec: str, runAsUserName: str, hostProcess: bool });
const seccompProfile = obj({ type: strEnum('Unconfined', 'RuntimeDefault', 'Localhost'), localhostProfile: str }, ['type']);
const appArmorProfile = obj({ type: strEnum('Unconfined', 'RuntimeDefault', 'Localhost'), localhostProfile: str }, ['type']);

const securityContext = obj({
  capabilities: obj({ add: atomicList(str), drop: atomicList(str) }),
  privileged: bool,
  seLinuxOptions,
  windowsOptions,
  runAsUser: int64,
  runAsGroup: int64,
  runAsNonRoot: bool,
  readOnlyRootFilesystem: bool,
  allowPrivilegeEscalation: bool,
  procMount: strEnum('Default', 'Unmasked'),
  seccompProfile,
  appArmorProfile,
});

const podSecurityContext = obj({
  seLinuxOptions,
  windowsOptions,
  runAsUser: int64,
  runAsGroup: int64,
  runAsNonRoot: bool,
  supplementalGroups: atomicList(int64),
  supplementalGroupsPolicy: strEnum('Merge', 'Strict'),
  fsGroup: int64,
  fsGroupChangePolicy: strEnum('OnRootMismatch', 'Always'),
  sysctls: atomicList(obj({ name: str, value: str }, ['name', 'value'])),
  seccompProfile,
  appArmorProfile,
});

const containerProps: Record<string, JsonSchema> = {
  name: str,
  image: str,
  command: atomicList(str),
  args: atomicList(str),
  workingDir: str,
  ports: mapList(containerPort, ['containerPort', 'protocol'], 'containerPort'),
  envFrom: atomicList(envFromSource),
  env: mapList(envVar, ['name']),
  resources: resourceRequirements,
  resizePolicy: atomicList(obj({ resourceName: str, restartPolicy: str }, ['resourceName', 'restartPolicy'])),
  restartPolicy: strEnum('Always'),
  volumeMounts: mergeList(
    obj({ name: str, readOnly: bool, recursiveReadOnly: str, mountPath: str, subPath: str, mountPropagation: strEnum('None', 'HostToContainer', 'Bidirectional'), subPathExpr: str }, [
      'name',
      'mountPath',
    ]),
    'mountPath',
  ),
  volumeDevices: mergeList(obj({ name: str, devicePath: str }, ['name', 'devicePath']), 'devicePath'),
  livenessProbe: probe,
  readinessProbe: probe,
  startupProbe: probe,
  lifecycle: obj({ postStart: lifecycleHandler, preStop: lifecycleHandler, stopSignal: str }),
  terminationMessagePath: str,
  terminationMessagePolicy: strEnum('File', 'FallbackToLogsOnError'),
  imagePullPolicy: strEnum('Always', 'Never', 'IfNotPresent'),
  securityContext,
  stdin: bool,
  stdinOnce: bool,
  tty: bool,
};

export const container: JsonSchema = obj(containerProps, ['name']);
const ephemeralContainer: JsonSchema = obj({ ...containerProps, targetContainerName: str }, ['name']);

const downwardAPIFile = obj({ path: str, fieldRef: objectFieldSelector, resourceFieldRef: resourceFieldSelector, mode: int32 }, ['path']);

/** PersistentVolumeClaimSpec, shared by PVCs, StatefulSet claim templates and ephemeral volumes. */
export const persistentVolumeClaimSpec: JsonSchema = obj({
  accessModes: atomicList(strEnum('ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod')),
  selector: labelSelector,
  resources: obj({ limits: quantityMap, requests: quantityMap }),
  volumeName: str,
  storageClassName: str,
  volumeMode: strEnum('Block', 'Filesystem'),
  dataSource: typedLocalObjectReference,
  dataSourceRef: obj({ apiGroup: str, kind: str, name: str, namespace: str }, ['kind', 'name']),
  volumeAttributesClassName: str,
});

/**
 * Volume: the common in-tree sources are modelled; the many vendor sources (rbd, cephfs, ...)
 * are kept as sent, so the item is partial.
 */
export const volume: JsonSchema = partial(
  {
    name: str,
    emptyDir: obj({ medium: str, sizeLimit: quantity }),
    hostPath: obj({ path: str, type: strEnum('', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice') }, ['path']),
    secret: obj({ secretName: str, items: atomicList(keyToPath), defaultMode: int32, optional: bool }),
    configMap: obj({ name: str, items: atomicList(keyToPath), defaultMode: int32, optional: bool }),
    persistentVolumeClaim: obj({ claimName: str, readOnly: bool }, ['claimName']),
    downwardAPI: obj({ items: atomicList(downwardAPIFile), defaultMode: int32 }),
    projected: obj({
      defaultMode: int32,
      sources: atomicList(
        obj({
          secret: obj({ name: str, items: atomicList(keyToPath), optional: bool }),
          configMap: obj({ name: str, items: atomicList(keyToPath), optional: bool }),
          downwardAPI: obj({ items: atomicList(downwardAPIFile) }),
          serviceAccountToken: obj({ audience: str, expirationSeconds: int64, path: str }, ['path']),
          clusterTrustBundle: partial({ path: str }, ['path']),
        }),
      ),
    }),
    nfs: obj({ server: str, path: str, readOnly: bool }, ['server', 'path']),
    csi: obj({ driver: str, readOnly: bool, fsType: str, volumeAttributes: strMap, nodePublishSecretRef: localObjectReference }, ['driver']),
    ephemeral: obj({ volumeClaimTemplate: obj({ metadata: embeddedObjectMeta, spec: persistentVolumeClaimSpec }, ['spec']) }),
  },
  ['name'],
);

const nodeSelectorRequirement = obj({ key: str, operator: strEnum('In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'), values: atomicList(str) }, ['key', 'operator']);
export const nodeSelectorTerm: JsonSchema = obj({ matchExpressions: atomicList(nodeSelectorRequirement), matchFields: atomicList(nodeSelectorRequirement) }, undefined, {
  'x-kubernetes-map-type': 'atomic',
});
export const nodeSelector: JsonSchema = obj({ nodeSelectorTerms: atomicList(nodeSelectorTerm) }, ['nodeSelectorTerms'], { 'x-kubernetes-map-type': 'atomic' });
const podAffinityTerm = obj({ labelSelector, namespaces: atomicList(str), topologyKey: str, namespaceSelector: labelSelector, matchLabelKeys: atomicList(str), mismatchLabelKeys: atomicList(str) }, [
  'topologyKey',
]);
const weightedPodAffinityTerm = obj({ weight: int32, podAffinityTerm }, ['weight', 'podAffinityTerm']);
const podAffinity = obj({ requiredDuringSchedulingIgnoredDuringExecution: atomicList(podAffinityTerm), preferredDuringSchedulingIgnoredDuringExecution: atomicList(weightedPodAffinityTerm) });

export const affinity: JsonSchema = obj({
  nodeAffinity: obj({
    requiredDuringSchedulingIgnoredDuringExecution: nodeSelector,
    preferredDuringSchedulingIgnoredDuringExecution: atomicList(obj({ weight: int32, preference: nodeSelectorTerm }, ['weight', 'preference'])),
  }),
  podAffinity,
  podAntiAffinity: podAffinity,
});

export const toleration: JsonSchema = obj({
  key: str,
  operator: strEnum('Exists', 'Equal', ''),
  value: str,
  effect: strEnum('NoSchedule', 'PreferNoSchedule', 'NoExecute', ''),
  tolerationSeconds: int64,
});

export const podSpec: JsonSchema = obj(
  {
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
    hostAliases: mapList(obj({ ip: str, hostnames: atomicList(str) }, ['ip']), ['ip']),
    priorityClassName: str,
    priority: int32,
    dnsConfig: obj({ nameservers: atomicList(str), searches: atomicList(str), options: atomicList(obj({ name: str, value: str })) }),
    readinessGates: atomicList(obj({ conditionType: str }, ['conditionType'])),
    runtimeClassName: str,
    enableServiceLinks: bool,
    preemptionPolicy: strEnum('PreemptLowerPriority', 'Never'),
    overhead: quantityMap,
    topologySpreadConstraints: mapList(
      obj(
        {
          maxSkew: int32,
          topologyKey: str,
          whenUnsatisfiable: strEnum('DoNotSchedule', 'ScheduleAnyway'),
          labelSelector,
          minDomains: int32,
          nodeAffinityPolicy: strEnum('Honor', 'Ignore'),
          nodeTaintsPolicy: strEnum('Honor', 'Ignore'),
          matchLabelKeys: atomicList(str),
        },
        ['maxSkew', 'topologyKey', 'whenUnsatisfiable'],
      ),
      ['topologyKey', 'whenUnsatisfiable'],
    ),
    setHostnameAsFQDN: bool,
    os: obj({ name: strEnum('linux', 'windows') }, ['name']),
    hostUsers: bool,
    schedulingGates: mapList(obj({ name: str }, ['name']), ['name']),
    resourceClaims: mapList(partial({ name: str }, ['name']), ['name']),
    resources: resourceRequirements,
  },
  ['containers'],
);

export const podTemplateSpec: JsonSchema = obj({ metadata: embeddedObjectMeta, spec: podSpec });

const containerState = obj({
  waiting: obj({ reason: str, message: str }),
  running: obj({ startedAt: time }),
  terminated: obj({ exitCode: int32, signal: int32, reason: str, message: str, startedAt: time, finishedAt: time, containerID: str }, ['exitCode']),
});

/** Newer kubelets report extra fields (allocatedResources, user, volumeMounts); kept as sent. */
const containerStatus = partial({ name: str, state: containerState, lastState: containerState, ready: bool, restartCount: int32, image: str, imageID: str, containerID: str, started: bool }, [
  'name',
  'ready',
  'restartCount',
  'image',
  'imageID',
]);

export const podStatus: JsonSchema = obj({
  observedGeneration: int64,
  phase: strEnum('Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'),
  conditions: conditionList(
    obj({ type: str, observedGeneration: int64, status: str, lastProbeTime: { type: ['string', 'null'], format: 'date-time' }, lastTransitionTime: time, reason: str, message: str }, [
      'type',
      'status',
    ]),
  ),
  message: str,
  reason: str,
  nominatedNodeName: str,
  hostIP: str,
  hostIPs: atomicList(obj({ ip: str }, ['ip'])),
  podIP: str,
  podIPs: mergeList(obj({ ip: str }, ['ip']), 'ip'),
  startTime: time,
  initContainerStatuses: atomicList(containerStatus),
  containerStatuses: atomicList(containerStatus),
  ephemeralContainerStatuses: atomicList(containerStatus),
  qosClass: strEnum('Guaranteed', 'Burstable', 'BestEffort'),
  resize: str,
  resourceClaimStatuses: atomicList(anyValue),
});
