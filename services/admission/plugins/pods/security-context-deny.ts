// SecurityContextDeny: refuses pods that set the security-context fields which would let them
// choose their identity on the node (SELinux options, user, supplemental groups, fsGroup), for
// clusters that let nothing else restrict them. Checked on the final object, as upstream.

import { AdmissionOperation } from '../../../../shared/bus/messages.js';
import { admissionForbidden } from '../../errors.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';
import { isMainResource, list, rec } from './pod-fields.js';

export const SECURITY_CONTEXT_DENY = 'SecurityContextDeny';

const PODS_CREATE_UPDATE: PluginMatch = {
  operations: [AdmissionOperation.Create, AdmissionOperation.Update],
  resources: [{ group: '', resource: 'pods' }],
};

const isSet = (v: unknown) => v !== undefined && v !== null;

/** Pod-level fields in upstream's order, with the names its messages give them. */
const POD_FIELDS: ReadonlyArray<[string, string]> = [
  ['supplementalGroups', 'SupplementalGroups'],
  ['seLinuxOptions', 'SELinuxOptions'],
  ['runAsUser', 'RunAsUser'],
  ['fsGroup', 'FSGroup'],
];
const CONTAINER_FIELDS: ReadonlyArray<[string, string]> = [
  ['seLinuxOptions', 'SELinuxOptions'],
  ['runAsUser', 'RunAsUser'],
];

export function createSecurityContextDeny(): AdmissionPlugin {
  return {
    name: SECURITY_CONTEXT_DENY,
    match: PODS_CREATE_UPDATE,
    validate(req) {
      if (!req.object || !isMainResource(req, '', 'pods')) return;
      const spec = rec(req.object.spec);
      const podContext = rec(spec?.securityContext);
      for (const [field, name] of POD_FIELDS) {
        if (isSet(podContext?.[field])) throw admissionForbidden(req, `pod.Spec.SecurityContext.${name} is forbidden`);
      }
      // Ephemeral containers are not checked, as upstream.
      for (const c of [...list(spec?.initContainers), ...list(spec?.containers)]) {
        const context = rec(rec(c)?.securityContext);
        for (const [field, name] of CONTAINER_FIELDS) {
          if (isSet(context?.[field])) throw admissionForbidden(req, `SecurityContext.${name} is forbidden`);
        }
      }
    },
  };
}

export const securityContextDenyPlugin: PluginDefinition = {
  name: SECURITY_CONTEXT_DENY,
  defaultEnabled: false,
  create: () => createSecurityContextDeny(),
};
