// DenyServiceExternalIPs: no Service may start using spec.externalIPs (any user who can create
// a Service could otherwise intercept traffic to an address of their choosing). Keeping or
// removing addresses a Service already has stays allowed, so existing Services can be updated.

import { AdmissionOperation } from '../../../../shared/bus/messages.js';
import { admissionForbidden } from '../../errors.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';
import { isMainResource, list, rec } from '../pods/pod-fields.js';

export const DENY_SERVICE_EXTERNAL_IPS = 'DenyServiceExternalIPs';

const SERVICES_CREATE_UPDATE: PluginMatch = {
  operations: [AdmissionOperation.Create, AdmissionOperation.Update],
  resources: [{ group: '', resource: 'services' }],
};

const externalIPs = (o: unknown): unknown[] => list(rec(rec(o)?.spec)?.externalIPs);

export function createDenyServiceExternalIPs(): AdmissionPlugin {
  return {
    name: DENY_SERVICE_EXTERNAL_IPS,
    match: SERVICES_CREATE_UPDATE,
    validate(req) {
      if (!req.object || !isMainResource(req, '', 'services')) return;
      const next = externalIPs(req.object);
      if (next.length === 0) return;
      const old = new Set(externalIPs(req.oldObject));
      if (req.oldObject && next.every((ip) => old.has(ip))) return;
      throw admissionForbidden(req, 'Use of external IPs is denied by admission control');
    },
  };
}

export const denyServiceExternalIPsPlugin: PluginDefinition = {
  name: DENY_SERVICE_EXTERNAL_IPS,
  defaultEnabled: false,
  create: () => createDenyServiceExternalIPs(),
};
