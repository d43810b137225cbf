// CEL expressions of validation rules: the environment they run in (the standard library, the
// strings extension, upstream's Kubernetes libraries (cel-library.ts) and optionals) and their
// cost, metered as they run and estimated when they are compiled (cel-cost.ts). This is
// the one adapter over @bufbuild/cel; it reaches past the library's public surface for cost, which
// the library does not measure: every function call goes through a metered function table, and
// the parsed expression is rewritten before it is planned (each comprehension's loop condition
// wrapped in a metered call; the lists `map` and `filter` build grown in place).
//
// Cost is counted in upstream's units, roughly as cel-go's runtime cost tracker counts them: a
// call costs 1 plus its traversal of its arguments (a tenth of a string's length, a list's or
// map's size; `matches` the string's by the pattern's), an iteration of a comprehension
// ITERATION_COST. An expression is stopped past PER_CALL_LIMIT, the rules of one object past
// RUNTIME_COST_BUDGET (upstream's constants). This interpreter is slower per unit than cel-go,
// so a time limit (TIME_LIMIT_MS per object, checked every 64 calls or iterations, as upstream
// checks its context every 100 iterations) keeps one write from holding the event loop. It counts
// the process's CPU time, not the clock's, so a busy machine does not fail rules that are cheap.

import { celEnv, celFunc, celList, celMethod, CelScalar, isCelError, isCelList, isCelMap, parse, plan, type CelEnv, type CelFunc, type CelList } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { checkExpression, syntaxError, type Expr, type StaticType } from './cel-check.js';
import { estimateCost } from './cel-cost.js';
import { expressionDepth, MAX_RECURSION_DEPTH, RECURSION_ERROR, sizeProblem } from './cel-limits.js';
import { constantPatternProblem, kubernetesLibraries, re2Engine } from './cel-library.js';
import type { SizeNode } from './cel-sizes.js';
import type { CelShape } from './cel-values.js';

/** Upstream's `PerCallLimit`: the cost one expression may use. */
export const PER_CALL_LIMIT = 1_000_000;
/** Upstream's `RuntimeCELCostBudget`: the cost all rules of one object may use. */
export const RUNTIME_COST_BUDGET = 10_000_000;
/** CPU time all rules of one object may use (see above). */
export const TIME_LIMIT_MS = 50;
const ITERATION_COST = 2;
const TIME_CHECK_EVERY = 64;

export interface CostLimits {
  perCall: number;
  budget: number;
  timeMs: number;
}

export const DEFAULT_LIMITS: CostLimits = { perCall: PER_CALL_LIMIT, budget: RUNTIME_COST_BUDGET, timeMs: TIME_LIMIT_MS };

export type Exceeded = 'call' | 'budget' | 'time';

class CostExceeded extends Error {
  override name = 'CostExceeded';
}

/** The CPU time this process has used, in milliseconds. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** The cost of the rules of one object, across its expressions. */
export class CostMeter {
  used = 0;
  exceeded: Exceeded | undefined;
  private callStart = 0;
  private checks = 0;
  private readonly deadline: number;

  constructor(readonly limits: CostLimits = DEFAULT_LIMITS) {
    this.deadline = cpuMs() + limits.timeMs;
  }

  startCall(): void {
    this.callStart = this.used;
  }

  charge(n: number): void {
    this.used += n;
    if (this.used - this.callStart > this.limits.perCall) this.stop('call');
    if (this.used > this.limits.budget) this.stop('budget');
    if (++this.checks % TIME_CHECK_EVERY === 0 && cpuMs() > this.deadline) this.stop('time');
  }

  private stop(why: Exceeded): never {
    this.exceeded = why;
    throw new CostExceeded(why);
  }
}

/** The meter of the expression being evaluated; evaluation is synchronous, so one at a time. */
let active: CostMeter | undefined;

const ITERATE = '@iterate';
const APPEND = '@append';
const { DYN, BOOL } = CelScalar;

/** Optionals (`optionalOldSelf`) as one-element or empty lists only these methods recognise. */
const optionals = new WeakSet<object>();
function optional(values: unknown[]): CelList {
  const l = celList(values as never[]);
  optionals.add(l);
  return l;
}
function asOptional(v: unknown): CelList {
  if (typeof v !== 'object' || v === null || !optionals.has(v)) throw new Error('no such overload');
  return v as CelList;
}

/**
 * The lists `map` and `filter` build, grown in place: the macros' `@result + [x]` would make a
 * chain of lazy concatenations as long as the list, which the library then walks in quadratic time.
 * Only the accumulator of a comprehension is ever appended to, so nothing else sees it change.
 */
const growing = new WeakMap<object, unknown[]>();
function append(list: unknown, x: unknown): CelList {
  const items = typeof list === 'object' && list !== null ? growing.get(list) : undefined;
  if (items) {
    items.push(x);
    return list as CelList;
  }
  const fresh = isCelList(list) ? [...list, x] : [x];
  const l = celList(fresh as never[]);
  growing.set(l, fresh);
  return l;
}

