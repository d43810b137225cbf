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
import { getOwn, setOwn } from '../../api/own-keys.js';

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

/**
 * Sets the field at a dotted path (a definition's specReplicasPath), making missing parents. The
 * path is the definition author's: each step is an own field, so `.spec.__proto__.x` or
 * `.spec.constructor.prototype.x` writes into the object and never into Object.prototype.
 */
function setAtPath(obj: ApiObject, dotted: string, value: unknown): void {
  const path = dotted.replace(/^\./, '').split('.');
  let node = obj as Record<string, unknown>;
  path.slice(0, -1).forEach((part, i) => {
    const child = getOwn(node, part);
    if (child === undefined) {
      const fresh: Record<string, unknown> = {};
      setOwn(node, part, fresh);
      node = fresh;
    } else if (child !== null && typeof child === 'object' && !Array.isArray(child)) node = child as Record<string, unknown>;
    // As upstream's SetNestedField: a value in the way is not overwritten (a 500).
    else throw new Error(`value cannot be set because .${path.slice(0, i + 1).join('.')} is not a map`);
  });
  setOwn(node, path[path.length - 1]!, value);
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
  const next = cloneJson(current);
  setAtPath(next, scaleOf(t).specReplicasPath, replicas);
  next.metadata.resourceVersion = scale.metadata?.resourceVersion;
  if (next.metadata.resourceVersion === undefined) delete next.metadata.resourceVersion;
  return next;
}
