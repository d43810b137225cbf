// `--authorization-mode=AlwaysDeny` (testing). Like upstream it expresses NoOpinion with a reason
// rather than a hard Deny: a later mode may still allow, and with nothing after it the chain's
// default deny applies and the caller sees "Everything is forbidden.".

import { Decision } from '../../../shared/bus/messages.js';
import type { Authorizer, ModeFactory } from '../types.js';

export const EVERYTHING_IS_FORBIDDEN = 'Everything is forbidden.';

export const alwaysDenyMode: ModeFactory = (): Authorizer => ({
  name: 'AlwaysDeny',
  authorize: () => ({ decision: Decision.NoOpinion, reason: EVERYTHING_IS_FORBIDDEN }),
});
