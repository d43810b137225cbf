// The built-in signers' rules (spec, Authorization 7) and the signing itself. Which requests a
// signer accepts is pure (`signerProblem`); `signRequest` issues the certificate with
// @peculiar/x509 from the request's own public key and names, under the configured CA.

import 'reflect-metadata'; // @peculiar/x509 resolves its algorithms through tsyringe, which needs it
import { createPrivateKey, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as never);
type CryptoKey = webcrypto.CryptoKey;
type EcKeyImportParams = webcrypto.EcKeyImportParams;
type EcdsaParams = webcrypto.EcdsaParams;
type RsaHashedImportParams = webcrypto.RsaHashedImportParams;
const SAN_OID = '2.5.29.17';

function sanOf(csr: x509.Pkcs10CertificateRequest): x509.SubjectAlternativeNameExtension | undefined {
  const ext = csr.getExtension(SAN_OID);
  return ext ? new x509.SubjectAlternativeNameExtension(ext.rawData) : undefined;
}

export const SIGNER_CLIENT = 'platform.io/apiserver-client';
export const SIGNER_AGENT_CLIENT = 'platform.io/apiserver-client-agent';
export const SIGNER_AGENT_SERVING = 'platform.io/agent-serving';
export const SIGNER_LEGACY_UNKNOWN = 'platform.io/legacy-unknown';
export const BUILT_IN_SIGNERS = [SIGNER_CLIENT, SIGNER_AGENT_CLIENT, SIGNER_AGENT_SERVING] as const;

const NODES_GROUP = 'system:nodes';
const NODE_PREFIX = 'system:node:';
/** Issued certificates are back-dated by this much, for clients whose clock lags (upstream's 5 minutes). */
const BACKDATE_MS = 5 * 60_000;

/** What a request asks for, as the rules read it. */
export interface RequestNames {
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  ipAddresses: string[];
  emails: string[];
  uris: string[];
}

function usageProblem(usages: readonly string[], allowed: readonly string[], required: string, what: string): string | undefined {
  for (const u of usages) if (!allowed.includes(u)) return `invalid usage for ${what} certificate: ${u}`;
  return usages.includes(required) ? undefined : `missing required usage for ${what} certificate: ${required}`;
}

const CLIENT_USAGES = ['digital signature', 'key encipherment', 'client auth'];
const SERVING_USAGES = ['digital signature', 'key encipherment', 'server auth'];

function nodeIdentityProblem(r: RequestNames): string | undefined {
  if (r.organizations.length !== 1 || r.organizations[0] !== NODES_GROUP) return `subject organization is not ${NODES_GROUP}`;
  if (!r.commonName.startsWith(NODE_PREFIX)) return `subject common name does not begin with ${NODE_PREFIX}`;
  return undefined;
}

/** Why `signer` refuses the request; undefined when it signs it. Unknown signers are not ours to judge (undefined too). */
export function signerProblem(signer: string, r: RequestNames, usages: readonly string[]): string | undefined {
  switch (signer) {
    case SIGNER_CLIENT:
      return usageProblem(usages, CLIENT_USAGES, 'client auth', 'client');
    case SIGNER_AGENT_CLIENT:
      return (
        nodeIdentityProblem(r) ??
        (r.dnsNames.length ? 'DNS subjectAltNames are not allowed' : undefined) ??
        (r.emails.length ? 'Email subjectAltNames are not allowed' : undefined) ??
        (r.ipAddresses.length ? 'IP subjectAltNames are not allowed' : undefined) ??
        (r.uris.length ? 'URI subjectAltNames are not allowed' : undefined) ??
        usageProblem(usages, CLIENT_USAGES, 'client auth', 'client')
      );
    case SIGNER_AGENT_SERVING:
      return (
        nodeIdentityProblem(r) ??
        (r.dnsNames.length + r.ipAddresses.length === 0 ? 'DNS or IP subjectAltName is required' : undefined) ??
        (r.emails.length ? 'Email subjectAltNames are not allowed' : undefined) ??
        (r.uris.length ? 'URI subjectAltNames are not allowed' : undefined) ??
        usageProblem(usages, SERVING_USAGES, 'server auth', 'serving')
      );
    case SIGNER_LEGACY_UNKNOWN:
      return 'the legacy-unknown signer never signs';
    default:
      return undefined;
  }
}

/** The names of a PEM certificate request; throws when it is not one or its signature does not verify. */
export async function readRequest(pem: string): Promise<{ csr: x509.Pkcs10CertificateRequest; names: RequestNames }> {
  const csr = new x509.Pkcs10CertificateRequest(pem);
  if (!(await csr.verify())) throw new Error('the request signature does not verify');
  const subject = csr.subjectName.toJSON();
  const values = (key: string) => subject.flatMap((rdn) => (rdn[key] as string[] | undefined) ?? []);
  const names = sanOf(csr)?.names.toJSON() ?? [];
  const of = (type: string) => names.filter((n) => n.type === type).map((n) => n.value);
  return { csr, names: { commonName: values('CN')[0] ?? '', organizations: values('O'), dnsNames: of('dns'), ipAddresses: of('ip'), emails: of('email'), uris: of('url') } };
}

