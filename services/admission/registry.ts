// The admission plugins that are built, by name. Adding one is a file under plugins/ and a line
// here (or in its folder's index.ts); its position in the chain comes from plugin-names.ts.

import type { PluginFactory } from './types.js';
import { alwaysAdmitPlugin, ALWAYS_ADMIT } from './plugins/always-admit.js';
import { alwaysDenyPlugin, ALWAYS_DENY } from './plugins/always-deny.js';
import { certificateApprovalPlugin, CERTIFICATE_APPROVAL } from './plugins/certificate-approval.js';
import { certificateSigningPlugin, CERTIFICATE_SIGNING } from './plugins/certificate-signing.js';
import { certificateSubjectRestrictionPlugin, CERTIFICATE_SUBJECT_RESTRICTION } from './plugins/certificate-subject-restriction.js';
import { namespaceLifecyclePlugin, NAMESPACE_LIFECYCLE } from './plugins/namespace-lifecycle.js';
import { nodeRestrictionPlugin, NODE_RESTRICTION } from './plugins/node-restriction.js';
import { plugins as webhookPlugins } from './plugins/webhook/index.js';
import { plugins as podSecurityPlugins } from './plugins/pod-security/index.js';
import { plugins as podSecurityPolicyPlugins } from './plugins/pod-security-policy/index.js';
import { plugins as quotaPlugins } from './plugins/quota/index.js';
import { plugins as defaultingPlugins } from './plugins/defaulting/index.js';
import { plugins as schedulingPlugins } from './plugins/scheduling/index.js';
import { plugins as imagePolicyPlugins } from './plugins/image-policy/index.js';

export const implementedPlugins: Readonly<Record<string, PluginFactory>> = {
  [ALWAYS_ADMIT]: alwaysAdmitPlugin,
  [ALWAYS_DENY]: alwaysDenyPlugin,
  [CERTIFICATE_APPROVAL]: certificateApprovalPlugin,
  [CERTIFICATE_SIGNING]: certificateSigningPlugin,
  [CERTIFICATE_SUBJECT_RESTRICTION]: certificateSubjectRestrictionPlugin,
  [NAMESPACE_LIFECYCLE]: namespaceLifecyclePlugin,
  [NODE_RESTRICTION]: nodeRestrictionPlugin,
  ...webhookPlugins,
  ...podSecurityPlugins,
  ...podSecurityPolicyPlugins,
  ...quotaPlugins,
  ...defaultingPlugins,
  ...schedulingPlugins,
  ...imagePolicyPlugins,
};
