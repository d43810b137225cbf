// The HPA `behavior` in the annotation that carries it through v1 and v2beta1 (upstream marshals
// its internal type: Go field names, read back case-insensitively), and its defaults.

import { asObject, type Json } from '../common/field-errors.js';
import { cloneJson } from '../../../patch/json-value.js';
import { fields, parseJson } from './hpa-fields.js';

// ---- behavior: v2 <-> the annotation (upstream marshals its internal type: Go field names) -----

function encodeRules(r: unknown): unknown {
  const o = asObject(r);
  if (!o) return null;
  return {
    StabilizationWindowSeconds: o.stabilizationWindowSeconds ?? null,
    SelectPolicy: o.selectPolicy ?? null,
    Policies: Array.isArray(o.policies) ? o.policies.map((p) => ({ Type: asObject(p)?.type ?? '', Value: asObject(p)?.value ?? 0, PeriodSeconds: asObject(p)?.periodSeconds ?? 0 })) : null,
  };
}

export function encodeBehavior(behavior: Json): string {
  return JSON.stringify({ ScaleUp: encodeRules(behavior.scaleUp), ScaleDown: encodeRules(behavior.scaleDown) });
}

const INVALID = Symbol('invalid');

/** Go's json.Unmarshal matches keys to field names without regard to case. */
function goField(o: Json, name: string): unknown {
  const lower = name.toLowerCase();
  let found: unknown;
  for (const [k, v] of Object.entries(o)) if (k.toLowerCase() === lower) found = v;
  return found;
}

function goInt32(v: unknown): number | undefined | typeof INVALID {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31 ? v : INVALID;
}

function goString(v: unknown): string | undefined | typeof INVALID {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : INVALID;
}

function decodeRules(v: unknown): Json | undefined | typeof INVALID {
  if (v === undefined || v === null) return undefined;
  const o = asObject(v);
  if (!o) return INVALID;
  const window = goInt32(goField(o, 'StabilizationWindowSeconds'));
  const select = goString(goField(o, 'SelectPolicy'));
  const rawPolicies = goField(o, 'Policies');
  if (window === INVALID || select === INVALID || (rawPolicies !== undefined && rawPolicies !== null && !Array.isArray(rawPolicies))) return INVALID;
  let policies: Json[] | undefined;
  if (Array.isArray(rawPolicies)) {
    policies = [];
    for (const raw of rawPolicies) {
      const p = asObject(raw);
      if (!p) return INVALID;
      const type = goString(goField(p, 'Type'));
      const value = goInt32(goField(p, 'Value'));
      const period = goInt32(goField(p, 'PeriodSeconds'));
      if (type === INVALID || value === INVALID || period === INVALID) return INVALID;
      policies.push({ type: type ?? '', value: value ?? 0, periodSeconds: period ?? 0 });
    }
  }
  return fields([
    ['stabilizationWindowSeconds', window],
    ['selectPolicy', select],
    ['policies', policies],
  ]);
}

/** The behavior an annotation holds; undefined when it is malformed or empty (upstream ignores both). */
export function decodeBehavior(text: unknown): Json | undefined {
  const o = asObject(parseJson(text));
  if (!o) return undefined;
  const scaleUp = decodeRules(goField(o, 'ScaleUp'));
  const scaleDown = decodeRules(goField(o, 'ScaleDown'));
  if (scaleUp === INVALID || scaleDown === INVALID || (!scaleUp && !scaleDown)) return undefined;
  return fields([
    ['scaleUp', scaleUp],
    ['scaleDown', scaleDown],
  ]);
}

// ---- behavior defaults (upstream's v2/v2beta2 defaulting) ---------------------------------------

const DEFAULT_SCALE_UP = {
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
};
// No scale-down stabilization window: the controller's --horizontal-pod-autoscaler-downscale-stabilization applies.
const DEFAULT_SCALE_DOWN = { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };

function defaultRules(given: unknown, defaults: Json, fillPolicies: boolean): Json {
  const g = asObject(given);
  if (!g) return cloneJson(defaults);
  const pick = (k: string) => (g[k] !== undefined && g[k] !== null ? g[k] : fillPolicies || k !== 'policies' ? cloneJson(defaults[k]) : undefined);
  return fields([
    ['stabilizationWindowSeconds', pick('stabilizationWindowSeconds')],
    ['selectPolicy', pick('selectPolicy')],
    ['policies', pick('policies')],
  ]);
}

/**
 * Fills a behavior's unset rules and fields with upstream's defaults. `fillPolicies` false leaves a
 * given rule's missing policies missing: a behavior read from an annotation is not defaulted before
 * validation upstream, so a rule without policies is refused rather than completed.
 */
export function defaultBehavior(behavior: Json, fillPolicies = true): Json {
  return {
    scaleUp: defaultRules(behavior.scaleUp, DEFAULT_SCALE_UP, fillPolicies),
    scaleDown: defaultRules(behavior.scaleDown, DEFAULT_SCALE_DOWN, fillPolicies),
  };
}
