// resource.Quantity as upstream reads, compares, adds and prints it: "500m", "1Gi", "2", "1e3".
// A value is held exactly in nano units (a bigint), so sums of requests and quota arithmetic never
// drift; what is finer than a nano is rounded up on parse, as upstream does. It prints in upstream's
// canonical form (ResourceQuota status, LimitRanger defaults and every message quote it that way):
// the suffix family it was written in, the largest exact suffix (`1500m` → `1500m`, `0.1` → `100m`,
// `2048Mi` → `2Gi`), binary values under 1024 or not whole shown in decimal.

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const NANO = 1_000_000_000n;

const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const BINARY_BY_EXPONENT = new Map(Object.entries(BINARY_SUFFIXES).map(([s, e]) => [e, s]));

const QUANTITY = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei)|([numkMGTPE]))?$/;

const MAX_QUANTITY_LENGTH = 100;

/** Upstream's resource.MaxMilliValue: beyond it, comparisons fall back to whole units. */
export const MAX_MILLI_VALUE = (2n ** 63n - 1n) / 1000n;

export class Quantity {
  /** @param nanos the value in units of 1e-9 */
  constructor(
    readonly nanos: bigint,
    readonly format: QuantityFormat = 'DecimalSI',
  ) {}

  static fromInt(n: number | bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(BigInt(n) * NANO, format);
  }

  static fromMilli(n: number | bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(BigInt(n) * 1_000_000n, format);
  }

  static zero(format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(0n, format);
  }

  isZero(): boolean {
    return this.nanos === 0n;
  }

  sign(): number {
    return this.nanos === 0n ? 0 : this.nanos > 0n ? 1 : -1;
  }

  cmp(other: Quantity): number {
    return this.nanos === other.nanos ? 0 : this.nanos > other.nanos ? 1 : -1;
  }

  /** Upstream's Add: a zero left side takes the other's format. */
  add(other: Quantity): Quantity {
    return new Quantity(this.nanos + other.nanos, this.isZero() ? other.format : this.format);
  }

  sub(other: Quantity): Quantity {
    return new Quantity(this.nanos - other.nanos, this.isZero() ? other.format : this.format);
  }

  /** The value scaled to 10^scale units, rounded up (upstream's ScaledValue). */
  scaled(scale: number): bigint {
    const unit = 10n ** BigInt(scale + 9);
    return ceilDiv(this.nanos, unit);
  }

  /** Whole units, rounded up (upstream's Value). */
  value(): bigint {
    return this.scaled(0);
  }

  /** Thousandths, rounded up (upstream's MilliValue). */
  milliValue(): bigint {
    return this.scaled(-3);
  }

  /** Rounded up to a whole number of units (upstream's RoundUp(0)). */
  roundUp(): Quantity {
    return new Quantity(this.value() * NANO, this.format);
  }

  toString(): string {
    return formatQuantity(this);
  }

  toJSON(): string {
    return this.toString();
  }
}

function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a > 0n ? q + 1n : q;
}

/** The quantity a string (or JSON number) spells; undefined when it is not one. */
export function parseQuantity(raw: unknown): Quantity | undefined {
  if (raw instanceof Quantity) return raw;
  let s: string;
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) return undefined;
    s = String(raw);
  } else if (typeof raw === 'string') s = raw.trim();
  else return undefined;
  // Far beyond any real quantity; keeps hostile input from costing bigint time.
  if (s.length > MAX_QUANTITY_LENGTH) return undefined;
  const m = QUANTITY.exec(s);
  if (!m) return undefined;
  const [, sign, number, exp, binary, decimal] = m;
  const [whole, frac = ''] = number!.split('.');
  // digits × 10^(exp10) × 2^(exp2), exactly, then to nanos.
  let digits = BigInt((whole || '0') + frac);
  let exp10 = -frac.length;
  let exp2 = 0;
  let format: QuantityFormat = 'DecimalSI';
  if (exp) {
    exp10 += Number(exp.slice(1));
    format = 'DecimalExponent';
  } else if (binary) {
    exp2 = BINARY_SUFFIXES[binary]!;
    format = 'BinarySI';
  } else if (decimal) exp10 += DECIMAL_SUFFIXES[decimal]!;
  if (Math.abs(exp10) > 400) return undefined;
  digits *= 2n ** BigInt(exp2);
  const shift = exp10 + 9;
  let nanos = shift >= 0 ? digits * 10n ** BigInt(shift) : ceilDiv(digits, 10n ** BigInt(-shift));
  if (sign === '-') nanos = -nanos;
  return new Quantity(nanos, format);
}

/** Like parseQuantity, for values validation has already accepted (an unreadable one is zero). */
export function quantityOf(raw: unknown): Quantity {
  return parseQuantity(raw) ?? Quantity.zero();
}

/** Upstream's canonical spelling (CanonicalizeBytes). */
export function formatQuantity(q: Quantity): string {
  if (q.nanos === 0n) return '0';
  let format = q.format;
  if (format === 'BinarySI') {
    const small = q.nanos > -1024n * NANO && q.nanos < 1024n * NANO;
    if (small || q.nanos % NANO !== 0n) format = 'DecimalSI';
  }
  const negative = q.nanos < 0n;
  const abs = negative ? -q.nanos : q.nanos;
  const sign = negative ? '-' : '';
  if (format === 'BinarySI') {
    let amount = abs / NANO;
    let exponent = 0;
    while (exponent < 60 && amount % 1024n === 0n) {
      amount /= 1024n;
      exponent += 10;
    }
    return `${sign}${amount}${BINARY_BY_EXPONENT.get(exponent) ?? ''}`;
  }
  // Mantissa with every factor of ten taken out, then the exponent lowered to a multiple of three.
  let amount = abs;
  let exponent = -9;
  while (amount % 10n === 0n) {
    amount /= 10n;
    exponent++;
  }
  const r = ((exponent % 3) + 3) % 3;
  amount *= 10n ** BigInt(r);
  exponent -= r;
  if (format === 'DecimalSI') {
    const suffix = DECIMAL_BY_EXPONENT.get(exponent);
    if (suffix !== undefined) return `${sign}${amount}${suffix}`;
  }
  return exponent === 0 ? `${sign}${amount}` : `${sign}${amount}e${exponent}`;
}

/** The canonical spelling of a raw quantity value; the value itself when it is not a quantity. */
export function canonicalQuantity(raw: unknown): string {
  const q = parseQuantity(raw);
  return q ? q.toString() : String(raw);
}

/** -1, 0 or 1 as a is smaller than, equal to or larger than b by value ("1Gi" equals "1073741824"); an unparsable quantity counts as zero. */
export function compareQuantities(a: unknown, b: unknown): number {
  return (parseQuantity(a) ?? Quantity.zero()).cmp(parseQuantity(b) ?? Quantity.zero());
}

/** Same resource names with equal quantities (upstream's semantic equality of resource lists); an absent list equals an empty one. */
export function resourceListsEqual(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  return ka.every((k) => Object.hasOwn(b ?? {}, k) && compareQuantities(a![k], b![k]) === 0);
}
