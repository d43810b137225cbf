// Pods' REST hooks, as upstream's pod REST storage serves them: `binding` (the scheduler's
// assignment of a pod to a node), and the connect subresources `log`, `exec`, `attach`,
// `portforward` and `proxy`. There is no node agent in this product: log/exec/attach/portforward
// check the pod and its container as upstream does, then answer what upstream answers when the
// node cannot be reached; `proxy` forwards to the pod's IP like upstream (which dials it directly).

import type { ApiObject } from '../../../api/types.js';
import { badRequest, conflict, failure, invalid, notFound, StatusReason, successStatus, type FieldError } from '../../../api/status.js';
import { nowTimestamp } from '../../../api/time.js';
import { admitConnect } from '../../rest/hooks.js';
import { type RestAction, type RestCluster, type RestRequest } from '../../types.js';
import { asArray, asObject } from '../common/field-errors.js';
import { forward, nodeConnection, proxyPath, splitSchemeNamePort } from './proxy.js';
import { required, unsupported } from '../../../api/field-errors.js';
import { cloneJson } from '../../../patch/json-value.js';

const PODS = { group: '', resource: 'pods' } as const;

async function podOf(req: RestRequest, cluster: RestCluster): Promise<ApiObject> {
  const pod = await cluster.get('', 'pods', req.namespace, req.name);
  if (!pod) throw notFound(PODS, req.name);
  return pod;
}

function containerNames(pod: ApiObject, field: 'containers' | 'initContainers' | 'ephemeralContainers'): string[] {
  return asArray(asObject(pod.spec)?.[field]).map((c) => String(asObject(c)?.name ?? ''));
}

