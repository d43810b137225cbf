// The container of a pod (and of every pod template): image and command, environment, ports,
// probes, lifecycle hooks, mounts and resources. Ephemeral containers share the same fields.

import { resourceRequirements } from './meta.js';
import { atomicList, bool, described, int32, int64, intOrString, mapList, mergeList, obj, quantity, str, strEnum } from './schema.js';
import { securityContext } from './security-context.js';
import type { JsonSchema } from '../../../api/types.js';

export const objectFieldSelector: JsonSchema = described(
  obj({ apiVersion: str, fieldPath: str }, ['fieldPath'], { 'x-kubernetes-map-type': 'atomic' }),
  {
    apiVersion: 'Version the field path is written in. Defaults to v1.',
    fieldPath:
      "Pod field to read: metadata.name, metadata.namespace, metadata.uid, metadata.labels['<key>'], metadata.annotations['<key>'], and for environment variables also spec.nodeName, spec.serviceAccountName, status.hostIP(s) and status.podIP(s).",
  },
  'A field of the pod, read when the container starts.',
);

export const resourceFieldSelector: JsonSchema = described(
  obj({ containerName: str, resource: str, divisor: quantity }, ['resource'], { 'x-kubernetes-map-type': 'atomic' }),
  {
    containerName: 'Container whose resources are read. Required in volumes; in an environment variable it defaults to the container itself.',
    resource: 'Resource to read: limits.cpu, limits.memory, limits.ephemeral-storage, requests.cpu, requests.memory or requests.ephemeral-storage.',
    divisor: 'Unit the value is given in, such as 1m for millicores or 1Mi for mebibytes; the value is rounded up to it. Defaults to 1.',
  },
  'A limit or request of a container, read when the container starts.',
);

const keyRef = described(
  obj({ name: str, key: str, optional: bool }, ['key'], { 'x-kubernetes-map-type': 'atomic' }),
  {
    name: 'Name of the object, in the namespace of the pod.',
    key: 'Key whose value becomes the value of the variable.',
    optional: 'When true the container starts even if the object or the key is missing, and the variable is left out. Defaults to false.',
  },
  'One key of a ConfigMap or Secret.',
);

const envVar = described(
  obj(
    {
      name: str,
      value: str,
      valueFrom: described(obj({ fieldRef: objectFieldSelector, resourceFieldRef: resourceFieldSelector, configMapKeyRef: keyRef, secretKeyRef: keyRef }), {
        fieldRef: 'Take the value from a field of the pod.',
        resourceFieldRef: 'Take the value from a limit or request of a container.',
        configMapKeyRef: 'Take the value from a key of a ConfigMap.',
        secretKeyRef: 'Take the value from a key of a Secret.',
      }),
    },
    ['name'],
  ),
  {
    name: 'Name of the variable.',
    value:
      'Value of the variable. $(NAME) is replaced by the value of a variable defined earlier in the list (or by the service environment); $$ gives a literal $, and an unknown reference is left as written. Defaults to an empty string.',
    valueFrom: 'Where to read the value from instead of giving it in value: exactly one source. Cannot be combined with value.',
  },
  'An environment variable of a container.',
);

const sourceRef = (what: string): JsonSchema =>
  described(obj({ name: str, optional: bool }, undefined, { 'x-kubernetes-map-type': 'atomic' }), {
    name: `Name of the ${what}, in the namespace of the pod.`,
    optional: `When true the container starts even if the ${what} is missing. Defaults to false.`,
  });

const envFromSource = described(
  obj({ prefix: str, configMapRef: sourceRef('ConfigMap'), secretRef: sourceRef('Secret') }),
  {
    prefix: 'Text put in front of every key to make the name of its variable.',
    configMapRef: 'ConfigMap whose keys all become variables.',
    secretRef: 'Secret whose keys all become variables.',
  },
  'A ConfigMap or Secret all of whose keys become environment variables. Keys that are not valid variable names are skipped.',
);

const containerPort = described(
  obj({ name: str, hostPort: int32, containerPort: int32, protocol: strEnum('TCP', 'UDP', 'SCTP'), hostIP: str }, ['containerPort']),
  {
    name: 'Name services and probes can use for the port: an IANA service name (at most 15 lower-case letters, digits and dashes), unique in the pod.',
    hostPort: 'Port on the node that forwards to this port, 1 to 65535. Rarely needed; with hostNetwork it must equal containerPort and defaults to it.',
    containerPort: 'Port the container listens on at the pod IP, 1 to 65535.',
    protocol: 'TCP, UDP or SCTP. Defaults to TCP.',
    hostIP: 'Node address the host port is bound to.',
  },
  'A network port of a container.',
);

const execAction = described(
  obj({ command: atomicList(str) }),
  {
    command:
      'Command to run inside the container: the first item is the program, the rest its arguments. It is not run in a shell and its working directory is /. An exit status of 0 counts as success.',
  },
  'Runs a command inside the container.',
);

