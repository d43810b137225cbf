// Label selectors: the `labelSelector` query parameter and the `{matchLabels, matchExpressions}`
// selectors inside specs, parsed once and matched against many objects (list filters, watch
// fan-out, webhook selectors). Parsing is a single left-to-right pass over tokens; validation
// scans characters instead of using regexes so hostile keys cost linear time.

import { badRequest, type FieldError } from './status.js';
import { labelValueProblems, qualifiedNameProblems } from './validation.js';
import { forbidden, invalidValue, required } from './field-errors.js';

export const LabelOperator = {
  Equals: '=',
  DoubleEquals: '==',
  NotEquals: '!=',
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
  GreaterThan: '>',
  LessThan: '<',
} as const;
export type LabelOperator = (typeof LabelOperator)[keyof typeof LabelOperator];

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  /** Sorted and de-duplicated; one value for `=`, `==`, `!=`, `>`, `<`; none for exists / `!`. */
  values: readonly string[];
}

/** Operators of `matchExpressions` entries in API objects. */
export const SelectorOperator = {
  In: 'In',
  NotIn: 'NotIn',
  Exists: 'Exists',
  DoesNotExist: 'DoesNotExist',
} as const;
export type SelectorOperator = (typeof SelectorOperator)[keyof typeof SelectorOperator];

export interface LabelSelectorRequirementObject {
  key: string;
  operator: string;
  values?: string[] | null;
}

/** The `metav1.LabelSelector` shape found in specs (deployments, webhooks, PDBs, …). */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirementObject[] | null;
}

// ---- key and value rules (shared/api/validation.ts holds the one implementation) ----

/** Problems with a label/annotation key (`[prefix/]name`); empty when valid. */
export function validateQualifiedName(key: string): string[] {
  return qualifiedNameProblems(key);
}

/** Problems with a label value (empty is valid); empty when valid. */
export function validateLabelValue(value: string): string[] {
  return labelValueProblems(value);
}

/** Base-10 int64 as upstream's strconv.ParseInt accepts it (optional sign), else undefined. */
function parseInt64(s: string): bigint | undefined {
  const n = s.length;
  if (n === 0 || n > 20) return undefined;
  let i = s.charCodeAt(0) === 0x2b || s.charCodeAt(0) === 0x2d ? 1 : 0;
  if (i === n) return undefined;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return undefined;
  }
  const v = BigInt(s);
  return v > 9223372036854775807n || v < -9223372036854775808n ? undefined : v;
}

// ---- the selector ----

export class LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  /** True for the selector that matches nothing (a nil selector in an API object). */
  readonly nothing: boolean;
  // Bounds of `>` / `<`, parsed once rather than per matched object.
  readonly #bounds: (bigint | undefined)[];

  private constructor(requirements: LabelRequirement[], nothing: boolean) {
    this.requirements = requirements;
    this.nothing = nothing;
    this.#bounds = requirements.map((r) => (r.operator === LabelOperator.GreaterThan || r.operator === LabelOperator.LessThan ? parseInt64(r.values[0]!) : undefined));
  }

  /** Requirements must already be valid; they are sorted by key here. */
  static of(requirements: LabelRequirement[]): LabelSelector {
    return new LabelSelector(
      requirements
        .map((r, i) => ({ r, i }))
        .sort((a, b) => (a.r.key < b.r.key ? -1 : a.r.key > b.r.key ? 1 : a.i - b.i))
        .map((x) => x.r),
      false,
    );
  }
  static readonly #everything = new LabelSelector([], false);
  static readonly #nothing = new LabelSelector([], true);
  /** Selects every object. */
  static everything(): LabelSelector {
    return LabelSelector.#everything;
  }
  /** Selects no object (what a nil selector in an API object means). */
  static nothingSelector(): LabelSelector {
    return LabelSelector.#nothing;
  }

  /** Selects every object (no requirements). */
  get empty(): boolean {
    return !this.nothing && this.requirements.length === 0;
  }

  matches(labels?: Record<string, string> | null): boolean {
    if (this.nothing) return false;
    const reqs = this.requirements;
    for (let i = 0; i < reqs.length; i++) {
      const r = reqs[i]!;
      // Own properties only: a label map parsed from JSON must not "have" `constructor`.
      const has = labels != null && Object.hasOwn(labels, r.key);
      const v = has ? labels[r.key]! : undefined;
      switch (r.operator) {
        case LabelOperator.Equals:
        case LabelOperator.DoubleEquals:
        case LabelOperator.In:
          if (v === undefined || !r.values.includes(v)) return false;
          break;
        case LabelOperator.NotEquals:
        case LabelOperator.NotIn:
          if (v !== undefined && r.values.includes(v)) return false;
          break;
        case LabelOperator.Exists:
          if (!has) return false;
          break;
        case LabelOperator.DoesNotExist:
          if (has) return false;
          break;
        case LabelOperator.GreaterThan:
        case LabelOperator.LessThan: {
          if (v === undefined) return false;
          const actual = parseInt64(v);
          const bound = this.#bounds[i];
          if (actual === undefined || bound === undefined) return false;
          if (r.operator === LabelOperator.GreaterThan ? !(actual > bound) : !(actual < bound)) return false;
          break;
        }
      }
    }
    return true;
  }

  /** Canonical form: requirements sorted by key, set values sorted; parses back to an equal selector. */
  toString(): string {
    return this.requirements.map(requirementString).join(',');
  }
}

