// `--authorization-mode=AlwaysAllow`: every request is allowed. For development and tests only.

import { Decision } from '../../../shared/bus/messages.js';
import type { Authorizer, ModeFactory } from '../types.js';

export const alwaysAllowMode: ModeFactory = (): Authorizer => ({
  name: 'AlwaysAllow',
  authorize: () => ({ decision: Decision.Allow }),
});
