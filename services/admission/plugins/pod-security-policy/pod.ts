// The parts of a pod (core v1 JSON) PodSecurityPolicy reads and defaults, after upstream's
// pkg/securitycontext accessors: a container's effective runAsUser, runAsGroup, runAsNonRoot,
// seLinuxOptions and seccompProfile fall back to the pod's; a default is written to the
// container only when it differs from what the container already inherits, and setting
// "nothing" never creates an empty securityContext.

import { isDeepStrictEqual } from 'node:util';

export type Json = Record<string, any>;

export interface Pod {
  metadata: { name?: string; generateName?: string; annotations?: Record<string, string>; [k: string]: unknown };
  spec: Json;
  [k: string]: unknown;
}

export const CONTAINER_LISTS = ['initContainers', 'containers', 'ephemeralContainers'] as const;

export interface ContainerAt {
  container: Json;
  /** `spec.containers[0]` */
  path: string;
}

/** Every container in upstream's visiting order: init containers, containers, ephemeral containers. */
export function containersOf(pod: Pod): ContainerAt[] {
  const out: ContainerAt[] = [];
  for (const list of CONTAINER_LISTS) {
    const items = pod.spec?.[list];
    if (!Array.isArray(items)) continue;
    items.forEach((c, i) => {
      if (c && typeof c === 'object') out.push({ container: c as Json, path: `spec.${list}[${i}]` });
    });
  }
  return out;
}

const present = (v: unknown): boolean => v !== undefined && v !== null;

export function podSC(pod: Pod): Json | undefined {
  const sc = pod.spec?.securityContext;
  return sc && typeof sc === 'object' ? (sc as Json) : undefined;
}

export function containerSC(c: Json): Json | undefined {
  const sc = c.securityContext;
  return sc && typeof sc === 'object' ? (sc as Json) : undefined;
}

/** A pod-level field; nil when absent. */
export function podField<T = unknown>(pod: Pod, key: string): T | undefined {
  const v = podSC(pod)?.[key];
  return present(v) ? (v as T) : undefined;
}

export function setPodField(pod: Pod, key: string, value: unknown): void {
  if (!present(value)) {
    const sc = podSC(pod);
    if (sc) delete sc[key];
    return;
  }
  pod.spec.securityContext = { ...(podSC(pod) ?? {}), [key]: value };
}

/** A container-only field (capabilities, privileged, readOnlyRootFilesystem, …); nil when absent. */
export function containerField<T = unknown>(c: Json, key: string): T | undefined {
  const v = containerSC(c)?.[key];
  return present(v) ? (v as T) : undefined;
}

export function setContainerField(c: Json, key: string, value: unknown): void {
  if (!present(value)) {
    const sc = containerSC(c);
    if (sc) delete sc[key];
    return;
  }
  c.securityContext = { ...(containerSC(c) ?? {}), [key]: value };
}

/** Fields a container inherits from the pod's securityContext. */
export type InheritedField = 'runAsUser' | 'runAsGroup' | 'runAsNonRoot' | 'seLinuxOptions' | 'seccompProfile';

export function effectiveField<T = unknown>(pod: Pod, c: Json, key: InheritedField): T | undefined {
  return containerField<T>(c, key) ?? podField<T>(pod, key);
}

/** Writes the container's own value only when it changes what the container ends up with. */
export function setEffectiveField(pod: Pod, c: Json, key: InheritedField, value: unknown): void {
  if (!isDeepStrictEqual(present(value) ? value : undefined, effectiveField(pod, c, key))) setContainerField(c, key, value);
}

export function annotationsOf(pod: Pod): Record<string, string> {
  return pod.metadata?.annotations ?? {};
}

export function setAnnotation(pod: Pod, key: string, value: string): void {
  pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [key]: value };
}

const isEmpty = (v: unknown): boolean => v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0);

/**
 * Equality as upstream's Semantic.DeepEqual sees a pod: an absent field, an empty list and an
 * empty map all say "nothing", so a default that adds nothing does not count as a change.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isEmpty(a) && isEmpty(b)) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => sameJson(x, b[i]));
  }
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) {
    const ao = a as Json;
    const bo = b as Json;
    for (const k of new Set([...Object.keys(ao), ...Object.keys(bo)])) if (!sameJson(ao[k], bo[k])) return false;
    return true;
  }
  return false;
}