const EVERYTHING = LabelSelector.everything();
const NOTHING = LabelSelector.nothingSelector();

function requirementString(r: LabelRequirement): string {
  switch (r.operator) {
    case LabelOperator.Exists:
      return r.key;
    case LabelOperator.DoesNotExist:
      return `!${r.key}`;
    case LabelOperator.In:
    case LabelOperator.NotIn:
      return `${r.key} ${r.operator} (${r.values.join(',')})`;
    default:
      return `${r.key}${r.operator}${r.values[0] ?? ''}`;
  }
}

/**
 * Builds one requirement, validating key and values; the error text is the detail upstream's
 * field errors carry (`key: Invalid value: ...`). Returns the problem instead of throwing so the
 * query-string parser and the API-object converter can wrap it differently.
 */
function makeRequirement(key: string, operator: LabelOperator, rawValues: string[]): LabelRequirement | string {
  const keyErrs = validateQualifiedName(key);
  if (keyErrs.length) return `key: Invalid value: ${JSON.stringify(key)}: ${keyErrs.join('; ')}`;
  switch (operator) {
    case LabelOperator.In:
    case LabelOperator.NotIn:
      if (rawValues.length === 0) return "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty";
      break;
    case LabelOperator.Equals:
    case LabelOperator.DoubleEquals:
    case LabelOperator.NotEquals:
      if (rawValues.length !== 1) return 'values: Invalid value: exact-match operators need exactly one value';
      break;
    case LabelOperator.Exists:
    case LabelOperator.DoesNotExist:
      if (rawValues.length !== 0) return 'values: Invalid value: values set must be empty for exists and does not exist';
      break;
    case LabelOperator.GreaterThan:
    case LabelOperator.LessThan:
      if (rawValues.length !== 1) return "values: Invalid value: for 'Gt', 'Lt' operators, exactly one value is required";
      if (parseInt64(rawValues[0]!) === undefined) {
        return `values[0]: Invalid value: ${JSON.stringify(rawValues[0])}: for 'Gt', 'Lt' operators, the value must be an integer`;
      }
      break;
  }
  for (let i = 0; i < rawValues.length; i++) {
    const errs = validateLabelValue(rawValues[i]!);
    if (errs.length) return `values[${i}][${key}]: Invalid value: ${JSON.stringify(rawValues[i])}: ${errs.join('; ')}`;
  }
  const values = rawValues.length > 1 ? [...new Set(rawValues)].sort() : rawValues;
  return { key, operator, values };
}

// ---- the query-string grammar ----

const Tok = {
  Ident: 0,
  Bang: 1,
  Eq: 2,
  DoubleEq: 3,
  NotEq: 4,
  Gt: 5,
  Lt: 6,
  Open: 7,
  Close: 8,
  Comma: 9,
  End: 10,
} as const;
type Tok = (typeof Tok)[keyof typeof Tok];

interface Token {
  t: Tok;
  s: string;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0b || c === 0x0c;
}
// Characters that end an identifier; everything else (including junk) is an identifier char so
// that validation, not the lexer, explains what is wrong with a key or value.
function isSpecial(c: number): boolean {
  return c === 0x21 || c === 0x3d || c === 0x3c || c === 0x3e || c === 0x28 || c === 0x29 || c === 0x2c;
}