export interface SigningCA {
  certificate: x509.X509Certificate;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  signingAlgorithm: EcdsaParams | RsaHashedImportParams;
  certPem: string;
}

/** The CA of `--cluster-signing-cert-file` / `--cluster-signing-key-file` (ECDSA P-256/P-384 or RSA keys). */
export async function loadSigningCA(certPem: string, keyPem: string): Promise<SigningCA> {
  const certificate = new x509.X509Certificate(certPem);
  const key = createPrivateKey(keyPem);
  const der = key.export({ type: 'pkcs8', format: 'der' });
  let importAlg: EcKeyImportParams | RsaHashedImportParams;
  let signingAlgorithm: EcdsaParams | RsaHashedImportParams;
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve === 'secp384r1' ? 'P-384' : 'P-256';
    importAlg = { name: 'ECDSA', namedCurve: curve };
    signingAlgorithm = { name: 'ECDSA', hash: curve === 'P-384' ? 'SHA-384' : 'SHA-256' };
  } else if (key.asymmetricKeyType === 'rsa') {
    importAlg = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    signingAlgorithm = importAlg;
  } else {
    throw new Error(`signing key type ${String(key.asymmetricKeyType)} is not supported (ECDSA or RSA)`);
  }
  const privateKey = await webcrypto.subtle.importKey('pkcs8', der, importAlg, false, ['sign']);
  const publicKey = (await certificate.publicKey.export(importAlg, ['verify'], webcrypto as never)) as CryptoKey;
  return { certificate, privateKey, publicKey, signingAlgorithm, certPem };
}

const KEY_USAGE_FLAGS: Record<string, number> = {
  'digital signature': x509.KeyUsageFlags.digitalSignature,
  'content commitment': x509.KeyUsageFlags.nonRepudiation,
  'key encipherment': x509.KeyUsageFlags.keyEncipherment,
  'data encipherment': x509.KeyUsageFlags.dataEncipherment,
  'key agreement': x509.KeyUsageFlags.keyAgreement,
  'cert sign': x509.KeyUsageFlags.keyCertSign,
  'crl sign': x509.KeyUsageFlags.cRLSign,
  'encipher only': x509.KeyUsageFlags.encipherOnly,
  'decipher only': x509.KeyUsageFlags.decipherOnly,
};

const EXT_KEY_USAGES: Record<string, string> = {
  'server auth': x509.ExtendedKeyUsage.serverAuth,
  'client auth': x509.ExtendedKeyUsage.clientAuth,
  'code signing': x509.ExtendedKeyUsage.codeSigning,
  'email protection': x509.ExtendedKeyUsage.emailProtection,
  timestamping: x509.ExtendedKeyUsage.timeStamping,
  'ocsp signing': x509.ExtendedKeyUsage.ocspSigning,
};

function randomSerial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return Buffer.from(bytes).toString('hex');
}

/** The certificate's validity: back-dated, ending at the earliest of the signer's duration, the request's expirationSeconds and the CA's own end. */
export function certificateValidity(now: number, durationMs: number, expirationSeconds: number | undefined, caNotAfter: Date): { notBefore: Date; notAfter: Date } {
  const lifetime = expirationSeconds !== undefined ? Math.min(durationMs, expirationSeconds * 1000) : durationMs;
  const notAfter = Math.min(now + lifetime, caNotAfter.getTime());
  return { notBefore: new Date(now - BACKDATE_MS), notAfter: new Date(notAfter) };
}

/** Issues the certificate of a verified request; returns PEM. */
export async function signRequest(ca: SigningCA, csr: x509.Pkcs10CertificateRequest, usages: readonly string[], validity: { notBefore: Date; notAfter: Date }): Promise<string> {
  const keyUsage = usages.reduce((acc, u) => acc | (KEY_USAGE_FLAGS[u] ?? 0), 0);
  const ext = usages.map((u) => EXT_KEY_USAGES[u]).filter((u): u is string => u !== undefined);
  const extensions: x509.Extension[] = [new x509.BasicConstraintsExtension(false, undefined, true), await x509.AuthorityKeyIdentifierExtension.create(ca.publicKey)];
  if (keyUsage) extensions.push(new x509.KeyUsagesExtension(keyUsage, true));
  if (ext.length) extensions.push(new x509.ExtendedKeyUsageExtension(ext));
  const san = sanOf(csr);
  if (san) extensions.push(new x509.SubjectAlternativeNameExtension(san.names.toJSON()));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: csr.subjectName,
    issuer: ca.certificate.subjectName,
    notBefore: validity.notBefore,
    notAfter: validity.notAfter,
    signingAlgorithm: ca.signingAlgorithm,
    publicKey: csr.publicKey,
    signingKey: ca.privateKey,
    extensions,
  });
  return cert.toString('pem');
}
