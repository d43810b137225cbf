// The RBAC objects in memory, indexed for decisions: bindings by the user or group they name
// (a ServiceAccount subject is indexed as its user name), RoleBindings additionally by namespace,
// so a decision only looks at the bindings of the requesting user and its groups, however many
// other bindings exist. Role references are resolved at decision time, never copied, so a role
// edit, a missing role appearing or a binding removal takes effect with the very next decision.

import type { ApiObject, UserInfo } from '../../../shared/api/types.js';
import type { AuthzAttributes, PolicyRule } from '../../../shared/bus/messages.js';
import type { FeedEvent } from '../../../shared/store/object-feed.js';
import { groupKey, readRoleRef, readRules, readSubjects, ruleAllows, subjectKey, userKey, type RoleRef, type Subject } from './rules.js';
import { exactGroupNames, RBAC_GROUP, type CanonicalGroup } from '../../../shared/api/groups.js';

export const RbacKind = {
  Role: 'Role',
  ClusterRole: 'ClusterRole',
  RoleBinding: 'RoleBinding',
  ClusterRoleBinding: 'ClusterRoleBinding',
} as const;
export type RbacKind = (typeof RbacKind)[keyof typeof RbacKind];

const KIND_OF_RESOURCE: Readonly<Record<string, RbacKind>> = {
  roles: RbacKind.Role,
  clusterroles: RbacKind.ClusterRole,
  rolebindings: RbacKind.RoleBinding,
  clusterrolebindings: RbacKind.ClusterRoleBinding,
};

export interface StoredRole {
  kind: 'Role' | 'ClusterRole';
  name: string;
  /** '' for ClusterRoles. */
  namespace: string;
  rules: PolicyRule[];
  labels: Record<string, string>;
  /** ClusterRoles only: the `aggregationRule` as stored. */
  aggregationRule?: unknown;
  /** Revision of the stored object (its resourceVersion). */
  revision: number;
  object: ApiObject;
}

export interface StoredBinding {
  kind: 'RoleBinding' | 'ClusterRoleBinding';
  name: string;
  /** '' for ClusterRoleBindings. */
  namespace: string;
  roleRef: RoleRef | null;
  subjects: Subject[];
  /** Index keys of the subjects (see subjectKey), de-duplicated. */
  keys: string[];
  object: ApiObject;
}

export interface RbacChange {
  kind: RbacKind;
  namespace: string;
  name: string;
  revision: number;
  /** Null when deleted. */
  object: ApiObject | null;
}

/** The rules a user holds at one scope, and the role references that could not be resolved. */
export interface HeldRules {
  rules: PolicyRule[];
  errors: string[];
}

export interface Verdict {
  allowed: boolean;
  /** Role references that could not be resolved on the way (only gathered when not allowed). */
  errors: string[];
}

const NO_ERRORS: string[] = [];
const ALLOWED: Verdict = { allowed: true, errors: NO_ERRORS };
const NOT_ALLOWED: Verdict = { allowed: false, errors: NO_ERRORS };

type BindingIndex = Map<string, Set<StoredBinding>>;

function addTo(index: BindingIndex, b: StoredBinding): void {
  for (const k of b.keys) {
    let set = index.get(k);
    if (!set) index.set(k, (set = new Set()));
    set.add(b);
  }
}

function removeFrom(index: BindingIndex, b: StoredBinding): void {
  for (const k of b.keys) {
    const set = index.get(k);
    if (!set) continue;
    set.delete(b);
    if (set.size === 0) index.delete(k);
  }
}

function labelsOf(o: ApiObject): Record<string, string> {
  const l = o.metadata?.labels;
  return l && typeof l === 'object' ? l : {};
}

/** The not-found text of a role reference, as a lister would word it. */
export function missingRoleMessage(ref: RoleRef): string {
  if (ref.kind === 'Role') return `role.${RBAC_GROUP} "${ref.name}" not found`;
  if (ref.kind === 'ClusterRole') return `clusterrole.${RBAC_GROUP} "${ref.name}" not found`;
  return `unsupported role reference kind: ${JSON.stringify(ref.kind)}`;
}

