// Upstream's static cost limits on a definition's validation rules: each rule's estimated cost
// (cel-cost.ts), times how many times its node can occur in one object, must stay within
// StaticEstimatedCostLimit, and the rules of one schema together within StaticEstimatedCRDCostLimit.
// A node's occurrences are the product of the maxItems/maxProperties of the lists and maps above
// it; under one with no bound, as many as its smallest serialization fits in a request.

import type { FieldError } from '../../../api/status.js';
import { forbidden } from '../../../api/field-errors.js';
import type { CompiledRule } from '../../custom-resources/validation-rules.js';
import { MAX_UINT64 } from '../../custom-resources/cel-cost-calls.js';
import { elementsFactor } from '../../custom-resources/cel-sizes.js';
import type { SchemaNode } from './schema-props.js';

/** Upstream's `StaticEstimatedCostLimit`: the most one rule may be estimated to cost. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** Upstream's `StaticEstimatedCRDCostLimit`: the most the rules of one schema may be estimated to cost together. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
/** How many of the costliest rules a total over the limit names (those of at least 1% of it). */
const MOST_EXPENSIVE = 4;

const multiply = (a: number, b: number) => (a === 0 ? 0 : MAX_UINT64 / a < b ? MAX_UINT64 : a * b);

/** How many times the children of node `s` can occur, given how many times `s` can (undefined: no bound). */
export function childCardinality(s: SchemaNode, cardinality: number | undefined): number | undefined {
  if (cardinality === undefined) return undefined;
  const factor = elementsFactor(s);
  return factor === undefined ? undefined : multiply(cardinality, factor);
}

/** Upstream's words for an estimate over a limit. */
export function costMessage(what: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const shown = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${shown} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** The estimated cost of the rules of one schema, and the costliest of them. */
export class RuleCostTotal {
  total = 0;
  private readonly costliest: Array<{ path: string; cost: number }> = [];

  observe(path: string, cost: number): void {
    this.total = Math.min(this.total + cost, MAX_UINT64);
    if (cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100) return;
    this.costliest.push({ path, cost });
    this.costliest.sort((a, b) => b.cost - a.cost);
    this.costliest.length = Math.min(this.costliest.length, MOST_EXPENSIVE);
  }

  /** The errors of a total over the limit: at each of the costliest rules, then at the schema (`root`). */
  errors(root: string): FieldError[] {
    if (this.total <= STATIC_ESTIMATED_CRD_COST_LIMIT) return [];
    return [
      ...this.costliest.map((c) => forbidden(c.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema')),
      forbidden(root, costMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', this.total, STATIC_ESTIMATED_CRD_COST_LIMIT)),
    ];
  }
}

/**
 * The cost errors of one compiled rule at `path` (`…x-kubernetes-validations[i]`), its cost added
 * to `total`. `cardinality` is how often its node can occur (undefined: under a list or map with no
 * bound); `kept` (a rule the stored definition already had) is not held to the per-rule limit again.
 */
export function ruleCostErrors(rule: CompiledRule, path: string, cardinality: number | undefined, total: RuleCostTotal, kept: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const cost = multiply(rule.maxCost ?? 0, cardinality ?? rule.maxCardinality ?? 1);
  if (!kept && cost > STATIC_ESTIMATED_COST_LIMIT) errs.push(forbidden(`${path}.rule`, costMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT)));
  total.observe(`${path}.rule`, cost);
  // A messageExpression runs once per failure of its rule: it is held to the limit as it is (later upstream's check).
  if (rule.messageMaxCost !== undefined) {
    if (!kept && rule.messageMaxCost > STATIC_ESTIMATED_COST_LIMIT)
      errs.push(forbidden(`${path}.messageExpression`, costMessage('estimated messageExpression cost', rule.messageMaxCost, STATIC_ESTIMATED_COST_LIMIT)));
    total.observe(`${path}.messageExpression`, rule.messageMaxCost);
  }
  return errs;
}
