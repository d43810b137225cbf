// The estimated cost of one function call in a validation rule, as cel-go's checker (v0.12, which
// upstream 1.25 uses) and upstream's library cost estimator reckon it: most calls cost 1, string
// and list operations cost their traversal (a tenth per byte, one per item), a regex the product of
// the string's traversal and a quarter per pattern byte. An overload the checker cannot pick (a
// `dyn` argument) costs the union of its candidates. Estimates are ranges kept in float64 and
// saturated at uint64's maximum, as cel-go's are.

import type { StaticType } from './cel-check.js';

/** A min..max range of cost or of size (the size `size()` would give). */
export interface Range {
  min: number;
  max: number;
}

export const MAX_UINT64 = 2 ** 64 - 1;
const STRING_TRAVERSAL = 0.1;
const REGEX_PATTERN = 0.25;
const ONE: Range = { min: 1, max: 1 };
export const ZERO: Range = { min: 0, max: 0 };
export const UNKNOWN_SIZE: Range = { min: 0, max: MAX_UINT64 };

const addU = (x: number, y: number) => Math.min(x + y, MAX_UINT64);
const mulU = (x: number, y: number) => (x > 0 && y > 0 && x > MAX_UINT64 / y ? MAX_UINT64 : x * y);
const byFactorU = (x: number, f: number) => (x > 0 && f > 0 && x > MAX_UINT64 / f ? MAX_UINT64 : Math.ceil(x * f));

export const add = (a: Range, b: Range): Range => ({ min: addU(a.min, b.min), max: addU(a.max, b.max) });
export const multiply = (a: Range, b: Range): Range => ({ min: mulU(a.min, b.min), max: mulU(a.max, b.max) });
export const byFactor = (a: Range, f: number): Range => ({ min: byFactorU(a.min, f), max: byFactorU(a.max, f) });
export const union = (a: Range, b: Range): Range => ({ min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) });

/** What the estimator knows of an operand: its type and how large it can be. */
export interface Operand {
  type: StaticType;
  size(): Range;
  /** A list's element (its type and size), undefined for anything else. */
  element(): Operand | undefined;
  /** The constant it is, when it is one. */
  constant?: unknown;
}

export interface CallEstimate {
  cost: Range;
  resultSize?: Range;
}

type Call = { fn: string; target: Operand | undefined; args: Operand[]; argCosts: Range[] };

const sumOf = (costs: Range[]) => costs.reduce(add, ZERO);

/** The library functions upstream added for rules (and the strings extension), as its estimator prices them; undefined for others. */
function libraryCost(c: Call): Range | undefined {
  const { fn, target, args } = c;
  switch (fn) {
    case 'isSorted':
    case 'sum':
    case 'max':
    case 'min':
    case 'indexOf':
    case 'lastIndexOf': {
      if (!target) return undefined;
      const el = target.type === 'list' ? target.element() : undefined;
      if (target.type !== 'list') return byFactor(target.size(), STRING_TRAVERSAL);
      let perItem = ONE;
      if (el && (el.type === 'string' || el.type === 'bytes')) perItem = add(perItem, byFactor(el.size(), STRING_TRAVERSAL));
      return multiply(target.size(), perItem);
    }
    case 'url':
      return args.length === 1 ? byFactor(args[0]!.size(), STRING_TRAVERSAL) : undefined;
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
      return target && byFactor(target.size(), STRING_TRAVERSAL);
    case 'replace':
      return target && args.length >= 2 ? byFactor(target.size(), 2 * STRING_TRAVERSAL) : undefined;
    case 'split':
      return target && byFactor(target.size(), 2 * STRING_TRAVERSAL);
    case 'join':
      return target && joinCost(target, args[0]);
    case 'find':
    case 'findAll':
      return target && args.length >= 1 ? regexCost(target, args[0]!) : undefined;
  }
  return undefined;
}

function joinCost(list: Operand, separator: Operand | undefined): Range {
  const listSize = list.size();
  const el = list.type === 'list' ? list.element() : undefined;
  let size = el ? multiply(listSize, el.size()) : ZERO;
  if (separator) size = add(size, multiply(separator.size(), { min: Math.max(listSize.min - 1, 0), max: Math.max(listSize.max - 1, 0) }));
  return byFactor(size, STRING_TRAVERSAL);
}

/** RE2 runs in time proportional to the string times the pattern (one more byte, so that an empty string still costs the pattern). */
function regexCost(str: Operand, pattern: Operand): Range {
  return multiply(byFactor(add(str.size(), ONE), STRING_TRAVERSAL), byFactor(pattern.size(), REGEX_PATTERN));
}

