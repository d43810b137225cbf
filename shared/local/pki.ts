// Development PKI for `npm start`, docker compose and tests: a self-signed CA, a serving
// certificate for the gateway and client certificates whose subject carries the identity the
// x509 authenticator reads (CN = user name, each O = a group). ECDSA P-256 keeps generation fast.
// Keys are PKCS#8 PEM so Node's tls, kubectl and curl all accept them unchanged.

// Must load before @peculiar/x509 (see the module for why).
import 'reflect-metadata'; // @peculiar/x509 resolves its algorithms through tsyringe, which needs it
import { X509Certificate as NodeX509Certificate, webcrypto } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import * as x509 from '@peculiar/x509';
import { CONTROLLER_MANAGER_USER } from '../api/groups.js';

// @peculiar/x509 looks the provider up globally; Node's WebCrypto is complete for ECDSA.
x509.cryptoProvider.set(webcrypto as never);

// The DOM lib is not loaded here; Node's WebCrypto types are the same shapes.
type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING_ALGORITHM = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 3600 * 1000;
const LEAF_VALIDITY_DAYS = 365;
const CA_VALIDITY_DAYS = 3650;
// Leaf certificates closer than this to expiry are reissued by ensurePki, so a long-lived
// .local directory never serves an expired certificate.
const RENEW_BEFORE_DAYS = 30;

/** The names every local serving certificate covers, whatever else is asked for. */
export const DEFAULT_SERVING_NAMES: readonly string[] = ['localhost', '127.0.0.1', '::1'];

export interface PemPair {
  certPem: string;
  keyPem: string;
}

export interface CertificateAuthority extends PemPair {
  certificate: x509.X509Certificate;
  keys: CryptoKeyPair;
}

export interface ServingCertOptions {
  commonName?: string;
  /** Extra DNS names; `localhost` is always included. */
  dnsNames?: string[];
  /** Extra IP addresses; 127.0.0.1 and ::1 are always included. */
  ipAddresses?: string[];
  /**
   * Also a TLS client certificate (extended key usage clientAuth beside serverAuth): for a server
   * that dials its peers with the same pair, as NATS routes do; Go's TLS refuses a serverAuth-only
   * certificate offered by the dialling side.
   */
  clientAuth?: boolean;
  validityDays?: number;
}

export interface ClientCertOptions {
  /** The user name. */
  commonName: string;
  /** The groups. */
  organizations?: string[];
  validityDays?: number;
}

// Positive 16-byte serial (RFC 5280 allows up to 20 octets; the top bit must be clear).
function randomSerial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return Buffer.from(bytes).toString('hex');
}

function validity(days: number): { notBefore: Date; notAfter: Date } {
  // Back-dated a little so a client whose clock lags slightly still accepts a fresh certificate.
  const notBefore = new Date(Date.now() - 5 * 60 * 1000);
  return { notBefore, notAfter: new Date(notBefore.getTime() + days * DAY_MS) };
}

async function generateKeys(): Promise<CryptoKeyPair> {
  return webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

/** Creates a self-signed CA (10 years by default). */
export async function createCA(commonName: string, validityDays = CA_VALIDITY_DAYS): Promise<CertificateAuthority> {
  const keys = await generateKeys();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: [{ CN: [commonName] }],
    ...validity(validityDays),
    signingAlgorithm: SIGNING_ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certificate, keys, certPem: certificate.toString('pem'), keyPem: await privateKeyPem(keys.privateKey) };
}

/** Loads a CA written earlier by createCA (PEM certificate and PKCS#8 key). */
export async function loadCA(certPem: string, keyPem: string): Promise<CertificateAuthority> {
  const certificate = new x509.X509Certificate(certPem);
  const der = x509.PemConverter.decodeFirst(keyPem);
  const privateKey = await webcrypto.subtle.importKey('pkcs8', der, KEY_ALGORITHM, true, ['sign']);
  const publicKey = (await certificate.publicKey.export(KEY_ALGORITHM, ['verify'], webcrypto as never)) as CryptoKey;
  return { certificate, keys: { privateKey, publicKey }, certPem, keyPem };
}

async function issue(ca: CertificateAuthority, subject: x509.JsonName, validityDays: number, extensions: x509.Extension[]): Promise<PemPair> {
  const keys = await generateKeys();
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject,
    issuer: ca.certificate.subject,
    ...validity(validityDays),
    signingAlgorithm: SIGNING_ALGORITHM,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey),
      ...extensions,
    ],
  });
  return { certPem: certificate.toString('pem'), keyPem: await privateKeyPem(keys.privateKey) };
}