const optionalFunctions: CelFunc[] = [
  celFunc('optional.of', [DYN], DYN, (v) => optional([v]) as never),
  celFunc('optional.none', [], DYN, () => optional([]) as never),
  celMethod('hasValue', DYN, [], BOOL, function () {
    return asOptional(this).size > 0;
  }),
  celMethod('value', DYN, [], DYN, function () {
    const o = asOptional(this);
    if (o.size === 0) throw new Error('optional.none() dereference');
    return o.get(0) as never;
  }),
  celMethod('orValue', DYN, [DYN], DYN, function (d) {
    const o = asOptional(this);
    return (o.size > 0 ? o.get(0) : d) as never;
  }),
];

// Functions whose cost does not grow with their arguments (upstream's constant-cost ones).
const CONSTANT_COST = new Set([APPEND, 'size', 'hasValue', 'value', 'orValue', 'optional.of', 'optional.none', 'int', 'uint', 'double', 'bool', 'type', 'dyn', 'timestamp', 'duration', '!_', '-_']);

const REGEX = new Set(['matches', 'find', 'findAll']);

function sizeCost(v: unknown): number {
  if (typeof v === 'string') return Math.ceil(v.length * 0.1);
  if (v instanceof Uint8Array) return Math.ceil(v.length * 0.1);
  if (isCelList(v) || isCelMap(v)) return v.size;
  return 0;
}

function callCost(name: string, target: unknown, args: unknown[]): number {
  if (name === ITERATE) return ITERATION_COST;
  if (CONSTANT_COST.has(name) || name.startsWith('get')) return 1;
  if (REGEX.has(name) && typeof target === 'string' && typeof args[0] === 'string') return Math.ceil(1 + target.length * 0.1) * Math.ceil(1 + args[0].length * 0.25);
  let cost = 1 + sizeCost(target);
  for (const a of args) cost += sizeCost(a);
  return cost;
}

type Funcs = CelEnv['funcs'];
type Group = NonNullable<ReturnType<Funcs['find']>>;

/** The table the planner resolves functions in, charging the active meter before each call. */
function meteredFuncs(inner: Funcs): Funcs {
  const groups = new Map<string, Group | undefined>();
  const metered = (g: Group): Group => ({
    name: g.name,
    [Symbol.iterator]: () => g[Symbol.iterator](),
    call(id, target, args) {
      active?.charge(callCost(g.name, target, args));
      return g.call(id, target, args);
    },
  });
  const find = (name: string): Group | undefined => {
    if (!groups.has(name)) {
      const g = inner.find(name);
      groups.set(name, g && metered(g));
    }
    return groups.get(name);
  };
  // The resolver's brand is a type-level symbol only: the planner calls `find` and iterates.
  return { find, [Symbol.iterator]: () => inner[Symbol.iterator]() } as unknown as Funcs;
}

const VARIABLES = { self: DYN, oldSelf: DYN };
const baseEnv: CelEnv = (() => {
  const eq = (): Group => base.funcs.find('_==_')!;
  const equals = (a: unknown, b: unknown) => eq().call(0, undefined, [a as never, b as never]) === true;
  const internal = [celFunc(ITERATE, [DYN], DYN, (v) => v), celFunc(APPEND, [DYN, DYN], DYN, (l, x) => append(l, x) as never)];
  const base = celEnv({ variables: VARIABLES, funcs: [...strings, ...kubernetesLibraries(equals), ...optionalFunctions, ...internal], re2: re2Engine });
  return base;
})();
const meteredEnv = { namespace: baseEnv.namespace, registry: baseEnv.registry, variables: baseEnv.variables, funcs: meteredFuncs(baseEnv.funcs) } as unknown as CelEnv;

/** Whether the rules' environment has a function of this name. */
export function functionExists(name: string): boolean {
  return baseEnv.funcs.find(name) !== undefined;
}

// The library's conversions need its evaluation context, so they run as (unmetered) expressions.
const conversions = {
  duration: plan(baseEnv, parse('duration(self)')) as (bindings: Record<string, unknown>) => unknown,
  timestamp: plan(baseEnv, parse('timestamp(self)')) as (bindings: Record<string, unknown>) => unknown,
};

/** A duration or timestamp from its JSON text (`1h30m`, RFC 3339, a `date`), undefined when it is not one. */
export function parseScalar(kind: 'duration' | 'timestamp', text: string): unknown {
  const self = kind === 'timestamp' && /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text;
  const r = conversions[kind]({ self });
  return isCelError(r) ? undefined : r;
}

function callOf(e: Expr, fn: string, args: Expr[]): Expr {
  return { ...e, exprKind: { case: 'callExpr', value: { $typeName: 'cel.expr.Expr.Call', function: fn, args } } } as Expr;
}

/** `accu + [x]` in a loop step (how `map` and `filter` grow their result) becomes `@append(accu, x)`. */
function appendInPlace(e: Expr, accuVar: string): Expr {
  const k = e.exprKind;
  if (k.case !== 'callExpr') return e;
  const [accu, added] = k.value.args;
  const single = added?.exprKind.case === 'listExpr' && added.exprKind.value.elements.length === 1 && added.exprKind.value.optionalIndices.length === 0 ? added.exprKind.value.elements[0] : undefined;
  if (k.value.function === '_+_' && accu?.exprKind.case === 'identExpr' && accu.exprKind.value.name === accuVar && single) return callOf(e, APPEND, [accu, single]);
  k.value.args = k.value.args.map((a) => appendInPlace(a, accuVar));
  return e;
}

