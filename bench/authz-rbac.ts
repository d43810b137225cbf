// RBAC decision cost inside the authz service, without the bus: an RbacState holding 1,000 roles
// and 10,000 bindings (fed the way the object feed feeds it), then 200,000 mixed decisions
// (about a quarter allowed, the rest denied) through the RBAC authorizer, each timed on its own.
// The same objects and workload serve the through-the-bus figure in auth.ts.

import type { ApiObject, ObjectRef, UserInfo } from '../shared/api/types.js';
import type { AuthzAttributes, PolicyRule } from '../shared/bus/messages.js';
import { encodeKey } from '../shared/store/key-codec.js';
import { RbacState } from '../services/authz/rbac/state.js';
import { createRbacAuthorizer } from '../services/authz/authorizers/rbac.js';
import { RBAC_GROUP } from '../shared/api/groups.js';

const NAMESPACES = 100;
const ROLES_PER_NAMESPACE = 9; // 900 Roles
const CLUSTER_ROLES = 100; // + 100 ClusterRoles = 1,000 roles
const ROLE_BINDINGS_PER_NAMESPACE = 90; // 9,000 RoleBindings
const CLUSTER_ROLE_BINDINGS = 1_000; // + 1,000 ClusterRoleBindings = 10,000 bindings
const USERS = 2_000;
const GROUPS = 100;
const DECISIONS = 200_000;
const WARMUP = 20_000;

const RESOURCES = ['pods', 'services', 'configmaps', 'secrets', 'deployments', 'jobs', 'leases', 'events', 'ingresses', 'widgets'];
const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

/** A small deterministic PRNG (mulberry32), so every run measures the same workload. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface RbacWorkload {
  /** 1,000 roles and 10,000 bindings (plus a discovery role and binding), each with its key. */
  objects: Array<{ ref: ObjectRef; object: ApiObject }>;
  /** The mixed decisions, WARMUP first. */
  attributes: AuthzAttributes[];
}

export const RBAC_WARMUP = WARMUP;

