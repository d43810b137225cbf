// DefaultIngressClass: a new Ingress that names no class (neither `spec.ingressClassName` nor the
// older class annotation) gets the IngressClass marked as the cluster's default, so the ingress
// controller that owns the default picks it up. No default leaves it alone; several refuse it.

import { AdmissionOperation } from '../../../../shared/bus/messages.js';
import { admissionForbidden } from '../../errors.js';
import type { ObjectCache } from '../../object-cache.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';
import { objectAt, rec } from '../../object-json.js';

export const DEFAULT_INGRESS_CLASS = 'DefaultIngressClass';

export const NETWORKING_GROUP = 'networking.platform.io';
export const IS_DEFAULT_INGRESS_CLASS_ANNOTATION = 'ingressclass.platform.io/is-default-class';
/** How an Ingress named its class before `spec.ingressClassName`. */
export const INGRESS_CLASS_ANNOTATION = 'platform.io/ingress.class';

export const DEFAULT_INGRESS_CLASS_MATCH: PluginMatch = {
  operations: [AdmissionOperation.Create],
  resources: [{ group: NETWORKING_GROUP, resource: 'ingresses' }],
};

export function createDefaultIngressClassPlugin(classes: ObjectCache): AdmissionPlugin {
  return {
    name: DEFAULT_INGRESS_CLASS,
    match: DEFAULT_INGRESS_CLASS_MATCH,
    async mutate(req) {
      const ingress = req.object;
      if (req.subResource || !ingress) return;
      const named = rec(ingress.spec)?.ingressClassName;
      if ((named !== undefined && named !== null) || Object.hasOwn(ingress.metadata.annotations ?? {}, INGRESS_CLASS_ANNOTATION)) return;
      await classes.ready();
      const defaults = classes.list('').filter((c) => c.metadata.annotations?.[IS_DEFAULT_INGRESS_CLASS_ANNOTATION] === 'true');
      if (defaults.length === 0) return;
      if (defaults.length > 1) throw admissionForbidden(req, `Internal error occurred: ${defaults.length} default IngressClasses were found, only 1 allowed`);
      objectAt(ingress, 'spec').ingressClassName = defaults[0]!.metadata.name;
      return ingress;
    },
  };
}

export const defaultIngressClassPlugin: PluginDefinition = {
  name: DEFAULT_INGRESS_CLASS,
  defaultEnabled: true,
  create: (deps) => createDefaultIngressClassPlugin(deps.objects(NETWORKING_GROUP, 'ingressclasses')),
};