/** The DNS names and IP addresses a serving certificate gets: the defaults plus `opts`. */
export function servingNames(opts: Pick<ServingCertOptions, 'dnsNames' | 'ipAddresses'> = {}): { dnsNames: string[]; ipAddresses: string[] } {
  const all = [...DEFAULT_SERVING_NAMES, ...(opts.dnsNames ?? []), ...(opts.ipAddresses ?? [])];
  const dnsNames = [...new Set(all.filter((n) => isIP(n) === 0))];
  const ipAddresses = [...new Set(all.filter((n) => isIP(n) !== 0))];
  return { dnsNames, ipAddresses };
}

/** A TLS server certificate for 127.0.0.1, ::1, localhost and the extra names given. */
export async function issueServingCert(ca: CertificateAuthority, opts: ServingCertOptions = {}): Promise<PemPair> {
  const { dnsNames, ipAddresses } = servingNames(opts);
  const san = new x509.SubjectAlternativeNameExtension([...dnsNames.map((value) => ({ type: 'dns' as const, value })), ...ipAddresses.map((value) => ({ type: 'ip' as const, value }))]);
  return issue(ca, [{ CN: [opts.commonName ?? 'platform-apiserver'] }], opts.validityDays ?? LEAF_VALIDITY_DAYS, [
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension(opts.clientAuth ? [x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth] : [x509.ExtendedKeyUsage.serverAuth]),
    san,
  ]);
}

/** A TLS client certificate: CN is the user name, one O per group. */
export async function issueClientCert(ca: CertificateAuthority, opts: ClientCertOptions): Promise<PemPair> {
  const subject: x509.JsonName = [{ CN: [opts.commonName] }];
  // One RDN per organization, the way openssl and client-go write multi-group subjects.
  for (const o of opts.organizations ?? []) subject.push({ O: [o] });
  return issue(ca, subject, opts.validityDays ?? LEAF_VALIDITY_DAYS, [
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
  ]);
}

// ---- On-disk PKI, created once and reused --------------------------------------------------

export const ADMIN_USER = 'platform-admin';
export const ADMIN_GROUPS: readonly string[] = ['system:masters'];

export interface PkiFiles {
  dir: string;
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  adminCert: string;
  adminKey: string;
  controllersCert: string;
  controllersKey: string;
}

export interface LocalPki {
  files: PkiFiles;
  ca: CertificateAuthority;
  serving: PemPair;
  admin: PemPair;
  /** Client certificate of the controllers service (user CONTROLLER_MANAGER_USER). */
  controllers: PemPair;
  /** Which files were (re)written in this call; empty when everything was reused. */
  written: string[];
}

export interface EnsurePkiOptions {
  /** Extra DNS names / IPs for the serving certificate (e.g. a compose service name). */
  servingNames?: string[];
  caCommonName?: string;
}

export function pkiFiles(dir: string): PkiFiles {
  const f = (name: string) => path.join(dir, name);
  return {
    dir,
    caCert: f('ca.crt'),
    caKey: f('ca.key'),
    servingCert: f('serving.crt'),
    servingKey: f('serving.key'),
    adminCert: f('admin.crt'),
    adminKey: f('admin.key'),
    controllersCert: f('controllers.crt'),
    controllersKey: f('controllers.key'),
  };
}

// Writes through a temporary file and rename, so an interrupted first start never leaves a
// half-written certificate that later starts would trust.
export async function writeAtomic(file: string, data: string, mode: number): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, data, { mode });
  await chmod(tmp, mode);
  await rename(tmp, file);
}

export async function readPair(certFile: string, keyFile: string): Promise<PemPair | undefined> {
  if (!existsSync(certFile) || !existsSync(keyFile)) return undefined;
  return { certPem: await readFile(certFile, 'utf8'), keyPem: await readFile(keyFile, 'utf8') };
}

function sanEntries(cert: NodeX509Certificate): Set<string> {
  // Node renders "DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1".
  const out = new Set<string>();
  for (const part of (cert.subjectAltName ?? '').split(/,\s*/)) {
    const m = /^(DNS|IP Address):(.*)$/.exec(part);
    if (m) out.add(m[1] === 'DNS' ? m[2]!.toLowerCase() : canonicalIP(m[2]!));
  }
  return out;
}

