// Reconciles default RBAC objects with what is stored, the way upstream's bootstrap does: a missing
// object is created; an existing one is only ever added to (missing rules, aggregation selectors,
// subjects, labels and annotations), never trimmed, so an administrator's additions survive
// upgrades; an object annotated `autoupdate: "false"` is left alone. A binding whose roleRef
// differs is re-created (roleRef is immutable), keeping its subjects.
//
// The pure part (`reconcileRole`, `reconcileBinding`) decides; `reconcileAll` writes through the
// generic store like any API request, retrying until it answers and re-reading after a conflict
// (several authz replicas may reconcile at once: whoever loses a compare-and-swap re-reads and
// usually finds nothing to do).

import type { ApiObject } from '../../../shared/api/types.js';
import { StatusError } from '../../../shared/api/status.js';
import type { InternalStore } from '../../../shared/registry/rest/internal-store.js';
import type { Logger } from '../../../shared/log.js';
import { covers } from './covers.js';
import { readRules, readSubjects, type Subject } from './rules.js';
import { RBAC_GROUP } from '../../../shared/api/groups.js';
import { cloneJson } from '../../../shared/patch/json-value.js';
import { sleep } from '../../../shared/ground/sleep.js';

export interface ReconcileTarget {
  resource: 'roles' | 'clusterroles' | 'rolebindings' | 'clusterrolebindings';
  object: ApiObject;
}

export type Reconciled = { op: 'none' } | { op: 'update'; object: ApiObject } | { op: 'recreate'; object: ApiObject };

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

