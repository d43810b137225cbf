// Resource quantities ("500m", "1Gi", "2e3", 10) compared by value, as upstream's
// resource.Quantity.Cmp and the semantic equality of resource lists do: "1Gi" equals
// "1073741824" and "1000m" equals "1". Exact (big integers), so no rounding ever decides.

export type ResourceList = Record<string, unknown>;

const DECIMAL_SUFFIX: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIX: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei)|([numkMGTPE]))?$/;
/** Beyond this a decimal exponent is refused rather than turned into a huge integer. */
const MAX_EXPONENT = 1000;

/** value = num / den */
interface Rational {
  num: bigint;
  den: bigint;
}

/** The exact value of a quantity, or undefined when it is not one. */
export function parseQuantity(q: unknown): Rational | undefined {
  const text = typeof q === 'number' ? (Number.isFinite(q) ? String(q) : '') : typeof q === 'string' ? q.trim() : '';
  const m = QUANTITY.exec(text);
  if (!m) return undefined;
  const [, sign, digits, exponent, binary, decimal] = m;
  const [whole = '', fraction = ''] = digits!.split('.');
  let num = BigInt(`${whole}${fraction}` || '0');
  const exp10 = -fraction.length + (exponent !== undefined ? Number(exponent) : DECIMAL_SUFFIX[decimal ?? '']!);
  if (Math.abs(exp10) > MAX_EXPONENT) return undefined;
  if (binary) num <<= BigInt(BINARY_SUFFIX[binary]!);
  if (sign === '-') num = -num;
  let den = 1n;
  if (exp10 >= 0) num *= 10n ** BigInt(exp10);
  else den = 10n ** BigInt(-exp10);
  return { num, den };
}

/** -1, 0 or 1 as a is smaller than, equal to or larger than b; an unparsable quantity counts as zero. */
export function compareQuantities(a: unknown, b: unknown): number {
  const x = parseQuantity(a) ?? { num: 0n, den: 1n };
  const y = parseQuantity(b) ?? { num: 0n, den: 1n };
  const l = x.num * y.den;
  const r = y.num * x.den;
  return l < r ? -1 : l > r ? 1 : 0;
}

/** Same resource names with equal quantities; an absent list equals an empty one. */
export function resourceListsEqual(a: ResourceList | undefined, b: ResourceList | undefined): boolean {
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b ?? {}, k) && compareQuantities(a![k], b![k]) === 0);
}