function canonicalIP(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  // Expand to eight groups without leading zeros so `::1` and `0:0:0:0:0:0:0:1` compare equal.
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return groups.map((g) => parseInt(g, 16).toString(16)).join(':');
}

/** True when `pair` was issued by `ca`, is not close to expiry and (for serving) covers `names` and allows `usages` (extended key usage OIDs). */
export function stillGood(ca: CertificateAuthority, pair: PemPair | undefined, names?: { dnsNames: string[]; ipAddresses: string[] }, usages: string[] = []): boolean {
  if (!pair) return false;
  try {
    const cert = new NodeX509Certificate(pair.certPem);
    const caCert = new NodeX509Certificate(ca.certPem);
    if (!cert.checkIssued(caCert) || !cert.verify(caCert.publicKey)) return false;
    if (new Date(cert.validTo).getTime() - Date.now() < RENEW_BEFORE_DAYS * DAY_MS) return false;
    if (names) {
      const have = sanEntries(cert);
      if (!names.dnsNames.every((n) => have.has(n.toLowerCase())) || !names.ipAddresses.every((ip) => have.has(canonicalIP(ip)))) return false;
    }
    // Node lists the extended key usages' OIDs (undefined when the extension is absent: any use).
    if (cert.keyUsage && !usages.every((oid) => cert.keyUsage.includes(oid))) return false;
    return true;
  } catch {
    return false;
  }
}

/**
 * The serving pair in `files`, reused while `ca` signed it, it is not near expiry, it covers the
 * default names and `opts`' names and (with `clientAuth`) it may also be a client's; else issued
 * anew (key 0600) and both paths added to `written`.
 */
export async function ensureServingPair(ca: CertificateAuthority, files: { cert: string; key: string }, opts: Omit<ServingCertOptions, 'validityDays'>, written: string[] = []): Promise<PemPair> {
  const names = servingNames(opts);
  const usages = opts.clientAuth ? [x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth] : [x509.ExtendedKeyUsage.serverAuth];
  const existing = await readPair(files.cert, files.key);
  if (existing && stillGood(ca, existing, names, usages)) return existing;
  const pair = await issueServingCert(ca, { ...names, ...(opts.commonName ? { commonName: opts.commonName } : {}), ...(opts.clientAuth ? { clientAuth: true } : {}) });
  await writeAtomic(files.key, pair.keyPem, 0o600);
  await writeAtomic(files.cert, pair.certPem, 0o644);
  written.push(files.key, files.cert);
  return pair;
}

/**
 * Creates the CA, the serving certificate and the admin client certificate under `dir` unless
 * they already exist, so restarts keep the identity clients were configured with. A leaf is
 * reissued only when it no longer fits: signed by another CA, near expiry, or (serving) missing a
 * requested name. Keys are written 0600.
 */
export async function ensurePki(dir: string, opts: EnsurePkiOptions = {}): Promise<LocalPki> {
  const files = pkiFiles(dir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const written: string[] = [];

  let ca: CertificateAuthority;
  const caPair = await readPair(files.caCert, files.caKey);
  if (caPair) ca = await loadCA(caPair.certPem, caPair.keyPem);
  else {
    ca = await createCA(opts.caCommonName ?? 'platform-local-ca');
    await writeAtomic(files.caKey, ca.keyPem, 0o600);
    await writeAtomic(files.caCert, ca.certPem, 0o644);
    written.push(files.caKey, files.caCert);
  }

  const serving = await ensureServingPair(ca, { cert: files.servingCert, key: files.servingKey }, { dnsNames: opts.servingNames ?? [] }, written);

  let admin = await readPair(files.adminCert, files.adminKey);
  if (!stillGood(ca, admin)) {
    admin = await issueClientCert(ca, { commonName: ADMIN_USER, organizations: [...ADMIN_GROUPS] });
    await writeAtomic(files.adminKey, admin.keyPem, 0o600);
    await writeAtomic(files.adminCert, admin.certPem, 0o644);
    written.push(files.adminKey, files.adminCert);
  }

  let controllers = await readPair(files.controllersCert, files.controllersKey);
  if (!stillGood(ca, controllers)) {
    controllers = await issueClientCert(ca, { commonName: CONTROLLER_MANAGER_USER });
    await writeAtomic(files.controllersKey, controllers.keyPem, 0o600);
    await writeAtomic(files.controllersCert, controllers.certPem, 0o644);
    written.push(files.controllersKey, files.controllersCert);
  }

  return { files, ca, serving, admin: admin!, controllers: controllers!, written };
}
