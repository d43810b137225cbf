// The sysctl rules of a PodSecurityPolicy (upstream's podsecuritypolicy/sysctl): a forbidden
// sysctl is refused even when safe; the safe set of the 1.24 kubelet is always allowed; any other
// (unsafe) sysctl must be in allowedUnsafeSysctls. Patterns are a name, or a prefix ending in `*`.

import { forbidden, type PspFieldError } from './field-errors.js';

/** The kubelet's namespaced sysctls that are safe by default (1.24). */
export const SAFE_SYSCTLS: ReadonlySet<string> = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start',
]);

export interface SysctlsStrategy {
  validate(sysctls: ReadonlyArray<{ name?: string }>): PspFieldError[];
}

export function matchesSysctlPattern(patterns: readonly string[], name: string): boolean {
  return patterns.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : name === p));
}

export function sysctlsStrategy(spec: { allowedUnsafeSysctls?: string[]; forbiddenSysctls?: string[] }): SysctlsStrategy {
  const allowedUnsafe = spec.allowedUnsafeSysctls ?? [];
  const forbiddenList = spec.forbiddenSysctls ?? [];
  return {
    validate(sysctls) {
      const errs: PspFieldError[] = [];
      sysctls.forEach((s, i) => {
        const name = s.name ?? '';
        const field = `pod.spec.securityContext.sysctls[${i}]`;
        if (matchesSysctlPattern(forbiddenList, name)) errs.push(forbidden(field, `sysctl ${JSON.stringify(name)} is not allowed`));
        else if (!SAFE_SYSCTLS.has(name) && !matchesSysctlPattern(allowedUnsafe, name)) errs.push(forbidden(field, `unsafe sysctl ${JSON.stringify(name)} is not allowed`));
      });
      return errs;
    },
  };
}
