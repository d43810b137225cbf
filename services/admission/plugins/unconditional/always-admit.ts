// AlwaysAdmit (deprecated upstream): admits everything; exists so configurations naming it work.

import type { AdmissionPlugin, PluginDefinition } from '../../types.js';

export const ALWAYS_ADMIT = 'AlwaysAdmit';

export const alwaysAdmitPlugin: PluginDefinition = {
  name: ALWAYS_ADMIT,
  defaultEnabled: false,
  create: (): AdmissionPlugin => ({
    name: ALWAYS_ADMIT,
    validate: () => undefined,
  }),
};
