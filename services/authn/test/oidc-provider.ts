// A real OpenID provider for tests: HTTPS on 127.0.0.1 serving discovery and a JWKS that a test
// can swap (key rotation), plus the signing side (jose) to mint ID tokens with any key and claims.

import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';
import type { CertificateAuthority } from '../../../shared/local/pki.js';
import { issueServingCert } from '../../../shared/local/pki.js';
import { sendJson, startHttpsServer, type TestHttpsServer } from '../../../shared/webhook/test/https-server.js';

export interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  /** The public JWK as the provider publishes it. */
  jwk: JWK;
}

type CryptoKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

export async function signingKey(kid: string, alg = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export interface TestProvider {
  /** The issuer URL: https://127.0.0.1:<port> */
  url: string;
  port: number;
  /** What the JWKS endpoint serves; replace to rotate. */
  keys: JWK[];
  /** What discovery claims as `issuer`; defaults to `url`. */
  discoveryIssuer?: string;
  /** How many times the JWKS was fetched. */
  jwksFetches: number;
  close(): Promise<void>;
}

export async function startProvider(ca: CertificateAuthority, keys: SigningKey[], opts: { port?: number } = {}): Promise<TestProvider> {
  const serving = await issueServingCert(ca);
  let provider: TestProvider;
  const server: TestHttpsServer = await startHttpsServer(
    serving,
    (req, res) => {
      if (req.url === '/.well-known/openid-configuration') {
        sendJson(res, 200, { issuer: provider.discoveryIssuer ?? provider.url, jwks_uri: `${provider.url}/keys`, id_token_signing_alg_values_supported: ['RS256'] });
      } else if (req.url === '/keys') {
        provider.jwksFetches++;
        sendJson(res, 200, { keys: provider.keys });
      } else sendJson(res, 404, {});
    },
    opts.port ? { port: opts.port } : {},
  );
  provider = { url: server.url, port: server.port, keys: keys.map((k) => k.jwk), jwksFetches: 0, close: () => server.close() };
  return provider;
}

/** Signs an ID token; `claims` override the defaults (iss, aud, sub, iat, exp in 10 minutes). */
export async function idToken(key: SigningKey, claims: JWTPayload & { iss: string; aud?: string | string[] }, header: { kid?: string | null; alg?: string } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: JWTPayload = { aud: 'platform', sub: 'jane', iat: now, exp: now + 600, ...claims };
  const kid = header.kid === undefined ? key.kid : header.kid;
  return new SignJWT(payload).setProtectedHeader({ alg: header.alg ?? key.alg, ...(kid === null ? {} : { kid }), typ: 'JWT' }).sign(key.privateKey);
}
