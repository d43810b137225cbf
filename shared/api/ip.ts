// IP addresses and CIDR ranges as numbers, for the service allocators: parse (IPv4, IPv6 and
// IPv4-mapped IPv6), format in canonical form (RFC 5952 for IPv6), and offsets inside a range.

import { isIPv4, isIPv6 } from 'node:net';

export type IPFamily = 'IPv4' | 'IPv6';

export interface IP {
  family: IPFamily;
  value: bigint;
}

export interface Cidr {
  family: IPFamily;
  /** The network address. */
  base: bigint;
  prefix: number;
  /** As given on the command line, in canonical form. */
  text: string;
}

const BITS: Record<IPFamily, number> = { IPv4: 32, IPv6: 128 };

export function otherFamily(f: IPFamily): IPFamily {
  return f === 'IPv4' ? 'IPv6' : 'IPv4';
}

function v4Value(s: string): bigint {
  return s.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

/** The address `s` names, or undefined when it is not an IP address. IPv4-mapped IPv6 reads as IPv4. */
export function parseIP(s: string): IP | undefined {
  if (isIPv4(s)) return { family: 'IPv4', value: v4Value(s) };
  if (!isIPv6(s) || s.includes('%')) return undefined;
  let text = s.toLowerCase();
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const v4 = v4Value(tail[1]!);
    text = `${text.slice(0, -tail[1]!.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = rest ? rest.split(':') : [];
  const groups = rest === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const value = groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
  if (value >> 32n === 0xffffn) return { family: 'IPv4', value: value & 0xffffffffn };
  return { family: 'IPv6', value };
}

/** Canonical text of an address: dotted quad, or RFC 5952 (lower case, longest zero run as `::`). */
export function formatIP(ip: IP): string {
  if (ip.family === 'IPv4') return [24n, 16n, 8n, 0n].map((s) => String((ip.value >> s) & 0xffn)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => Number((ip.value >> BigInt(112 - 16 * i)) & 0xffffn));
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [bestStart, bestLen] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

/** The range `s` (`10.0.0.0/24`, `fd00::/108`) names; throws with the reason when it does not name one. */
export function parseCidr(s: string): Cidr {
  const slash = s.indexOf('/');
  const ip = slash > 0 ? parseIP(s.slice(0, slash)) : undefined;
  const prefixText = s.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(prefixText)) throw new Error(`invalid CIDR address: ${s}`);
  const prefix = Number(prefixText);
  const bits = BITS[ip.family];
  if (prefix > bits) throw new Error(`invalid CIDR address: ${s}`);
  const host = bits - prefix;
  const base = (ip.value >> BigInt(host)) << BigInt(host);
  return { family: ip.family, base, prefix, text: `${formatIP({ family: ip.family, value: base })}/${prefix}` };
}

/** How many addresses the range holds. */
export function cidrSize(c: Cidr): bigint {
  return 1n << BigInt(BITS[c.family] - c.prefix);
}

/** The offset of `ip` in `c`, or undefined when the range does not hold it. */
export function offsetIn(c: Cidr, ip: IP): bigint | undefined {
  if (ip.family !== c.family) return undefined;
  const off = ip.value - c.base;
  return off >= 0n && off < cidrSize(c) ? off : undefined;
}

export function addressAt(c: Cidr, offset: bigint): string {
  return formatIP({ family: c.family, value: c.base + offset });
}