function stringMap(v: unknown): Record<string, string> {
  return isObject(v) ? (v as Record<string, string>) : {};
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v)) {
    return `{${Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Expected labels and annotations added; values already set (even differently) are kept. */
function mergedMetadata(existing: ApiObject, expected: ApiObject): ApiObject['metadata'] {
  const metadata = { ...existing.metadata };
  const labels = { ...stringMap(expected.metadata.labels), ...stringMap(existing.metadata.labels) };
  const annotations = { ...stringMap(expected.metadata.annotations), ...stringMap(existing.metadata.annotations) };
  if (Object.keys(labels).length) metadata.labels = labels;
  if (Object.keys(annotations).length) metadata.annotations = annotations;
  return metadata;
}

function autoupdateOff(o: ApiObject, annotation: string): boolean {
  return stringMap(o.metadata.annotations)[annotation] === 'false';
}

function changed(a: ApiObject, b: ApiObject): boolean {
  return canonical(a) !== canonical(b);
}

/** A Role or ClusterRole: add the expected rules the existing ones do not cover, and missing selectors. */
export function reconcileRole(existing: ApiObject, expected: ApiObject, autoupdateAnnotation: string): Reconciled {
  if (autoupdateOff(existing, autoupdateAnnotation)) return { op: 'none' };
  const out: ApiObject = { ...existing, metadata: mergedMetadata(existing, expected) };
  const rules = Array.isArray(existing.rules) ? [...existing.rules] : [];
  const held = readRules(existing.rules);
  let added = false;
  for (const r of readRules(expected.rules)) {
    if (!covers(held, [r]).covered) {
      rules.push(r);
      held.push(r);
      added = true;
    }
  }
  if (added || Array.isArray(existing.rules)) out.rules = rules;
  const wantSelectors = isObject(expected.aggregationRule) && Array.isArray(expected.aggregationRule.clusterRoleSelectors) ? expected.aggregationRule.clusterRoleSelectors : [];
  if (wantSelectors.length) {
    const have = isObject(existing.aggregationRule) && Array.isArray(existing.aggregationRule.clusterRoleSelectors) ? [...(existing.aggregationRule.clusterRoleSelectors as unknown[])] : [];
    const known = new Set(have.map(canonical));
    for (const s of wantSelectors) if (!known.has(canonical(s))) have.push(s);
    out.aggregationRule = { ...(isObject(existing.aggregationRule) ? existing.aggregationRule : {}), clusterRoleSelectors: have };
  }
  return changed(existing, out) ? { op: 'update', object: out } : { op: 'none' };
}

function subjectId(s: Subject): string {
  const apiGroup = s.kind === 'ServiceAccount' ? '' : (s.apiGroup ?? RBAC_GROUP);
  return JSON.stringify([s.kind, apiGroup, s.name, s.kind === 'ServiceAccount' ? (s.namespace ?? '') : '']);
}

/** A RoleBinding or ClusterRoleBinding: add missing subjects; a different roleRef means re-create. */
export function reconcileBinding(existing: ApiObject, expected: ApiObject, autoupdateAnnotation: string): Reconciled {
  if (autoupdateOff(existing, autoupdateAnnotation)) return { op: 'none' };
  const out: ApiObject = { ...existing, metadata: mergedMetadata(existing, expected) };
  const subjects = Array.isArray(existing.subjects) ? [...existing.subjects] : [];
  const known = new Set(readSubjects(existing.subjects).map(subjectId));
  const wanted = Array.isArray(expected.subjects) ? expected.subjects : [];
  for (const s of readSubjects(wanted)) {
    if (!known.has(subjectId(s))) {
      subjects.push(s);
      known.add(subjectId(s));
    }
  }
  if (subjects.length || Array.isArray(existing.subjects)) out.subjects = subjects;
  if (canonical(existing.roleRef) !== canonical(expected.roleRef)) {
    out.roleRef = expected.roleRef;
    return { op: 'recreate', object: out };
  }
  return changed(existing, out) ? { op: 'update', object: out } : { op: 'none' };
}

export function reconcileObject(target: ReconcileTarget, existing: ApiObject, autoupdateAnnotation: string): Reconciled {
  return target.resource === 'roles' || target.resource === 'clusterroles'
    ? reconcileRole(existing, target.object, autoupdateAnnotation)
    : reconcileBinding(existing, target.object, autoupdateAnnotation);
}

// ---- writing through the storage service ----

export interface ReconcileDeps {
  /** Writes go through the generic store, as the API server's own identity. */
  internal: InternalStore;
  log: Logger;
  signal: AbortSignal;
  autoupdateAnnotation: string;
  retryMs: number;
}

const MAX_RETRY_MS = 5_000;
/** Conflicts in a row before pausing: only another writer racing on the same object causes one. */
const CONFLICTS_BEFORE_PAUSE = 5;

function codeOf(err: unknown): number {
  return err instanceof StatusError ? err.code : 0;
}

/**
 * A namespaced default object's namespace is made when missing, as upstream's bootstrap does: the
 * gateway makes the system namespaces too, but this job must not wait for it.
 */
async function ensureNamespace(deps: ReconcileDeps, namespace: string): Promise<void> {
  const { internal } = deps;
  const target = internal.targets.preferred('', 'namespaces');
  if (!target) throw new Error('namespaces are not served');
  if (await internal.get(target, undefined, namespace)) return;
  try {
    await internal.store.create(internal.write(target, undefined, namespace), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    deps.log.info({ namespace }, 'created the namespace of default RBAC objects');
  } catch (err) {
    if (!(err instanceof StatusError && err.status.reason === 'AlreadyExists')) throw err;
  }
}

/** Reads one target and writes what it needs; a StatusError (409, 503, …) is the caller's to handle. */
async function step(deps: ReconcileDeps, t: ReconcileTarget): Promise<void> {
  const { internal } = deps;
  const target = internal.targets.preferred(RBAC_GROUP, t.resource);
  if (!target) throw new Error(`${t.resource} are not served`);
  const name = t.object.metadata.name!;
  const req = internal.write(target, t.object.metadata.namespace, name);
  const current = await internal.get(target, req.namespace, name);
  if (!current) {
    if (req.namespace) await ensureNamespace(deps, req.namespace);
    await internal.store.create(req, cloneJson(t.object));
    // `object`, not `name`: that key is the logger's (the service), and a second one would hide it.
    deps.log.info({ resource: t.resource, namespace: req.namespace, object: name }, 'created default RBAC object');
    return;
  }
  const r = reconcileObject(t, current.object, deps.autoupdateAnnotation);
  if (r.op === 'none') return;
  if (r.op === 'update') {
    await internal.store.update(req, () => cloneJson(r.object), current.revision);
    deps.log.info({ resource: t.resource, name }, 'added missing permissions to default RBAC object');
    return;
  }
  await internal.store.delete(req, { preconditions: { resourceVersion: String(current.revision) } });
  await internal.store.create(req, cloneJson(r.object));
  deps.log.info({ resource: t.resource, name }, 're-created default RBAC binding with its expected roleRef');
}

/**
 * Brings every target to its reconciled state, in order. Unavailability (no storage responder,
 * timeouts, 5xx) is retried with backoff until `signal` aborts; a conflict or a vanished object
 * re-reads; any other refusal (the object is invalid) is logged and that object skipped.
 */
export async function reconcileAll(deps: ReconcileDeps, targets: ReconcileTarget[]): Promise<void> {
  let wait = deps.retryMs;
  for (const t of targets) {
    let conflicts = 0;
    while (!deps.signal.aborted) {
      try {
        await step(deps, t);
        break;
      } catch (err) {
        const code = codeOf(err);
        if (code === 409 || code === 404) {
          // Another writer got in between (a replica doing the same, or an administrator).
          if (++conflicts < CONFLICTS_BEFORE_PAUSE) continue;
          conflicts = 0;
          await sleep(wait, deps.signal, { unref: true });
          continue;
        }
        if (code >= 400 && code < 500) {
          deps.log.error({ err, resource: t.resource, name: t.object.metadata.name }, 'a default RBAC object was refused; skipping it');
          break;
        }
        deps.log.debug({ err, resource: t.resource, name: t.object.metadata.name }, 'storage or admission unavailable for RBAC bootstrap; retrying');
        await sleep(wait, deps.signal, { unref: true });
        wait = Math.min(wait * 2, MAX_RETRY_MS);
        continue;
      }
    }
    if (deps.signal.aborted) return;
    wait = deps.retryMs;
  }
}
