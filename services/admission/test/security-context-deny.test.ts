import { describe, it } from 'node:test';
import { createSecurityContextDeny } from '../plugins/pods/security-context-deny.js';
import { CTX, pod, rejects, request } from './scheduling-fixtures.js';

describe('SecurityContextDeny', () => {
  const plugin = createSecurityContextDeny();
  const container = (securityContext: Record<string, unknown>) => [{ name: 'c', image: 'i', securityContext }];
  const refused: Array<[string, Record<string, unknown>, string]> = [
    ['pod supplementalGroups', { securityContext: { supplementalGroups: [1000] } }, 'pod.Spec.SecurityContext.SupplementalGroups is forbidden'],
    ['an empty supplementalGroups list', { securityContext: { supplementalGroups: [] } }, 'pod.Spec.SecurityContext.SupplementalGroups is forbidden'],
    ['pod seLinuxOptions', { securityContext: { seLinuxOptions: { level: 's0' } } }, 'pod.Spec.SecurityContext.SELinuxOptions is forbidden'],
    ['pod runAsUser', { securityContext: { runAsUser: 0 } }, 'pod.Spec.SecurityContext.RunAsUser is forbidden'],
    ['pod fsGroup', { securityContext: { fsGroup: 2000 } }, 'pod.Spec.SecurityContext.FSGroup is forbidden'],
    ['container seLinuxOptions', { containers: container({ seLinuxOptions: {} }) }, 'SecurityContext.SELinuxOptions is forbidden'],
    ['container runAsUser', { containers: container({ runAsUser: 1000 }) }, 'SecurityContext.RunAsUser is forbidden'],
    ['init container runAsUser', { initContainers: container({ runAsUser: 1000 }) }, 'SecurityContext.RunAsUser is forbidden'],
  ];
  for (const [name, spec, why] of refused) {
    it(`refuses ${name}`, async () => {
      await rejects(() => plugin.validate!(request('pods', { object: pod(spec), phase: 'validating' }), CTX), 403, `pods "web" is forbidden: ${why}`);
    });
  }

  const allowed: Array<[string, Record<string, unknown>]> = [
    ['no security context', {}],
    ['pod runAsNonRoot and runAsGroup', { securityContext: { runAsNonRoot: true, runAsGroup: 1000 } }],
    ['container privileged and capabilities', { containers: container({ privileged: true, capabilities: { add: ['NET_ADMIN'] } }) }],
    ['ephemeral container runAsUser (not checked, as upstream)', { ephemeralContainers: [{ name: 'd', image: 'i', securityContext: { runAsUser: 0 } }] }],
  ];
  for (const [name, spec] of allowed) {
    it(`allows ${name}`, async () => {
      await plugin.validate!(request('pods', { object: pod(spec), phase: 'validating' }), CTX);
    });
  }
});
