// `pods/<name>/eviction`: a deletion that respects PodDisruptionBudgets, as upstream's eviction
// REST does. The pod's one matching budget must allow a disruption; the eviction then records it
// in the budget's status (disruptionsAllowed − 1, the pod in disruptedPods) and deletes the pod.
// A pod that does not count against a budget (not running, or already being deleted) is deleted
// without one; a budget's refusal is 429 with a DisruptionBudget cause.

import type { ApiObject } from '../../../api/types.js';
import { badRequest, failure, forbidden, notFound, StatusError, StatusReason, successStatus } from '../../../api/status.js';
import { labelSelectorFromObject, type LabelSelectorObject } from '../../../api/labels.js';
import { nowTimestamp } from '../../../api/time.js';
import type { RestAction, RestCluster, RestRequest } from '../../types.js';
import { asArray, asObject } from '../common/field-errors.js';

const PDB_CAUSE = 'DisruptionBudget';
const VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";
/** Evictions the budget's controller has not yet confirmed, beyond which evictions are refused. */
const MAX_DISRUPTED_PODS = 2000;
const CONFLICT_RETRIES = 5;

interface Budget {
  name: string;
  generation: number;
  observedGeneration: number;
  disruptionsAllowed: number;
  currentHealthy: number;
  desiredHealthy: number;
  disruptedPods: Record<string, unknown>;
  unhealthyPodEvictionPolicy: string;
  resourceVersion: string;
}

function budgetOf(pdb: ApiObject): Budget {
  const spec = asObject(pdb.spec) ?? {};
  const status = asObject(pdb.status) ?? {};
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  return {
    name: pdb.metadata.name ?? '',
    generation: pdb.metadata.generation ?? 0,
    observedGeneration: n(status.observedGeneration),
    disruptionsAllowed: n(status.disruptionsAllowed),
    currentHealthy: n(status.currentHealthy),
    desiredHealthy: n(status.desiredHealthy),
    disruptedPods: (asObject(status.disruptedPods) as Record<string, unknown> | undefined) ?? {},
    unhealthyPodEvictionPolicy: String(spec.unhealthyPodEvictionPolicy ?? 'IfHealthyBudget'),
    resourceVersion: pdb.metadata.resourceVersion ?? '',
  };
}

/** The budgets whose selector matches the pod (an empty or missing selector matches nothing). */
export function matchingBudgets(pod: ApiObject, pdbs: readonly ApiObject[]): ApiObject[] {
  return pdbs.filter((pdb) => {
    const sel = asObject(asObject(pdb.spec)?.selector) as LabelSelectorObject | undefined;
    if (!sel || (!Object.keys(sel.matchLabels ?? {}).length && !(sel.matchExpressions ?? []).length)) return false;
    return labelSelectorFromObject(sel).matches(pod.metadata.labels ?? {});
  });
}

function isReady(pod: ApiObject): boolean {
  return asArray(asObject(pod.status)?.conditions).some((c) => asObject(c)?.type === 'Ready' && asObject(c)?.status === 'True');
}

/** Pods an eviction deletes without asking a budget: finished, not yet started, or already going. */
export function ignoresBudget(pod: ApiObject): boolean {
  const phase = asObject(pod.status)?.phase;
  return Boolean(pod.metadata.deletionTimestamp) || phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending';
}

export const Decision = { Delete: 'Delete', Decrement: 'Decrement' } as const;
export type Decision = (typeof Decision)[keyof typeof Decision];

