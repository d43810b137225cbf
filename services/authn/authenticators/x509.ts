// Client certificates (`--client-ca-file`): the chain the gateway took off the TLS connection is
// verified here again, against our own CA bundle, because authn does not trust the gateway's
// handshake check (the gateway accepts the union of this CA and the proxy CA, and does not check
// usages). A verified leaf is the user: CN = user name, every O = a group. A presented certificate
// that does not verify is a 401, never an anonymous request.
//
// `verifyChain` is pure (the clock is a parameter) and shared with the request-header
// authenticator, which checks the proxy's certificate against its own CA the same way.

// Must load before @peculiar/x509, which resolves its parsers through tsyringe.
import 'reflect-metadata';
import { hash, X509Certificate as NodeCertificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { TtlCache } from '../../../shared/ground/ttl-cache.js';
import { skip, type AuthnResult, type RequestAuthenticator } from '../types.js';

export const X509_ERRORS = {
  noCertificate: 'x509: no client certificate',
  malformed: 'x509: malformed certificate',
  tooMany: 'x509: too many certificates in the chain',
  expired: 'x509: certificate has expired or is not yet valid',
  unknownAuthority: 'x509: certificate signed by unknown authority',
  notCA: 'x509: certificate signed by a certificate that is not a CA',
  pathTooLong: "x509: too many intermediates for the issuer's path length constraint",
  usage: 'x509: certificate specifies an incompatible key usage',
  noCommonName: 'x509: certificate has no common name',
} as const;

const OID_CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const OID_ANY_EKU = '2.5.29.37.0';
// Bounds the work one request can cause: a client controls its intermediates (their keys too), so
// it could hand us a fully cross-signed set whose simple paths grow factorially.
const MAX_PRESENTED_CERTIFICATES = 10;
const MAX_ISSUER_CHECKS = 100;
// Certificates are a few KiB; the cap keeps the PEM scan linear in what a request may carry.
const MAX_PEM_CHARS = 64 * 1024;

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** One certificate with what path building needs, parsed once. */
interface Candidate {
  cert: NodeCertificate;
  fingerprint: string;
  notBefore: number;
  notAfter: number;
  /** The @peculiar/x509 reading (structured subject, basicConstraints' path length: node:crypto
   *  exposes neither), made on first use; null = the library cannot read the certificate. */
  parsed?: x509.X509Certificate | null;
  /** basicConstraints' path length, from `parsed`; null = none. */
  pathLength?: number | null;
}

/** The CAs of one bundle, parsed at start-up. */
export interface TrustRoots {
  readonly roots: readonly Candidate[];
  readonly fingerprints: ReadonlySet<string>;
}

export class CABundleError extends Error {
  override name = 'CABundleError';
}

// The candidate of each node:crypto certificate, so the subject of a verified leaf is read from
// the parse path building may already have made (verifyChain returns node:crypto certificates).
const candidates = new WeakMap<NodeCertificate, Candidate>();

function candidate(cert: NodeCertificate): Candidate {
  const c: Candidate = { cert, fingerprint: cert.fingerprint256, notBefore: Date.parse(cert.validFrom), notAfter: Date.parse(cert.validTo) };
  candidates.set(cert, c);
  return c;
}

// Lazy, because @peculiar/x509 costs more than the signature check: of the presented certificates
// only a verified leaf (its subject) and an intermediate with another below it (its path length)
// need it, and a rejected chain usually needs neither.
function parsedOf(c: Candidate): x509.X509Certificate | null {
  if (c.parsed === undefined) {
    try {
      c.parsed = new x509.X509Certificate(c.cert.raw);
    } catch {
      c.parsed = null;
    }
  }
  return c.parsed;
}

// A negative or absurdly long path length is malformed; it reads as the most restrictive, 0. The
// library hands INTEGERs of four or more bytes back as decimal text.
const MAX_PATH_LENGTH = 0x7fffffff;

/** The pathLenConstraint of basicConstraints; null when the extension or the field is absent. */
function readPathLength(c: Candidate): number | null {
  const parsed = parsedOf(c);
  // Extensions we cannot read must not lift a limit: nothing may sit between it and the leaf.
  if (!parsed) return 0;
  let bc: x509.BasicConstraintsExtension | null;
  try {
    // Decodes every extension of the certificate; any one malformed fails closed, as above.
    bc = parsed.getExtension(x509.BasicConstraintsExtension);
  } catch {
    return 0;
  }
  const raw: unknown = bc?.pathLength;
  if (raw === undefined || raw === null) return null;
  const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= MAX_PATH_LENGTH ? n : 0;
}

function pathLengthOf(c: Candidate): number {
  if (c.pathLength === undefined) c.pathLength = readPathLength(c);
  return c.pathLength ?? Infinity;
}

/** Whether `c` may have `below` intermediates under it. Every path length is at least 0, so a CA
 *  that issued the leaf itself passes without its extensions being decoded (the costly part). */
function withinPathLength(c: Candidate, below: number): boolean {
  return below === 0 || pathLengthOf(c) >= below;
}

/** Parses a PEM bundle of CA certificates; `source` names the flag in the error. */
export function parseCABundle(pem: string, source: string): TrustRoots {
  const blocks = pem.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) throw new CABundleError(`${source}: the CA bundle contains no PEM certificate`);
  const roots = blocks.map((block, i) => {
    let root: Candidate;
    try {
      root = candidate(new NodeCertificate(block));
    } catch {
      throw new CABundleError(`${source}: certificate ${i + 1} of the CA bundle cannot be parsed`);
    }
    // Read once here rather than on the first request that reaches this root.
    pathLengthOf(root);
    return root;
  });
  return { roots, fingerprints: new Set(roots.map((r) => r.fingerprint)) };
}

