// Turns the authn configuration into the authenticator chain, once, at start-up. Each method is
// a config field here plus one authenticator file; the order below is the order they are tried
// (upstream's order: request-header proxy, client certificate, then bearer tokens).

import { readFile } from 'node:fs/promises';
import type { NatsConnection } from '@nats-io/nats-core';
import type { AuthnInterest } from '../../shared/bus/messages.js';
import { silentLogger, type Logger } from '../../shared/log.js';
import { createAnonymousAuthenticator } from './authenticators/anonymous.js';
import { createBearerTokenAuthenticator } from './authenticators/bearer-token.js';
import { createBootstrapTokenAuthenticator } from './authenticators/bootstrap-token.js';
import { createOidcAuthenticator, type OidcConfig } from './authenticators/oidc.js';
import { createRequestHeaderAuthenticator, requestHeaderInterest, type RequestHeaderConfig } from './authenticators/request-header.js';
import { createServiceAccountAuthenticator } from './authenticators/service-account.js';
import { createStaticTokenAuthenticator, parseTokenFile } from './authenticators/token-file.js';
import { createWebhookTokenAuthenticator, type WebhookTokenConfig } from './authenticators/webhook-token.js';
import { createX509Authenticator } from './authenticators/x509.js';
import { loadServiceAccountKeys, type ServiceAccountConfig } from '../../shared/serviceaccount/keys.js';
import { createTokenIssuer, type TokenIssuer } from '../../shared/serviceaccount/tokens.js';
import { startAuthnObjects, type AuthnObjects } from './objects.js';
import type { AuthnChain } from './chain.js';
import type { RequestAuthenticator, TokenAuthenticator } from './types.js';
import { DEFAULT_BUCKET } from '../../shared/api/groups.js';

export type { OidcConfig, RequestHeaderConfig, ServiceAccountConfig, WebhookTokenConfig };

export interface AuthnConfig {
  /** `--token-auth-file`: path of the static token CSV. */
  tokenAuthFile?: string;
  /** `--anonymous-auth`, default true. */
  anonymousAuth?: boolean;
  /** `--client-ca-file`: PEM bundle of the CAs client certificates are verified against. */
  clientCAFile?: string;
  /** `--requestheader-*`: the authenticating proxy. */
  requestHeader?: RequestHeaderConfig;
  /** `--enable-bootstrap-token-auth`. */
  enableBootstrapTokenAuth?: boolean;
  /** `--service-account-*` and `--api-audiences`. */
  serviceAccount?: ServiceAccountConfig;
  /** `--oidc-*`. */
  oidc?: OidcConfig;
  /** `--authentication-token-webhook-*`. */
  webhook?: WebhookTokenConfig;
  /** Object bucket the bootstrap-token and service-account lookups watch. */
  bucket?: string;
}

export interface BuildChainContext {
  /** Needed by the methods that read cluster objects (bootstrap tokens, service-account lookup). */
  nc?: NatsConnection;
  log?: Logger;
  onError?(authenticator: string, err: unknown): void;
}

export interface BuiltAuthn {
  chain: AuthnChain;
  interest: AuthnInterest;
  /** Present when a signing key is configured (TokenRequest). */
  issuer?: TokenIssuer;
  /** The object views the chain reads; stopped with the service. */
  objects?: AuthnObjects;
  stop(): Promise<void>;
}

export class AuthnConfigError extends Error {
  override name = 'AuthnConfigError';
}

async function readConfigFile(flag: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new AuthnConfigError(`--${flag}: cannot read ${file}: ${(err as Error).message}`);
  }
}

/** Reads every file the configuration names and builds the chain; fails on any bad file. */
export async function buildAuthn(config: AuthnConfig, ctx: BuildChainContext = {}): Promise<BuiltAuthn> {
  const log = ctx.log ?? silentLogger();
  const stops: Array<() => Promise<void>> = [];
  const authenticators: RequestAuthenticator[] = [];
  let interest: AuthnInterest = { headers: [], headerPrefixes: [] };

  if (config.requestHeader) {
    const caPem = await readConfigFile('requestheader-client-ca-file', config.requestHeader.clientCAFile);
    authenticators.push(createRequestHeaderAuthenticator(config.requestHeader, caPem));
    interest = requestHeaderInterest(config.requestHeader);
  }
  if (config.clientCAFile) authenticators.push(createX509Authenticator(await readConfigFile('client-ca-file', config.clientCAFile)));

  const needsObjects = Boolean(config.enableBootstrapTokenAuth || (config.serviceAccount && (config.serviceAccount.lookup ?? true)));
  let objects: AuthnObjects | undefined;
  if (needsObjects) {
    if (!ctx.nc) throw new AuthnConfigError('bootstrap tokens and service-account lookup need the bus');
    objects = startAuthnObjects({ nc: ctx.nc, bucket: config.bucket ?? DEFAULT_BUCKET, log });
    const o = objects;
    stops.push(() => o.stop());
  }

  const tokenAuthenticators: TokenAuthenticator[] = [];
  if (config.tokenAuthFile) {
    const text = await readConfigFile('token-auth-file', config.tokenAuthFile);
    tokenAuthenticators.push(createStaticTokenAuthenticator(parseTokenFile(text, config.tokenAuthFile)));
  }
  if (config.enableBootstrapTokenAuth) tokenAuthenticators.push(createBootstrapTokenAuthenticator(objects!));
  let issuer: TokenIssuer | undefined;
  if (config.serviceAccount) {
    const keys = await loadServiceAccountKeys(config.serviceAccount);
    // Only a serving key that is no RSA or ECDSA key was there to verify with: upstream's warning, no authenticator.
    if (keys.verify.length === 0) log.warn('No TLS key provided, service account token authentication disabled');
    else tokenAuthenticators.push(createServiceAccountAuthenticator(config.serviceAccount, keys, objects));
    if (keys.signing) issuer = createTokenIssuer(config.serviceAccount, keys.signing);
  }
  if (config.oidc) {
    const oidc = await createOidcAuthenticator(config.oidc, log);
    tokenAuthenticators.push(oidc);
    if (oidc.stop) stops.push(() => oidc.stop!());
  }
  if (config.webhook) {
    const webhook = await createWebhookTokenAuthenticator(config.webhook, log);
    tokenAuthenticators.push(webhook);
    if (webhook.stop) stops.push(() => webhook.stop!());
  }
  authenticators.push(createBearerTokenAuthenticator(tokenAuthenticators, ctx.onError ? { onError: ctx.onError } : {}));

  const chain: AuthnChain = { authenticators };
  const implicitAudiences = config.serviceAccount?.apiAudiences ?? config.serviceAccount?.issuers.slice(0, 1) ?? [];
  if (implicitAudiences.length) chain.implicitAudiences = implicitAudiences;
  if (config.anonymousAuth ?? true) chain.anonymous = createAnonymousAuthenticator();
  const built: BuiltAuthn = {
    chain,
    interest,
    stop: async () => {
      for (const s of stops) await s();
    },
  };
  if (issuer) built.issuer = issuer;
  if (objects) built.objects = objects;
  return built;
}