/** The cost of comparing two values: their shorter length, a tenth per byte; 0 for values of no length. */
function compareCost(a: Operand, b: Operand): Range {
  const smallestMax = Math.min(a.size().max, b.size().max);
  return byFactor({ min: smallestMax > 0 ? 1 : 0, max: smallestMax }, STRING_TRAVERSAL);
}

/** The overloads of `_+_` the checker would pick for these operand types. */
function addCandidates(a: StaticType, b: StaticType): Array<'string' | 'bytes' | 'list' | 'other'> {
  for (const t of ['string', 'bytes', 'list'] as const) if (a === t || b === t) return [t];
  return a === 'dyn' && b === 'dyn' ? ['string', 'bytes', 'list', 'other'] : ['other'];
}

function concatCost(c: Call): CallEstimate {
  const [a, b] = c.args as [Operand, Operand];
  let out: CallEstimate | undefined;
  for (const kind of addCandidates(a.type, b.type)) {
    const size = add(a.size(), b.size());
    const one: CallEstimate = kind === 'other' ? { cost: ONE } : kind === 'list' ? { cost: ONE, resultSize: size } : { cost: byFactor(size, STRING_TRAVERSAL), resultSize: size };
    out = out
      ? {
          cost: union(out.cost, one.cost),
          ...(one.resultSize || out.resultSize ? { resultSize: one.resultSize && out.resultSize ? union(out.resultSize, one.resultSize) : (one.resultSize ?? out.resultSize)! } : {}),
        }
      : one;
  }
  return { cost: add(out!.cost, sumOf(c.argCosts)), ...(out!.resultSize ? { resultSize: out!.resultSize } : {}) };
}

/** A call whose cost depends on the overload: `costly` for the one that traverses, 1 for the rest, their union when the type is not known. */
function byOverload(type: StaticType, costlyTypes: readonly StaticType[], costly: () => Range, argSum: Range): Range {
  if (costlyTypes.includes(type)) return add(costly(), argSum);
  const plain = add(ONE, argSum);
  return type === 'dyn' ? union(add(costly(), argSum), plain) : plain;
}

/** The estimated cost of a call (its arguments' costs included, its target's not) and, where known, its result's size. */
export function callCost(c: Call): CallEstimate {
  const argSum = sumOf(c.argCosts);
  const lib = libraryCost(c);
  if (lib) return { cost: add(lib, argSum) };
  const { fn, target, args } = c;
  const [a, b] = args;
  switch (fn) {
    case 'startsWith':
    case 'endsWith':
      if (a && args.length === 1) return { cost: add(byFactor(a.size(), STRING_TRAVERSAL), argSum) };
      break;
    case 'string':
      if (a && args.length === 1) return { cost: byOverload(a.type, ['bytes'], () => byFactor(a.size(), STRING_TRAVERSAL), argSum) };
      break;
    case 'bytes':
      if (a && args.length === 1) return { cost: byOverload(a.type, ['string'], () => byFactor(a.size(), STRING_TRAVERSAL), argSum) };
      break;
    case '@in':
      if (a && b) return { cost: byOverload(b.type, ['list'], () => b.size(), argSum) };
      break;
    case 'matches':
      if (target && a && args.length === 1) return { cost: add(regexCost(target, a), argSum) };
      break;
    case 'contains':
      if (target && a && args.length === 1) return { cost: add(multiply(byFactor(target.size(), STRING_TRAVERSAL), byFactor(a.size(), STRING_TRAVERSAL)), argSum) };
      break;
    case '_&&_':
    case '_||_':
      // Short-circuited: at least the left side, at most both.
      return { cost: { min: c.argCosts[0]?.min ?? 0, max: sumOf(c.argCosts).max } };
    case '_?_:_':
      if (a && b && args[2]) {
        const [cond, ifTrue, ifFalse] = c.argCosts as [Range, Range, Range];
        return { cost: add(cond, union(ifTrue, ifFalse)), resultSize: union(b.size(), args[2].size()) };
      }
      break;
    case '_+_':
      if (a && b && args.length === 2) return concatCost(c);
      break;
    case '_<_':
    case '_<=_':
    case '_>_':
    case '_>=_':
      if (a && b) {
        const type = a.type === 'dyn' ? b.type : a.type;
        return { cost: byOverload(type, ['string', 'bytes'], () => compareCost(a, b), argSum) };
      }
      break;
    case '_==_':
    case '_!=_':
      if (a && b) return { cost: add(compareCost(a, b), argSum) };
      break;
  }
  return { cost: add(ONE, argSum) };
}