function lex(s: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (isSpecial(c)) {
      const next = i + 1 < n ? s.charCodeAt(i + 1) : 0;
      switch (c) {
        case 0x21: // !
          if (next === 0x3d) {
            out.push({ t: Tok.NotEq, s: '!=' });
            i += 2;
          } else {
            out.push({ t: Tok.Bang, s: '!' });
            i++;
          }
          continue;
        case 0x3d: // =
          if (next === 0x3d) {
            out.push({ t: Tok.DoubleEq, s: '==' });
            i += 2;
          } else {
            out.push({ t: Tok.Eq, s: '=' });
            i++;
          }
          continue;
        case 0x3e:
          out.push({ t: Tok.Gt, s: '>' });
          break;
        case 0x3c:
          out.push({ t: Tok.Lt, s: '<' });
          break;
        case 0x28:
          out.push({ t: Tok.Open, s: '(' });
          break;
        case 0x29:
          out.push({ t: Tok.Close, s: ')' });
          break;
        default:
          out.push({ t: Tok.Comma, s: ',' });
      }
      i++;
      continue;
    }
    const start = i;
    while (i < n && !isSpace(s.charCodeAt(i)) && !isSpecial(s.charCodeAt(i))) i++;
    out.push({ t: Tok.Ident, s: s.slice(start, i) });
  }
  out.push({ t: Tok.End, s: '' });
  return out;
}

function describe(tok: Token): string {
  return tok.t === Tok.End ? 'end of string' : `'${tok.s}'`;
}

function selectorError(input: string, detail: string): Error {
  return badRequest(`unable to parse requirement: ${detail}`, [{ reason: 'FieldValueInvalid', message: detail, field: 'labelSelector' }]);
}

/**
 * Parses a `labelSelector` query value (`a=b,c!=d,e in (f,g),!h,i>3`). An empty or blank string
 * selects everything. Throws a 400 StatusError naming the problem.
 */
export function parseLabelSelector(input: string): LabelSelector {
  const toks = lex(input);
  const reqs: LabelRequirement[] = [];
  const c: Cursor = { input, toks, p: 0 };
  if (toks[0]!.t === Tok.End) return EVERYTHING;
  for (;;) {
    const req = parseRequirement(c);
    if (typeof req === 'string') throw selectorError(input, req);
    reqs.push(req);
    const sep = toks[c.p++]!;
    if (sep.t === Tok.End) break;
    if (sep.t !== Tok.Comma) throw selectorError(input, `found ${describe(sep)}, expected: ',' or end of string`);
  }
  return LabelSelector.of(reqs);
}

/** The selector's tokens and the parser's position in them. */
interface Cursor {
  readonly input: string;
  readonly toks: Token[];
  p: number;
}

/** One requirement (`!a`, `a`, `a in (b,c)`, `a=b`); a string is why its key or values are invalid. */
function parseRequirement(c: Cursor): LabelRequirement | string {
  const { input, toks } = c;
  let tok = toks[c.p++]!;
  if (tok.t === Tok.Bang) {
    tok = toks[c.p++]!;
    if (tok.t !== Tok.Ident) throw selectorError(input, `found ${describe(tok)}, expected: identifier after '!'`);
    return makeRequirement(tok.s, LabelOperator.DoesNotExist, []);
  }
  if (tok.t !== Tok.Ident) throw selectorError(input, `found ${describe(tok)}, expected: '!' or identifier`);
  const key = tok.s;
  const op = toks[c.p]!;
  if (op.t === Tok.Comma || op.t === Tok.End) return makeRequirement(key, LabelOperator.Exists, []);
  if (op.t === Tok.Ident && (op.s === 'in' || op.s === 'notin')) {
    c.p++;
    return makeRequirement(key, op.s === 'in' ? LabelOperator.In : LabelOperator.NotIn, parseSetValues(c));
  }
  return parseComparison(c, key, op);
}

/** The `(b,c)` of `in`/`notin`. `in ()` and trailing/leading commas contribute empty values, as upstream parses them. */
function parseSetValues(c: Cursor): string[] {
  const { input, toks } = c;
  if (toks[c.p]!.t !== Tok.Open) throw selectorError(input, `found ${describe(toks[c.p]!)}, expected: '('`);
  c.p++;
  const values: string[] = [];
  let expectValue = true;
  for (;;) {
    const v = toks[c.p++]!;
    if (v.t === Tok.Ident) {
      if (!expectValue) throw selectorError(input, `found ${describe(v)}, expected: ',' or ')'`);
      values.push(v.s);
      expectValue = false;
    } else if (v.t === Tok.Comma) {
      if (expectValue) values.push('');
      expectValue = true;
    } else if (v.t === Tok.Close) {
      if (expectValue) values.push('');
      break;
    } else {
      throw selectorError(input, `found ${describe(v)}, expected: ',', ')' or identifier`);
    }
  }
  return values;
}

