// DefaultStorageClass: a new claim that says nothing about its class (no `storageClassName` at
// all; an empty one asks for no class and is left alone) gets the class marked as the cluster's
// default, so dynamic provisioning works for manifests that do not know the cluster. No default
// leaves the claim as it is; several defaults (1.24 behaviour) refuse it rather than guess.

import type { ApiObject } from '../../../../shared/api/types.js';
import { AdmissionOperation } from '../../../../shared/bus/messages.js';
import { admissionForbidden } from '../../errors.js';
import type { ObjectCache } from '../../object-cache.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';
import { objectAt, rec } from '../../object-json.js';

export const DEFAULT_STORAGE_CLASS = 'DefaultStorageClass';

export const STORAGE_GROUP = 'storage.platform.io';
export const IS_DEFAULT_STORAGE_CLASS_ANNOTATION = 'storageclass.platform.io/is-default-class';
export const BETA_IS_DEFAULT_STORAGE_CLASS_ANNOTATION = 'storageclass.beta.platform.io/is-default-class';
/** The class annotation claims used before `spec.storageClassName`; still read first. */
export const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.platform.io/storage-class';

export const DEFAULT_STORAGE_CLASS_MATCH: PluginMatch = {
  operations: [AdmissionOperation.Create],
  resources: [{ group: '', resource: 'persistentvolumeclaims' }],
};

export function isDefaultStorageClass(sc: ApiObject): boolean {
  const a = sc.metadata.annotations ?? {};
  return a[IS_DEFAULT_STORAGE_CLASS_ANNOTATION] === 'true' || a[BETA_IS_DEFAULT_STORAGE_CLASS_ANNOTATION] === 'true';
}

/** The class a claim asks for ('' = none), by the beta annotation first; undefined when it does not say. */
export function claimStorageClass(claim: ApiObject): string | undefined {
  const annotations = claim.metadata.annotations ?? {};
  if (Object.hasOwn(annotations, BETA_STORAGE_CLASS_ANNOTATION)) return annotations[BETA_STORAGE_CLASS_ANNOTATION];
  const name = rec(claim.spec)?.storageClassName;
  return typeof name === 'string' ? name : undefined;
}

export function createDefaultStorageClassPlugin(classes: ObjectCache): AdmissionPlugin {
  return {
    name: DEFAULT_STORAGE_CLASS,
    match: DEFAULT_STORAGE_CLASS_MATCH,
    async mutate(req) {
      const claim = req.object;
      if (req.subResource || !claim || claimStorageClass(claim) !== undefined) return;
      await classes.ready();
      const defaults = classes.list('').filter(isDefaultStorageClass);
      if (defaults.length === 0) return;
      if (defaults.length > 1) throw admissionForbidden(req, `Internal error occurred: ${defaults.length} default StorageClasses were found`);
      objectAt(claim, 'spec').storageClassName = defaults[0]!.metadata.name;
      return claim;
    },
  };
}

export const defaultStorageClassPlugin: PluginDefinition = {
  name: DEFAULT_STORAGE_CLASS,
  defaultEnabled: true,
  create: (deps) => createDefaultStorageClassPlugin(deps.objects(STORAGE_GROUP, 'storageclasses')),
};
