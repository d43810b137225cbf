// The plugins of this folder by name: MutatingAdmissionWebhook and ValidatingAdmissionWebhook.

import type { PluginFactory } from '../../types.js';

export const plugins: Readonly<Record<string, PluginFactory>> = {};
