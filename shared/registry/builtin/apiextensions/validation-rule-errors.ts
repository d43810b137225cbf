// The CEL of a schema's `x-kubernetes-validations` checked when a CustomResourceDefinition is
// written (openapi-rules.ts checks the rules' form): every rule and messageExpression must compile
// against the schema of the node it sits on, a rule reading `oldSelf` must sit where old and new
// values correlate (no set or atomic list above it), and what the rules may cost must fit
// upstream's static limits (rule-costs.ts). Checked whatever the
// CustomResourceValidationExpressions gate says, as upstream does since the feature's beta, so a
// definition stored with the gate off never holds a rule that could not run once it is on.

import type { FieldError } from '../../../api/status.js';
import { invalidValue } from '../../../api/field-errors.js';
import { compileRule, rulesOf } from '../../custom-resources/validation-rules.js';
import { childCardinality, ruleCostErrors, RuleCostTotal } from './rule-costs.js';
import { flag, isNode, itemSchema, own, schemaMap, type SchemaNode } from './schema-props.js';

/**
 * Where a node is: whether it is a resource's root, the list items above it that do not correlate,
 * and how many times it can occur in one object (undefined under a list or map with no bound).
 */
interface Place {
  isResourceRoot: boolean;
  uncorrelatable?: string;
  cardinality: number | undefined;
}

function nodeErrors(s: SchemaNode, path: string, place: Place, preexisting: ReadonlySet<string>, total: RuleCostTotal, out: FieldError[]): void {
  rulesOf(s).forEach((r, i) => {
    // A rule that is not set is a form error (openapi-rules.ts).
    if (!r.rule.trim()) return;
    const p = `${path}.x-kubernetes-validations[${i}]`;
    const compiled = compileRule(r, s, place.isResourceRoot, true);
    const kept = preexisting.has(r.rule);
    out.push(...ruleCostErrors(compiled, p, place.cardinality, total, kept));
    // A rule stored before is not held to this compiler again (upstream compiles those in a more lenient environment).
    if (kept) return;
    for (const e of compiled.errors) {
      const value = e.field === 'optionalOldSelf' ? true : e.field === 'rule' ? r.rule : r.messageExpression;
      out.push(invalidValue(`${p}.${e.field}`, value, e.detail));
    }
    if (compiled.program?.usesOldSelf && place.uncorrelatable)
      out.push(invalidValue(`${p}.rule`, r.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${place.uncorrelatable}`));
  });
  const cardinality = childCardinality(s, place.cardinality);
  for (const [k, p] of schemaMap(s, 'properties'))
    nodeErrors(p, `${path}.properties[${k}]`, { ...place, cardinality, isResourceRoot: flag(p, 'x-kubernetes-embedded-resource') }, preexisting, total, out);
  const ap = own(s, 'additionalProperties');
  if (isNode(ap)) nodeErrors(ap, `${path}.additionalProperties`, { ...place, cardinality, isResourceRoot: flag(ap, 'x-kubernetes-embedded-resource') }, preexisting, total, out);
  const items = itemSchema(s);
  if (items) {
    const itemsPath = `${path}.items`;
    const uncorrelatable = place.uncorrelatable ?? (own(s, 'x-kubernetes-list-type') === 'map' ? undefined : itemsPath);
    nodeErrors(items, itemsPath, { cardinality, isResourceRoot: flag(items, 'x-kubernetes-embedded-resource'), ...(uncorrelatable ? { uncorrelatable } : {}) }, preexisting, total, out);
  }
}

/**
 * The compile and cost errors of the rules of a structural schema whose root is at `path`
 * (`spec.validation.openAPIV3Schema`). `preexisting` holds the rules the stored definition already
 * had: an update may keep them as they are (upstream compiles those in a more lenient environment),
 * and they are not held to the per-expression cost limit again; they do count in the schema's total.
 */
export function validationRuleErrors(root: SchemaNode, path: string, preexisting: ReadonlySet<string> = new Set()): FieldError[] {
  const out: FieldError[] = [];
  const total = new RuleCostTotal();
  nodeErrors(root, path, { isResourceRoot: true, cardinality: 1 }, preexisting, total, out);
  out.push(...total.errors(path));
  return out;
}

/** Every rule expression of a schema (what an update may keep without compiling it again). */
export function ruleExpressions(root: SchemaNode): string[] {
  const out: string[] = [];
  const visit = (s: SchemaNode) => {
    for (const r of rulesOf(s)) out.push(r.rule);
    for (const [, p] of schemaMap(s, 'properties')) visit(p);
    const ap = own(s, 'additionalProperties');
    if (isNode(ap)) visit(ap);
    const items = itemSchema(s);
    if (items) visit(items);
  };
  visit(root);
  return out;
}
