// What the pod plugins read and change in pods as served (core v1 JSON): the spec, its
// containers, tolerations as upstream's toleration helpers compare and merge them, node-selector
// strings as upstream's ConvertSelectorToLabelsMap reads them, and which requests are pods proper.

import { isDeepStrictEqual } from 'node:util';
import type { ApiObject } from '../../../../shared/api/types.js';
import type { AdmissionRequest } from '../../../../shared/bus/messages.js';
import { labelValueProblems, qualifiedNameProblems } from '../../../../shared/api/validation.js';

export type Json = Record<string, unknown>;

export const rec = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Taints the node lifecycle controller puts on nodes (upstream's `node.kubernetes.io/…`). */
export const TAINT_NODE_NOT_READY = 'node.platform.io/not-ready';
export const TAINT_NODE_UNREACHABLE = 'node.platform.io/unreachable';
export const TAINT_NODE_MEMORY_PRESSURE = 'node.platform.io/memory-pressure';
/** The node label every node agent sets to its own name (upstream's `kubernetes.io/hostname`). */
export const LABEL_HOSTNAME = 'platform.io/hostname';

/** A write of `group/resource` itself, not of one of its subresources. */
export function isMainResource(req: AdmissionRequest, group: string, resource: string): boolean {
  return req.resource.group === group && req.resource.resource === resource && !req.subResource;
}

/** The object's spec, created when absent so a mutator can fill it. */
export function specOf(obj: ApiObject): Json {
  let spec = rec(obj.spec);
  if (!spec) obj.spec = spec = {};
  return spec;
}

export interface ContainerAt {
  container: Json;
  /** `spec.initContainers[0]`, as upstream's VisitContainersWithPath names it. */
  path: string;
}

/** Init containers, containers, then ephemeral containers, each with its field path. */
export function podContainers(spec: Json | undefined): ContainerAt[] {
  const out: ContainerAt[] = [];
  for (const field of ['initContainers', 'containers', 'ephemeralContainers']) {
    list(spec?.[field]).forEach((c, i) => {
      const container = rec(c);
      if (container) out.push({ container, path: `spec.${field}[${i}]` });
    });
  }
  return out;
}

// ---- tolerations ------------------------------------------------------------------------------

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number | null;
}

/** The pod's tolerations that are objects (the schema has already refused anything else). */
export function tolerationsOf(spec: Json | undefined): Toleration[] {
  return list(spec?.tolerations).filter((t): t is Toleration => rec(t) !== undefined);
}

const canonical = (t: Toleration) => ({
  key: t.key ?? '',
  operator: t.operator ?? '',
  value: t.value ?? '',
  effect: t.effect ?? '',
  tolerationSeconds: t.tolerationSeconds ?? null,
});

/** Semantic equality: an absent field is its zero value. */
export function sameToleration(a: Toleration, b: Toleration): boolean {
  return isDeepStrictEqual(canonical(a), canonical(b));
}