/** Whether the budget lets this pod go, and whether it must count the disruption; throws the refusal. */
export function decide(pod: ApiObject, b: Budget): Decision {
  // An unready pod adds nothing to the budget's health: policy decides whether it may simply go.
  if (!isReady(pod)) {
    if (b.unhealthyPodEvictionPolicy === 'AlwaysAllow') return Decision.Delete;
    if (b.desiredHealthy > 0 && b.currentHealthy >= b.desiredHealthy) return Decision.Delete;
  }
  if (b.observedGeneration < b.generation) throw violation(`The disruption budget ${b.name} is still being processed by the server.`);
  if (b.disruptionsAllowed < 0) throw forbidden({ group: 'policy', resource: 'poddisruptionbudgets' }, b.name, 'pdb disruptions allowed is negative');
  if (Object.keys(b.disruptedPods).length > MAX_DISRUPTED_PODS)
    throw forbidden({ group: 'policy', resource: 'poddisruptionbudgets' }, b.name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  if (b.disruptionsAllowed === 0) throw violation(`The disruption budget ${b.name} needs ${b.desiredHealthy} healthy pods and has ${b.currentHealthy} currently`);
  return Decision.Decrement;
}

function violation(message: string): StatusError {
  const err = failure(429, StatusReason.TooManyRequests, VIOLATION);
  err.status.details = { causes: [{ reason: PDB_CAUSE, message }] };
  return err;
}

function evictionOf(req: RestRequest): { deleteOptions: Record<string, unknown> } {
  const body = req.decodedBody();
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the body of an eviction request must be an Eviction object');
  const e = body as ApiObject & { deleteOptions?: unknown };
  if (e.kind !== undefined && e.kind !== 'Eviction') throw badRequest(`expected an Eviction, got ${String(e.kind)}`);
  const name = asObject(e.metadata)?.name;
  if (name !== undefined && name !== req.name) throw badRequest('name in URL does not match name in Eviction object');
  return { deleteOptions: asObject(e.deleteOptions) ?? {} };
}

async function deletePod(req: RestRequest, cluster: RestCluster, deleteOptions: Record<string, unknown>): Promise<void> {
  const pre = asObject(deleteOptions.preconditions) ?? {};
  const preconditions: { uid?: string; resourceVersion?: string } = {};
  if (typeof pre.uid === 'string') preconditions.uid = pre.uid;
  if (typeof pre.resourceVersion === 'string') preconditions.resourceVersion = pre.resourceVersion;
  await cluster.delete({ group: '', resource: 'pods', namespace: req.namespace, name: req.name, admit: false, dryRun: req.dryRun }, preconditions);
}

export const evictionAction: RestAction = {
  verbs: ['create'],
  async handle(req, cluster) {
    const { deleteOptions } = evictionOf(req);
    const eviction: ApiObject = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: req.name, namespace: req.namespace }, deleteOptions };
    await cluster.admit('mutating', 'CREATE', eviction, null, { group: 'policy', version: 'v1', kind: 'Eviction' });
    await cluster.admit('validating', 'CREATE', eviction, null, { group: 'policy', version: 'v1', kind: 'Eviction' });
    for (let attempt = 1; ; attempt++) {
      const pod = await cluster.get('', 'pods', req.namespace, req.name);
      if (!pod) throw notFound({ group: '', resource: 'pods' }, req.name);
      if (!ignoresBudget(pod)) {
        const budgets = matchingBudgets(pod, await cluster.list('policy', 'poddisruptionbudgets', req.namespace));
        if (budgets.length > 1)
          throw failure(500, StatusReason.InternalError, 'Internal error occurred: This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
        if (budgets.length === 1) {
          const b = budgetOf(budgets[0]!);
          if (decide(pod, b) === Decision.Decrement && !req.dryRun) {
            try {
              await cluster.update(
                { group: 'policy', resource: 'poddisruptionbudgets', namespace: req.namespace, name: b.name, subresource: 'status', admit: false },
                (pdb) => recordDisruption(pdb, req.name, nowTimestamp()),
                b.resourceVersion,
              );
            } catch (err) {
              // The budget changed meanwhile (another eviction, its controller): decide again.
              if (err instanceof StatusError && err.code === 409 && attempt < CONFLICT_RETRIES) continue;
              throw err;
            }
          }
        }
      }
      await deletePod(req, cluster, deleteOptions);
      return { code: 201, body: { ...successStatus(), code: 201 } };
    }
  },
};

/** The budget after one more disruption: one fewer allowed, the pod remembered until its controller sees it gone. */
export function recordDisruption(pdb: ApiObject, podName: string, now: string): ApiObject {
  const status = { ...(asObject(pdb.status) ?? {}) };
  status.disruptionsAllowed = (typeof status.disruptionsAllowed === 'number' ? status.disruptionsAllowed : 0) - 1;
  status.disruptedPods = { ...(asObject(status.disruptedPods) ?? {}), [podName]: now };
  return { ...pdb, status };
}
