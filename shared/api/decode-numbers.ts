// Number literals of request bodies (JSON and YAML) that cannot become a JS number unchanged: an
// overflow to ±Infinity, or an integer beyond ±(2^53 - 1).

import { badRequest } from './status.js';

export function hasExponent(text: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x65 || c === 0x45) return true;
  }
  return false;
}

export function fieldName(path: string): string {
  return path === '' ? 'the top level' : path.startsWith('.') ? path.slice(1) : path;
}

export function shortLiteral(lit: string): string {
  return lit.length <= 40 ? lit : `${lit.slice(0, 20)}…${lit.slice(-8)} (${lit.length} characters)`;
}

/**
 * Why a number literal cannot be decoded into a JS number without changing it, if it cannot.
 * Floats follow float64 like upstream's decoder: rounding the digits of a fraction is what every
 * client expects, but an overflow to ±Infinity is an error there too. Integers are exact in
 * upstream (int64); here they are exact only within ±(2^53 - 1), so a larger one is refused
 * rather than rounded — the same 400 upstream gives beyond int64.
 */
export function numberProblem(lit: string, integer: boolean, path: string): string | undefined {
  const v = Number(lit);
  if (!Number.isFinite(v)) return `the number ${shortLiteral(lit)} at ${fieldName(path)} is out of the range of a 64-bit float`;
  if (integer && !Number.isSafeInteger(v)) {
    return `the integer ${shortLiteral(lit)} at ${fieldName(path)} cannot be represented exactly; integers must lie within ±${Number.MAX_SAFE_INTEGER}`;
  }
  return undefined;
}

export function numberError(lang: string, problem: string, where: string): Error {
  return badRequest(`unable to decode the ${lang} request body: ${problem} (at ${where})`);
}