export class RbacState {
  /** How rules and subjects name groups (upstream spellings read as their branded groups when aliases are served). */
  readonly canonicalGroup: CanonicalGroup;
  readonly #roles = new Map<string, Map<string, StoredRole>>();
  readonly #clusterRoles = new Map<string, StoredRole>();
  readonly #bindings = new Map<string, StoredBinding>();
  readonly #clusterBindingIndex: BindingIndex = new Map();
  readonly #bindingIndex = new Map<string, BindingIndex>();
  readonly #listeners = new Set<(c: RbacChange) => void>();
  #revision = 0;

  constructor(canonicalGroup: CanonicalGroup = exactGroupNames) {
    this.canonicalGroup = canonicalGroup;
  }

  /** Highest revision applied so far. */
  revision(): number {
    return this.#revision;
  }

  /** Calls `fn` after every applied change; returns the unsubscribe function. */
  onChange(fn: (c: RbacChange) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** Applies one feed event (objects of other resources are ignored). Never throws. */
  apply(e: FeedEvent): void {
    const kind = KIND_OF_RESOURCE[e.ref.resource];
    if (!kind || e.ref.group !== RBAC_GROUP) return;
    if (e.revision > this.#revision) this.#revision = e.revision;
    const namespace = e.ref.namespace ?? '';
    const name = e.ref.name;
    const o = e.object;
    switch (kind) {
      case RbacKind.Role:
      case RbacKind.ClusterRole:
        this.#applyRole(kind, namespace, name, o, e.revision);
        break;
      default:
        this.#applyBinding(kind, namespace, name, o);
    }
    const change: RbacChange = { kind, namespace, name, revision: e.revision, object: o };
    for (const fn of this.#listeners) {
      try {
        fn(change);
      } catch {
        // A listener's failure must not stop the feed; listeners log their own problems.
      }
    }
  }

  #applyRole(kind: 'Role' | 'ClusterRole', namespace: string, name: string, o: ApiObject | null, revision: number): void {
    if (kind === RbacKind.ClusterRole) {
      if (!o) this.#clusterRoles.delete(name);
      else
        this.#clusterRoles.set(name, {
          kind,
          name,
          namespace: '',
          rules: readRules(o.rules, this.canonicalGroup),
          labels: labelsOf(o),
          aggregationRule: o.aggregationRule ?? undefined,
          revision,
          object: o,
        });
      return;
    }
    let ns = this.#roles.get(namespace);
    if (!o) {
      ns?.delete(name);
      if (ns?.size === 0) this.#roles.delete(namespace);
      return;
    }
    if (!ns) this.#roles.set(namespace, (ns = new Map()));
    ns.set(name, { kind, name, namespace, rules: readRules(o.rules, this.canonicalGroup), labels: labelsOf(o), revision, object: o });
  }

  #applyBinding(kind: 'RoleBinding' | 'ClusterRoleBinding', namespace: string, name: string, o: ApiObject | null): void {
    const id = `${kind}/${namespace}/${name}`;
    const old = this.#bindings.get(id);
    const index = kind === RbacKind.ClusterRoleBinding ? this.#clusterBindingIndex : this.#nsIndex(namespace, !!o);
    if (old && index) removeFrom(index, old);
    if (!o) {
      this.#bindings.delete(id);
      if (kind === RbacKind.RoleBinding && index?.size === 0) this.#bindingIndex.delete(namespace);
      return;
    }
    const subjects = readSubjects(o.subjects, this.canonicalGroup);
    const keys = new Set<string>();
    for (const s of subjects) {
      const k = subjectKey(s, namespace);
      if (k !== null) keys.add(k);
    }
    const b: StoredBinding = { kind, name, namespace, roleRef: readRoleRef(o.roleRef), subjects, keys: [...keys], object: o };
    this.#bindings.set(id, b);
    addTo(index!, b);
  }

  #nsIndex(namespace: string, create: boolean): BindingIndex | undefined {
    let idx = this.#bindingIndex.get(namespace);
    if (!idx && create) this.#bindingIndex.set(namespace, (idx = new Map()));
    return idx;
  }

  role(namespace: string, name: string): StoredRole | undefined {
    return this.#roles.get(namespace)?.get(name);
  }

  clusterRole(name: string): StoredRole | undefined {
    return this.#clusterRoles.get(name);
  }

  clusterRoles(): IterableIterator<StoredRole> {
    return this.#clusterRoles.values();
  }

  /** Counts, for logs and tests. */
  size(): { roles: number; clusterRoles: number; bindings: number } {
    let roles = 0;
    for (const ns of this.#roles.values()) roles += ns.size;
    return { roles, clusterRoles: this.#clusterRoles.size, bindings: this.#bindings.size };
  }

  /** The rules a binding grants, or null when its role does not exist (yet). */
  #rulesOf(b: StoredBinding): PolicyRule[] | null {
    const ref = b.roleRef;
    if (!ref) return null;
    if (ref.kind === RbacKind.ClusterRole) return this.#clusterRoles.get(ref.name)?.rules ?? null;
    // A RoleBinding's Role is always in the binding's own namespace; a ClusterRoleBinding cannot name a Role.
    if (ref.kind === RbacKind.Role && b.kind === RbacKind.RoleBinding) return this.#roles.get(b.namespace)?.get(ref.name)?.rules ?? null;
    return null;
  }

  #missing(b: StoredBinding): string {
    return b.roleRef ? missingRoleMessage(b.roleRef) : `${b.kind} "${b.name}" has no roleRef`;
  }

  /**
   * Whether some binding of the user grants the request. RoleBindings count only for resource
   * requests inside their own namespace: never for cluster-scoped resources, requests across all
   * namespaces or non-resource URLs.
   */
  allows(attrs: AuthzAttributes): Verdict {
    const user = attrs.user;
    const groups = user.groups ?? [];
    let errors: string[] | undefined;
    const visit = (set: Set<StoredBinding> | undefined): boolean => {
      if (!set) return false;
      for (const b of set) {
        const rules = this.#rulesOf(b);
        if (!rules) {
          (errors ??= []).push(this.#missing(b));
          continue;
        }
        for (let i = 0; i < rules.length; i++) if (ruleAllows(rules[i]!, attrs)) return true;
      }
      return false;
    };
    const cluster = this.#clusterBindingIndex;
    if (visit(cluster.get(userKey(user.username)))) return ALLOWED;
    for (let i = 0; i < groups.length; i++) if (visit(cluster.get(groupKey(groups[i]!)))) return ALLOWED;
    const ns = attrs.isResourceRequest && attrs.namespace ? this.#bindingIndex.get(attrs.namespace) : undefined;
    if (ns) {
      if (visit(ns.get(userKey(user.username)))) return ALLOWED;
      for (let i = 0; i < groups.length; i++) if (visit(ns.get(groupKey(groups[i]!)))) return ALLOWED;
    }
    return errors ? { allowed: false, errors: [...new Set(errors)] } : NOT_ALLOWED;
  }

  /** The bindings naming the user (or one of its groups) at a scope: ClusterRoleBindings, then the namespace's RoleBindings. */
  bindingsFor(user: UserInfo, namespace: string): StoredBinding[] {
    const keys = [userKey(user.username), ...(user.groups ?? []).map(groupKey)];
    const collect = (index: BindingIndex | undefined): StoredBinding[] => {
      const found = new Set<StoredBinding>();
      if (index) for (const k of keys) for (const b of index.get(k) ?? []) found.add(b);
      return [...found].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    };
    return [...collect(this.#clusterBindingIndex), ...(namespace ? collect(this.#bindingIndex.get(namespace)) : [])];
  }

  /**
   * Every rule the user holds at a scope: from ClusterRoleBindings, plus the resource rules of the
   * namespace's RoleBindings (their non-resource rules grant nothing and are left out).
   */
  rulesFor(user: UserInfo, namespace: string): HeldRules {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    for (const b of this.bindingsFor(user, namespace)) {
      const granted = this.#rulesOf(b);
      if (!granted) {
        errors.push(this.#missing(b));
        continue;
      }
      for (const r of granted) if (b.kind === RbacKind.ClusterRoleBinding || !r.nonResourceURLs?.length) rules.push(r);
    }
    return { rules, errors: [...new Set(errors)] };
  }
}