/**
 * Every comprehension's loop condition `c` becomes `@iterate(c)`, so that each iteration is
 * charged, and the lists `map` and `filter` build grow in place (appendInPlace).
 */
function meterIterations(e: Expr): void {
  const k = e.exprKind;
  if (k.case === 'comprehensionExpr') {
    const c = k.value;
    for (const sub of [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result]) if (sub) meterIterations(sub);
    if (c.loopCondition) c.loopCondition = callOf(c.loopCondition, ITERATE, [c.loopCondition]);
    if (c.loopStep) c.loopStep = appendInPlace(c.loopStep, c.accuVar);
  } else if (k.case === 'callExpr') {
    if (k.value.target) meterIterations(k.value.target);
    k.value.args.forEach(meterIterations);
  } else if (k.case === 'selectExpr' && k.value.operand) meterIterations(k.value.operand);
  else if (k.case === 'listExpr') k.value.elements.forEach(meterIterations);
  else if (k.case === 'structExpr')
    for (const entry of k.value.entries) {
      if (entry.keyKind.case === 'mapKey') meterIterations(entry.keyKind.value);
      if (entry.value) meterIterations(entry.value);
    }
}

export type EvalOutcome = { value: unknown } | { error: string } | { exceeded: Exceeded };

/** A checked, planned expression. */
export class CelProgram {
  constructor(
    private readonly fn: (bindings: Record<string, unknown>) => unknown,
    readonly usesOldSelf: boolean,
  ) {}

  /** Evaluates with `self`/`oldSelf` bound, charging `meter`. */
  run(bindings: Record<string, unknown>, meter: CostMeter): EvalOutcome {
    const outer = active;
    active = meter;
    meter.startCall();
    let r: unknown;
    try {
      meter.charge(1);
      r = this.fn(bindings);
    } catch {
      r = undefined;
    } finally {
      active = outer;
    }
    if (meter.exceeded) return { exceeded: meter.exceeded };
    if (r === undefined) return { error: 'internal error' };
    // cel-go's words for a field that is not set.
    if (isCelError(r)) return { error: r.message.replace(/^field not found: /, 'no such key: ') };
    return { value: r };
  }
}

/**
 * A compiled expression (with its estimated most cost when the bounds of `self` were given), or
 * why it cannot be: a compile error, or (`instantiation`) a constant regex pattern RE2 refuses.
 */
export type CompileOutcome = { program: CelProgram; output: StaticType; maxCost?: number } | { error: string; instantiation?: true };

/** Parses, checks and plans `source` with `self` and `oldSelf` of the given shapes; `sizes` (the bounds of `self`) asks for the cost estimate. */
export function compileExpression(source: string, self: CelShape, oldSelf: CelShape, sizes?: SizeNode): CompileOutcome {
  return compileIn(
    source,
    new Map([
      ['self', self],
      ['oldSelf', oldSelf],
    ]),
    sizes,
  );
}

/** As compileExpression, in an environment whose variables are `vars` (admission expressions: `object`, `oldObject`, `request`). */
export function compileWithVariables(source: string, vars: ReadonlyMap<string, CelShape>): CompileOutcome {
  return compileIn(source, vars);
}

function compileIn(source: string, vars: ReadonlyMap<string, CelShape>, sizes?: SizeNode): CompileOutcome {
  const tooLong = sizeProblem(source);
  if (tooLong) return { error: tooLong };
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(source);
  } catch (err) {
    // The parser recurses on nesting (`((((…))))`): past the stack is past cel-go's depth limit.
    return { error: err instanceof RangeError ? RECURSION_ERROR : syntaxError(source, err) };
  }
  if (expressionDepth(parsed.expr) > MAX_RECURSION_DEPTH) return { error: RECURSION_ERROR };
  const checked = checkExpression(parsed, source, { vars, funcExists: functionExists });
  if (checked.errors.length) return { error: checked.errors.join('\n') };
  const badPattern = constantPatternProblem(parsed.expr);
  if (badPattern) return { error: badPattern, instantiation: true };
  // Estimated on the expression as written, before it is rewritten for metering.
  const maxCost = sizes ? estimateCost(parsed.expr, sizes, checked.shapes).max : undefined;
  meterIterations(parsed.expr);
  try {
    const fn = plan(meteredEnv, parsed) as (bindings: Record<string, unknown>) => unknown;
    return { program: new CelProgram(fn, checked.usesOldSelf), output: checked.output, ...(maxCost === undefined ? {} : { maxCost }) };
  } catch (err) {
    return { error: `ERROR: <input>:1:1: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** What an optional `oldSelf` is bound to: `optional.of(value)`, or `optional.none()` without one. */
export function optionalValue(value: unknown): CelList {
  return value === undefined ? optional([]) : optional([value]);
}