// Fails closed: an unparsable date (NaN) is never "within" the window.
function timeValid(c: Candidate, now: number): boolean {
  return c.notBefore <= now && now <= c.notAfter;
}

// Node 20 names the extended key usage OIDs `keyUsage`; undefined when the extension is absent.
function allowsClientAuth(c: Candidate): boolean {
  const eku = c.cert.keyUsage as string[] | undefined;
  return !eku || eku.includes(OID_CLIENT_AUTH) || eku.includes(OID_ANY_EKU);
}

export type ChainVerification = { ok: true; chain: NodeCertificate[] } | { ok: false; error: string };

function parsePresented(chainPem: readonly string[]): Candidate[] | string {
  const out: Candidate[] = [];
  for (const entry of chainPem) {
    // Each entry is one PEM certificate; a concatenated entry is tolerated.
    const blocks = typeof entry === 'string' && entry.length <= MAX_PEM_CHARS ? (entry.match(PEM_BLOCK) ?? []) : [];
    if (blocks.length === 0) return X509_ERRORS.malformed;
    for (const block of blocks) {
      if (out.length === MAX_PRESENTED_CERTIFICATES) return X509_ERRORS.tooMany;
      try {
        out.push(candidate(new NodeCertificate(block)));
      } catch {
        return X509_ERRORS.malformed;
      }
    }
  }
  return out;
}

/**
 * Verifies `chainPem` (leaf first, then any intermediates in any order, possibly with the root)
 * up to one of `trust`'s roots at time `now`: every signature and issuer name, every validity
 * window on the path, intermediates must be CAs within their path length, and the leaf (and any
 * CA that restricts extended key usage) must allow client authentication. Roots are trusted as
 * they are: only their validity window and path length apply. Returns the path, leaf first.
 */
