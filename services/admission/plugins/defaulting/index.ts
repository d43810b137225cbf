// The plugins of this folder by name: ServiceAccount, Priority, RuntimeClass, DefaultStorageClass, DefaultIngressClass, StorageObjectInUseProtection, PersistentVolumeClaimResize.

import type { PluginFactory } from '../../types.js';
import { PRIORITY, priorityPlugin } from './priority.js';
import { RUNTIME_CLASS, runtimeClassPlugin } from './runtime-class.js';
import { SERVICE_ACCOUNT, serviceAccountPlugin } from './service-account.js';

export const plugins: Readonly<Record<string, PluginFactory>> = {
  [SERVICE_ACCOUNT]: serviceAccountPlugin,
  [PRIORITY]: priorityPlugin,
  [RUNTIME_CLASS]: runtimeClassPlugin,
};
