// The plugins of this folder by name: ServiceAccount, Priority, RuntimeClass, DefaultStorageClass, DefaultIngressClass, StorageObjectInUseProtection, PersistentVolumeClaimResize.

import type { PluginFactory } from '../../types.js';
import { DEFAULT_INGRESS_CLASS, defaultIngressClassPlugin } from './default-ingress-class.js';
import { DEFAULT_STORAGE_CLASS, defaultStorageClassPlugin } from './default-storage-class.js';
import { PERSISTENT_VOLUME_CLAIM_RESIZE, persistentVolumeClaimResizePlugin } from './persistent-volume-claim-resize.js';
import { PRIORITY, priorityPlugin } from './priority.js';
import { RUNTIME_CLASS, runtimeClassPlugin } from './runtime-class.js';
import { SERVICE_ACCOUNT, serviceAccountPlugin } from './service-account.js';
import { STORAGE_OBJECT_IN_USE_PROTECTION, storageObjectInUseProtectionPlugin } from './storage-object-in-use-protection.js';

export const plugins: Readonly<Record<string, PluginFactory>> = {
  [SERVICE_ACCOUNT]: serviceAccountPlugin,
  [PRIORITY]: priorityPlugin,
  [RUNTIME_CLASS]: runtimeClassPlugin,
  [DEFAULT_STORAGE_CLASS]: defaultStorageClassPlugin,
  [DEFAULT_INGRESS_CLASS]: defaultIngressClassPlugin,
  [STORAGE_OBJECT_IN_USE_PROTECTION]: storageObjectInUseProtectionPlugin,
  [PERSISTENT_VOLUME_CLAIM_RESIZE]: persistentVolumeClaimResizePlugin,
};
