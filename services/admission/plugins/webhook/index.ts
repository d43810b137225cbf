// The plugins of this folder by name: MutatingAdmissionWebhook and ValidatingAdmissionWebhook.

import type { PluginFactory } from '../../types.js';
import { MUTATING_ADMISSION_WEBHOOK, VALIDATING_ADMISSION_WEBHOOK } from './names.js';
import { mutatingWebhookPlugin, validatingWebhookPlugin } from './plugin.js';

export const plugins: Readonly<Record<string, PluginFactory>> = {
  [MUTATING_ADMISSION_WEBHOOK]: mutatingWebhookPlugin,
  [VALIDATING_ADMISSION_WEBHOOK]: validatingWebhookPlugin,
};
