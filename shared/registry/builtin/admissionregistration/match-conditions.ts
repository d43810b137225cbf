// An admission webhook's `matchConditions`: CEL expressions over the request that must all hold for
// the webhook to be called (upstream 1.28). Checked when a configuration is written (at most 64,
// unique qualified names, expressions that compile to a bool) and compiled once per configuration
// for the admission service, which evaluates them with `object`, `oldObject` and `request` bound.
// Upstream's fourth variable, `authorizer`, needs an authorization check inside an expression;
// this server does not offer it, and refuses an expression naming it when it is written.

import type { FieldError } from '../../../api/status.js';
import { duplicate, invalidValue, required, tooMany } from '../../../api/field-errors.js';
import { qualifiedNameProblems } from '../../../api/validation.js';
import { compileWithVariables, CostMeter, parseScalar, PER_CALL_LIMIT, TIME_LIMIT_MS, type CelProgram } from '../../custom-resources/cel-program.js';
import { CelValueConverter, DYN, type CelShape } from '../../custom-resources/cel-values.js';

export const MAX_MATCH_CONDITIONS = 64;

const VARIABLES: ReadonlyMap<string, CelShape> = new Map([
  ['object', DYN],
  ['oldObject', DYN],
  ['request', DYN],
]);

const NO_AUTHORIZER = 'the authorizer variable is not supported by this server: match conditions cannot check authorization';

/** Upstream's budget for the match conditions of one webhook call. */
const LIMITS = { perCall: PER_CALL_LIMIT, budget: PER_CALL_LIMIT, timeMs: TIME_LIMIT_MS };

/** A compiled condition, or why its expression does not compile (upstream's `compilation failed: …` detail). */
export type CompiledCondition = { name: string; expression: string; program: CelProgram } | { name: string; expression: string; error: string };

export function compileMatchCondition(name: string, expression: string): CompiledCondition {
  const outcome = compileWithVariables(expression, VARIABLES);
  if ('error' in outcome) {
    const why = /undeclared reference to 'authorizer'/.test(outcome.error) ? NO_AUTHORIZER : outcome.error;
    return { name, expression, error: `compilation failed: ${why}` };
  }
  if (outcome.output !== 'bool' && outcome.output !== 'dyn') return { name, expression, error: 'must evaluate to bool' };
  return { name, expression, program: outcome.program };
}

/** The `request` variable: the AdmissionRequest as upstream's CEL sees it (no uid, object or oldObject). */
export interface ConditionRequest {
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  requestKind: { group: string; version: string; kind: string };
  requestResource: { group: string; version: string; resource: string };
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: string;
  userInfo: Record<string, unknown>;
  dryRun: boolean;
  options?: unknown;
}

export interface ConditionInput {
  object: unknown;
  oldObject: unknown;
  request: ConditionRequest;
}

/** All true: call. One false: skip, naming it. Otherwise the evaluation errors (the failure policy decides). */
export type MatchOutcome = { matches: true } | { matches: false; failed: string } | { errors: string[] };

/**
 * Upstream's matcher: any condition that is false excludes the webhook, whatever the others did;
 * without one, any error (a compile error left in a stored configuration included) is the outcome.
 */
export function evaluateMatchConditions(conditions: readonly CompiledCondition[], input: ConditionInput): MatchOutcome {
  const values = new CelValueConverter(parseScalar);
  const bindings = { object: values.convert(input.object, DYN), oldObject: values.convert(input.oldObject, DYN), request: values.convert(input.request, DYN) };
  const meter = new CostMeter(LIMITS);
  const errors: string[] = [];
  for (const c of conditions) {
    if ('error' in c) {
      errors.push(`expression '${c.expression}' resulted in error: ${c.error}`);
      continue;
    }
    const r = c.program.run(bindings, meter);
    if ('exceeded' in r) errors.push(`expression '${c.expression}' resulted in error: operation cancelled: actual cost limit exceeded`);
    else if ('error' in r) errors.push(`expression '${c.expression}' resulted in error: ${r.error}`);
    else if (r.value === false) return { matches: false, failed: c.name };
    // The checker cannot type every field read (upstream refuses a dyn result when it is written): a value that is no bool is an error here.
    else if (r.value !== true) errors.push(`expression '${c.expression}' resulted in error: must evaluate to bool`);
  }
  return errors.length ? { errors } : { matches: true };
}

/** Errors as upstream's aggregate writes them: one alone, several in brackets. */
export function aggregateErrors(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
}

/** `webhooks[i].matchConditions` when a configuration is written. */
export function validateMatchConditions(value: unknown, f: string): FieldError[] {
  if (!Array.isArray(value)) return [];
  const errs: FieldError[] = [];
  if (value.length > MAX_MATCH_CONDITIONS) errs.push(tooMany(f, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  value.forEach((raw, i) => {
    const c = (typeof raw === 'object' && raw !== null ? raw : {}) as { name?: unknown; expression?: unknown };
    const name = typeof c.name === 'string' ? c.name : '';
    const expression = typeof c.expression === 'string' ? c.expression : '';
    if (!name) errs.push(required(`${f}[${i}].name`, ''));
    else for (const msg of qualifiedNameProblems(name)) errs.push(invalidValue(`${f}[${i}].name`, name, msg));
    if (!expression.trim()) errs.push(required(`${f}[${i}].expression`, ''));
    else {
      const compiled = compileMatchCondition(name, expression.trim());
      if ('error' in compiled) errs.push(invalidValue(`${f}[${i}].expression`, expression, compiled.error));
    }
    if (name) {
      if (names.has(name)) errs.push(duplicate(`${f}[${i}].name`, name));
      names.add(name);
    }
  });
  return errs;
}
