// URLs as Go's net/url reads them, for the `url()` functions of validation rules (upstream calls
// url.ParseRequestURI to accept a string, then url.Parse to take it apart). The WHATWG URL parser
// JavaScript has normalises (lower-cases hosts, resolves dots, fills default paths, escapes) where
// Go keeps what was written, and accepts what Go refuses, so this is Go's algorithm: scheme,
// `?query`, `//authority` (userinfo, host, port), path, each with Go's error words.

/** A parsed URL: the fields of Go's url.URL that the rule functions read. */
export interface GoURL {
  scheme: string;
  opaque: string;
  host: string;
  path: string;
  rawPath: string;
  rawQuery: string;
  fragment: string;
}

type Mode = 'path' | 'host' | 'zone' | 'userPassword' | 'queryComponent' | 'fragment';

const isAlnum = (c: string) => /^[A-Za-z0-9]$/.test(c);
const isHex = (c: string | undefined) => c !== undefined && /^[0-9A-Fa-f]$/.test(c);

/** Go's shouldEscape: whether byte `c` must be %-escaped in a URL part of kind `mode`. */
function shouldEscape(c: string, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  if ((mode === 'host' || mode === 'zone') && `!$&'()*+,;=:[]<>"`.includes(c)) return false;
  if ('-_.~'.includes(c)) return false;
  if ('$&+,/:;=?@'.includes(c)) {
    if (mode === 'path') return c === '?';
    if (mode === 'userPassword') return '@/?:'.includes(c);
    if (mode === 'queryComponent') return true;
    if (mode === 'fragment') return false;
  }
  if (mode === 'fragment' && '!()*'.includes(c)) return false;
  return true;
}

const quote = (s: string) => JSON.stringify(s);

