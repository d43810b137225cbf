// The plugins of this folder by name: ResourceQuota and LimitRanger.

import type { PluginFactory } from '../../types.js';
import { LIMIT_RANGER, limitRangerPlugin } from './limit-ranger.js';
import { RESOURCE_QUOTA, resourceQuotaPlugin } from './resource-quota.js';

export const plugins: Readonly<Record<string, PluginFactory>> = {
  [LIMIT_RANGER]: limitRangerPlugin,
  [RESOURCE_QUOTA]: resourceQuotaPlugin,
};