/** The container a log or stream request addresses, as upstream resolves it (400 when ambiguous or unknown). */
export function resolveContainer(pod: ApiObject, requested: string | null): string {
  const name = pod.metadata.name ?? '';
  const main = containerNames(pod, 'containers');
  if (requested) {
    const all = [...main, ...containerNames(pod, 'initContainers'), ...containerNames(pod, 'ephemeralContainers')];
    if (!all.includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${name}`);
    return requested;
  }
  if (main.length === 1) return main[0]!;
  if (main.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
  let message = `a container name must be specified for pod ${name}, choose one of: [${main.join(' ')}]`;
  const init = containerNames(pod, 'initContainers');
  if (init.length) message += ` or one of the init containers: [${init.join(' ')}]`;
  throw badRequest(message);
}

function nodeNameOf(pod: ApiObject): string {
  return String(asObject(pod.spec)?.nodeName ?? '');
}

/** The node agent of a bound pod: the node must exist; with no agent to speak its protocol, 503. */
async function unreachableAgent(cluster: RestCluster, nodeName: string): Promise<never> {
  const node = await cluster.get('', 'nodes', undefined, nodeName);
  if (!node) throw notFound({ group: '', resource: 'nodes' }, nodeName);
  const { host, port } = nodeConnection(node);
  throw failure(503, StatusReason.ServiceUnavailable, `error trying to reach service: no node agent answers for node "${nodeName}" at ${host || '<no address>'}:${port}`);
}

/** GET pods/<name>/log: a pod not yet on a node has no log yet (an empty answer, as upstream). */
const log: RestAction = {
  verbs: ['get'],
  async handle(req, cluster) {
    const pod = await podOf(req, cluster);
    resolveContainer(pod, req.query.get('container'));
    const nodeName = nodeNameOf(pod);
    if (!nodeName) {
      cluster.hijack().writeHead(200, { 'content-type': 'text/plain' }).end();
      return { streamed: true };
    }
    return unreachableAgent(cluster, nodeName);
  },
};

const flag = (req: RestRequest, name: string): boolean => {
  const v = req.query.get(name);
  return v !== null && v !== 'false' && v !== '0';
};

/** The options object a connect request is admitted with, from its query as upstream decodes it. */
export function connectOptions(req: RestRequest): { kind: string; options: Record<string, unknown> } {
  switch (req.subresource) {
    case 'exec':
    case 'attach': {
      const options: Record<string, unknown> = { stdin: flag(req, 'stdin'), stdout: flag(req, 'stdout'), stderr: flag(req, 'stderr'), tty: flag(req, 'tty') };
      const container = req.query.get('container');
      if (container) options.container = container;
      if (req.subresource === 'exec') return { kind: 'PodExecOptions', options: { ...options, command: req.query.getAll('command') } };
      return { kind: 'PodAttachOptions', options };
    }
    case 'portforward':
      return {
        kind: 'PodPortForwardOptions',
        options: {
          ports: req.query
            .getAll('ports')
            .flatMap((p) => p.split(','))
            .filter(Boolean)
            .map(Number),
        },
      };
    default:
      return { kind: 'PodProxyOptions', options: { path: proxyPath(req) } };
  }
}

async function admitPodConnect(req: RestRequest, cluster: RestCluster): Promise<void> {
  const { kind, options } = connectOptions(req);
  await admitConnect(cluster, kind, options);
}

/** exec and attach: a container of a pod that runs on a node. */
const stream: RestAction = {
  verbs: ['create', 'get'],
  async handle(req, cluster) {
    await admitPodConnect(req, cluster);
    const pod = await podOf(req, cluster);
    resolveContainer(pod, req.query.get('container'));
    const nodeName = nodeNameOf(pod);
    if (!nodeName) throw badRequest(`pod ${req.name} does not have a host assigned`);
    return unreachableAgent(cluster, nodeName);
  },
};

const portforward: RestAction = {
  verbs: ['create', 'get'],
  async handle(req, cluster) {
    await admitPodConnect(req, cluster);
    const nodeName = nodeNameOf(await podOf(req, cluster));
    if (!nodeName) throw badRequest(`pod ${req.name} does not have a host assigned`);
    return unreachableAgent(cluster, nodeName);
  },
};

/** pods/<name>[:port]/proxy/<path>: forwarded to the pod's IP. */
const proxy: RestAction = {
  verbs: ['create', 'delete', 'get', 'patch', 'update'],
  async handle(req, cluster) {
    await admitPodConnect(req, cluster);
    const [scheme, name, port] = splitSchemeNamePort(req.name);
    const pod = await cluster.get('', 'pods', req.namespace, name);
    if (!pod) throw notFound(PODS, name);
    const ip = String(asObject(pod.status)?.podIP ?? '');
    if (!ip) throw failure(503, StatusReason.ServiceUnavailable, `pod ${name} has no IP address yet`);
    return forward(req, cluster, { scheme: scheme || 'http', host: ip, port: port ? Number(port) : 80 });
  },
};

/** POST pods/<name>/binding: assigns the pod to a node (the scheduler's write). */
const binding: RestAction = {
  verbs: ['create'],
  async handle(req, cluster) {
    const b = req.decodedBody();
    if (!b || typeof b !== 'object' || Array.isArray(b)) throw badRequest('the body of a binding request must be a Binding object');
    const obj = b as ApiObject & { target?: { kind?: unknown; name?: unknown } };
    const meta = asObject(obj.metadata) ?? {};
    if (meta.name !== undefined && meta.name !== req.name) throw badRequest('name in URL does not match name in Binding object');
    const target = asObject(obj.target) ?? {};
    const errs: FieldError[] = [];
    if (target.kind !== undefined && target.kind !== '' && target.kind !== 'Node') errs.push(unsupported('target.kind', target.kind, ['Node', '']));
    if (typeof target.name !== 'string' || target.name === '') errs.push(required('target.name'));
    if (errs.length) throw invalid('Binding', '', req.name, errs);
    const bound: ApiObject = { apiVersion: 'v1', kind: 'Binding', metadata: { ...meta, name: req.name, namespace: req.namespace }, target };
    await cluster.admit('mutating', 'CREATE', bound, null, { group: '', version: 'v1', kind: 'Binding' });
    await cluster.admit('validating', 'CREATE', bound, null, { group: '', version: 'v1', kind: 'Binding' });
    const nodeName = String(target.name);
    const annotations = asObject(meta.annotations) as Record<string, string> | undefined;
    const uid = typeof meta.uid === 'string' ? meta.uid : undefined;
    const rv = typeof meta.resourceVersion === 'string' && meta.resourceVersion ? meta.resourceVersion : undefined;
    const refuse = (why: string) => conflict({ group: '', resource: 'pods/binding' }, req.name, why);
    await cluster.update(
      { group: '', resource: 'pods', namespace: req.namespace, name: req.name, subresource: 'binding', admit: false, dryRun: req.dryRun },
      (pod) => {
        if (uid && pod.metadata.uid !== uid) throw refuse(`Precondition failed: UID in precondition: ${uid}, UID in object meta: ${pod.metadata.uid ?? ''}`);
        if (pod.metadata.deletionTimestamp) throw refuse(`pod ${req.name} is being deleted, cannot be assigned to a host`);
        const current = nodeNameOf(pod);
        if (current) throw refuse(`pod ${req.name} is already assigned to node ${JSON.stringify(current)}`);
        return bindPod(pod, nodeName, annotations, nowTimestamp());
      },
      rv,
    );
    return { code: 201, body: { ...successStatus(), code: 201 } };
  },
};

/** The pod bound to `nodeName`: spec.nodeName, the binding's annotations, condition PodScheduled=True. */
export function bindPod(pod: ApiObject, nodeName: string, annotations: Record<string, string> | undefined, now: string): ApiObject {
  const next = cloneJson(pod);
  next.spec = { ...(asObject(next.spec) ?? {}), nodeName };
  if (annotations && Object.keys(annotations).length) next.metadata.annotations = { ...(next.metadata.annotations ?? {}), ...annotations };
  const status = asObject(next.status) ?? {};
  const conditions = asArray(status.conditions).filter((c) => asObject(c)?.type !== 'PodScheduled');
  conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now });
  next.status = { ...status, conditions };
  return next;
}

export const podActions: Readonly<Record<string, RestAction>> = { binding, log, exec: stream, attach: stream, portforward, proxy };