const httpGetAction = described(
  obj(
    {
      path: str,
      port: intOrString,
      host: str,
      scheme: strEnum('HTTP', 'HTTPS'),
      httpHeaders: atomicList(described(obj({ name: str, value: str }, ['name', 'value']), { name: 'Header name.', value: 'Header value.' })),
    },
    ['port'],
  ),
  {
    path: 'Path to request. Defaults to /.',
    port: 'Port to connect to: a number from 1 to 65535 or the name of a container port.',
    host: 'Host to connect to. Defaults to the pod IP; to send a Host header, use httpHeaders instead.',
    scheme: 'HTTP or HTTPS (certificates are not verified). Defaults to HTTP.',
    httpHeaders: 'Extra headers to send with the request.',
  },
  'Sends an HTTP GET request to the container. A status from 200 to 399 counts as success.',
);

const tcpSocketAction = described(
  obj({ port: intOrString, host: str }, ['port']),
  { port: 'Port to connect to: a number from 1 to 65535 or the name of a container port.', host: 'Host to connect to. Defaults to the pod IP.' },
  'Opens a TCP connection to the container. Success means the connection was accepted.',
);

const grpcAction = described(
  obj({ port: int32, service: str }, ['port']),
  {
    port: 'Port of the gRPC server, 1 to 65535.',
    service: 'Service name put in the health check request. Empty asks about the server as a whole.',
  },
  'Calls the standard gRPC health checking service of the container. SERVING counts as success.',
);

const probe = described(
  obj({
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
  }),
  {
    exec: 'Check by running a command in the container.',
    httpGet: 'Check with an HTTP GET request.',
    tcpSocket: 'Check by opening a TCP connection.',
    grpc: 'Check with a gRPC health check call.',
    initialDelaySeconds: 'Seconds to wait after the container started before the first check. Defaults to 0.',
    timeoutSeconds: 'Seconds a check may take before it counts as failed. Defaults to 1; at least 1.',
    periodSeconds: 'Seconds between two checks. Defaults to 10; at least 1.',
    successThreshold: 'Successes in a row, after a failure, for the probe to pass again. Defaults to 1; must be 1 for liveness and startup probes.',
    failureThreshold: 'Failures in a row for the probe to fail. Defaults to 3; at least 1.',
    terminationGracePeriodSeconds:
      'Seconds the container gets to stop after this probe failed, in place of the terminationGracePeriodSeconds of the pod. Liveness and startup probes only; at least 1.',
  },
  'A periodic check of a container by the node agent. Exactly one of exec, httpGet, tcpSocket and grpc is given.',
);

const lifecycleHandler = described(
  obj({ exec: execAction, httpGet: httpGetAction, tcpSocket: tcpSocketAction, sleep: described(obj({ seconds: int64 }, ['seconds']), { seconds: 'Seconds to sleep.' }) }),
  {
    exec: 'Run a command in the container.',
    httpGet: 'Send an HTTP GET request to the container.',
    tcpSocket: 'Accepted for compatibility but never run: a hook cannot be a TCP check.',
    sleep: 'Wait for a number of seconds.',
  },
  'An action run at a point of the life of a container. Exactly one of its fields is given.',
);

const lifecycle = described(
  obj({ postStart: lifecycleHandler, preStop: lifecycleHandler, stopSignal: str }),
  {
    postStart:
      'Run right after the container was created, alongside its entrypoint. The container is not running until it completes; if it fails, the container is killed and restarted as restartPolicy says.',
    preStop:
      'Run before the container is stopped by a deletion, a failed probe or preemption (not when it ends on its own). The grace period counts down while it runs; the stop signal is sent after it.',
    stopSignal: 'Signal that stops the container (SIGTERM, SIGUSR1, ...), in place of the one the image names.',
  },
  'Actions the node agent runs when a container starts and before it stops.',
);

const volumeMount = described(
  obj({ name: str, readOnly: bool, recursiveReadOnly: str, mountPath: str, subPath: str, mountPropagation: strEnum('None', 'HostToContainer', 'Bidirectional'), subPathExpr: str }, [
    'name',
    'mountPath',
  ]),
  {
    name: 'Name of the pod volume to mount.',
    readOnly: 'Mount the volume read-only. Defaults to false.',
    recursiveReadOnly: 'Whether a read-only mount is read-only in its submounts too: Disabled (the default), IfPossible or Enabled.',
    mountPath: 'Path in the container where the volume appears. Must not contain a colon.',
    subPath: 'Path inside the volume to mount instead of its root. Defaults to the root.',
    mountPropagation: 'Whether mounts made later are shared: None (the default), HostToContainer (the host to the container), or Bidirectional (both ways; privileged containers only).',
    subPathExpr: 'Like subPath, but $(VAR) references to variables of the container are expanded first. Cannot be combined with subPath.',
  },
  'A volume of the pod mounted into the filesystem of a container.',
);