export function verifyChain(chainPem: readonly string[], trust: TrustRoots, now: Date = new Date()): ChainVerification {
  // The bus body is JSON from another process: anything but a list of strings is malformed.
  if (!Array.isArray(chainPem)) return { ok: false, error: X509_ERRORS.malformed };
  if (chainPem.length === 0) return { ok: false, error: X509_ERRORS.noCertificate };
  const parsed = parsePresented(chainPem);
  if (typeof parsed === 'string') return { ok: false, error: parsed };
  const [leaf, ...intermediates] = parsed as [Candidate, ...Candidate[]];
  const t = now.getTime();
  if (!timeValid(leaf, t)) return { ok: false, error: X509_ERRORS.expired };
  if (!allowsClientAuth(leaf)) return { ok: false, error: X509_ERRORS.usage };
  // A leaf that is itself one of the trusted certificates needs no issuer.
  if (trust.fingerprints.has(leaf.fingerprint)) return { ok: true, chain: [leaf.cert] };

  // Signature checks are the expensive part; each (child, issuer) pair is checked at most once.
  const issued = new Map<string, boolean>();
  let checks = 0;
  const isIssuer = (child: Candidate, issuer: Candidate, key: string): boolean => {
    let r = issued.get(key);
    if (r === undefined) {
      checks++;
      try {
        r = child.cert.checkIssued(issuer.cert) && child.cert.verify(issuer.cert.publicKey);
      } catch {
        r = false;
      }
      issued.set(key, r);
    }
    return r;
  };

  // The first reason a signature-valid path was rejected; reported instead of "unknown authority"
  // so an expired intermediate reads as expired.
  let rejection: string | undefined;
  const reject = (error: string) => {
    rejection ??= error;
  };

  // Depth-first from the leaf: a root that issued the current certificate ends the path,
  // otherwise an unused presented certificate that issued it extends it.
  const path: Candidate[] = [leaf];
  const used = new Set<number>();
  const extend = (current: Candidate, currentId: string): boolean => {
    // Intermediates below a certificate at position k: k - 1 (the leaf does not count).
    const below = path.length - 1;
    for (let r = 0; r < trust.roots.length; r++) {
      const root = trust.roots[r]!;
      if (checks >= MAX_ISSUER_CHECKS) return false;
      if (!isIssuer(current, root, `${currentId}>r${r}`)) continue;
      if (!timeValid(root, t)) reject(X509_ERRORS.expired);
      else if (!allowsClientAuth(root)) reject(X509_ERRORS.usage);
      else if (!withinPathLength(root, below)) reject(X509_ERRORS.pathTooLong);
      else {
        path.push(root);
        return true;
      }
    }
    for (let i = 0; i < intermediates.length; i++) {
      if (used.has(i)) continue;
      const next = intermediates[i]!;
      if (checks >= MAX_ISSUER_CHECKS) return false;
      if (!isIssuer(current, next, `${currentId}>i${i}`)) continue;
      if (!timeValid(next, t)) reject(X509_ERRORS.expired);
      // OpenSSL's answer: basicConstraints present with CA true (and key usage, if any, allows signing).
      else if (!next.cert.ca) reject(X509_ERRORS.notCA);
      else if (!withinPathLength(next, below)) reject(X509_ERRORS.pathTooLong);
      else if (!allowsClientAuth(next)) reject(X509_ERRORS.usage);
      else {
        path.push(next);
        used.add(i);
        if (extend(next, `i${i}`)) return true;
        path.pop();
        used.delete(i);
      }
    }
    return false;
  };

  if (extend(leaf, 'leaf')) return { ok: true, chain: path.map((c) => c.cert) };
  return { ok: false, error: rejection ?? X509_ERRORS.unknownAuthority };
}

export interface CertificateSubject {
  /** The subject's common name; the last one when several are present, as upstream reads it. */
  commonName: string;
  /** Every organization, in the order of the subject. */
  organizations: string[];
}

/** Reads CN and O from the structured subject (never from the printed form, whose escaping we
 *  would have to trust); undefined when the subject cannot be read. */
export function certificateSubject(cert: NodeCertificate): CertificateSubject | undefined {
  const parsed = parsedOf(candidates.get(cert) ?? candidate(cert));
  if (!parsed) return undefined;
  try {
    const name = parsed.subjectName;
    return { commonName: name.getField('CN').at(-1) ?? '', organizations: name.getField('O') };
  } catch {
    return undefined;
  }
}

