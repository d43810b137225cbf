// The static cost estimate of a validation rule, computed when its definition is written, as
// cel-go's checker estimates it for upstream: a walk over the checked expression that charges 1
// per variable or field read and each call its price (cel-cost-calls.ts), and a comprehension its
// range's most elements times the cost of one iteration. The sizes come from the schema's bounds
// (cel-sizes.ts) by the path of each operand from `self` (`self.spec.items.@items`); an operand
// with no path (a computed value) may be as large as anything. The library gives no estimator, so
// this is one over the parsed expression and what the checker (cel-check.ts) learnt of its types.

import type { CelShape } from './cel-values.js';
import { outputType, type Expr, type StaticType } from './cel-check.js';
import { add, callCost, multiply, UNKNOWN_SIZE, ZERO, type Operand, type Range } from './cel-cost-calls.js';
import { maxSizeAt, type SizeNode } from './cel-sizes.js';

const SELECT_AND_IDENT: Range = { min: 1, max: 1 };
const LIST_CREATE: Range = { min: 10, max: 10 };
const MAP_CREATE: Range = { min: 30, max: 30 };

type Comprehension = Extract<Expr['exprKind'], { case: 'comprehensionExpr' }>['value'];
type CallExpr = Extract<Expr['exprKind'], { case: 'callExpr' }>['value'];

/** The size a constant or a literal has, as cel-go computes it (a string's length in bytes). */
function literalSize(e: Expr): Range | undefined {
  const k = e.exprKind;
  let n: number;
  if (k.case === 'constExpr') {
    const c = k.value.constantKind;
    if (c.case === 'stringValue') n = new TextEncoder().encode(c.value).length;
    else if (c.case === 'bytesValue') n = c.value.length;
    else if (c.case === undefined) return undefined;
    else n = 1;
  } else if (k.case === 'listExpr') n = k.value.elements.length;
  else if (k.case === 'structExpr' && !k.value.messageName) n = k.value.entries.length;
  else return undefined;
  return { min: n, max: n };
}

class Coster {
  /** Each expression's path from a variable (`self`, `@items`, a field name, …). */
  private readonly paths = new Map<bigint, string[]>();
  /** The sizes calls were found to give (a concatenation's). */
  private readonly computed = new Map<bigint, Range>();
  /** The range of each comprehension variable in scope, innermost last. */
  private readonly ranges = new Map<string, Expr[]>();
  /** The accumulators in scope and the type of their initial value. */
  private readonly accus = new Map<string, StaticType>();

  constructor(
    private readonly root: SizeNode,
    private readonly shapes: ReadonlyMap<bigint, CelShape>,
  ) {}

