// The `/scale` subresource: an autoscaling/v1 Scale view of a workload (spec.replicas,
// status.replicas, status.selector) that reads and writes only the replica count.

import type { ApiObject } from '../../api/types.js';
import { badRequest, invalid } from '../../api/status.js';
import { at } from '../../api/object-path.js';
import { labelSelectorFromObject, type LabelSelectorObject } from '../../api/labels.js';
import type { Subresources, Target } from '../types.js';
import { versionSubresources } from '../version-parts.js';
import { invalidValue } from '../../api/field-errors.js';
import { cloneJson } from '../../patch/json-value.js';

export const SCALE_API_VERSION = 'autoscaling/v1';

/** The selector as a string: built-in workloads keep it in spec.selector (an object, or a map for RCs). */
function selectorString(obj: ApiObject, labelSelectorPath?: string): string {
  const fromPath = labelSelectorPath ? at(obj, labelSelectorPath) : undefined;
  if (typeof fromPath === 'string') return fromPath;
  const sel = at(obj, '.spec.selector');
  if (!sel || typeof sel !== 'object') return '';
  const s = sel as Record<string, unknown>;
  if ('matchLabels' in s || 'matchExpressions' in s) {
    try {
      return labelSelectorFromObject(s as LabelSelectorObject).toString();
    } catch {
      return '';
    }
  }
  return Object.entries(s)
    .map(([k, v]) => `${k}=${String(v)}`)
    .sort()
    .join(',');
}

/** The scale paths of the request's version (routing admits /scale only through a version that has them). */
function scaleOf(t: Target): NonNullable<Subresources['scale']> {
  const cfg = versionSubresources(t.type, t.served.version)?.scale;
  if (!cfg) throw new Error(`${t.apiVersion} ${t.kind} has no scale subresource`);
  return cfg;
}

export function toScale(t: Target, obj: ApiObject): ApiObject {
  const cfg = scaleOf(t);
  const m = obj.metadata;
  return {
    kind: 'Scale',
    apiVersion: SCALE_API_VERSION,
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: (at(obj, cfg.specReplicasPath) as number | undefined) ?? 0 },
    status: { replicas: (at(obj, cfg.statusReplicasPath) as number | undefined) ?? 0, selector: selectorString(obj, cfg.labelSelectorPath) },
  };
}

/** Applies a Scale's replica count to the workload; only spec.replicas changes. */
export function fromScale(t: Target, scale: ApiObject, current: ApiObject): ApiObject {
  if (scale.kind !== undefined && scale.kind !== 'Scale') throw badRequest(`the kind in the data (${String(scale.kind)}) does not match the expected kind (Scale)`);
  if (scale.apiVersion !== undefined && scale.apiVersion !== SCALE_API_VERSION) {
    throw badRequest(`the API version in the data (${String(scale.apiVersion)}) does not match the expected API version (${SCALE_API_VERSION})`);
  }
  const replicas = (scale.spec as { replicas?: unknown } | undefined)?.replicas;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0 || replicas > 2 ** 31 - 1) {
    throw invalid('Scale', 'autoscaling', current.metadata.name ?? '', [invalidValue('spec.replicas', replicas, 'must be greater than or equal to 0')]);
  }
  const path = scaleOf(t).specReplicasPath.replace(/^\./, '').split('.');
  const next = cloneJson(current);
  let node = next as Record<string, unknown>;
  for (const part of path.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  node[path[path.length - 1]!] = replicas;
  next.metadata.resourceVersion = scale.metadata?.resourceVersion;
  if (next.metadata.resourceVersion === undefined) delete next.metadata.resourceVersion;
  return next;
}
