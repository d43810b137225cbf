// The plugins of this folder by name: the pod scheduling and small restriction plugins (tolerations, node selectors, taints, images, exec, external IPs, namespaces).

import type { PluginFactory } from '../../types.js';

export const plugins: Readonly<Record<string, PluginFactory>> = {};
