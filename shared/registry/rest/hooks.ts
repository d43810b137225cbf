// Per-type REST hooks: behaviour a registry entry carries beside its schema and strategy, after
// kube-apiserver's per-resource REST storage. A type may serve create-style and connect
// subresources (`pods/eviction`, `pods/binding`, `pods/log`, `services/proxy`), be a virtual kind
// that is answered and never stored (reviews), and add write rules the generic store runs after
// validation and before validating admission (the RBAC escalation guard). Hooks reach the cluster
// only through `RestCluster`, so every write they make passes the same store rules as a request.

import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { ApiObject, UserInfo } from '../../api/types.js';
import type { AdmissionOperation, AdmissionPhase } from '../../bus/messages.js';
import type { Target } from '../target.js';

/** The request a hook serves, already authenticated and authorized. */
export interface RestRequest {
  target: Target;
  user: UserInfo;
  /** RBAC verb (`get`, `create`, …) and HTTP method. */
  verb: string;
  method: string;
  /** '' for cluster-scoped types. */
  namespace: string;
  name: string;
  subresource: string;
  /** The path below the subresource (`services/<name>/proxy/<subpath>`), '' when none. */
  subpath: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer | undefined;
  contentType: string | undefined;
  /** The body decoded from JSON or YAML; undefined when empty. Throws 400/415 for bad bodies. */
  decodedBody(): unknown;
  /** The body as an object of the target's kind: decoded, field-checked, defaulted and validated (400/415/422). */
  object(): ApiObject;
  /** `dryRun=All` was asked for. */
  dryRun: boolean;
  /** Accumulates `Warning` headers. */
  warnings: string[];
}

/** A request to another service over NATS (no responders → 503, timeout → 504, error replies → their Status). */
export type BusRequest = <T>(subject: string, body: unknown) => Promise<T>;

/** What a write rule knows of the write. */
export interface WriteRuleContext {
  user: UserInfo;
  /** '' for cluster-scoped types. */
  namespace: string;
  target: Target;
}

/** What a hook answers: an object to encode with the negotiated codec, or a response it wrote itself. */
export type RestResult = { code: number; body: unknown } | { streamed: true };

/** The whole of a write a hook asks the generic store for. */
export interface ClusterWrite {
  group: string;
  resource: string;
  namespace?: string;
  name: string;
  subresource?: string;
  /** False when the request that leads to this write was admitted already (binding, eviction). */
  admit?: boolean;
  dryRun?: boolean;
}

/** The cluster as a hook sees it: reads after the latest write, writes through the generic store as the request's user. */
export interface RestCluster {
  /** A stored object in its preferred served version; undefined when absent. */
  get(group: string, resource: string, namespace: string | undefined, name: string): Promise<ApiObject | undefined>;
  /** Every object of a type (in one namespace when given), preferred served version. */
  list(group: string, resource: string, namespace?: string): Promise<ApiObject[]>;
  /** Read-modify-write with compare-and-swap; `expectedResourceVersion` makes a lost race a 409. */
  update(write: ClusterWrite, compute: (current: ApiObject) => ApiObject, expectedResourceVersion?: string): Promise<ApiObject>;
  /** Deletion by the deletion rules (finalizers); preconditions as DeleteOptions carries them. */
  delete(write: ClusterWrite, preconditions?: { uid?: string; resourceVersion?: string }): Promise<ApiObject>;
  /** One admission phase for the request's own operation, as the generic store runs it. */
  admit(phase: AdmissionPhase, operation: AdmissionOperation, object: ApiObject | null, oldObject: ApiObject | null, kind?: { group: string; version: string; kind: string }): Promise<ApiObject | null>;
  request: BusRequest;
  /** Whether a group is served under this name (an upstream alias only with `--upstream-group-aliases`). */
  servesGroup(group: string): boolean;
  /** The raw response, for hooks that stream (proxy, log): takes it over from the gateway. */
  hijack(): ServerResponse;
}

/**
 * Admission of a connect request (exec, attach, portforward, proxy), run before the connection as
 * upstream's connect handler does: both phases with operation CONNECT and the request's options
 * object (`PodExecOptions`, `NodeProxyOptions`, …) as the object.
 */
export async function admitConnect(cluster: RestCluster, kind: string, options: Record<string, unknown>): Promise<void> {
  const gvk = { group: '', version: 'v1', kind };
  const object: ApiObject = { kind, apiVersion: 'v1', metadata: {}, ...options };
  const mutated = await cluster.admit('mutating', 'CONNECT', object, null, gvk);
  await cluster.admit('validating', 'CONNECT', mutated ?? object, null, gvk);
}

/** A create-style or connect subresource. */
export interface RestAction {
  /** RBAC verbs served (as RequestInfo derives them from the HTTP method). */
  verbs: readonly string[];
  handle(req: RestRequest, cluster: RestCluster): Promise<RestResult>;
}

export interface RestHooks {
  /** Subresources served by the hook rather than by the generic handlers, by name. */
  actions?: Readonly<Record<string, RestAction>>;
  /** A virtual kind: POSTing one is answered and never stored. */
  create?(req: RestRequest, cluster: RestCluster): Promise<RestResult>;
  /** A rule every write of the type must pass (requests and internal writers alike), after validation and before validating admission. */
  guardWrite?(write: WriteRuleContext, object: ApiObject, request: BusRequest): Promise<void>;
}

/** The hook serving `<resource>/<name>/<sub>`; own keys only (a URL segment may be `constructor`). */
export function restAction(hooks: RestHooks | undefined, sub: string): RestAction | undefined {
  const actions = hooks?.actions;
  return actions && Object.hasOwn(actions, sub) ? actions[sub] : undefined;
}
