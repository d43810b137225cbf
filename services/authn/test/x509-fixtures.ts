// Certificates for the x509 and request-header tests, generated per run: any shape a hostile or
// broken client could present (expired, not yet valid, wrong usage, not a CA, forged issuer).

import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as never);

const KEY = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGN = { name: 'ECDSA', hash: 'SHA-256' } as const;
export const HOUR = 3600_000;
export const DAY = 24 * HOUR;

export const EKU = { clientAuth: x509.ExtendedKeyUsage.clientAuth, serverAuth: x509.ExtendedKeyUsage.serverAuth, any: '2.5.29.37.0' } as const;

export interface Minted {
  certificate: x509.X509Certificate;
  keys: webcrypto.CryptoKeyPair;
  pem: string;
}

export interface MintOptions {
  subject: x509.JsonName;
  /** Signs the certificate; self-signed when absent. */
  issuer?: Minted;
  notBefore?: Date;
  notAfter?: Date;
  /** basicConstraints CA with an optional path length; a leaf (CA false) otherwise. */
  ca?: boolean;
  pathLength?: number;
  /** Extended key usages; `null` leaves the extension out. Default: clientAuth for leaves, none for CAs. */
  eku?: string[] | null;
  /** Key usage flags; `null` leaves the extension out. Default: certificate signing for CAs, digital signature otherwise. */
  keyUsage?: number | null;
  /** Write an authority key identifier (default true); off, only names and the signature link issuer and child. */
  authorityKeyId?: boolean;
  /** Reuse a key pair (e.g. a forged CA with another's name but its own key is the default). */
  keys?: webcrypto.CryptoKeyPair;
}

let serial = 1;

export async function mint(o: MintOptions): Promise<Minted> {
  const keys = o.keys ?? (await webcrypto.subtle.generateKey(KEY, true, ['sign', 'verify']));
  const signer = o.issuer?.keys ?? keys;
  const notBefore = o.notBefore ?? new Date(Date.now() - HOUR);
  const notAfter = o.notAfter ?? new Date(Date.now() + DAY);
  const eku = o.eku === undefined ? (o.ca ? null : [EKU.clientAuth]) : o.eku;
  const extensions: x509.Extension[] = [new x509.BasicConstraintsExtension(o.ca === true, o.ca ? o.pathLength : undefined, true), await x509.SubjectKeyIdentifierExtension.create(keys.publicKey)];
  const keyUsage = o.keyUsage === undefined ? (o.ca ? x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign : x509.KeyUsageFlags.digitalSignature) : o.keyUsage;
  if (keyUsage !== null) extensions.push(new x509.KeyUsagesExtension(keyUsage, true));
  if (eku) extensions.push(new x509.ExtendedKeyUsageExtension(eku));
  if (o.authorityKeyId !== false) extensions.push(await x509.AuthorityKeyIdentifierExtension.create(signer.publicKey));
  const subjectName = new x509.Name(o.subject);
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: (serial++).toString(16).padStart(2, '0'),
    subject: subjectName,
    issuer: o.issuer ? o.issuer.certificate.subjectName : subjectName,
    notBefore,
    notAfter,
    signingAlgorithm: SIGN,
    publicKey: keys.publicKey,
    signingKey: signer.privateKey,
    extensions,
  });
  return { certificate, keys, pem: certificate.toString('pem') };
}

export const rootCA = (cn: string, more: Partial<MintOptions> = {}) => mint({ subject: [{ CN: [cn] }], ca: true, ...more });
export const intermediateCA = (cn: string, issuer: Minted, more: Partial<MintOptions> = {}) => mint({ subject: [{ CN: [cn] }], ca: true, issuer, ...more });
export const clientCert = (cn: string, issuer: Minted, orgs: string[] = [], more: Partial<MintOptions> = {}) => mint({ subject: [{ CN: [cn] }, ...orgs.map((o) => ({ O: [o] }))], issuer, ...more });

/** The certificate with `from` replaced by `to` (same length) inside its DER, signature untouched. */
export function tamper(pem: string, from: string, to: string): string {
  if (from.length !== to.length) throw new Error('tamper keeps the length');
  const der = Buffer.from(x509.PemConverter.decodeFirst(pem));
  const at = der.indexOf(from, 0, 'latin1');
  if (at < 0) throw new Error(`${from} not in the certificate`);
  der.write(to, at, 'latin1');
  return x509.PemConverter.encode(der, 'CERTIFICATE');
}