/** Go's unescape: %XX sequences decoded (as UTF-8 bytes), `+` a space in a query; Go's errors for bad escapes and host characters. */
function unescape(s: string, mode: Mode): string {
  const bytes: number[] = [];
  const raw = new TextEncoder().encode(s);
  for (let i = 0; i < raw.length;) {
    const c = String.fromCharCode(raw[i]!);
    if (c === '%') {
      const a = String.fromCharCode(raw[i + 1] ?? 0);
      const b = String.fromCharCode(raw[i + 2] ?? 0);
      if (i + 2 >= raw.length || !isHex(a) || !isHex(b)) throw new Error(`invalid URL escape ${quote(new TextDecoder().decode(raw.slice(i, i + 3)))}`);
      const v = parseInt(a + b, 16);
      if (mode === 'host' && parseInt(a, 16) < 8 && `%${a}${b}` !== '%25') throw new Error(`invalid URL escape ${quote(`%${a}${b}`)}`);
      bytes.push(v);
      i += 3;
    } else {
      if ((mode === 'host' || mode === 'zone') && raw[i]! < 0x80 && shouldEscape(c, mode)) throw new Error(`invalid character ${quote(c)} in host name`);
      bytes.push(c === '+' && mode === 'queryComponent' ? 0x20 : raw[i]!);
      i++;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** Go's escape for a path: bytes that must be escaped become %XX (upper case). */
function escapePath(s: string): string {
  let out = '';
  for (const b of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && !shouldEscape(c, 'path') ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function scheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+.-]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new Error('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

const validOptionalPort = (port: string) => port === '' || /^:[0-9]*$/.test(port);

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new Error("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new Error(`invalid port ${quote(colonPort)} after host`);
    const zone = host.slice(0, i).indexOf('%25');
    if (zone >= 0) return unescape(host.slice(0, zone), 'host') + unescape(host.slice(zone, i), 'zone') + unescape(host.slice(i), 'host');
  } else {
    const i = host.lastIndexOf(':');
    if (i !== -1 && !validOptionalPort(host.slice(i))) throw new Error(`invalid port ${quote(host.slice(i))} after host`);
  }
  return unescape(host, 'host');
}

function parseAuthority(authority: string): string {
  const at = authority.lastIndexOf('@');
  const host = parseHost(at < 0 ? authority : authority.slice(at + 1));
  if (at >= 0) {
    const userinfo = authority.slice(0, at);
    if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) throw new Error('net/url: invalid userinfo');
    const colon = userinfo.indexOf(':');
    unescape(colon < 0 ? userinfo : userinfo.slice(0, colon), 'userPassword');
    if (colon >= 0) unescape(userinfo.slice(colon + 1), 'userPassword');
  }
  return host;
}

function parseWithoutFragment(raw: string, viaRequest: boolean): GoURL {
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new Error('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new Error('empty url');
  const url: GoURL = { scheme: '', opaque: '', host: '', path: '', rawPath: '', rawQuery: '', fragment: '' };
  if (raw === '*') return { ...url, path: '*' };
  let [sch, rest] = scheme(raw);
  url.scheme = sch.toLowerCase();
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else if (rest.includes('?')) [rest, url.rawQuery] = [rest.slice(0, rest.indexOf('?')), rest.slice(rest.indexOf('?') + 1)];
  if (!rest.startsWith('/')) {
    if (url.scheme !== '') return { ...url, opaque: rest };
    if (viaRequest) throw new Error('invalid URI for request');
    if ((rest.split('/')[0] ?? '').includes(':')) throw new Error('first path segment in URL cannot contain colon');
  }
  if ((url.scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) [authority, rest] = [authority.slice(0, slash), authority.slice(slash)];
    url.host = parseAuthority(authority);
  }
  url.path = unescape(rest, 'path');
  url.rawPath = escapePath(url.path) === rest ? '' : rest;
  return url;
}

const wrap = <T>(raw: string, fn: () => T): T => {
  try {
    return fn();
  } catch (err) {
    throw new Error(`parse ${quote(raw)}: ${(err as Error).message}`);
  }
};

/** Go's url.ParseRequestURI: an absolute URI or an absolute path, no fragment split off. */
export function parseRequestURI(raw: string): GoURL {
  return wrap(raw, () => parseWithoutFragment(raw, true));
}

/** Go's url.Parse: any URL reference, its `#fragment` taken off first. */
export function parseURL(raw: string): GoURL {
  const hash = raw.indexOf('#');
  const [u, frag] = hash < 0 ? [raw, ''] : [raw.slice(0, hash), raw.slice(hash + 1)];
  const url = wrap(raw, () => parseWithoutFragment(u, false));
  url.fragment = wrap(raw, () => unescape(frag, 'fragment'));
  return url;
}

/** Go's URL.EscapedPath: the path as it was written when that is a valid spelling of it, else escaped. */
export function escapedPath(u: GoURL): string {
  if (u.rawPath !== '' && validEncoded(u.rawPath)) {
    try {
      if (unescape(u.rawPath, 'path') === u.path) return u.rawPath;
    } catch {
      // fall through to the escaped path
    }
  }
  return u.path === '*' ? '*' : escapePath(u.path);
}

function validEncoded(s: string): boolean {
  for (const c of s) {
    if (`!$&'()*+,;=:@[]%`.includes(c)) continue;
    if (c.charCodeAt(0) >= 0x80 || shouldEscape(c, 'path')) return false;
  }
  return true;
}

/** Go's URL.Hostname and URL.Port: the host split at a valid `:port`, IPv6 brackets removed. */
export function splitHostPort(hostPort: string): { hostname: string; port: string } {
  let hostname = hostPort;
  let port = '';
  const colon = hostname.lastIndexOf(':');
  if (colon !== -1 && validOptionalPort(hostname.slice(colon))) [hostname, port] = [hostname.slice(0, colon), hostname.slice(colon + 1)];
  if (hostname.startsWith('[') && hostname.endsWith(']')) hostname = hostname.slice(1, -1);
  return { hostname, port };
}

/** Go's URL.Query: `k=v&k=w` as keys to every value, unescaped; pairs Go cannot read (a `;`, a bad escape) are left out. */
export function parseQuery(rawQuery: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of rawQuery.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    try {
      const key = unescape(eq < 0 ? pair : pair.slice(0, eq), 'queryComponent');
      const value = unescape(eq < 0 ? '' : pair.slice(eq + 1), 'queryComponent');
      out.set(key, [...(out.get(key) ?? []), value]);
    } catch {
      continue;
    }
  }
  return out;
}