const volumeDevice = described(
  obj({ name: str, devicePath: str }, ['name', 'devicePath']),
  { name: 'Name of a pod volume backed by a claim in Block mode.', devicePath: 'Path in the container where the raw device appears.' },
  'A raw block volume given to a container as a device.',
);

const resizePolicy = described(
  obj({ resourceName: str, restartPolicy: str }, ['resourceName', 'restartPolicy']),
  { resourceName: 'Resource the policy is for: cpu or memory.', restartPolicy: 'What a change of the resource needs: NotRequired (applied in place) or RestartContainer.' },
  'What changing one resource of a running container requires.',
);

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
  resizePolicy: atomicList(resizePolicy),
  restartPolicy: strEnum('Always'),
  volumeMounts: mergeList(volumeMount, 'mountPath'),
  volumeDevices: mergeList(volumeDevice, 'devicePath'),
  livenessProbe: probe,
  readinessProbe: probe,
  startupProbe: probe,
  lifecycle,
  terminationMessagePath: str,
  terminationMessagePolicy: strEnum('File', 'FallbackToLogsOnError'),
  imagePullPolicy: strEnum('Always', 'Never', 'IfNotPresent'),
  securityContext,
  stdin: bool,
  stdinOnce: bool,
  tty: bool,
};

const containerDocs = {
  name: 'Name of the container: a DNS label, unique among all containers of the pod. Cannot be changed.',
  image:
    'Image to run, as a registry reference (`registry.example/app:1.2` or with an `@sha256:` digest). Required in pods; templates may leave it to be filled in later. The one container field a pod update may change.',
  command: 'Program to run, in place of the ENTRYPOINT of the image. Not run in a shell. $(VAR) references to variables of the container are expanded; $$ gives a literal $. Cannot be changed.',
  args: 'Arguments of the program, in place of the CMD of the image. Expanded like command. Cannot be changed.',
  workingDir: 'Working directory of the program. Defaults to the one the image names. Cannot be changed.',
  ports:
    'Ports the container listens on. Listing a port is informational (any port the container opens is reachable from the cluster) but gives it a name that services and probes can use. Cannot be changed.',
  envFrom: 'ConfigMaps and Secrets whose keys all become environment variables. A variable in env wins over one from here; between sources, the later one wins. Cannot be changed.',
  env: 'Environment variables of the container. Cannot be changed.',
  resources: 'Compute resources the container asks for and may not exceed.',
  resizePolicy: 'For each resource, whether changing it on a running container needs a restart.',
  restartPolicy: 'Only for init containers: Always turns the init container into a sidecar that starts before the app containers and keeps running beside them.',
  volumeMounts: 'Volumes of the pod to mount into the filesystem of the container. Cannot be changed.',
  volumeDevices: 'Block volumes of the pod the container gets as raw devices.',
  livenessProbe: 'Check of whether the container still works. When it fails the node agent restarts the container. Cannot be changed.',
  readinessProbe: 'Check of whether the container can take traffic. While it fails the pod is not Ready and no service sends it requests. Cannot be changed.',
  startupProbe: 'Check of whether the container has finished starting. Until it passes, the other probes do not run; if it fails, the container is restarted. For slow starters. Cannot be changed.',
  lifecycle: 'Actions the node agent runs right after the container starts and before it stops. Cannot be changed.',
  terminationMessagePath:
    'File in the container whose contents, when the container ends, become the message of its terminated state (the first 4096 bytes). Defaults to /dev/termination-log. Cannot be changed.',
  terminationMessagePolicy:
    'File (the default) reports only the file at terminationMessagePath; FallbackToLogsOnError uses the last lines of the log when the file is empty and the container failed. Cannot be changed.',
  imagePullPolicy:
    'When the node pulls the image: Always, IfNotPresent or Never. Defaults to Always for an image tagged :latest or not tagged, and to IfNotPresent otherwise (and for an image given by digest). Cannot be changed.',
  securityContext: 'Security settings of the container. Where the pod sets the same thing, the value here wins.',
  stdin: 'Keep a standard input open for the container, for clients that attach. When false, reading it returns end-of-file. Defaults to false.',
  stdinOnce: 'Close the standard input once the first attached client detaches; the container then reads end-of-file until it restarts. Only with stdin. Defaults to false.',
  tty: 'Give the container a terminal; needs stdin too. Defaults to false.',
};

export const container: JsonSchema = described(
  obj(containerProps, ['name']),
  containerDocs,
  'One container of a pod: the image it runs, its environment, and how the node agent starts, checks and stops it.',
);

export const ephemeralContainer: JsonSchema = described(
  obj({ ...containerProps, targetContainerName: str }, ['name']),
  {
    ...containerDocs,
    targetContainerName: 'Container of the pod whose namespaces (its processes, for a start) this container joins. Empty joins only the namespaces the pod shares. Cannot be changed.',
  },
  'A container added to a running pod, through its ephemeralcontainers subresource, to inspect it. It is never restarted and may not have ports, probes, lifecycle hooks or resources.',
);
