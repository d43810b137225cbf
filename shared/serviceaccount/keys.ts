// The keys of service-account tokens, read once at start-up: every `--service-account-key-file`
// (public keys, private keys or certificates, several PEM blocks per file) verifies tokens, and
// `--service-account-signing-key-file` signs TokenRequest tokens (its public half verifies them
// too). Also the two facts the issuer and the authenticator must agree on: which JWS algorithm a
// key signs with, and the key id (`kid`) a token names its key by.

import { createHash, createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';

export interface ServiceAccountConfig {
  /** `--service-account-key-file` (repeatable): PEM public keys, private keys or certificates that verify tokens. */
  keyFiles: string[];
  /** `--service-account-signing-key-file`: PEM private key that signs TokenRequest tokens. */
  signingKeyFile?: string;
  /** `--service-account-issuer` (repeatable): the first signs, every one is accepted. */
  issuers: string[];
  /** `--service-account-lookup`, default true. */
  lookup?: boolean;
  /** `--api-audiences`; default the first issuer. */
  apiAudiences?: string[];
  /** `--service-account-max-token-expiration` in seconds; absent = no cap. */
  maxExpirationSeconds?: number;
  /**
   * `--tls-private-key-file`, the API server's serving key: with no `--service-account-key-file`
   * it verifies tokens, if it is an RSA or ECDSA key (upstream's default); otherwise it is skipped.
   */
  servingKeyFile?: string;
}

export interface ServiceAccountKeys {
  verify: KeyObject[];
  signing?: KeyObject;
}

export class ServiceAccountKeyError extends Error {
  override name = 'ServiceAccountKeyError';
}

export type SigningAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';

const EC_ALGORITHMS: Record<string, SigningAlgorithm> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };

// jose refuses RS256 with a shorter modulus; saying so at start-up beats a 401 on every token.
const MIN_RSA_BITS = 2048;

/** Why a key cannot sign or verify service-account tokens, or null when it can. */
function unsupportedKey(key: KeyObject): string | null {
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'rsa') {
    return (details.modulusLength ?? 0) < MIN_RSA_BITS ? `RSA keys need at least ${MIN_RSA_BITS} bits (this one has ${details.modulusLength ?? 0})` : null;
  }
  if (key.asymmetricKeyType === 'ec') {
    return details.namedCurve && EC_ALGORITHMS[details.namedCurve] ? null : `the EC curve ${details.namedCurve ?? '(unknown)'} is not supported (P-256, P-384 and P-521 are)`;
  }
  return `${key.asymmetricKeyType ?? 'symmetric'} keys are not supported (RSA and EC are)`;
}

/** The JWS algorithm a key signs with: RS256 for RSA, ES256/384/512 by the EC curve. */
export function signingAlgorithm(key: KeyObject): SigningAlgorithm {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  const alg = key.asymmetricKeyType === 'ec' ? EC_ALGORITHMS[key.asymmetricKeyDetails?.namedCurve ?? ''] : undefined;
  if (!alg) throw new ServiceAccountKeyError(unsupportedKey(key) ?? 'unsupported key');
  return alg;
}

/**
 * The key id: base64url SHA-256 of the public key's DER SubjectPublicKeyInfo. Derived from the key
 * alone, so every replica and every verifier computes the same id without configuration.
 */
export function keyId(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256')
    .update(pub.export({ type: 'spki', format: 'der' }))
    .digest('base64url');
}

