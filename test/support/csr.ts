// Real PKCS#10 certificate requests for tests, made with @peculiar/x509 and Node's WebCrypto, in
// the form a CertificateSigningRequest carries them: base64 of the PEM text.

// Must load before @peculiar/x509, which resolves its parsers through tsyringe.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as never);

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/** `subject` in RFC 4514 form, e.g. `CN=jane, O=developers`. */
export async function csrPem(subject: string): Promise<string> {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, false, ['sign', 'verify']);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys: keys as never, signingAlgorithm: ALGORITHM });
  return csr.toString('pem');
}

/** spec.request of a CertificateSigningRequest for `subject`. */
export async function csrRequest(subject: string): Promise<string> {
  return Buffer.from(await csrPem(subject)).toString('base64');
}
