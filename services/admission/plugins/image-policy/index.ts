// The plugins of this folder by name: ImagePolicyWebhook, EventRateLimit, OwnerReferencesPermissionEnforcement.

import type { PluginFactory } from '../../types.js';
import { EVENT_RATE_LIMIT, eventRateLimitPlugin } from './event-rate-limit.js';
import { IMAGE_POLICY_WEBHOOK, imagePolicyWebhookPlugin } from './image-policy-webhook.js';
import { OWNER_REFERENCES_PERMISSION_ENFORCEMENT, ownerReferencesPermissionEnforcementPlugin } from './owner-references.js';

export const plugins: Readonly<Record<string, PluginFactory>> = {
  [IMAGE_POLICY_WEBHOOK]: imagePolicyWebhookPlugin,
  [EVENT_RATE_LIMIT]: eventRateLimitPlugin,
  [OWNER_REFERENCES_PERMISSION_ENFORCEMENT]: ownerReferencesPermissionEnforcementPlugin,
};
