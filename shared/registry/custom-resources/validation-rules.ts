// Validation rules of a CustomResourceDefinition schema (`x-kubernetes-validations`), as upstream's
// apiextensions schema/cel validator runs them: each rule is compiled once per definition (when
// its type is made), then evaluated with `self` bound to the value of the node the rule sits on,
// for every write of an object. A rule that reads `oldSelf` (a transition rule) runs only on
// update and only where the old object has a value at the same place (objects by property, maps
// by key, map-lists by their keys; never inside atomic or set lists), unless `optionalOldSelf`
// makes `oldSelf` an optional. All failures are reported, each where its node is (plus its
// fieldPath); running out of cost stops the rest, as upstream (cel-program.ts counts it).

import type { FieldError } from '../../api/status.js';
import { duplicate, forbidden, invalidValue, required } from '../../api/field-errors.js';
import { resolveFieldPath } from '../builtin/apiextensions/field-path.js';
import { flag, isNode, itemSchema, listOf, own, schemaMap, stringsOf, strOf, type SchemaNode } from '../builtin/apiextensions/schema-props.js';
import { compileExpression, CostMeter, DEFAULT_LIMITS, optionalValue, parseScalar, type CelProgram, type CostLimits } from './cel-program.js';
import { maxCardinality, sizeNodeOf } from './cel-sizes.js';
import { CelValueConverter, DYN, shapeOf, type CelShape } from './cel-values.js';

/** One `x-kubernetes-validations` entry. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** Upstream's `MaxEvaluatedMessageExpressionSizeBytes`. */
const MAX_MESSAGE_BYTES = 5 * 1024;

/** A rule ready to run, or why it cannot (`error`, reported on every write as upstream does). */
export interface CompiledRule {
  rule: ValidationRule;
  program?: CelProgram;
  messageProgram?: CelProgram;
  /** The rule's compile problems, each with the field of the rule it is about. */
  errors: Array<{ field: 'rule' | 'messageExpression' | 'optionalOldSelf'; detail: string }>;
  /** `fieldPath` as a path below the node (`spec.replicas`, `map[key]`), '' when unset. */
  fieldPath: string;
  /** When estimated: the most the rule (and its messageExpression) may cost, once. */
  maxCost?: number;
  messageMaxCost?: number;
  /** When estimated: how often the node could occur in one request, for a node under unbounded lists or maps. */
  maxCardinality?: number;
}

function ruleOf(raw: unknown): ValidationRule | undefined {
  if (!isNode(raw)) return undefined;
  const r: ValidationRule = { rule: strOf(raw, 'rule') };
  for (const k of ['message', 'messageExpression', 'reason', 'fieldPath'] as const) if (typeof own(raw, k) === 'string') r[k] = strOf(raw, k);
  if (flag(raw, 'optionalOldSelf')) r.optionalOldSelf = true;
  return r;
}

/** The rules of a node, in order (entries that are not objects are skipped: the CRD's own validation refuses them). */
export function rulesOf(s: SchemaNode): ValidationRule[] {
  return listOf(s, 'x-kubernetes-validations')
    .map(ruleOf)
    .filter((r): r is ValidationRule => r !== undefined);
}

/** `fieldPath` (`.spec['a.b']`) as upstream's field.Path prints it (`spec.a.b`, `map[key]`). */
function normalizeFieldPath(fieldPath: string, s: SchemaNode): string {
  const resolved = resolveFieldPath(fieldPath, s);
  if (typeof resolved === 'string') return '';
  let node = s;
  let out = '';
  for (const seg of resolved.segments) {
    const props = own(node, 'properties');
    const named = isNode(props) && Object.keys(props).length > 0;
    out = named ? (out ? `${out}.${seg}` : seg) : `${out}[${seg}]`;
    const next = named ? own(props, seg) : own(node, 'additionalProperties');
    node = isNode(next) ? next : {};
  }
  return out;
}

/**
 * Compiles one rule for a node of schema `s` (`isResourceRoot` for a resource's root or an
 * embedded one); `estimate` adds the static cost estimate (what a definition's validation checks).
 */
