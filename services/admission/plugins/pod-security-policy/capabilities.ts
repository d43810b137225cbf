// The capability rules of a PodSecurityPolicy (upstream's podsecuritypolicy/capabilities): a
// container is given the policy's default adds (unless it drops them) and required drops; it may
// add only default or allowed capabilities (`*` allows any) and must drop every required one.

import { capabilitySlice, invalid, type PspFieldError } from './field-errors.js';

export interface Capabilities {
  add?: string[];
  drop?: string[];
}

export interface CapabilitiesStrategy {
  /** The container's capabilities after defaulting (the same object when nothing changes). */
  generate(current: Capabilities | undefined): Capabilities | undefined;
  validate(field: string, caps: Capabilities | undefined): PspFieldError[];
}

export const ALLOW_ALL_CAPABILITIES = '*';

const sortedUnion = (a: Set<string>, b: Set<string>): string[] => [...new Set([...a, ...b])].sort();

export function capabilitiesStrategy(spec: { defaultAddCapabilities?: string[]; requiredDropCapabilities?: string[]; allowedCapabilities?: string[] }): CapabilitiesStrategy {
  const defaultAdd = spec.defaultAddCapabilities ?? [];
  const requiredDrop = spec.requiredDropCapabilities ?? [];
  const allowed = new Set(spec.allowedCapabilities ?? []);
  return {
    generate(current) {
      const containerAdd = new Set(current?.add ?? []);
      const containerDrop = new Set(current?.drop ?? []);
      const add = sortedUnion(new Set(defaultAdd.filter((c) => !containerDrop.has(c))), containerAdd);
      const drop = sortedUnion(new Set(requiredDrop), containerDrop);
      if (add.length === containerAdd.size && drop.length === containerDrop.size) return current;
      return { ...(add.length ? { add } : {}), ...(drop.length ? { drop } : {}) };
    },
    validate(field, caps) {
      if (!caps) {
        // Nothing requested and nothing the policy would have defaulted: fine.
        if (!defaultAdd.length && !requiredDrop.length) return [];
        return [invalid(field, null, 'required capabilities are not set on the securityContext')];
      }
      if (allowed.has(ALLOW_ALL_CAPABILITIES)) return [];
      const errs: PspFieldError[] = [];
      for (const cap of caps.add ?? []) {
        if (!defaultAdd.includes(cap) && !allowed.has(cap)) errs.push(invalid(`${field}.add`, cap, 'capability may not be added'));
      }
      const dropped = new Set(caps.drop ?? []);
      for (const cap of requiredDrop) {
        if (!dropped.has(cap)) errs.push(invalid(`${field}.drop`, capabilitySlice(caps.drop), `${cap} is required to be dropped but was not found`));
      }
      return errs;
    },
  };
}
