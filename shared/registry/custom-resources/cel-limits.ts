// The limits cel-go's parser puts on an expression before anything else reads it: its size in
// code points and how deeply it nests. The checker, the cost estimator and the planner here all
// recurse over the parsed expression, so a rule such as `1+1+…+1` with thousands of terms, which
// the parser reads without recursing, would otherwise overflow the stack in them (a 500 where
// upstream answers 422). Worded as cel-go words them.

import type { parse } from '@bufbuild/cel';

type Expr = ReturnType<typeof parse>['expr'];

/** cel-go's default `ExpressionSizeCodePointLimit`. */
export const EXPRESSION_SIZE_CODE_POINT_LIMIT = 100_000;
/** cel-go's default `MaxRecursionDepth`. */
export const MAX_RECURSION_DEPTH = 250;

const location = 'ERROR: <input>:-1:0';
export const RECURSION_ERROR = `${location}: max recursion depth exceeded`;

/** cel-go's refusal of an expression longer than the limit, or undefined. */
export function sizeProblem(source: string, limit = EXPRESSION_SIZE_CODE_POINT_LIMIT): string | undefined {
  // Code points, not UTF-16 units; only counted when the units could exceed the limit.
  if (source.length <= limit) return undefined;
  let size = 0;
  for (const _ of source) size++;
  return size > limit ? `${location}: expression code point size exceeds limit: size: ${size}, limit ${limit}` : undefined;
}

/** The sub-expressions of one expression. */
function children(e: Expr): Array<Expr | undefined> {
  const k = e.exprKind;
  switch (k.case) {
    case 'selectExpr':
      return [k.value.operand];
    case 'callExpr':
      return [k.value.target, ...k.value.args];
    case 'listExpr':
      return k.value.elements;
    case 'structExpr':
      return k.value.entries.flatMap((entry) => [entry.keyKind.case === 'mapKey' ? entry.keyKind.value : undefined, entry.value]);
    case 'comprehensionExpr':
      return [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result];
    default:
      return [];
  }
}

/** How deeply `root` nests (a leaf is 1), measured without recursion; stops counting past `limit`. */
export function expressionDepth(root: Expr, limit = MAX_RECURSION_DEPTH): number {
  let deepest = 0;
  const stack: Array<[Expr, number]> = [[root, 1]];
  while (stack.length) {
    const [e, depth] = stack.pop()!;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const c of children(e)) if (c) stack.push([c, depth + 1]);
  }
  return deepest;
}
