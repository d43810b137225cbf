// Go's time.ParseDuration, whose syntax and error messages upstream's `?timeout=` parameter uses:
// a signed sequence of decimal numbers, each with an optional fraction and a unit (ns, us, µs, ms,
// s, m, h), like `300ms`, `-1.5h` or `2h45m`; a bare `0` is allowed without a unit.

const UNIT_MS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Go's durations are int64 nanoseconds: past this the text is not a duration at all. */
const MAX_NS = 2n ** 63n - 1n;

export class GoDurationError extends Error {
  override name = 'GoDurationError';
}

const quote = (s: string): string => JSON.stringify(s);
const isNumberChar = (c: string): boolean => c === '.' || (c >= '0' && c <= '9');

/** The duration in milliseconds; throws a GoDurationError with Go's message (`time: invalid duration "x"`). */
export function parseGoDuration(orig: string): number {
  let s = orig;
  let sign = 1;
  if (s[0] === '-' || s[0] === '+') {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw new GoDurationError(`time: invalid duration ${quote(orig)}`);
  let total = 0;
  // Go's overflow check, kept exact in nanoseconds beside the float result.
  let totalNs = 0n;
  while (s !== '') {
    if (!isNumberChar(s[0]!)) throw new GoDurationError(`time: invalid duration ${quote(orig)}`);
    const number = /^(\d*)(?:\.(\d*))?/.exec(s)!;
    const whole = number[1]!;
    const fraction = number[2];
    if (whole === '' && !fraction) throw new GoDurationError(`time: invalid duration ${quote(orig)}`);
    s = s.slice(number[0].length);
    let i = 0;
    while (i < s.length && !isNumberChar(s[i]!)) i++;
    if (i === 0) throw new GoDurationError(`time: missing unit in duration ${quote(orig)}`);
    const unit = s.slice(0, i);
    s = s.slice(i);
    const ms = UNIT_MS[unit];
    if (ms === undefined) throw new GoDurationError(`time: unknown unit ${quote(unit)} in duration ${quote(orig)}`);
    total += Number(`${whole || '0'}.${fraction || '0'}`) * ms;
    const unitNs = BigInt(Math.round(ms * 1e6));
    totalNs += BigInt(whole || '0') * unitNs + BigInt(Math.floor(Number(`0.${fraction || '0'}`) * Number(unitNs)));
    if (totalNs > MAX_NS) throw new GoDurationError(`time: invalid duration ${quote(orig)}`);
  }
  return sign * total;
}