interface PemBlock {
  type: string;
  text: string;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n[\s\S]*?-----END \1-----/g;

function pemBlocks(text: string): PemBlock[] {
  return [...text.matchAll(PEM_BLOCK)].map((m) => ({ type: m[1]!, text: m[0] }));
}

const PUBLIC_TYPES = new Set(['PUBLIC KEY', 'RSA PUBLIC KEY']);
const PRIVATE_TYPES = new Set(['PRIVATE KEY', 'RSA PRIVATE KEY', 'EC PRIVATE KEY']);

/** The public key of one PEM block; null for blocks that carry no key (`EC PARAMETERS`). */
function publicKeyOf(block: PemBlock): KeyObject | null {
  if (PUBLIC_TYPES.has(block.type)) return createPublicKey(block.text);
  if (PRIVATE_TYPES.has(block.type)) return createPublicKey(createPrivateKey(block.text));
  if (block.type === 'CERTIFICATE') return new X509Certificate(block.text).publicKey;
  if (block.type === 'ENCRYPTED PRIVATE KEY') throw new Error('encrypted private keys are not supported');
  return null;
}

async function readPem(flag: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new ServiceAccountKeyError(`--${flag}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

// Node's parse errors describe the structure ("unsupported", "bad decrypt"), never the bytes; still,
// only their message is kept, and it is the file and block that tell an operator where to look.
function blockError(flag: string, file: string, index: number, type: string, err: unknown): ServiceAccountKeyError {
  const why = err instanceof ServiceAccountKeyError ? err.message : ((err as Error).message ?? 'unreadable').split('\n')[0];
  return new ServiceAccountKeyError(`--${flag}: ${file}: PEM block ${index + 1} (${type}): ${why}`);
}

/** Every verification key of one `--service-account-key-file`. */
export function parseVerificationKeys(text: string, file: string): KeyObject[] {
  const flag = 'service-account-key-file';
  const keys: KeyObject[] = [];
  pemBlocks(text).forEach((block, i) => {
    let key: KeyObject | null;
    try {
      key = publicKeyOf(block);
    } catch (err) {
      throw blockError(flag, file, i, block.type, err);
    }
    if (!key) return;
    const why = unsupportedKey(key);
    if (why) throw blockError(flag, file, i, block.type, new ServiceAccountKeyError(why));
    keys.push(key);
  });
  if (keys.length === 0) throw new ServiceAccountKeyError(`--${flag}: ${file} holds no PEM public key, private key or certificate`);
  return keys;
}

/** The private key of `--service-account-signing-key-file` (PKCS#8, PKCS#1 or SEC1; RSA or EC). */
export function parseSigningKey(text: string, file: string): KeyObject {
  const flag = 'service-account-signing-key-file';
  const blocks = pemBlocks(text).filter((b) => PRIVATE_TYPES.has(b.type) || b.type === 'ENCRYPTED PRIVATE KEY');
  if (blocks.length !== 1) {
    throw new ServiceAccountKeyError(`--${flag}: ${file} must hold exactly one PEM private key (found ${blocks.length})`);
  }
  const block = blocks[0]!;
  let key: KeyObject;
  try {
    if (block.type === 'ENCRYPTED PRIVATE KEY') throw new Error('encrypted private keys are not supported');
    key = createPrivateKey(block.text);
  } catch (err) {
    throw blockError(flag, file, 0, block.type, err);
  }
  const why = unsupportedKey(key);
  if (why) throw new ServiceAccountKeyError(`--${flag}: ${file}: ${why}`);
  return key;
}

/** The serving key's public half when it can verify tokens (an RSA or ECDSA private key we support), else null. */
export function servingVerificationKey(text: string): KeyObject | null {
  const block = pemBlocks(text).find((b) => PRIVATE_TYPES.has(b.type));
  if (!block) return null;
  try {
    const key = createPublicKey(createPrivateKey(block.text));
    return unsupportedKey(key) ? null : key;
  } catch {
    return null;
  }
}

/**
 * Reads every configured key file; fails on the first unreadable or unusable one. A serving key
 * standing in for `--service-account-key-file` that cannot verify tokens is skipped (upstream warns
 * and goes without), so `verify` may then be empty.
 */
export async function loadServiceAccountKeys(cfg: ServiceAccountConfig): Promise<ServiceAccountKeys> {
  const verify: KeyObject[] = [];
  for (const file of cfg.keyFiles) verify.push(...parseVerificationKeys(await readPem('service-account-key-file', file), file));
  const servingKeyOnly = cfg.keyFiles.length === 0 && cfg.servingKeyFile !== undefined;
  if (servingKeyOnly) {
    const key = servingVerificationKey(await readPem('tls-private-key-file', cfg.servingKeyFile!));
    if (key) verify.push(key);
  }
  const keys: ServiceAccountKeys = { verify };
  if (cfg.signingKeyFile) {
    const signing = parseSigningKey(await readPem('service-account-signing-key-file', cfg.signingKeyFile), cfg.signingKeyFile);
    keys.signing = signing;
    const pub = createPublicKey(signing);
    // The same key listed in both flags is verified against once.
    const id = keyId(pub);
    if (!verify.some((k) => keyId(k) === id)) verify.push(pub);
  }
  if (verify.length === 0 && !servingKeyOnly) throw new ServiceAccountKeyError('service-account tokens need --service-account-key-file or --service-account-signing-key-file');
  return keys;
}