/** The same objects and decisions on every run (a seeded PRNG). */
export function rbacWorkload(): RbacWorkload {
  const rand = prng(42);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const objects: RbacWorkload['objects'] = [];
  const apply = (resource: string, object: ApiObject) => {
    const ref: ObjectRef = { group: RBAC_GROUP, resource, name: object.metadata.name!, ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}) };
    objects.push({ ref, object: { apiVersion: `${RBAC_GROUP}/v1`, ...object } });
  };
  const rules = (): PolicyRule[] =>
    Array.from({ length: 3 }, () => ({ verbs: [pick(VERBS), pick(VERBS)], apiGroups: [pick(['', 'apps', 'batch', 'example.com'])], resources: [pick(RESOURCES), pick(RESOURCES)] }));
  const subject = () =>
    rand() < 0.7 ? { kind: 'User', apiGroup: RBAC_GROUP, name: `user-${Math.floor(rand() * USERS)}` } : { kind: 'Group', apiGroup: RBAC_GROUP, name: `group-${Math.floor(rand() * GROUPS)}` };

  for (let c = 0; c < CLUSTER_ROLES; c++) apply('clusterroles', { kind: 'ClusterRole', metadata: { name: `cluster-role-${c}` }, rules: rules() });
  for (let n = 0; n < NAMESPACES; n++) {
    const ns = `ns-${n}`;
    for (let r = 0; r < ROLES_PER_NAMESPACE; r++) apply('roles', { kind: 'Role', metadata: { name: `role-${r}`, namespace: ns }, rules: rules() });
    for (let b = 0; b < ROLE_BINDINGS_PER_NAMESPACE; b++) {
      const toCluster = rand() < 0.2;
      apply('rolebindings', {
        kind: 'RoleBinding',
        metadata: { name: `binding-${b}`, namespace: ns },
        roleRef: {
          apiGroup: RBAC_GROUP,
          kind: toCluster ? 'ClusterRole' : 'Role',
          name: toCluster ? `cluster-role-${Math.floor(rand() * CLUSTER_ROLES)}` : `role-${Math.floor(rand() * ROLES_PER_NAMESPACE)}`,
        },
        subjects: [subject(), subject()],
      });
    }
  }
  for (let b = 0; b < CLUSTER_ROLE_BINDINGS; b++) {
    apply('clusterrolebindings', {
      kind: 'ClusterRoleBinding',
      metadata: { name: `cluster-binding-${b}` },
      // Cluster-wide grants are narrow (get on one resource), so most namespaced answers come from RoleBindings.
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: `cluster-role-${Math.floor(rand() * CLUSTER_ROLES)}` },
      subjects: [subject()],
    });
  }
  // What every authenticated user gets, as with the default discovery binding.
  apply('clusterroles', { kind: 'ClusterRole', metadata: { name: 'discovery' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/version'] }] });
  apply('clusterrolebindings', {
    kind: 'ClusterRoleBinding',
    metadata: { name: 'discovery' },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'discovery' },
    subjects: [{ kind: 'Group', apiGroup: RBAC_GROUP, name: 'system:authenticated' }],
  });
  const users: UserInfo[] = Array.from({ length: USERS }, (_, i) => ({ username: `user-${i}`, groups: [`group-${i % GROUPS}`, `group-${(i * 7) % GROUPS}`, 'system:authenticated'] }));
  const workload: AuthzAttributes[] = Array.from({ length: DECISIONS + WARMUP }, () => {
    const user = pick(users);
    if (rand() < 0.1) return { user, verb: 'get', isResourceRequest: false, path: pick(['/healthz', '/apis/apps', '/metrics', '/logs/x']) };
    const verb = pick(VERBS);
    const a: AuthzAttributes = {
      user,
      verb,
      isResourceRequest: true,
      path: '/x',
      apiGroup: pick(['', 'apps', 'batch', 'example.com']),
      apiVersion: 'v1',
      resource: pick(RESOURCES),
      namespace: `ns-${Math.floor(rand() * NAMESPACES)}`,
    };
    if (verb !== 'list' && verb !== 'watch' && verb !== 'create') a.name = `obj-${Math.floor(rand() * 50)}`;
    return a;
  });
  return { objects, attributes: workload };
}

export async function benchRbac(): Promise<{ decisionsPerSec: number; p50us: number; p99us: number }> {
  const { objects, attributes: workload } = rbacWorkload();
  const state = new RbacState();
  let revision = 0;
  for (const { ref, object } of objects) {
    state.apply({ key: encodeKey(ref), ref, revision: ++revision, object });
  }
  const size = state.size();
  if (size.roles + size.clusterRoles < 1_000 || size.bindings < 10_000) throw new Error(`bench state too small: ${JSON.stringify(size)}`);

  const authz = createRbacAuthorizer(state);
  for (let i = 0; i < WARMUP; i++) authz.authorize(workload[i]!);
  const times = new Float64Array(DECISIONS);
  let allowed = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < DECISIONS; i++) {
    const t0 = process.hrtime.bigint();
    const d = authz.authorize(workload[WARMUP + i]!);
    times[i] = Number(process.hrtime.bigint() - t0) / 1_000;
    if (d.decision === 'Allow') allowed++;
  }
  const elapsedS = Number(process.hrtime.bigint() - start) / 1e9;
  // A workload of nearly all allows or all denials would not measure the mix it claims to.
  const ratio = allowed / DECISIONS;
  if (ratio < 0.05 || ratio > 0.95) throw new Error(`bench workload is not mixed: ${(ratio * 100).toFixed(1)}% allowed`);
  times.sort();
  return {
    decisionsPerSec: DECISIONS / elapsedS,
    p50us: times[Math.floor(DECISIONS * 0.5)]!,
    p99us: times[Math.floor(DECISIONS * 0.99)]!,
  };
}
