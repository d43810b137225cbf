// The functions upstream's Kubernetes CEL libraries add for validation rules (k8s 1.25's lists,
// regex and URLs libraries), on @bufbuild/cel:
// - lists: `isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`;
// - regex: `find`, `findAll` (with an optional limit), and the engine `matches` runs on: every
//   pattern is RE2 through shared/api/go-regexp.ts (Go's syntax, linear time, so no pattern and
//   value can backtrack), compiled once and kept in a small cache;
// - URLs: `url`, `isURL` and a URL's `getScheme`, `getHost`, `getHostname`, `getPort`,
//   `getEscapedPath`, `getQuery`, as Go's net/url reads URLs (shared/api/go-url.ts).
// The library has no opaque values of its own, so a URL is a one-element list (its text) that only
// these methods recognise, as optionals are in cel-program.ts.

import { celFunc, celList, celMap, celMethod, CelScalar, isCelList, type CelFunc, type CelList, type parse } from '@bufbuild/cel';
import { compileGoRegexp, goRegexpProblem, type GoRegexp } from '../../api/go-regexp.js';
import { escapedPath, parseRequestURI, parseURL, splitHostPort, parseQuery, type GoURL } from '../../api/go-url.js';

const { DYN, BOOL, STRING, INT } = CelScalar;

// ---- regular expressions ----

const REGEX_CACHE_SIZE = 256;
const REGEX_FUNCTIONS = new Set(['matches', 'find', 'findAll']);
const compiled = new Map<string, GoRegexp>();

/** `pattern` compiled as Go's regexp would (throws Go's message); recently used patterns are kept. */
export function regexp(pattern: string): GoRegexp {
  let re = compiled.get(pattern);
  if (!re) {
    const problem = goRegexpProblem(pattern);
    if (problem) throw new Error(problem);
    re = compileGoRegexp(pattern);
    if (compiled.size >= REGEX_CACHE_SIZE) compiled.delete(compiled.keys().next().value!);
    compiled.set(pattern, re);
  }
  return re;
}

/** The engine @bufbuild/cel runs `matches` on. */
export const re2Engine = { compile: (pattern: string) => regexp(pattern) };

function illegal(pattern: string): Error | undefined {
  const problem = goRegexpProblem(pattern);
  return problem ? new Error(`Illegal regex: ${problem}`) : undefined;
}

const regexFunctions: CelFunc[] = [
  celMethod('find', STRING, [STRING], STRING, function (pattern) {
    const bad = illegal(pattern);
    if (bad) throw bad;
    return regexp(pattern).findAll(this, 1)[0] ?? '';
  }),
  celMethod('findAll', STRING, [STRING], DYN, function (pattern) {
    const bad = illegal(pattern);
    if (bad) throw bad;
    return celList(regexp(pattern).findAll(this, -1)) as never;
  }),
  celMethod('findAll', STRING, [STRING, INT], DYN, function (pattern, limit) {
    const bad = illegal(pattern);
    if (bad) throw bad;
    return celList(regexp(pattern).findAll(this, Number(limit))) as never;
  }),
];

// ---- URLs ----

const urls = new WeakMap<object, GoURL>();
function asURL(v: unknown): GoURL {
  const u = typeof v === 'object' && v !== null ? urls.get(v) : undefined;
  if (!u) throw new Error('no such overload');
  return u;
}

function toURL(text: string): CelList {
  try {
    // ParseRequestURI decides what is a URL (absolute, or an absolute path); Parse takes it apart (it splits the fragment off).
    parseRequestURI(text);
    const u = parseURL(text);
    const l = celList([text]);
    urls.set(l, u);
    return l;
  } catch (err) {
    throw new Error(`URL parse error during conversion from string: ${(err as Error).message}`);
  }
}

function isURL(text: string): boolean {
  try {
    parseRequestURI(text);
    return true;
  } catch {
    return false;
  }
}

const urlMethod = (name: string, read: (u: GoURL) => string) =>
  celMethod(name, DYN, [], STRING, function () {
    return read(asURL(this));
  });

