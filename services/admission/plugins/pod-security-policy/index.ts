// The plugins of this folder by name: PodSecurityPolicy.

import type { PluginFactory } from '../../types.js';
import { POD_SECURITY_POLICY, podSecurityPolicyPlugin } from './admission.js';

export const plugins: Readonly<Record<string, PluginFactory>> = {
  [POD_SECURITY_POLICY]: podSecurityPolicyPlugin,
};
