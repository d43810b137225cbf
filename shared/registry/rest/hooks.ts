// Per-type REST hooks: behaviour a registry entry carries beside its schema and strategy, after
// kube-apiserver's per-resource REST storage. A type may serve create-style and connect
// subresources (`pods/eviction`, `pods/binding`, `pods/log`, `services/proxy`), be a virtual kind
// that is answered and never stored (reviews), and add write rules the generic store runs after
// validation and before validating admission (the RBAC escalation guard). Hooks reach the cluster
// only through `RestCluster`, so every write they make passes the same store rules as a request.
// The hooks' types are in ../types.ts, beside the ResourceType that carries them.

import type { ApiObject } from '../../api/types.js';
import type { RestAction, RestCluster, RestHooks } from '../types.js';

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

/** The hook serving `<resource>/<name>/<sub>`; own keys only (a URL segment may be `constructor`). */
export function restAction(hooks: RestHooks | undefined, sub: string): RestAction | undefined {
  const actions = hooks?.actions;
  return actions && Object.hasOwn(actions, sub) ? actions[sub] : undefined;
}
