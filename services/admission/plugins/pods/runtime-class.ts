// RuntimeClass: a new pod naming a runtime class gets what running under it takes and needs: the
// class's fixed overhead as `spec.overhead` (which the scheduler and quota add to the pod's
// requests) and its scheduling constraints, the node selector merged into the pod's (a key the
// pod sets to another value is a conflict) and its tolerations added. Overhead is the class's to
// state: a pod stating a different one, or one without a class that has an overhead, is refused,
// and so is a pod naming a class that does not exist.

import type { ApiObject } from '../../../../shared/api/types.js';
import { AdmissionOperation, type AdmissionRequest } from '../../../../shared/bus/messages.js';
import { admissionForbidden } from '../../errors.js';
import type { ObjectCache } from '../../object-cache.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';
import { rec, records, type Json } from '../../object-json.js';
import { resourceListsEqual } from '../../../../shared/api/quantity.js';
import { mergeTolerations, type Toleration } from './pod-fields.js';
import { cloneJson } from '../../../../shared/patch/json-value.js';

export const RUNTIME_CLASS = 'RuntimeClass';

export const NODE_GROUP = 'node.platform.io';

export const RUNTIME_CLASS_MATCH: PluginMatch = {
  operations: [AdmissionOperation.Create],
  resources: [{ group: '', resource: 'pods' }],
};

const OVERHEAD_MISMATCH = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead";

const hasEntries = (v: unknown): boolean => Object.keys(rec(v) ?? {}).length > 0;

function setOverhead(req: AdmissionRequest, spec: Json, rc: ApiObject): void {
  const overhead = rec(rc.overhead);
  if (!overhead) return;
  const podFixed = rec(overhead.podFixed);
  if (hasEntries(spec.overhead) && !resourceListsEqual(podFixed, rec(spec.overhead))) throw admissionForbidden(req, OVERHEAD_MISMATCH);
  if (podFixed) spec.overhead = cloneJson(podFixed);
  else delete spec.overhead;
}

function setScheduling(req: AdmissionRequest, spec: Json, rc: ApiObject): void {
  const scheduling = rec(rc.scheduling);
  if (!scheduling) return;
  const classSelector = rec(scheduling.nodeSelector) ?? {};
  const podSelector = rec(spec.nodeSelector);
  if (!podSelector) {
    if (Object.keys(classSelector).length) spec.nodeSelector = { ...classSelector };
  } else {
    for (const [key, value] of Object.entries(classSelector)) {
      const podValue = podSelector[key];
      if (podValue !== undefined && podValue !== value) {
        throw admissionForbidden(req, `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${String(value)}; pod.spec.nodeSelector[${key}] = ${String(podValue)}`);
      }
      podSelector[key] = value;
    }
  }
  // Copies: the class is the cache's object, which the pod must not share.
  const merged = mergeTolerations(records(spec.tolerations) as Toleration[], cloneJson(records(scheduling.tolerations)) as Toleration[]);
  if (merged.length) spec.tolerations = merged;
}

function validateOverhead(req: AdmissionRequest, spec: Json, rc: ApiObject | undefined): void {
  if (!hasEntries(spec.overhead)) return;
  const overhead = rec(rc?.overhead);
  if (!overhead) throw admissionForbidden(req, 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
  if (!resourceListsEqual(rec(overhead.podFixed), rec(spec.overhead))) throw admissionForbidden(req, OVERHEAD_MISMATCH);
}

export function createRuntimeClassPlugin(classes: ObjectCache): AdmissionPlugin {
  /** The pod's class (undefined: it names none); a class the cache has not seen yet is read live. */
  const classOf = async (req: AdmissionRequest, spec: Json): Promise<ApiObject | undefined> => {
    const name = spec.runtimeClassName;
    if (name === undefined || name === null) return undefined;
    await classes.ready();
    const rc = await classes.lookup(undefined, String(name));
    if (!rc) throw admissionForbidden(req, `pod rejected: RuntimeClass "${String(name)}" not found`);
    return rc;
  };

  const podSpec = (req: AdmissionRequest): Json | undefined => (req.subResource ? undefined : rec(req.object?.spec));

  return {
    name: RUNTIME_CLASS,
    match: RUNTIME_CLASS_MATCH,
    async mutate(req) {
      const spec = podSpec(req);
      if (!spec) return;
      const rc = await classOf(req, spec);
      if (!rc) return;
      setOverhead(req, spec, rc);
      setScheduling(req, spec, rc);
      return req.object!;
    },
    async validate(req) {
      const spec = podSpec(req);
      if (!spec) return;
      validateOverhead(req, spec, await classOf(req, spec));
    },
  };
}

export const runtimeClassPlugin: PluginDefinition = {
  name: RUNTIME_CLASS,
  defaultEnabled: true,
  create: (deps) => createRuntimeClassPlugin(deps.objects(NODE_GROUP, 'runtimeclasses')),
};