/** Whether `ss` tolerates every taint `t` tolerates (and no shorter on NoExecute). */
export function isSuperset(ss: Toleration, t: Toleration): boolean {
  if (sameToleration(ss, t)) return true;
  const s = canonical(ss);
  const c = canonical(t);
  // An empty key with Exists matches every key and value.
  if (c.key !== s.key && (s.key !== '' || s.operator !== 'Exists')) return false;
  // An empty effect matches every effect.
  if (c.effect !== s.effect && s.effect !== '') return false;
  if (s.effect === 'NoExecute' && s.tolerationSeconds !== null) {
    if (c.tolerationSeconds === null || c.tolerationSeconds > s.tolerationSeconds) return false;
  }
  switch (s.operator) {
    case 'Equal':
    case '':
      // As upstream: only an explicit Equal is covered by an Equal (an identical one already matched above).
      return c.operator === 'Equal' && c.value === s.value;
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** Both lists with every toleration another one covers left out; of equal ones the first stays. */
export function mergeTolerations(first: readonly Toleration[], second: readonly Toleration[]): Toleration[] {
  const all = [...first, ...second];
  const merged: Toleration[] = [];
  all.forEach((t, i) => {
    if (merged.some((m) => isSuperset(m, t))) return;
    if (all.slice(i + 1).some((later) => !sameToleration(t, later) && isSuperset(later, t))) return;
    merged.push(t);
  });
  return merged;
}

/** Whether each toleration is covered by one of the whitelist (an empty whitelist allows all). */
export function verifyAgainstWhitelist(tolerations: readonly Toleration[], whitelist: readonly Toleration[]): boolean {
  if (whitelist.length === 0 || tolerations.length === 0) return true;
  return tolerations.every((t) => whitelist.some((w) => isSuperset(w, t)));
}

const sameMatch = (a: Toleration, b: Toleration) =>
  (a.key ?? '') === (b.key ?? '') && (a.effect ?? '') === (b.effect ?? '') && (a.operator ?? '') === (b.operator ?? '') && (a.value ?? '') === (b.value ?? '');

/**
 * Upstream's AddOrUpdateTolerationInPod: replaces the tolerations with the same key, effect,
 * operator and value, else appends. False when the pod already has exactly this toleration.
 */
export function addOrUpdateToleration(spec: Json, toleration: Toleration): boolean {
  const current = tolerationsOf(spec);
  const next: Toleration[] = [];
  let updated = false;
  for (const t of current) {
    if (sameMatch(toleration, t)) {
      if (sameToleration(toleration, t)) return false;
      next.push({ ...toleration });
      updated = true;
      continue;
    }
    next.push(t);
  }
  if (!updated) next.push({ ...toleration });
  spec.tolerations = next;
  return true;
}

/** Upstream's validation of a toleration list, for tolerations read from plugin configuration. */
export function tolerationProblems(value: unknown, path: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return [`${path} must be a list of tolerations`];
  const out: string[] = [];
  value.forEach((v, i) => {
    const at = `${path}[${i}]`;
    const t = rec(v);
    if (!t) {
      out.push(`${at} must be an object`);
      return;
    }
    for (const k of Object.keys(t)) {
      if (!['key', 'operator', 'value', 'effect', 'tolerationSeconds'].includes(k)) out.push(`${at}: unknown field ${JSON.stringify(k)}`);
    }
    for (const k of ['key', 'operator', 'value', 'effect']) {
      if (t[k] !== undefined && typeof t[k] !== 'string') out.push(`${at}.${k} must be a string`);
    }
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && !Number.isSafeInteger(t.tolerationSeconds)) out.push(`${at}.tolerationSeconds must be an integer`);
    const key = str(t.key);
    const operator = str(t.operator);
    if (key) out.push(...qualifiedNameProblems(key).map((p) => `${at}.key: Invalid value: ${JSON.stringify(key)}: ${p}`));
    if (!key && operator !== 'Exists')
      out.push(`${at}.operator: Invalid value: ${JSON.stringify(operator)}: operator must be Exists when \`key\` is empty, which means "match all values and all keys"`);
    if (t.tolerationSeconds != null && t.effect !== 'NoExecute')
      out.push(`${at}.effect: Invalid value: ${JSON.stringify(str(t.effect))}: effect must be 'NoExecute' when \`tolerationSeconds\` is set`);
    if (operator === 'Exists' && str(t.value)) out.push(`${at}.operator: Invalid value: ${JSON.stringify(str(t.value))}: value must be empty when \`operator\` is 'Exists'`);
    if (!['', 'Equal', 'Exists'].includes(operator)) out.push(`${at}.operator: Unsupported value: ${JSON.stringify(operator)}: supported values: "Equal", "Exists"`);
    if (!['', 'NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(str(t.effect))) {
      out.push(`${at}.effect: Unsupported value: ${JSON.stringify(t.effect)}: supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`);
    }
  });
  return out;
}

// ---- node selectors -------------------------------------------------------------------------

/**
 * A node-selector string (`a=b,c=d`) as a label map, as upstream's ConvertSelectorToLabelsMap
 * reads it: only `key=value` terms, keys and values checked as label keys and values. Throws an
 * Error with upstream's wording when it is not one.
 */
export function selectorToLabels(selector: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (selector.length === 0) return out;
  for (const term of selector.split(',')) {
    const parts = term.split('=');
    if (parts.length !== 2) throw new Error(`invalid selector: [${parts.join(' ')}]`);
    const key = parts[0]!.trim();
    const keyProblems = qualifiedNameProblems(key);
    if (keyProblems.length) throw new Error(`invalid label key ${JSON.stringify(key)}: ${keyProblems.join('; ')}`);
    const value = parts[1]!.trim();
    const valueProblems = labelValueProblems(value);
    if (valueProblems.length) throw new Error(`invalid label value: ${JSON.stringify(value)}: at key: ${JSON.stringify(key)}: ${valueProblems.join('; ')}`);
    out[key] = value;
  }
  return out;
}

/** Whether the two label maps give one key different values. */
export function labelsConflict(a: Record<string, string>, b: Record<string, string>): boolean {
  return Object.keys(a).some((k) => Object.hasOwn(b, k) && b[k] !== a[k]);
}
