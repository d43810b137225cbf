// Durations written as Go prints them (`1ns`, `400ms`, `1.5s`, `5m0s`, `2h0m0s`): upstream's
// configuration errors quote bounds this way, and operators compare them with its documentation.

const NS_PER_US = 1_000n;
const NS_PER_MS = 1_000_000n;
const NS_PER_S = 1_000_000_000n;

/** `whole.fraction` with the fraction's trailing zeros dropped (`1.500` → `1.5`, `2.000` → `2`). */
function decimal(value: bigint, unit: bigint): string {
  const whole = value / unit;
  const rest = value % unit;
  if (rest === 0n) return whole.toString();
  const digits = unit.toString().length - 1;
  return `${whole}.${rest.toString().padStart(digits, '0').replace(/0+$/, '')}`;
}

/** A duration in nanoseconds as Go's `time.Duration.String()` writes it. */
export function goDuration(ns: bigint): string {
  if (ns === 0n) return '0s';
  const sign = ns < 0n ? '-' : '';
  const u = ns < 0n ? -ns : ns;
  if (u < NS_PER_US) return `${sign}${u}ns`;
  if (u < NS_PER_MS) return `${sign}${decimal(u, NS_PER_US)}µs`;
  if (u < NS_PER_S) return `${sign}${decimal(u, NS_PER_MS)}ms`;
  const hours = u / (3600n * NS_PER_S);
  const minutes = (u / (60n * NS_PER_S)) % 60n;
  const seconds = decimal(u % (60n * NS_PER_S), NS_PER_S);
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}