/** True when the request carries no client certificate at all (absent, null or an empty list). */
export function noCertificates(presented: readonly string[] | null | undefined): presented is null | undefined | [] {
  return presented === undefined || presented === null || (Array.isArray(presented) && presented.length === 0);
}

/** A verified chain's leaf subject; `subject` is absent when the leaf's subject cannot be read. */
export type SubjectVerification = { ok: true; subject?: CertificateSubject } | { ok: false; error: string };

export interface ChainVerifierOptions {
  /** Clock in milliseconds, replaceable in tests. */
  now?: () => number;
  maxEntries?: number;
}

/** How long a verified chain is remembered at most, even when its certificates last longer. */
export const VERIFIED_CHAIN_TTL_MS = 5 * 60_000;

// Rejections that no clock can change: no signature path to the bundle at all, or nothing
// readable. Only these are remembered; "expired" (or a path rejected for any reason that could
// fall back to an expired one) is checked afresh, since time may make it valid.
const TIMELESS_REJECTIONS: ReadonlySet<string> = new Set([X509_ERRORS.unknownAuthority, X509_ERRORS.malformed, X509_ERRORS.tooMany]);

/**
 * Verifies presented chains against one bundle and remembers the outcome. The bundle is fixed
 * for the life of the process, so a chain that verified once verifies again until the first
 * certificate on its path expires, and a chain with no path to the bundle never gets one; a
 * repeated client then costs a hash instead of parsing and signature checks (about 0.5 ms a
 * request). That matters twice over with a front proxy: every ordinary client certificate is
 * first tried against the proxy CA, and fails there. Rejections and successes are kept apart so
 * a flood of junk chains cannot push verified clients out.
 */
export function createChainVerifier(trust: TrustRoots, opts: ChainVerifierOptions = {}): (presented: readonly string[]) => SubjectVerification {
  const now = opts.now ?? Date.now;
  const entries = opts.maxEntries ?? 10_000;
  const verified = new TtlCache<CertificateSubject | null>(entries, now);
  const rejected = new TtlCache<string>(entries, now);
  return (presented) => {
    // Anything but a list of strings is malformed; verifyChain says so without caching.
    const key = Array.isArray(presented) && presented.every((p) => typeof p === 'string') ? hash('sha256', presented.join('\0'), 'base64') : undefined;
    if (key !== undefined) {
      const hit = verified.get(key);
      if (hit !== undefined) return hit ? { ok: true, subject: hit } : { ok: true };
      const error = rejected.get(key);
      if (error !== undefined) return { ok: false, error };
    }
    const at = now();
    const v = verifyChain(presented, trust, new Date(at));
    if (!v.ok) {
      if (key !== undefined && TIMELESS_REJECTIONS.has(v.error)) rejected.set(key, v.error, VERIFIED_CHAIN_TTL_MS);
      return v;
    }
    const subject = certificateSubject(v.chain[0]!);
    const expires = Math.min(...v.chain.map((c) => (candidates.get(c) ?? candidate(c)).notAfter));
    if (key !== undefined) verified.set(key, subject ?? null, Math.min(expires - at, VERIFIED_CHAIN_TTL_MS));
    return subject ? { ok: true, subject } : { ok: true };
  };
}

export function createX509Authenticator(caBundlePem: string, opts: ChainVerifierOptions = {}): RequestAuthenticator {
  const verify = createChainVerifier(parseCABundle(caBundlePem, '--client-ca-file'), opts);
  return {
    name: 'x509',
    authenticate(req): AuthnResult {
      const presented = req.certificates;
      if (noCertificates(presented)) return skip;
      const v = verify(presented);
      if (!v.ok) return { kind: 'fail', error: v.error };
      if (!v.subject) return { kind: 'fail', error: X509_ERRORS.malformed };
      if (!v.subject.commonName) return { kind: 'fail', error: X509_ERRORS.noCommonName };
      return { kind: 'ok', user: { username: v.subject.commonName, groups: v.subject.organizations } };
    },
  };
}
