// The plugins of this folder by name: ImagePolicyWebhook, EventRateLimit, OwnerReferencesPermissionEnforcement.

import type { PluginFactory } from '../../types.js';

export const plugins: Readonly<Record<string, PluginFactory>> = {};
