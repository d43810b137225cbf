// The checks a validation rule gets when its definition is written, before it may run: the names
// it uses (variables, functions) exist, the fields it selects exist in the schema, and its result
// can be what the rule needs (a bool for `rule`, a string for `messageExpression`). The library
// parses but exports no type checker, so this is a small one over the parsed expression: it knows
// what the schema says and no more (a mismatch it cannot see shows when the rule is evaluated).
// Its messages are cel-go's (`undeclared reference to 'x' (in container '')`, `undefined field 'y'`).

import type { parse } from '@bufbuild/cel';
import { DYN, shapeName, type CelShape } from './cel-values.js';

type Parsed = ReturnType<typeof parse>;
export type Expr = Parsed['expr'];

/** What the checker can tell of an expression's result. */
export type StaticType = 'bool' | 'string' | 'int' | 'double' | 'bytes' | 'list' | 'map' | 'null' | 'dyn';

export interface CheckResult {
  /** cel-go's `ERROR: <input>:1:6: …` lines, each with the source line and a caret. */
  errors: string[];
  /** Whether `oldSelf` is read (a transition rule). */
  usesOldSelf: boolean;
  output: StaticType;
  /** What the schema says of each expression (by id); `dyn` where it says nothing. */
  shapes: ReadonlyMap<bigint, CelShape>;
}

/** The planner's own operators, which are not in the function table. */
const SPECIAL_CALLS = new Set(['_&&_', '_||_', '_?_:_', '_[_]', '_[?_]', '_?._', '@not_strictly_false', '__not_strictly_false__']);
// Type names may stand as values (`type(self) == string`).
const TYPE_NAMES = new Set(['bool', 'bytes', 'double', 'duration', 'dyn', 'int', 'list', 'map', 'null_type', 'string', 'timestamp', 'type', 'uint']);
const BOOL_CALLS = new Set(['_==_', '_!=_', '_<_', '_<=_', '_>_', '_>=_', '!_', '@in', '_&&_', '_||_', 'contains', 'startsWith', 'endsWith', 'matches', 'isSorted', 'isURL']);
const INT_CALLS = new Set(['size', 'int', 'indexOf', 'lastIndexOf']);
const STRING_CALLS = new Set([
  'string',
  'lowerAscii',
  'upperAscii',
  'replace',
  'substring',
  'trim',
  'join',
  'charAt',
  'format',
  'find',
  'getScheme',
  'getHost',
  'getHostname',
  'getPort',
  'getEscapedPath',
]);
const LIST_CALLS = new Set(['findAll', 'split']);
const MAP_CALLS = new Set(['getQuery']);

export interface CheckScope {
  /** The variables (`self`, `oldSelf`) and their shapes. */
  vars: ReadonlyMap<string, CelShape>;
  /** Whether the environment has a function of this name. */
  funcExists: (name: string) => boolean;
}

class Checker {
  readonly errors: string[] = [];
  /** The shape found for each expression (by id), for the result type. */
  readonly shapes = new Map<bigint, CelShape>();
  usesOldSelf = false;

  constructor(
    private readonly source: string,
    private readonly positions: Record<string, number>,
    private readonly funcExists: (name: string) => boolean,
  ) {}

  fail(e: Expr, message: string): void {
    const offset = this.positions[String(e.id)] ?? 0;
    const before = this.source.slice(0, offset);
    const line = before.split('\n').length;
    const col = offset - (before.lastIndexOf('\n') + 1);
    const text = this.source.split('\n')[line - 1] ?? '';
    this.errors.push(`ERROR: <input>:${line}:${col + 1}: ${message}\n | ${text}\n | ${'.'.repeat(col)}^`);
  }

  /** The expression's shape (what the schema says of it), checking it and everything below. */
  visit(e: Expr, vars: ReadonlyMap<string, CelShape>): CelShape {
    const shape = this.shapeOf(e, vars);
    this.shapes.set(e.id, shape);
    return shape;
  }

