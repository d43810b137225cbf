// Addresses that name the host itself, its link, or no host at all. The proxy subresources refuse
// them (upstream's IsProxyableIP) in every spelling a resolver or the kernel reads as the same
// address, so `::ffff:7f00:1` or `0x7f.1` cannot reach a loopback port; Endpoints and
// EndpointSlices may not hold them (upstream's ValidateEndpointIP).

import { BlockList, isIPv6 } from 'node:net';
import { invalidValue } from './field-errors.js';
import { formatIP, parseIP, type IP } from './ip.js';
import type { FieldError } from './status.js';

type Range = readonly [network: string, prefix: number];

function blockList(ranges: readonly Range[]): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, isIPv6(network) ? 'ipv6' : 'ipv4');
  return list;
}

function inRanges(list: BlockList, canonical: string): boolean {
  return list.check(canonical, isIPv6(canonical) ? 'ipv6' : 'ipv4');
}

// inet_aton's parts: decimal, octal with a leading 0, hex with 0x.
const LEGACY_V4_PART = /^(?:0x[0-9a-f]+|0[0-7]*|[1-9][0-9]*)$/i;

/** An IPv4 address as inet_aton (and so getaddrinfo) reads it: `2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`. */
function parseLegacyIPv4(s: string): IP | undefined {
  const parts = s.split('.');
  if (parts.length > 4 || !parts.every((p) => LEGACY_V4_PART.test(p))) return undefined;
  const values = parts.map((p) => BigInt(/^0[0-7]+$/.test(p) ? `0o${p.slice(1)}` : p));
  // Every part but the last is one byte; the last fills the bytes left.
  const lastBits = 8n * BigInt(5 - parts.length);
  const last = values.pop()!;
  if (last >= 1n << lastBits || values.some((v) => v > 255n)) return undefined;
  const head = values.reduce((acc, v) => (acc << 8n) | v, 0n);
  return { family: 'IPv4', value: (head << lastBits) | last };
}

// The /96 prefixes whose low 32 bits are an IPv4 address the traffic ends up at: IPv4-compatible
// (::a.b.c.d), IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d) and the NAT64
// well-known prefix (64:ff9b::a.b.c.d).
const IPV4_EMBEDDING_PREFIXES = [0n, 0xffffn, 0xffff0000n, 0x64ff9b0000000000000000n];

function embeddedIPv4(ip: IP): IP {
  if (ip.family !== 'IPv6' || !IPV4_EMBEDDING_PREFIXES.includes(ip.value >> 32n)) return ip;
  // `::` and `::1` are IPv6's own unspecified and loopback addresses, not IPv4-compatible ones.
  if (ip.value <= 1n) return ip;
  return { family: 'IPv4', value: ip.value & 0xffffffffn };
}

/**
 * The one text of the address `host` spells, or undefined when it is a name to resolve. IPv6 in
 * any form (brackets, zone id, upper case, leading zeros, expanded) and with an IPv4 address
 * embedded reads as that IPv4 address; IPv4 in inet_aton's forms reads as a dotted quad.
 */
export function canonicalIP(host: string): string | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const zone = bare.indexOf('%');
  const literal = zone >= 0 && isIPv6(bare) ? bare.slice(0, zone) : bare;
  const ip = parseIP(literal) ?? parseLegacyIPv4(literal);
  return ip && formatIP(embeddedIPv4(ip));
}

const NOT_PROXYABLE = blockList([
  ['0.0.0.0', 8],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['224.0.0.0', 4],
  ['255.255.255.255', 32],
  ['::', 128],
  ['::1', 128],
  ['fe80::', 10],
  ['ff00::', 8],
]);

/**
 * Whether a proxy may connect to the IP address `address` (in any spelling canonicalIP reads):
 * not loopback, link-local (the cloud metadata address among them), unspecified, multicast or
 * broadcast. A name is not an address: resolve it and ask about every address it resolves to.
 */
export function proxyableIP(address: string): boolean {
  const canonical = canonicalIP(address);
  return canonical !== undefined && !inRanges(NOT_PROXYABLE, canonical);
}

// Go's IsLinkLocalMulticast: ff02::/16 with any flags nibble (ff12::, ff32::, …).
const IPV6_LINK_LOCAL_MULTICAST: Range[] = Array.from({ length: 16 }, (_, flags) => [`ff${flags.toString(16)}2::`, 16] as const);

// Upstream's checks and wording; the ff02::/10 in the last message is upstream's text.
const ENDPOINT_RULES: ReadonlyArray<{ ranges: BlockList; detail: (value: string) => string }> = [
  {
    ranges: blockList([
      ['0.0.0.0', 32],
      ['::', 128],
    ]),
    detail: (value) => `may not be unspecified (${value})`,
  },
  {
    ranges: blockList([
      ['127.0.0.0', 8],
      ['::1', 128],
    ]),
    detail: () => 'may not be in the loopback range (127.0.0.0/8, ::1/128)',
  },
  {
    ranges: blockList([
      ['169.254.0.0', 16],
      ['fe80::', 10],
    ]),
    detail: () => 'may not be in the link-local range (169.254.0.0/16, fe80::/10)',
  },
  { ranges: blockList([['224.0.0.0', 24], ...IPV6_LINK_LOCAL_MULTICAST]), detail: () => 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)' },
];

/** The address errors of an Endpoints or EndpointSlice address, already known to be a valid IP; IPv4-mapped reads as IPv4. */
export function specialEndpointIPErrors(value: string, field: string): FieldError[] {
  const ip = parseIP(value);
  if (!ip) return [];
  const canonical = formatIP(ip);
  return ENDPOINT_RULES.filter((r) => inRanges(r.ranges, canonical)).map((r) => invalidValue(field, value, r.detail(value)));
}

/** Upstream's ValidateEndpointIP: a valid IP address, and none of the special ones. */
export function validateEndpointIP(value: unknown, field: string): FieldError[] {
  if (typeof value !== 'string' || !parseIP(value)) return [invalidValue(field, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
  return specialEndpointIPErrors(value, field);
}
