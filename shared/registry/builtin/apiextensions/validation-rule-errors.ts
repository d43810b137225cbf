// The CEL of a schema's `x-kubernetes-validations` checked when a CustomResourceDefinition is
// written (openapi-rules.ts checks the rules' form): every rule and messageExpression must compile
// against the schema of the node it sits on, and a rule reading `oldSelf` must sit where old and
// new values correlate (no set or atomic list above it). Checked whatever the
// CustomResourceValidationExpressions gate says, as upstream does since the feature's beta, so a
// definition stored with the gate off never holds a rule that could not run once it is on.

import type { FieldError } from '../../../api/status.js';
import { invalidValue } from '../../../api/field-errors.js';
import { compileRule, rulesOf } from '../../custom-resources/validation-rules.js';
import { flag, isNode, itemSchema, own, schemaMap, type SchemaNode } from './schema-props.js';

/** Where a node is: whether it is a resource's root, and the list items above it that do not correlate. */
interface Place {
  isResourceRoot: boolean;
  uncorrelatable?: string;
}

function nodeErrors(s: SchemaNode, path: string, place: Place, preexisting: ReadonlySet<string>, out: FieldError[]): void {
  rulesOf(s).forEach((r, i) => {
    // A rule that is not set is a form error (openapi-rules.ts); one stored before is not compiled again.
    if (!r.rule.trim() || preexisting.has(r.rule)) return;
    const p = `${path}.x-kubernetes-validations[${i}]`;
    const compiled = compileRule(r, s, place.isResourceRoot);
    for (const e of compiled.errors) {
      const value = e.field === 'optionalOldSelf' ? true : e.field === 'rule' ? r.rule : r.messageExpression;
      out.push(invalidValue(`${p}.${e.field}`, value, e.detail));
    }
    if (compiled.program?.usesOldSelf && place.uncorrelatable)
      out.push(invalidValue(`${p}.rule`, r.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${place.uncorrelatable}`));
  });
  for (const [k, p] of schemaMap(s, 'properties')) nodeErrors(p, `${path}.properties[${k}]`, { ...place, isResourceRoot: flag(p, 'x-kubernetes-embedded-resource') }, preexisting, out);
  const ap = own(s, 'additionalProperties');
  if (isNode(ap)) nodeErrors(ap, `${path}.additionalProperties`, { ...place, isResourceRoot: flag(ap, 'x-kubernetes-embedded-resource') }, preexisting, out);
  const items = itemSchema(s);
  if (items) {
    const itemsPath = `${path}.items`;
    const uncorrelatable = place.uncorrelatable ?? (own(s, 'x-kubernetes-list-type') === 'map' ? undefined : itemsPath);
    nodeErrors(items, itemsPath, { isResourceRoot: flag(items, 'x-kubernetes-embedded-resource'), ...(uncorrelatable ? { uncorrelatable } : {}) }, preexisting, out);
  }
}

/**
 * The compile errors of the rules of a structural schema whose root is at `path`
 * (`spec.validation.openAPIV3Schema`). `preexisting` holds the rules the stored definition already
 * had: an update may keep them as they are (upstream compiles those in a more lenient environment).
 */
export function validationRuleErrors(root: SchemaNode, path: string, preexisting: ReadonlySet<string> = new Set()): FieldError[] {
  const out: FieldError[] = [];
  nodeErrors(root, path, { isResourceRoot: true }, preexisting, out);
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
