// The admission plugins that are built, by name. Adding one is a file under plugins/ and a line
// here; its position in the chain comes from plugin-names.ts.

import type { PluginFactory } from './types.js';
import { alwaysAdmitPlugin, ALWAYS_ADMIT } from './plugins/always-admit.js';
import { alwaysDenyPlugin, ALWAYS_DENY } from './plugins/always-deny.js';
import { namespaceLifecyclePlugin, NAMESPACE_LIFECYCLE } from './plugins/namespace-lifecycle.js';

export const implementedPlugins: Readonly<Record<string, PluginFactory>> = {
  [ALWAYS_ADMIT]: alwaysAdmitPlugin,
  [ALWAYS_DENY]: alwaysDenyPlugin,
  [NAMESPACE_LIFECYCLE]: namespaceLifecyclePlugin,
};