const urlFunctions: CelFunc[] = [
  celFunc('url', [STRING], DYN, (s) => toURL(s) as never),
  celFunc('isURL', [STRING], BOOL, (s) => isURL(s)),
  urlMethod('getScheme', (u) => u.scheme),
  urlMethod('getHost', (u) => u.host),
  urlMethod('getHostname', (u) => splitHostPort(u.host).hostname),
  urlMethod('getPort', (u) => splitHostPort(u.host).port),
  urlMethod('getEscapedPath', escapedPath),
  celMethod('getQuery', DYN, [], DYN, function () {
    const query = parseQuery(asURL(this).rawQuery);
    return celMap(new Map([...query].map(([k, v]) => [k, celList(v)]))) as never;
  }),
];

// ---- lists ----

function asList(v: unknown): unknown[] {
  if (!isCelList(v)) throw new Error('no such overload');
  return [...v];
}

/** Orders two numbers (int or double), two strings or two bools; anything else has no order here. */
function compare(a: unknown, b: unknown): number {
  const numeric = (x: unknown) => typeof x === 'bigint' || typeof x === 'number';
  const comparable = (numeric(a) && numeric(b)) || (typeof a === typeof b && (typeof a === 'string' || typeof a === 'boolean'));
  if (!comparable) throw new Error('no such overload');
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

function extremum(v: unknown, sign: 1 | -1): unknown {
  const items = asList(v);
  if (items.length === 0) throw new Error(`${sign > 0 ? 'max' : 'min'} called on empty list`);
  return items.reduce((m, x) => (compare(x, m) * sign > 0 ? x : m));
}

function sum(v: unknown): unknown {
  const items = asList(v);
  if (items.every((x) => typeof x === 'bigint')) return items.reduce((s: bigint, x) => s + (x as bigint), 0n);
  if (items.every((x) => typeof x === 'number')) return items.reduce((s: number, x) => s + (x as number), 0);
  throw new Error('no such overload');
}

function listFunctions(equals: (a: unknown, b: unknown) => boolean): CelFunc[] {
  return [
    celMethod('isSorted', DYN, [], BOOL, function () {
      return asList(this).every((x, i, l) => i === 0 || compare(l[i - 1], x) <= 0);
    }),
    celMethod('sum', DYN, [], DYN, function () {
      return sum(this) as never;
    }),
    celMethod('min', DYN, [], DYN, function () {
      return extremum(this, -1) as never;
    }),
    celMethod('max', DYN, [], DYN, function () {
      return extremum(this, 1) as never;
    }),
    celMethod('indexOf', DYN, [DYN], DYN, function (x) {
      return BigInt(asList(this).findIndex((y) => equals(y, x)));
    }),
    celMethod('lastIndexOf', DYN, [DYN], DYN, function (x) {
      return BigInt(asList(this).findLastIndex((y) => equals(y, x)));
    }),
  ];
}

/** Upstream's Kubernetes libraries; `equals` is CEL's equality (for indexOf). */
export function kubernetesLibraries(equals: (a: unknown, b: unknown) => boolean): CelFunc[] {
  return [...listFunctions(equals), ...regexFunctions, ...urlFunctions];
}

type Expr = ReturnType<typeof parse>['expr'];

/**
 * The first regex function call in `e` whose pattern is a constant RE2 refuses, in Go's words:
 * upstream compiles constant patterns when it makes the program, so such a rule is refused when
 * its definition is written.
 */
export function constantPatternProblem(e: Expr | undefined): string | undefined {
  if (!e) return undefined;
  const k = e.exprKind;
  let subs: Array<Expr | undefined> = [];
  if (k.case === 'callExpr') {
    const pattern = k.value.args[0]?.exprKind;
    if (REGEX_FUNCTIONS.has(k.value.function) && k.value.target && pattern?.case === 'constExpr' && pattern.value.constantKind.case === 'stringValue') {
      const problem = goRegexpProblem(pattern.value.constantKind.value);
      if (problem) return problem;
    }
    subs = [k.value.target, ...k.value.args];
  } else if (k.case === 'selectExpr') subs = [k.value.operand];
  else if (k.case === 'listExpr') subs = k.value.elements;
  else if (k.case === 'structExpr') subs = k.value.entries.flatMap((x) => [x.keyKind.case === 'mapKey' ? x.keyKind.value : undefined, x.value]);
  else if (k.case === 'comprehensionExpr') subs = [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result];
  for (const sub of subs) {
    const problem = constantPatternProblem(sub);
    if (problem) return problem;
  }
  return undefined;
}