const COMPARISONS: Partial<Record<Tok, LabelOperator>> = {
  [Tok.Eq]: LabelOperator.Equals,
  [Tok.DoubleEq]: LabelOperator.DoubleEquals,
  [Tok.NotEq]: LabelOperator.NotEquals,
  [Tok.Gt]: LabelOperator.GreaterThan,
  [Tok.Lt]: LabelOperator.LessThan,
};

/** `key <op> value` with `op` one of `=`, `==`, `!=`, `>`, `<`; the value may be empty. */
function parseComparison(c: Cursor, key: string, op: Token): LabelRequirement | string {
  const { input, toks } = c;
  const operator = COMPARISONS[op.t];
  if (operator === undefined) throw selectorError(input, `found ${describe(op)}, expected: '=', '!=', '==', 'in', 'notin', '>', '<', ',' or end of string`);
  c.p++;
  const v = toks[c.p]!;
  let value = '';
  if (v.t === Tok.Ident) {
    value = v.s;
    c.p++;
  } else if (v.t !== Tok.Comma && v.t !== Tok.End) {
    throw selectorError(input, `found ${describe(v)}, expected: identifier`);
  }
  return makeRequirement(key, operator, [value]);
}

// ---- selectors inside API objects ----

/**
 * Field errors of a `{matchLabels, matchExpressions}` selector, for a strategy's 422 Invalid
 * (paths like `spec.selector.matchExpressions[0].values`). Empty when valid.
 */
export function validateLabelSelectorObject(sel: LabelSelectorObject | null | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (sel == null) return errs;
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) {
    for (const d of validateQualifiedName(k)) errs.push(invalidValue(`${path}.matchLabels`, k, d));
    if (typeof v !== 'string') errs.push(invalidValue(`${path}.matchLabels`, v, 'must be a string'));
    else for (const d of validateLabelValue(v)) errs.push(invalidValue(`${path}.matchLabels`, v, d));
  }
  (sel.matchExpressions ?? []).forEach((e, i) => {
    const p = `${path}.matchExpressions[${i}]`;
    const values = e.values ?? [];
    switch (e.operator) {
      case SelectorOperator.In:
      case SelectorOperator.NotIn:
        if (values.length === 0) errs.push(required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case SelectorOperator.Exists:
      case SelectorOperator.DoesNotExist:
        if (values.length > 0) errs.push(forbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(invalidValue(`${p}.operator`, e.operator, 'not a valid selector operator'));
    }
    for (const d of validateQualifiedName(String(e.key ?? ''))) errs.push(invalidValue(`${p}.key`, e.key, d));
    values.forEach((v, j) => {
      for (const d of validateLabelValue(String(v))) errs.push(invalidValue(`${p}.values[${j}]`, v, d));
    });
  });
  return errs;
}

const OBJECT_OPERATORS: Record<string, LabelOperator> = {
  [SelectorOperator.In]: LabelOperator.In,
  [SelectorOperator.NotIn]: LabelOperator.NotIn,
  [SelectorOperator.Exists]: LabelOperator.Exists,
  [SelectorOperator.DoesNotExist]: LabelOperator.DoesNotExist,
};

/**
 * The selector an API object's `{matchLabels, matchExpressions}` denotes. Null/undefined selects
 * nothing; an empty object selects everything (upstream's LabelSelectorAsSelector). Stored
 * objects were validated on write (see validateLabelSelectorObject), so a bad selector here is a
 * caller error: it throws a 400 StatusError rather than returning field errors.
 */
export function labelSelectorFromObject(sel: LabelSelectorObject | null | undefined): LabelSelector {
  if (sel == null) return NOTHING;
  const reqs: LabelRequirement[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) {
    const r = makeRequirement(k, LabelOperator.Equals, [String(v)]);
    if (typeof r === 'string') throw badRequest(`invalid label selector: ${r}`);
    reqs.push(r);
  }
  for (const e of sel.matchExpressions ?? []) {
    const op = Object.hasOwn(OBJECT_OPERATORS, e.operator) ? OBJECT_OPERATORS[e.operator] : undefined;
    if (!op) throw badRequest(`invalid label selector: ${JSON.stringify(e.operator)} is not a valid label selector operator`);
    const r = makeRequirement(String(e.key ?? ''), op, (e.values ?? []).map(String));
    if (typeof r === 'string') throw badRequest(`invalid label selector: ${r}`);
    reqs.push(r);
  }
  return reqs.length ? LabelSelector.of(reqs) : EVERYTHING;
}
