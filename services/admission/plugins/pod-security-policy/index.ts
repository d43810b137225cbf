// The plugins of this folder by name: PodSecurityPolicy.

import type { PluginFactory } from '../../types.js';

export const plugins: Readonly<Record<string, PluginFactory>> = {};
