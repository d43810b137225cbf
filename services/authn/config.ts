// Turns the authn configuration into the authenticator chain, once, at start-up. Each method
// added later (x509, bootstrap tokens, service-account JWTs, OIDC, webhook, request-header) is a
// config field here plus one authenticator file; the order below is the order they are tried.

import { readFile } from 'node:fs/promises';
import { createAnonymousAuthenticator } from './authenticators/anonymous.js';
import { createBearerTokenAuthenticator } from './authenticators/bearer-token.js';
import { createStaticTokenAuthenticator, parseTokenFile } from './authenticators/token-file.js';
import type { AuthnChain } from './chain.js';
import type { RequestAuthenticator, TokenAuthenticator } from './types.js';

export interface AuthnConfig {
  /** `--token-auth-file`: path of the static token CSV. */
  tokenAuthFile?: string;
  /** `--anonymous-auth`, default true. */
  anonymousAuth?: boolean;
}

export interface BuildChainHooks {
  onError?(authenticator: string, err: unknown): void;
}

export class AuthnConfigError extends Error {
  override name = 'AuthnConfigError';
}

export async function buildAuthnChain(config: AuthnConfig, hooks: BuildChainHooks = {}): Promise<AuthnChain> {
  const tokenAuthenticators: TokenAuthenticator[] = [];
  if (config.tokenAuthFile) {
    let text: string;
    try {
      text = await readFile(config.tokenAuthFile, 'utf8');
    } catch (err) {
      throw new AuthnConfigError(`--token-auth-file: cannot read ${config.tokenAuthFile}: ${(err as Error).message}`);
    }
    tokenAuthenticators.push(createStaticTokenAuthenticator(parseTokenFile(text, config.tokenAuthFile)));
  }

  const authenticators: RequestAuthenticator[] = [];
  authenticators.push(createBearerTokenAuthenticator(tokenAuthenticators, hooks.onError ? { onError: hooks.onError } : {}));

  const chain: AuthnChain = { authenticators };
  if (config.anonymousAuth ?? true) chain.anonymous = createAnonymousAuthenticator();
  return chain;
}
