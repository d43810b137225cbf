// StorageObjectInUseProtection: every new claim and volume carries a finalizer, so deleting one a
// pod still uses (a claim) or a claim is still bound to (a volume) only marks it; the protection
// controllers remove the finalizer once nothing uses it, and the deletion completes then.

import type { ApiObject } from '../../../../shared/api/types.js';
import { AdmissionOperation } from '../../../../shared/bus/messages.js';
import { PV_PROTECTION_FINALIZER, PVC_PROTECTION_FINALIZER } from '../../../../shared/api/volume-protection.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';

export const STORAGE_OBJECT_IN_USE_PROTECTION = 'StorageObjectInUseProtection';

const FINALIZERS: Readonly<Record<string, string>> = {
  persistentvolumeclaims: PVC_PROTECTION_FINALIZER,
  persistentvolumes: PV_PROTECTION_FINALIZER,
};

export const STORAGE_OBJECT_IN_USE_PROTECTION_MATCH: PluginMatch = {
  operations: [AdmissionOperation.Create],
  resources: [
    { group: '', resource: 'persistentvolumeclaims' },
    { group: '', resource: 'persistentvolumes' },
  ],
};

export function createStorageObjectInUseProtection(): AdmissionPlugin {
  return {
    name: STORAGE_OBJECT_IN_USE_PROTECTION,
    match: STORAGE_OBJECT_IN_USE_PROTECTION_MATCH,
    mutate(req): ApiObject | void {
      const finalizer = req.resource.group === '' ? FINALIZERS[req.resource.resource] : undefined;
      const obj = req.object;
      if (req.subResource || !finalizer || !obj) return;
      const held = obj.metadata.finalizers ?? [];
      if (held.includes(finalizer)) return;
      obj.metadata.finalizers = [...held, finalizer];
      return obj;
    },
  };
}

export const storageObjectInUseProtectionPlugin: PluginDefinition = {
  name: STORAGE_OBJECT_IN_USE_PROTECTION,
  defaultEnabled: true,
  create: () => createStorageObjectInUseProtection(),
};