export function compileRule(rule: ValidationRule, s: SchemaNode, isResourceRoot: boolean, estimate = false): CompiledRule {
  const self = shapeOf(s, isResourceRoot);
  const oldSelf: CelShape = rule.optionalOldSelf ? DYN : self;
  const out: CompiledRule = { rule, errors: [], fieldPath: rule.fieldPath ? normalizeFieldPath(rule.fieldPath, s) : '' };
  const sizes = estimate ? sizeNodeOf(s, isResourceRoot) : undefined;
  if (sizes) out.maxCardinality = maxCardinality(sizes.minSerializedSize);
  const compiled = compileExpression(rule.rule, self, oldSelf, sizes);
  if ('error' in compiled) out.errors.push({ field: 'rule', detail: `${compiled.instantiation ? 'program instantiation' : 'compilation'} failed: ${compiled.error}` });
  else if (compiled.output !== 'bool' && compiled.output !== 'dyn') out.errors.push({ field: 'rule', detail: 'cel expression must evaluate to a bool' });
  else {
    out.program = compiled.program;
    if (compiled.maxCost !== undefined) out.maxCost = compiled.maxCost;
  }
  if (rule.optionalOldSelf && out.program && !out.program.usesOldSelf) out.errors.push({ field: 'optionalOldSelf', detail: 'may not be set if oldSelf is not used in rule' });
  if (rule.messageExpression?.trim()) {
    const message = compileExpression(rule.messageExpression, self, oldSelf, sizes);
    if ('error' in message) out.errors.push({ field: 'messageExpression', detail: `messageExpression compilation failed: ${message.error}` });
    else if (message.output !== 'string' && message.output !== 'dyn') out.errors.push({ field: 'messageExpression', detail: 'messageExpression must evaluate to a string' });
    else {
      out.messageProgram = message.program;
      if (message.maxCost !== undefined) out.messageMaxCost = message.maxCost;
    }
  }
  return out;
}

/** The rules of one schema node and of the nodes below it that have any. */
interface RuleNode {
  type: string;
  /** What `self` is here. */
  shape: CelShape;
  rules: CompiledRule[];
  properties: Map<string, RuleNode>;
  additional?: RuleNode;
  items?: RuleNode;
  /** `x-kubernetes-list-map-keys` of a map-list: its items are matched to the old ones by these. */
  mapKeys?: string[];
  /** An atomic map's entries have no old values to compare with. */
  atomicMap: boolean;
}

function buildNode(s: SchemaNode, isResourceRoot: boolean): RuleNode | undefined {
  const node: RuleNode = {
    type: strOf(s, 'type'),
    shape: shapeOf(s, isResourceRoot),
    rules: rulesOf(s).map((r) => compileRule(r, s, isResourceRoot)),
    properties: new Map(),
    atomicMap: own(s, 'x-kubernetes-map-type') === 'atomic',
  };
  for (const [k, p] of schemaMap(s, 'properties')) {
    const sub = buildNode(p, flag(p, 'x-kubernetes-embedded-resource'));
    if (sub) node.properties.set(k, sub);
  }
  const ap = own(s, 'additionalProperties');
  if (isNode(ap)) node.additional = buildNode(ap, flag(ap, 'x-kubernetes-embedded-resource'));
  const items = itemSchema(s);
  if (items) node.items = buildNode(items, flag(items, 'x-kubernetes-embedded-resource'));
  if (own(s, 'x-kubernetes-list-type') === 'map') node.mapKeys = stringsOf(s, 'x-kubernetes-list-map-keys');
  const empty = node.rules.length === 0 && node.properties.size === 0 && !node.additional && !node.items;
  return empty ? undefined : node;
}

const child = (path: string, name: string) => (path ? `${path}.${name}` : name);
/** Upstream prints the root's (nil) path as `<nil>`. */
const shown = (path: string) => path || '<nil>';

function errorFor(path: string, type: string, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return forbidden(path, detail);
    case 'FieldValueRequired':
      return required(path, detail);
    case 'FieldValueDuplicate':
      return duplicate(path, type);
    default:
      return invalidValue(path, type, detail);
  }
}

/** Upstream's words for a rule in errors: its message when it has one, else its expression. */
const ruleText = (r: ValidationRule) => (r.message ? r.message.trim() : r.rule.trim());

/** One object's validation: the cost meter, the value conversions and the errors found. */
class RuleRun {
  readonly errors: FieldError[] = [];
  private stopped = false;
  private readonly values = new CelValueConverter(parseScalar);
  private readonly oldValues = new CelValueConverter(parseScalar);

  constructor(private readonly meter: CostMeter) {}

  node(n: RuleNode, path: string, v: unknown, old: unknown): void {
    if (v === null || v === undefined || this.stopped) return;
    if (n.rules.length) this.rules(n, path, v, old);
    if (Array.isArray(v) && n.items) {
      const olds = n.mapKeys && Array.isArray(old) ? indexByKeys(old, n.mapKeys) : undefined;
      v.forEach((x, i) => this.node(n.items!, `${path}[${i}]`, x, olds?.get(keyOf(x, n.mapKeys!))));
    } else if (isNode(v)) {
      const oldObj = isNode(old) && !n.atomicMap ? old : undefined;
      for (const [k, x] of Object.entries(v)) {
        const sub = n.properties.get(k);
        const oldX = oldObj && Object.hasOwn(oldObj, k) ? oldObj[k] : undefined;
        if (sub) this.node(sub, child(path, k), x, oldX);
        else if (n.additional) this.node(n.additional, `${path}[${k}]`, x, oldX);
      }
    }
  }

