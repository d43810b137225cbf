// PersistentVolumeClaimResize: growing a claim's storage request asks for its volume to be
// expanded, which only works for a bound claim whose volume a provisioner made from a class that
// says it can expand (`allowVolumeExpansion: true`). Anything else is refused here, before the
// claim promises a size nothing will ever deliver. Shrinking and other changes are validation's.

import type { ApiObject } from '../../../../shared/api/types.js';
import { AdmissionOperation } from '../../../../shared/bus/messages.js';
import { admissionForbidden } from '../../errors.js';
import type { ObjectCache } from '../../object-cache.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';
import { claimStorageClass, STORAGE_GROUP } from './default-storage-class.js';
import { rec } from '../../object-json.js';
import { compareQuantities } from '../../../../shared/api/quantity.js';

export const PERSISTENT_VOLUME_CLAIM_RESIZE = 'PersistentVolumeClaimResize';

export const PERSISTENT_VOLUME_CLAIM_RESIZE_MATCH: PluginMatch = {
  operations: [AdmissionOperation.Update],
  resources: [{ group: '', resource: 'persistentvolumeclaims' }],
};

const requestedStorage = (claim: ApiObject): unknown => rec(rec(rec(claim.spec)?.resources)?.requests)?.storage;

export function createPersistentVolumeClaimResize(classes: ObjectCache): AdmissionPlugin {
  /** Only a claim whose class, unchanged, exists and allows expansion. */
  const allowResize = async (claim: ApiObject, old: ApiObject): Promise<boolean> => {
    const name = claimStorageClass(claim) ?? '';
    const oldName = claimStorageClass(old) ?? '';
    if (!name || !oldName || name !== oldName) return false;
    await classes.ready();
    const sc = await classes.lookup(undefined, name);
    return sc?.allowVolumeExpansion === true;
  };

  return {
    name: PERSISTENT_VOLUME_CLAIM_RESIZE,
    match: PERSISTENT_VOLUME_CLAIM_RESIZE_MATCH,
    async validate(req) {
      const claim = req.object;
      const old = req.oldObject;
      if (req.subResource || !claim || !old) return;
      if (compareQuantities(requestedStorage(claim), requestedStorage(old)) <= 0) return;
      if (rec(old.status)?.phase !== 'Bound') throw admissionForbidden(req, 'Only bound persistent volume claims can be expanded');
      if (!(await allowResize(claim, old))) {
        throw admissionForbidden(req, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
      }
    },
  };
}

export const persistentVolumeClaimResizePlugin: PluginDefinition = {
  name: PERSISTENT_VOLUME_CLAIM_RESIZE,
  defaultEnabled: true,
  create: (deps) => createPersistentVolumeClaimResize(deps.objects(STORAGE_GROUP, 'storageclasses')),
};
