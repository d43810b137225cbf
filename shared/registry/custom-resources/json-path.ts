// The JSONPath a CustomResourceDefinition's printer column names (`.spec.replicas`,
// `.status.conditions[?(@.type=="Ready")].status`): kubectl's template syntax without the braces,
// the subset columns use — fields, `['quoted keys']`, indexes, slices, `[*]`, and `[?(@.path == value)]`
// filters with == and != (also <, <=, >, >= on numbers). Compiled once per column.

export type JsonPath = (root: unknown) => unknown[];

type Step = (node: unknown) => unknown[];

/** Compiles `path` (braces optional); throws an Error naming what it cannot read. */
export function compileJsonPath(path: string): JsonPath {
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1).trim();
  if (p.startsWith('$')) p = p.slice(1);
  if (!p.startsWith('.') && !p.startsWith('[')) throw new Error(`JSONPath must start with "." or "[": ${path}`);
  const steps = parseSteps(p, path);
  return (root) => steps.reduce<unknown[]>((nodes, step) => nodes.flatMap(step), [root]);
}

function parseSteps(p: string, whole: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  while (i < p.length) {
    if (p.startsWith('..', i)) throw new Error(`JSONPath recursive descent is not supported in a column: ${whole}`);
    if (p[i] === '.') {
      const m = /^[A-Za-z0-9_$-]+|^\*/.exec(p.slice(i + 1));
      if (!m) throw new Error(`JSONPath has an empty or invalid field name at ${i + 1}: ${whole}`);
      steps.push(m[0] === '*' ? children : field(m[0]));
      i += 1 + m[0].length;
    } else if (p[i] === '[') {
      const end = closingBracket(p, i, whole);
      steps.push(bracket(p.slice(i + 1, end).trim(), whole));
      i = end + 1;
    } else {
      throw new Error(`JSONPath has an unexpected ${JSON.stringify(p[i])} at ${i}: ${whole}`);
    }
  }
  return steps;
}

function closingBracket(p: string, open: number, whole: string): number {
  let quote: string | undefined;
  let depth = 0;
  for (let j = open; j < p.length; j++) {
    const c = p[j];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') if (--depth === 0) return j;
  }
  throw new Error(`JSONPath has an unclosed "[": ${whole}`);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function field(name: string): Step {
  return (node) => (isObject(node) && Object.hasOwn(node, name) ? [node[name]] : []);
}

function children(node: unknown): unknown[] {
  if (Array.isArray(node)) return node;
  return isObject(node) ? Object.values(node) : [];
}

function bracket(inner: string, whole: string): Step {
  if (inner === '*') return children;
  const quoted = /^(['"])(.*)\1$/.exec(inner);
  if (quoted) return field(quoted[2]!);
  if (inner.startsWith('?(') && inner.endsWith(')')) return filter(inner.slice(2, -1).trim(), whole);
  const slice = /^(-?\d*):(-?\d*)$/.exec(inner);
  if (slice) {
    return (node) => (Array.isArray(node) ? node.slice(slice[1] ? Number(slice[1]) : 0, slice[2] ? Number(slice[2]) : undefined) : []);
  }
  if (/^-?\d+$/.test(inner)) {
    const n = Number(inner);
    return (node) => {
      if (!Array.isArray(node)) return [];
      const at = n < 0 ? node.length + n : n;
      return at >= 0 && at < node.length ? [node[at]] : [];
    };
  }
  throw new Error(`JSONPath has an unsupported subscript [${inner}]: ${whole}`);
}

const COMPARISONS: Record<string, (a: unknown, b: unknown) => boolean> = {
  '==': (a, b) => a === b,
  '!=': (a, b) => a !== b,
  '<=': (a, b) => typeof a === 'number' && typeof b === 'number' && a <= b,
  '>=': (a, b) => typeof a === 'number' && typeof b === 'number' && a >= b,
  '<': (a, b) => typeof a === 'number' && typeof b === 'number' && a < b,
  '>': (a, b) => typeof a === 'number' && typeof b === 'number' && a > b,
};

/** `@.path OP literal`, or `@.path` alone (the field exists). */
function filter(expr: string, whole: string): Step {
  const m = /^@((?:\.[A-Za-z0-9_$-]+|\[(?:'[^']*'|"[^"]*")\])*)\s*(?:(==|!=|<=|>=|<|>)\s*(.+))?$/.exec(expr);
  if (!m) throw new Error(`JSONPath has an unsupported filter ?(${expr}): ${whole}`);
  const of = m[1] ? compileJsonPath(m[1]) : (v: unknown) => [v];
  const op = m[2];
  const literal = m[3] === undefined ? undefined : parseLiteral(m[3].trim(), whole);
  // A filter selects among the items of a list, as kubectl's JSONPath does (not a map's values).
  return (node) =>
    (Array.isArray(node) ? node : []).filter((item) => {
      const found = of(item);
      if (!op) return found.length > 0;
      return found.length > 0 && COMPARISONS[op]!(found[0], literal);
    });
}

function parseLiteral(text: string, whole: string): unknown {
  const quoted = /^(['"])(.*)\1$/.exec(text);
  if (quoted) return quoted[2];
  if (text === 'true' || text === 'false') return text === 'true';
  if (text === 'null') return null;
  const n = Number(text);
  if (text !== '' && Number.isFinite(n)) return n;
  throw new Error(`JSONPath filter compares with an unsupported value ${text}: ${whole}`);
}
