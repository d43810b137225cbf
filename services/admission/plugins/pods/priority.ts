// Priority: a new pod's `priorityClassName` is resolved to the integer `spec.priority` (and the
// class's preemption policy) the scheduler orders and preempts by. A pod naming no class gets the
// global default class, if one is marked, else priority 0. A pod naming a class that does not
// exist is refused, and so is one that states a priority or policy other than its class's: the
// number is the cluster's to decide, not the pod author's. On update the values set at creation
// are kept when a client leaves them out (the spec is immutable, so a PUT built from an older
// copy would otherwise fail validation). PriorityClasses themselves: at most one global default.

import type { ApiObject } from '../../../../shared/api/types.js';
import { AdmissionOperation, type AdmissionRequest } from '../../../../shared/bus/messages.js';
import { admissionForbidden } from '../../errors.js';
import type { ObjectCache } from '../../object-cache.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';
import { rec, type Json } from '../../object-json.js';

export const PRIORITY = 'Priority';

export const SCHEDULING_GROUP = 'scheduling.platform.io';
/** Priority of a pod naming no class when no class is the global default. */
export const DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS = 0;
export const PREEMPT_LOWER_PRIORITY = 'PreemptLowerPriority';

export const PRIORITY_MATCH: PluginMatch = {
  operations: [AdmissionOperation.Create, AdmissionOperation.Update],
  resources: [
    { group: '', resource: 'pods' },
    { group: SCHEDULING_GROUP, resource: 'priorityclasses' },
  ],
};

interface Resolved {
  /** '' when no class applies. */
  className: string;
  priority: number;
  preemptionPolicy: string;
}

/** The global default class; of several (two marked at once in a race) the lowest value. */
export function defaultPriorityClass(classes: readonly ApiObject[]): ApiObject | undefined {
  let found: ApiObject | undefined;
  for (const pc of classes) {
    if (pc.globalDefault !== true) continue;
    if (!found || Number(found.value) > Number(pc.value)) found = pc;
  }
  return found;
}

const policyOf = (pc: ApiObject): string => (typeof pc.preemptionPolicy === 'string' ? pc.preemptionPolicy : PREEMPT_LOWER_PRIORITY);

export function createPriorityPlugin(classes: ObjectCache): AdmissionPlugin {
  const resolve = async (req: AdmissionRequest, spec: Json): Promise<Resolved> => {
    await classes.ready();
    const name = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
    if (!name) {
      const def = defaultPriorityClass(classes.list(''));
      if (!def) return { className: '', priority: DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS, preemptionPolicy: PREEMPT_LOWER_PRIORITY };
      return { className: def.metadata.name ?? '', priority: Number(def.value), preemptionPolicy: policyOf(def) };
    }
    // A class made a moment ago may not have reached the cache yet: read it before refusing.
    const pc = await classes.lookup(undefined, name);
    if (!pc) throw admissionForbidden(req, `no PriorityClass with name ${name} was found`);
    return { className: name, priority: Number(pc.value), preemptionPolicy: policyOf(pc) };
  };

  const admitPodCreate = async (req: AdmissionRequest, spec: Json): Promise<void> => {
    const resolved = await resolve(req, spec);
    if (resolved.className) spec.priorityClassName = resolved.className;
    if (spec.priority !== undefined && spec.priority !== null && spec.priority !== resolved.priority) {
      throw admissionForbidden(
        req,
        `the integer value of priority (${String(spec.priority)}) must not be provided in pod spec; priority admission controller computed ${resolved.priority} from the given PriorityClass name`,
      );
    }
    spec.priority = resolved.priority;
    if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== null && spec.preemptionPolicy !== resolved.preemptionPolicy) {
      throw admissionForbidden(
        req,
        `the string value of PreemptionPolicy (${String(spec.preemptionPolicy)}) must not be provided in pod spec; priority admission controller computed ${resolved.preemptionPolicy} from the given PriorityClass name`,
      );
    }
    spec.preemptionPolicy = resolved.preemptionPolicy;
  };

  const admitPodUpdate = (spec: Json, oldSpec: Json | undefined): void => {
    if (!oldSpec) return;
    if (spec.priority == null && oldSpec.priority != null) spec.priority = oldSpec.priority;
    if (spec.preemptionPolicy == null && oldSpec.preemptionPolicy != null) spec.preemptionPolicy = oldSpec.preemptionPolicy;
  };

  const validatePriorityClass = async (req: AdmissionRequest, pc: ApiObject): Promise<void> => {
    if (pc.globalDefault !== true) return;
    await classes.ready();
    const def = defaultPriorityClass(classes.list(''));
    if (!def) return;
    // Re-marking the default itself is fine; a second one is not.
    if (req.operation === AdmissionOperation.Create || def.metadata.name !== pc.metadata.name) {
      throw admissionForbidden(req, `PriorityClass ${def.metadata.name ?? ''} is already marked as default. Only one default can exist`);
    }
  };

  return {
    name: PRIORITY,
    match: PRIORITY_MATCH,
    async mutate(req) {
      if (req.subResource || req.resource.resource !== 'pods' || req.resource.group !== '') return;
      const spec = rec(req.object?.spec);
      if (!spec) return;
      if (req.operation === AdmissionOperation.Create) await admitPodCreate(req, spec);
      else if (req.operation === AdmissionOperation.Update) admitPodUpdate(spec, rec(req.oldObject?.spec));
      return req.object!;
    },
    async validate(req) {
      if (req.subResource || req.resource.resource !== 'priorityclasses' || req.resource.group !== SCHEDULING_GROUP || !req.object) return;
      await validatePriorityClass(req, req.object);
    },
  };
}

export const priorityPlugin: PluginDefinition = {
  name: PRIORITY,
  defaultEnabled: true,
  create: (deps) => createPriorityPlugin(deps.objects(SCHEDULING_GROUP, 'priorityclasses')),
};
