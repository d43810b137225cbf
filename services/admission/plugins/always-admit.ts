// AlwaysAdmit (deprecated upstream): admits everything; exists so configurations naming it work.

import type { AdmissionPlugin, PluginFactory } from '../types.js';

export const ALWAYS_ADMIT = 'AlwaysAdmit';

export const alwaysAdmitPlugin: PluginFactory = (): AdmissionPlugin => ({
  name: ALWAYS_ADMIT,
  validate: () => undefined,
});
