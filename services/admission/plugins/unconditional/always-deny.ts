// AlwaysDeny (deprecated upstream, for testing): rejects every write in both phases with 403.

import type { AdmissionRequest } from '../../../../shared/bus/messages.js';
import { admissionForbidden } from '../../errors.js';
import type { AdmissionPlugin, PluginDefinition } from '../../types.js';

export const ALWAYS_DENY = 'AlwaysDeny';
const why = 'admission control is denying all modifications';

export const alwaysDenyPlugin: PluginDefinition = {
  name: ALWAYS_DENY,
  defaultEnabled: false,
  create: (): AdmissionPlugin => {
    const deny = (req: AdmissionRequest): never => {
      throw admissionForbidden(req, why);
    };
    return { name: ALWAYS_DENY, mutate: deny, validate: deny };
  },
};