  private shapeOf(e: Expr, vars: ReadonlyMap<string, CelShape>): CelShape {
    const k = e.exprKind;
    switch (k.case) {
      case 'identExpr':
        return this.ident(e, k.value.name, vars);
      case 'selectExpr':
        return k.value.operand ? this.select(e, this.visit(k.value.operand, vars), k.value.field, k.value.testOnly) : DYN;
      case 'callExpr':
        return this.call(e, k.value, vars);
      case 'listExpr':
        for (const x of k.value.elements) this.visit(x, vars);
        return DYN;
      case 'structExpr':
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === 'mapKey') this.visit(entry.keyKind.value, vars);
          if (entry.value) this.visit(entry.value, vars);
        }
        return DYN;
      case 'comprehensionExpr':
        return this.comprehension(k.value, vars);
      default:
        return DYN;
    }
  }

  private ident(e: Expr, name: string, vars: ReadonlyMap<string, CelShape>): CelShape {
    const shape = vars.get(name);
    if (shape) {
      if (name === 'oldSelf') this.usesOldSelf = true;
      return shape;
    }
    if (!TYPE_NAMES.has(name)) this.fail(e, `undeclared reference to '${name}' (in container '')`);
    return DYN;
  }

  private select(e: Expr, operand: CelShape, field: string, testOnly: boolean): CelShape {
    switch (operand.kind) {
      case 'object': {
        const f = operand.fields.get(field);
        if (!f) this.fail(e, `undefined field '${field}'`);
        return f?.shape ?? DYN;
      }
      case 'map':
        return operand.values;
      case 'list':
      case 'scalar':
        if (!(operand.kind === 'scalar' && operand.scalar === 'int-or-string')) this.fail(e, `type '${shapeName(operand)}' does not support ${testOnly ? 'presence test' : 'field selection'}`);
        return DYN;
      case 'dyn':
        return DYN;
    }
  }

  private call(e: Expr, c: Extract<Expr['exprKind'], { case: 'callExpr' }>['value'], vars: ReadonlyMap<string, CelShape>): CelShape {
    const qualified = c.target?.exprKind.case === 'identExpr' && !vars.has(c.target.exprKind.value.name) ? `${c.target.exprKind.value.name}.${c.function}` : undefined;
    if (qualified && this.funcExists(qualified)) {
      for (const a of c.args) this.visit(a, vars);
      return DYN;
    }
    if (c.target) this.visit(c.target, vars);
    const args = c.args.map((a) => this.visit(a, vars));
    if (!SPECIAL_CALLS.has(c.function) && !this.funcExists(c.function)) this.fail(e, `undeclared reference to '${c.function}' (in container '')`);
    if (c.function === '_[_]') {
      const on = args[0] ?? DYN;
      if (on.kind === 'list') return on.items;
      if (on.kind === 'map') return on.values;
    }
    if (c.function === '_?_:_' && args[1] && args[2] && args[1] === args[2]) return args[1];
    return DYN;
  }

  private comprehension(c: Extract<Expr['exprKind'], { case: 'comprehensionExpr' }>['value'], vars: ReadonlyMap<string, CelShape>): CelShape {
    const range = c.iterRange ? this.visit(c.iterRange, vars) : DYN;
    const inner = new Map(vars);
    const element: CelShape = range.kind === 'list' ? range.items : range.kind === 'map' ? { kind: 'scalar', scalar: 'string' } : DYN;
    inner.set(c.iterVar, element);
    if (c.iterVar2) inner.set(c.iterVar2, range.kind === 'map' ? range.values : DYN);
    const withAccu = new Map(vars).set(c.accuVar, DYN);
    if (c.accuInit) this.visit(c.accuInit, vars);
    inner.set(c.accuVar, DYN);
    if (c.loopCondition) this.visit(c.loopCondition, inner);
    if (c.loopStep) this.visit(c.loopStep, inner);
    if (c.result) this.visit(c.result, withAccu);
    return DYN;
  }
}

function shapeType(shape: CelShape): StaticType {
  switch (shape.kind) {
    case 'list':
      return 'list';
    case 'map':
    case 'object':
      return 'map';
    case 'dyn':
      return 'dyn';
    case 'scalar':
      return shape.scalar === 'bool' || shape.scalar === 'string' || shape.scalar === 'int' || shape.scalar === 'double' || shape.scalar === 'bytes' ? shape.scalar : 'dyn';
  }
}

const ARITHMETIC = new Set(['_+_', '_-_', '_*_', '_/_', '_%_', '-_']);

/** What the expression's result is, as far as its operators, its constants and the schema tell. */
export function outputType(e: Expr, shapes: ReadonlyMap<bigint, CelShape>): StaticType {
  const k = e.exprKind;
  const shape = shapes.get(e.id) ?? DYN;
  switch (k.case) {
    case 'constExpr': {
      const c = k.value.constantKind.case;
      if (c === 'boolValue') return 'bool';
      if (c === 'stringValue') return 'string';
      if (c === 'int64Value' || c === 'uint64Value') return 'int';
      if (c === 'doubleValue') return 'double';
      if (c === 'bytesValue') return 'bytes';
      return c === 'nullValue' ? 'null' : 'dyn';
    }
    case 'listExpr':
      return 'list';
    case 'structExpr':
      return 'map';
    case 'selectExpr':
      // has(x.f) is a presence test.
      return k.value.testOnly ? 'bool' : shapeType(shape);
    case 'callExpr': {
      const f = k.value.function;
      if (BOOL_CALLS.has(f)) return 'bool';
      if (INT_CALLS.has(f)) return 'int';
      if (STRING_CALLS.has(f)) return 'string';
      if (LIST_CALLS.has(f)) return 'list';
      if (MAP_CALLS.has(f)) return 'map';
      const [a, b, c] = k.value.args;
      if (ARITHMETIC.has(f) && a) {
        const first = outputType(a, shapes);
        return first === 'dyn' && b ? outputType(b, shapes) : first;
      }
      if (f === '_?_:_' && b && c) {
        const then = outputType(b, shapes);
        return then === outputType(c, shapes) ? then : 'dyn';
      }
      return shapeType(shape);
    }
    default:
      return shapeType(shape);
  }
}

/** Checks a parsed expression against the variables in scope (name → shape). */
export function checkExpression(parsed: Parsed, source: string, scope: CheckScope): CheckResult {
  const positions: Record<string, number> = {};
  for (const [id, offset] of Object.entries(parsed.sourceInfo?.positions ?? {})) positions[id] = offset;
  const checker = new Checker(source, positions, scope.funcExists);
  checker.visit(parsed.expr, scope.vars);
  return { errors: checker.errors, usesOldSelf: checker.usesOldSelf, output: outputType(parsed.expr, checker.shapes), shapes: checker.shapes };
}

/** A parse failure in cel-go's words, with the line and a caret. */
export function syntaxError(source: string, err: unknown): string {
  const loc = (err as { location?: { start?: { line?: number; column?: number } } }).location?.start;
  const raw = err instanceof Error ? err.message.replace(/^<input>:\d+:\d+: /, '') : String(err);
  const line = loc?.line ?? 1;
  const col = loc?.column ?? 1;
  const text = source.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${col}: Syntax error: ${raw}\n | ${text}\n | ${'.'.repeat(Math.max(col - 1, 0))}^`;
}
