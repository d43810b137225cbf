// The AdmissionRequest the webhook tests start from: a Pod `p` created in `team-a` by jane.

import type { AdmissionRequest } from '../../../shared/bus/messages.js';

export function podRequest(r: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return {
    uid: 'u',
    phase: 'validating',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    name: 'p',
    namespace: 'team-a',
    operation: 'CREATE',
    userInfo: { username: 'jane', groups: [] },
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'web' } } },
    oldObject: null,
    dryRun: false,
    ...r,
  };
}
