// HorizontalPodAutoscalers, served as kube-apiserver 1.24 serves them: autoscaling/v2 (stored and
// preferred), v1, and the deprecated v2beta1 and v2beta2, every version converting through v2
// without loss (hpa-conversion.ts). Rules are upstream's, on the v2 form (hpa-validation.ts).

import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import type { TableColumn } from '../../../api/table-column.js';
import { ageColumn } from '../common/columns.js';
import { asArray, asObject, at, ensureObject, setDefault, type Json } from '../common/field-errors.js';
import {
  HPA_ANNOTATION,
  defaultBehavior,
  defaultCpuMetric,
  DEFAULT_CPU_UTILIZATION,
  hpaDropRoundTripAnnotations,
  hpaHubView,
  hpaV1FromHub,
  hpaV1ToHub,
  hpaV2beta1FromHub,
  hpaV2beta1ToHub,
} from './hpa-conversion.js';
import { v1Schema, v2Schema, v2beta1Schema, v2beta2Schema } from './hpa-schemas.js';
import { validateHorizontalPodAutoscaler, validateHorizontalPodAutoscalerStatus, validateHorizontalPodAutoscalerUpdate } from './hpa-validation.js';

// ---- defaults per version (upstream's SetDefaults_HorizontalPodAutoscaler of each) --------------

function defaultMinReplicas(o: ApiObject): Json {
  const spec = ensureObject(o, 'spec');
  setDefault(spec, 'minReplicas', 1);
  return spec;
}

/** v2 and v2beta2: a CPU target when no metric is named; a given behavior completed with upstream's rules. */
function defaultV2(o: ApiObject): void {
  const spec = defaultMinReplicas(o);
  if (asArray(spec.metrics).length === 0) spec.metrics = [defaultCpuMetric()];
  const behavior = asObject(spec.behavior);
  if (behavior) spec.behavior = defaultBehavior(behavior);
}

function defaultV2beta1(o: ApiObject): void {
  const spec = defaultMinReplicas(o);
  if (asArray(spec.metrics).length === 0) spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: DEFAULT_CPU_UTILIZATION } }];
}

// ---- strategy helpers on the served form ---------------------------------------------------------

/** What status a v1 object carries in its annotations; status is the status subresource's to write. */
const STATUS_ANNOTATIONS = [HPA_ANNOTATION.currentMetrics, HPA_ANNOTATION.conditions];

function metricLists(o: ApiObject): { spec: Json[]; annotated: Json[] | undefined } {
  const spec = asArray(asObject(o.spec)?.metrics).flatMap((m) => (asObject(m) ? [asObject(m)!] : []));
  let annotated: Json[] | undefined;
  const text = o.metadata?.annotations?.[HPA_ANNOTATION.metrics];
  if (typeof text === 'string') {
    try {
      const v: unknown = JSON.parse(text);
      if (Array.isArray(v) && v.every((x) => asObject(x))) annotated = v as Json[];
    } catch {
      // Malformed annotations are ignored by the conversion too.
    }
  }
  return { spec, annotated };
}

function usesContainerMetrics(o: ApiObject): boolean {
  const { spec, annotated } = metricLists(o);
  return [...spec, ...(annotated ?? [])].some((m) => m.containerResource !== undefined);
}

/**
 * HPAContainerMetrics is alpha, off, in the reference release: container resource sources are
 * dropped from what is written (in v1, from the metrics annotation), unless already stored.
 */
function dropContainerMetrics(o: ApiObject): void {
  const { spec, annotated } = metricLists(o);
  for (const m of spec) delete m.containerResource;
  if (annotated?.some((m) => m.containerResource !== undefined)) {
    o.metadata.annotations![HPA_ANNOTATION.metrics] = JSON.stringify(annotated.map(({ containerResource: _c, ...rest }) => rest));
  }
}

/** A main-resource update keeps the stored status, also the part v1 shows as annotations. */
function keepStatusAnnotations(o: ApiObject, old: ApiObject): void {
  const oldAnn = old.metadata.annotations ?? {};
  const ann = o.metadata.annotations;
  if (!ann && !STATUS_ANNOTATIONS.some((k) => oldAnn[k] !== undefined)) return;
  const next = { ...ann };
  for (const k of STATUS_ANNOTATIONS) {
    if (oldAnn[k] !== undefined) next[k] = oldAnn[k];
    else delete next[k];
  }
  if (Object.keys(next).length > 0 || ann) o.metadata.annotations = next;
}

// ---- table (kubectl get hpa) ---------------------------------------------------------------------

const quantityText = (q: unknown) => (q === undefined || q === null ? '<nil>' : String(q));

/** A value or average-value target: `current/target`, `(avg)` for an average. */
function valueTarget(target: Json, status: Json | undefined): string {
  const current = asObject(status?.current) ?? {};
  if (target.averageValue !== undefined) {
    return `${status && current.averageValue !== undefined ? quantityText(current.averageValue) : '<unknown>'}/${quantityText(target.averageValue)} (avg)`;
  }
  return `${status ? quantityText(current.value) : '<unknown>'}/${quantityText(target.value)}`;
}

