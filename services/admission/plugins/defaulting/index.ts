// The plugins of this folder by name: ServiceAccount, Priority, RuntimeClass, DefaultStorageClass, DefaultIngressClass, StorageObjectInUseProtection, PersistentVolumeClaimResize.

import type { PluginFactory } from '../../types.js';

export const plugins: Readonly<Record<string, PluginFactory>> = {};