  cost(e: Expr | undefined): Range {
    if (!e) return ZERO;
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr':
        return ZERO;
      case 'identExpr':
        this.identPath(e, k.value.name);
        return SELECT_AND_IDENT;
      case 'selectExpr': {
        if (k.value.testOnly) return ZERO;
        const operand = k.value.operand;
        let sum = this.cost(operand);
        const on = operand ? this.shapes.get(operand.id) : undefined;
        if (on?.kind === 'object' || on?.kind === 'map' || (operand && this.typeOf(operand) === 'map')) sum = add(sum, SELECT_AND_IDENT);
        this.paths.set(e.id, [...(operand ? (this.paths.get(operand.id) ?? []) : []), k.value.field]);
        return sum;
      }
      case 'callExpr':
        return this.call(e, k.value);
      case 'listExpr':
        return add(
          k.value.elements.reduce((s, x) => add(s, this.cost(x)), ZERO),
          LIST_CREATE,
        );
      case 'structExpr': {
        let sum = ZERO;
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === 'mapKey') sum = add(sum, this.cost(entry.keyKind.value));
          sum = add(sum, this.cost(entry.value));
        }
        return add(sum, k.value.messageName ? { min: 40, max: 40 } : MAP_CREATE);
      }
      case 'comprehensionExpr':
        return this.comprehension(k.value);
      default:
        return ZERO;
    }
  }

  private identPath(e: Expr, name: string): void {
    const range = this.ranges.get(name)?.at(-1);
    if (!range) return void this.paths.set(e.id, [name]);
    const type = this.typeOf(range);
    const base = this.paths.get(range.id) ?? [];
    if (type === 'list') this.paths.set(e.id, [...base, '@items']);
    else if (type === 'map') this.paths.set(e.id, [...base, '@keys']);
  }

  private call(e: Expr, c: CallExpr): Range {
    const argCosts = c.args.map((a) => this.cost(a));
    const args = c.args.map((a) => this.operand(a));
    const targetCost = c.target ? this.cost(c.target) : ZERO;
    const target = c.target ? this.operand(c.target) : undefined;
    const est = callCost({ fn: c.function, target, args, argCosts });
    if (c.function === '_[_]' && c.args[0]) {
      const type = this.typeOf(c.args[0]);
      this.paths.set(e.id, [...(this.paths.get(c.args[0].id) ?? []), type === 'list' ? '@items' : '@values']);
    }
    if (est.resultSize) this.computed.set(e.id, est.resultSize);
    return add(targetCost, est.cost);
  }

  private comprehension(c: Comprehension): Range {
    let sum = add(this.cost(c.iterRange), this.cost(c.accuInit));
    const stack = this.ranges.get(c.iterVar) ?? [];
    this.ranges.set(c.iterVar, stack);
    if (c.iterRange) stack.push(c.iterRange);
    const outer = this.accus.get(c.accuVar);
    this.accus.set(c.accuVar, c.accuInit ? this.typeOf(c.accuInit) : 'dyn');
    const loop = this.cost(c.loopCondition);
    const step = this.cost(c.loopStep);
    if (c.iterRange) stack.pop();
    sum = add(sum, this.cost(c.result));
    if (outer === undefined) this.accus.delete(c.accuVar);
    else this.accus.set(c.accuVar, outer);
    const count = c.iterRange ? this.operand(c.iterRange).size() : UNKNOWN_SIZE;
    return add(sum, multiply(count, add(step, loop)));
  }

  private typeOf(e: Expr): StaticType {
    if (e.exprKind.case === 'identExpr') {
      const accu = this.accus.get(e.exprKind.value.name);
      if (accu) return accu;
    }
    return outputType(e, this.shapes);
  }

  /** An expression as an operand of a call: its type, size and (for a list) element. */
  private operand(e: Expr): Operand {
    const raw = this.paths.get(e.id);
    // Accumulators are not paths into the data.
    const path = raw && !this.accus.has(raw[0]!) ? raw : undefined;
    const known = this.computed.get(e.id) ?? literalSize(e);
    const k = e.exprKind;
    const constant = k.case === 'constExpr' ? k.value.constantKind.value : undefined;
    return {
      type: this.typeOf(e),
      constant,
      size: () => known ?? this.sizeAt(path),
      element: () => {
        const shape = this.shapes.get(e.id);
        const elemType: StaticType = shape?.kind === 'list' ? outputTypeOfShape(shape.items) : 'dyn';
        const elemPath = path ? [...path, '@items'] : undefined;
        return { type: elemType, size: () => this.sizeAt(elemPath), element: () => undefined };
      },
    };
  }

  private sizeAt(path: string[] | undefined): Range {
    const max = path ? maxSizeAt(this.root, path) : undefined;
    return max === undefined ? UNKNOWN_SIZE : { min: 0, max };
  }
}

function outputTypeOfShape(shape: CelShape): StaticType {
  if (shape.kind === 'list') return 'list';
  if (shape.kind === 'map' || shape.kind === 'object') return 'map';
  if (shape.kind === 'scalar' && ['bool', 'string', 'int', 'double', 'bytes'].includes(shape.scalar)) return shape.scalar as StaticType;
  return 'dyn';
}

/**
 * The most the checked expression `e` may cost, `self` (and `oldSelf`) being values of the schema
 * node whose bounds are `root`; `shapes` is what the checker found of each sub-expression.
 */
export function estimateCost(e: Expr, root: SizeNode, shapes: ReadonlyMap<bigint, CelShape>): Range {
  return new Coster(root, shapes).cost(e);
}