  private rules(n: RuleNode, path: string, v: unknown, old: unknown): void {
    const self = this.values.convert(v, n.shape);
    const oldSelf = old === undefined || old === null ? undefined : this.oldValues.convert(old, n.shape);
    for (const c of n.rules) {
      if (this.stopped) return;
      if (c.errors.some((e) => e.field !== 'optionalOldSelf') || !c.program) {
        const detail = c.errors.map((e) => e.detail).join('; ');
        this.errors.push(invalidValue(shown(path), n.type, `rule compile error: ${detail}`));
        continue;
      }
      const optional = c.rule.optionalOldSelf === true;
      if (c.program.usesOldSelf && oldSelf === undefined && !optional) continue;
      const bindings = { self, oldSelf: optional ? optionalValue(oldSelf) : oldSelf };
      this.rule(c, n, path, bindings);
    }
  }

  private rule(c: CompiledRule, n: RuleNode, path: string, bindings: Record<string, unknown>): void {
    const outcome = c.program!.run(bindings, this.meter);
    if ('exceeded' in outcome) return this.stop(path, n.type, outcome.exceeded, `rule: ${ruleText(c.rule)}`);
    if ('error' in outcome) {
      this.errors.push(invalidValue(shown(path), n.type, `${outcome.error} evaluating rule: ${ruleText(c.rule)}`));
      return;
    }
    if (outcome.value === true) return;
    if (typeof outcome.value !== 'boolean') {
      this.errors.push(invalidValue(shown(path), n.type, `rule did not evaluate to a bool evaluating rule: ${ruleText(c.rule)}`));
      return;
    }
    const at = c.fieldPath ? child(path, c.fieldPath) : shown(path);
    const message = c.messageProgram ? this.message(c.messageProgram, bindings, at, n.type, c.rule) : undefined;
    if (this.stopped) return;
    const detail = message ?? (c.rule.message ? c.rule.message.trim() : `failed rule: ${ruleText(c.rule)}`);
    this.errors.push(errorFor(at, n.type, detail, c.rule.reason));
  }

  /** The messageExpression's text; undefined (use the message) when it fails or is not a usable message. */
  private message(p: CelProgram, bindings: Record<string, unknown>, path: string, type: string, rule: ValidationRule): string | undefined {
    const outcome = p.run(bindings, this.meter);
    if ('exceeded' in outcome) {
      this.stop(path, type, outcome.exceeded, `messageExpression: ${JSON.stringify(rule.messageExpression)}`);
      return undefined;
    }
    if (!('value' in outcome) || typeof outcome.value !== 'string') return undefined;
    const text = outcome.value.trim();
    if (!text || /[\n\r]/.test(text) || new TextEncoder().encode(text).length > MAX_MESSAGE_BYTES) return undefined;
    return text;
  }

  private stop(path: string, type: string, why: 'call' | 'budget' | 'time', what: string): void {
    this.stopped = true;
    const reason =
      why === 'budget'
        ? 'validation failed due to running out of cost budget, no further validation rules will be run'
        : `'operation cancelled: ${why === 'call' ? 'actual cost limit exceeded' : `evaluation time limit exceeded (${this.meter.limits.timeMs}ms of CPU)`}': no further validation rules will be run due to call cost exceeds limit for ${what}`;
    this.errors.push(invalidValue(shown(path), type, reason));
  }
}

/** A map-list item's identity: its key fields' values. */
function keyOf(item: unknown, keys: string[]): string {
  return isNode(item) ? JSON.stringify(keys.map((k) => item[k] ?? null)) : '';
}

/** The old items of a map-list by identity: a new item corresponds to the old one with the same keys. */
function indexByKeys(olds: unknown[], keys: string[]): Map<string, unknown> {
  const index = new Map<string, unknown>();
  for (const o of olds) if (isNode(o)) index.set(keyOf(o, keys), o);
  return index;
}

/** The rules of one version's schema, compiled; undefined when the schema has none. */
export class RuleValidator {
  private constructor(private readonly root: RuleNode) {}

  static of(openAPIV3Schema: unknown): RuleValidator | undefined {
    if (!isNode(openAPIV3Schema)) return undefined;
    const root = buildNode(openAPIV3Schema, true);
    return root && new RuleValidator(root);
  }

  /** The failures of `obj` (an update when `old` is given). */
  validate(obj: unknown, old?: unknown, limits: CostLimits = DEFAULT_LIMITS): FieldError[] {
    const run = new RuleRun(new CostMeter(limits));
    run.node(this.root, '', obj, old);
    return run.errors;
  }
}