function resourceTarget(target: Json, status: Json | undefined): string {
  const current = asObject(status?.current) ?? {};
  if (target.averageValue !== undefined) return `${status ? quantityText(current.averageValue) : '<unknown>'}/${quantityText(target.averageValue)}`;
  const now = status && current.averageUtilization !== undefined ? `${String(current.averageUtilization)}%` : '<unknown>';
  const goal = target.averageUtilization !== undefined ? `${String(target.averageUtilization)}%` : '<auto>';
  return `${now}/${goal}`;
}

/** kubectl's TARGETS cell: each metric's current value against its target, two at most. */
export function formatHpaTargets(hub: ApiObject): string {
  const specs = asArray(at(hub, 'spec.metrics')).map((m) => asObject(m) ?? {});
  const statuses = asArray(at(hub, 'status.currentMetrics')).map((m) => asObject(m) ?? {});
  if (specs.length === 0) return '<none>';
  const cells = specs.map((m, i) => {
    const source = (k: string) => asObject(m[k]) ?? {};
    const status = (k: string) => asObject(statuses[i]?.[k]);
    const target = (k: string) => asObject(source(k).target) ?? {};
    switch (m.type) {
      case 'External':
        return valueTarget(target('external'), status('external'));
      case 'Object':
        return valueTarget(target('object'), status('object'));
      case 'Pods':
        return `${status('pods') ? quantityText(asObject(status('pods')!.current)?.averageValue) : '<unknown>'}/${quantityText(target('pods').averageValue)}`;
      case 'Resource':
        return resourceTarget(target('resource'), status('resource'));
      case 'ContainerResource':
        return resourceTarget(target('containerResource'), status('containerResource'));
      default:
        return '<unknown type>';
    }
  });
  return cells.length > 2 ? `${cells.slice(0, 2).join(', ')} + ${cells.length - 2} more...` : cells.join(', ');
}

// The cells read the served form; only TARGETS needs the v2 shape, the rest is the same in every version.
const columns: TableColumn[] = [
  {
    name: 'Reference',
    type: 'string',
    description: 'The object whose replica count the autoscaler sets',
    cell: (o) => `${String(at(o, 'spec.scaleTargetRef.kind') ?? '')}/${String(at(o, 'spec.scaleTargetRef.name') ?? '')}`,
  },
  { name: 'Targets', type: 'string', description: 'The metrics the replica count follows: current value against target', cell: (o) => formatHpaTargets(hpaHubView(o)) },
  {
    name: 'MinPods',
    type: 'string',
    description: 'The fewest replicas the autoscaler scales down to',
    cell: (o) => (at(o, 'spec.minReplicas') === undefined ? '<unset>' : String(at(o, 'spec.minReplicas'))),
  },
  // Upstream's printer declares these columns as strings and fills them with integers.
  { name: 'MaxPods', type: 'string', description: 'The most replicas the autoscaler scales up to', cell: (o) => Number(at(o, 'spec.maxReplicas') ?? 0) },
  { name: 'Replicas', type: 'string', description: 'The replica count the autoscaler last saw', cell: (o) => Number(at(o, 'status.currentReplicas') ?? 0) },
  ageColumn,
];

export const horizontalpodautoscalers: ResourceType = {
  group: 'autoscaling',
  // Upstream's discovery order; 1.24 stores v2 (1.23 still stored v1).
  versions: [
    { name: 'v2', schema: v2Schema, defaults: defaultV2, toHub: hpaDropRoundTripAnnotations },
    { name: 'v1', schema: v1Schema, defaults: defaultMinReplicas, toHub: hpaV1ToHub, fromHub: hpaV1FromHub },
    {
      name: 'v2beta1',
      schema: v2beta1Schema,
      defaults: defaultV2beta1,
      toHub: hpaV2beta1ToHub,
      fromHub: hpaV2beta1FromHub,
      deprecation: { since: '1.22', removedIn: '1.25', replacement: 'v2' },
    },
    { name: 'v2beta2', schema: v2beta2Schema, defaults: defaultV2, toHub: hpaDropRoundTripAnnotations, deprecation: { since: '1.23', removedIn: '1.26', replacement: 'v2' } },
  ],
  storageVersion: 'v2',
  kind: 'HorizontalPodAutoscaler',
  plural: 'horizontalpodautoscalers',
  singular: 'horizontalpodautoscaler',
  scope: 'Namespaced',
  shortNames: ['hpa'],
  categories: ['all'],
  // Upstream's 1.24 strategy keeps no metadata.generation for autoscalers.
  generation: false,
  subresources: { status: true },
  columns,
  strategy: {
    prepareForCreate(o) {
      const ann = o.metadata.annotations;
      if (ann) for (const k of STATUS_ANNOTATIONS) delete ann[k];
      dropContainerMetrics(o);
    },
    prepareForUpdate(o, old) {
      keepStatusAnnotations(o, old);
      if (!usesContainerMetrics(old)) dropContainerMetrics(o);
    },
    validate: validateHorizontalPodAutoscaler,
    validateUpdate: validateHorizontalPodAutoscalerUpdate,
    subresources: {
      status: { prepareForUpdate: (o) => o, validateUpdate: (o) => validateHorizontalPodAutoscalerStatus(o) },
    },
  },
};
