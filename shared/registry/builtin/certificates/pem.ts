// A small PEM scanner for CSR validation: finds BEGIN/END blocks, separates RFC 1421 headers,
// decodes the base64 body and checks the DER framing of the outer ASN.1 element. It does not
// parse certificate contents (that needs an X.509 parser, which shared/registry avoids).

export interface PemBlock {
  type: string;
  headers: Record<string, string>;
  bytes: Uint8Array;
}

export interface PemScan {
  blocks: PemBlock[];
  /** Set when a block's body is not valid base64. */
  error?: string;
}

const BLOCK = /-----BEGIN ([^\r\n]*?)-----\r?\n([\s\S]*?)-----END \1-----/g;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function scanPem(text: string): PemScan {
  const blocks: PemBlock[] = [];
  for (const m of text.matchAll(BLOCK)) {
    const type = m[1]!;
    const lines = m[2]!.split(/\r?\n/);
    const headers: Record<string, string> = {};
    let i = 0;
    // Headers are `Key: Value` lines directly after BEGIN, ended by a blank line.
    while (i < lines.length && lines[i]!.includes(':')) {
      const line = lines[i]!;
      const c = line.indexOf(':');
      headers[line.slice(0, c).trim()] = line.slice(c + 1).trim();
      i++;
    }
    if (Object.keys(headers).length && i < lines.length && lines[i]!.trim() === '') i++;
    const body = lines.slice(i).join('').replace(/\s+/g, '');
    if (!BASE64.test(body) || body.length % 4 !== 0) return { blocks, error: `invalid base64 data in PEM block ${JSON.stringify(type)}` };
    blocks.push({ type, headers, bytes: Uint8Array.from(Buffer.from(body, 'base64')) });
  }
  return { blocks };
}

/** Whether the bytes are exactly one DER SEQUENCE (the framing of certificates and CSRs). */
export function isDerSequence(der: Uint8Array): boolean {
  if (der.length < 2 || der[0] !== 0x30) return false;
  const first = der[1]!;
  let len: number;
  let header: number;
  if (first < 0x80) {
    len = first;
    header = 2;
  } else {
    const n = first & 0x7f;
    if (n === 0 || n > 4 || der.length < 2 + n) return false;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[2 + i]!;
    header = 2 + n;
  }
  return header + len === der.length && len > 0;
}
