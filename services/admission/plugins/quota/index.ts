// The plugins of this folder by name: ResourceQuota and LimitRanger.

import type { PluginFactory } from '../../types.js';

export const plugins: Readonly<Record<string, PluginFactory>> = {};
