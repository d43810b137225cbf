// OpenID Connect ID tokens (`--oidc-*`): one trusted issuer, whose signing keys are found through
// discovery and kept locally, so a token is verified without calling the provider. Start-up does
// not wait for the provider: keys load in the background (retried until they do), and until then
// a token naming our issuer fails with "verifier not initialized" rather than being misread.
// A token that names another issuer is not ours and is skipped; any other problem with a token
// that names our issuer is a failure.

import { readFile } from 'node:fs/promises';
import { createLocalJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTPayload, type CryptoKey, type JWTVerifyOptions, type KeyObject } from 'jose';
import type { Dispatcher } from 'undici';
import type { UserInfo } from '../../../shared/api/types.js';
import type { Logger } from '../../../shared/log.js';
import { describeUrl, requestJson } from '../../../shared/webhook/http-json.js';
import { closeDispatcher, createTlsDispatcher } from '../../../shared/webhook/tls-dispatcher.js';
import { looksLikeJwt } from './jwt-shape.js';
import { skip, type AuthnResult, type TokenAuthenticator } from '../types.js';

export interface OidcConfig {
  issuerUrl: string;
  clientId: string;
  usernameClaim?: string;
  usernamePrefix?: string;
  groupsClaim?: string;
  groupsPrefix?: string;
  requiredClaims?: Record<string, string>;
  caFile?: string;
  signingAlgs?: string[];
}

/** How often the provider is asked; the defaults suit production, tests shorten them. */
export interface OidcTiming {
  /** Delay between attempts while discovery or the first key fetch fails. */
  retryMs?: number;
  /** Keys are refetched this often even when no token asks for an unknown one. */
  refreshMs?: number;
  /** A token naming an unknown key triggers a refetch at most this often. */
  minRefetchMs?: number;
  /** Deadline of one HTTP request to the provider. */
  requestTimeoutMs?: number;
  /** How long start-up waits for the first attempt before leaving it to the background. */
  initialWaitMs?: number;
}

const DEFAULT_TIMING: Required<OidcTiming> = {
  retryMs: 10_000,
  refreshMs: 15 * 60_000,
  minRefetchMs: 10_000,
  requestTimeoutMs: 10_000,
  initialWaitMs: 3_000,
};

export const OIDC_NOT_INITIALIZED = 'oidc: verifier not initialized';
// Never part of any user name we hand out: authorization treats these as the system's own.
const RESERVED_PREFIX = 'system:';

type KeyResolver = ReturnType<typeof createLocalJWKSet>;

class OidcSetupError extends Error {
  override name = 'OidcSetupError';
}

/** How a verified token's claims become a user, per the `--oidc-*` flags. Pure. */
export function oidcUserFromClaims(cfg: OidcConfig, claims: JWTPayload): { user: UserInfo } | { error: string } {
  for (const [name, want] of Object.entries(cfg.requiredClaims ?? {})) {
    if (claims[name] !== want) return { error: `oidc: required claim ${JSON.stringify(name)} is missing or does not match` };
  }
  const usernameClaim = cfg.usernameClaim || 'sub';
  const name = claims[usernameClaim];
  if (typeof name !== 'string' || name === '') return { error: `oidc: claim ${JSON.stringify(usernameClaim)} is missing or not a string` };
  if (usernameClaim === 'email' && 'email_verified' in claims) {
    // Present but not true: the provider says it did not check the address, so it proves nothing.
    if (claims.email_verified !== true) return { error: 'oidc: email not verified' };
  }
  let prefix: string;
  if (cfg.usernamePrefix === undefined || cfg.usernamePrefix === '') prefix = usernameClaim === 'email' ? '' : `${cfg.issuerUrl}#`;
  else if (cfg.usernamePrefix === '-') prefix = '';
  else prefix = cfg.usernamePrefix;
  const username = prefix + name;
  if (username.startsWith(RESERVED_PREFIX)) return { error: `oidc: user name must not start with ${RESERVED_PREFIX}` };

  const groups: string[] = [];
  if (cfg.groupsClaim && claims[cfg.groupsClaim] !== undefined) {
    const raw = claims[cfg.groupsClaim];
    const list = typeof raw === 'string' ? [raw] : raw;
    if (!Array.isArray(list) || !list.every((g) => typeof g === 'string')) return { error: `oidc: claim ${JSON.stringify(cfg.groupsClaim)} must be a string or an array of strings` };
    for (const g of list as string[]) {
      const group = (cfg.groupsPrefix ?? '') + g;
      if (group.startsWith(RESERVED_PREFIX)) return { error: `oidc: group names must not start with ${RESERVED_PREFIX}` };
      groups.push(group);
    }
  }
  return { user: { username, groups } };
}

/** The message of a verification failure; jose's messages name the check, never token content. */
function verifyError(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'oidc: token expired';
  if (err instanceof joseErrors.JWKSNoMatchingKey) return 'oidc: token signed by an unknown key';
  if (err instanceof joseErrors.JOSEError) return `oidc: ${err.message}`;
  return 'oidc: token verification failed';
}

function unverifiedIssuer(token: string): string | undefined {
  if (!looksLikeJwt(token)) return undefined;
  try {
    const iss = decodeJwt(token).iss;
    return typeof iss === 'string' ? iss : undefined;
  } catch {
    return undefined;
  }
}

/** The checks of the flags that need no provider: an https issuer, a client ID, a readable CA file. */
async function readSetup(cfg: OidcConfig): Promise<{ ca: string | undefined }> {
  let issuer: URL;
  try {
    issuer = new URL(cfg.issuerUrl);
  } catch {
    throw new OidcSetupError('--oidc-issuer-url is not a URL');
  }
  if (issuer.protocol !== 'https:') throw new OidcSetupError('--oidc-issuer-url must be an https URL');
  if (!cfg.clientId) throw new OidcSetupError('--oidc-client-id is required');
  let ca: string | undefined;
  if (cfg.caFile) {
    try {
      ca = await readFile(cfg.caFile, 'utf8');
    } catch (err) {
      throw new OidcSetupError(`--oidc-ca-file: cannot read ${cfg.caFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  return { ca };
}

/**
 * The provider's signing keys, found through discovery and fetched in the background: retried
 * until they load, then refreshed every `refreshMs`, and on demand (rate-limited) when a token
 * names a key we do not have.
 */
class ProviderKeys {
  keys: KeyResolver | undefined;
  /** The fetch in progress; callers arriving meanwhile share it. */
  inflight: Promise<void> | undefined;
  private jwksUrl: URL | undefined;
  private lastFetch = 0;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly discoveryUrl: URL;

  constructor(
    private readonly cfg: OidcConfig,
    private readonly dispatcher: Dispatcher,
    private readonly t: Required<OidcTiming>,
    private readonly log: Logger,
  ) {
    this.discoveryUrl = new URL(`${cfg.issuerUrl.replace(/\/+$/, '')}/.well-known/openid-configuration`);
  }

  /** Whether an unknown key may trigger a fetch now (at most one per `minRefetchMs`). */
  mayRefetch(): boolean {
    return Date.now() - this.lastFetch >= this.t.minRefetchMs;
  }

  /** One fetch at a time; callers arriving meanwhile share it. Never rejects. */
  refresh(): Promise<void> {
    if (!this.inflight) {
      this.lastFetch = Date.now();
      this.inflight = this.fetchKeys()
        .catch((err: unknown) => this.log.warn({ err: (err as Error).message }, this.keys ? 'oidc key refresh failed; keeping the current keys' : 'oidc provider not reachable yet; retrying'))
        .finally(() => {
          this.inflight = undefined;
        });
    }
    return this.inflight;
  }

  /** The next background fetch: soon while there are no keys, else at the refresh interval. */
  schedule = (): void => {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.refresh().then(this.schedule), this.keys ? this.t.refreshMs : this.t.retryMs);
    this.timer.unref();
  };

  stopSchedule(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async getJson(url: URL, what: string): Promise<Record<string, unknown>> {
    const res = await requestJson(url, { method: 'GET', dispatcher: this.dispatcher, timeoutMs: this.t.requestTimeoutMs });
    if (res.status !== 200) throw new OidcSetupError(`${what} ${describeUrl(url)}: HTTP ${res.status}`);
    if (typeof res.body !== 'object' || res.body === null || Array.isArray(res.body)) throw new OidcSetupError(`${what} ${describeUrl(url)}: not a JSON object`);
    return res.body as Record<string, unknown>;
  }

  private async discover(): Promise<URL> {
    const doc = await this.getJson(this.discoveryUrl, 'discovery');
    // The provider must call itself exactly what tokens will call it, or `iss` checks mean nothing.
    if (doc.issuer !== this.cfg.issuerUrl) throw new OidcSetupError(`discovery: the provider's issuer ${JSON.stringify(doc.issuer)} is not ${JSON.stringify(this.cfg.issuerUrl)}`);
    if (typeof doc.jwks_uri !== 'string') throw new OidcSetupError('discovery: jwks_uri is missing');
    let url: URL;
    try {
      url = new URL(doc.jwks_uri);
    } catch {
      throw new OidcSetupError('discovery: jwks_uri is not a URL');
    }
    // Keys fetched in the clear could be swapped by anyone on the path.
    if (url.protocol !== 'https:') throw new OidcSetupError('discovery: jwks_uri must be an https URL');
    return url;
  }

  private async fetchKeys(): Promise<void> {
    if (!this.jwksUrl) this.jwksUrl = await this.discover();
    const set = await this.getJson(this.jwksUrl, 'keys');
    this.keys = createLocalJWKSet(set as unknown as JSONWebKeySet);
    this.log.info({ keys: Array.isArray(set.keys) ? set.keys.length : 0 }, 'oidc signing keys loaded');
  }
}

async function verifyWith(resolver: KeyResolver, token: string, verifyOptions: JWTVerifyOptions): Promise<JWTPayload> {
  try {
    return (await jwtVerify(token, resolver, verifyOptions)).payload;
  } catch (err) {
    // A token without `kid` can match several keys; jose hands them over to be tried in turn.
    if (!(err instanceof joseErrors.JWKSMultipleMatchingKeys)) throw err;
    for await (const key of err as unknown as AsyncIterable<KeyObject | CryptoKey>) {
      try {
        return (await jwtVerify(token, key, verifyOptions)).payload;
      } catch (inner) {
        if (!(inner instanceof joseErrors.JWSSignatureVerificationFailed)) throw inner;
      }
    }
    throw new joseErrors.JWSSignatureVerificationFailed();
  }
}

export async function createOidcAuthenticator(cfg: OidcConfig, log: Logger, timing: OidcTiming = {}): Promise<TokenAuthenticator> {
  const t = { ...DEFAULT_TIMING, ...timing };
  const { ca } = await readSetup(cfg);
  const dispatcher = createTlsDispatcher(ca ? { ca } : {});
  const verifyOptions: JWTVerifyOptions = { issuer: cfg.issuerUrl, audience: cfg.clientId, algorithms: cfg.signingAlgs?.length ? cfg.signingAlgs : ['RS256'] };
  const provider = new ProviderKeys(cfg, dispatcher, t, log.child({ authenticator: 'oidc', issuer: cfg.issuerUrl }));

  // Usually the provider answers at once; a provider that hangs must not hold up the service.
  let initialWait: NodeJS.Timeout | undefined;
  await Promise.race([provider.refresh().then(provider.schedule), new Promise((r) => (initialWait = setTimeout(r, t.initialWaitMs)))]);
  clearTimeout(initialWait);

  return {
    name: 'oidc',
    async authenticateToken(token: string, audiences: string[]): Promise<AuthnResult> {
      if (unverifiedIssuer(token) !== cfg.issuerUrl) return skip;
      if (!provider.keys) return { kind: 'fail', error: OIDC_NOT_INITIALIZED };
      // ID tokens are issued to the client ID, which vouches for this API server only: a review
      // asking about another audience cannot be answered with one.
      if (audiences.length > 0) return { kind: 'fail', error: 'oidc: token is not valid for the requested audiences' };
      let claims: JWTPayload;
      try {
        claims = await verifyWith(provider.keys, token, verifyOptions);
      } catch (err) {
        if (!(err instanceof joseErrors.JWKSNoMatchingKey)) return { kind: 'fail', error: verifyError(err) };
        // The provider may have rotated its keys since we fetched them. The rate limit keeps a
        // stream of tokens with made-up key ids from turning into a stream of fetches.
        if (provider.inflight) await provider.inflight;
        else if (provider.mayRefetch()) await provider.refresh();
        else return { kind: 'fail', error: verifyError(err) };
        try {
          claims = await verifyWith(provider.keys!, token, verifyOptions);
        } catch (again) {
          return { kind: 'fail', error: verifyError(again) };
        }
      }
      const mapped = oidcUserFromClaims(cfg, claims);
      if ('error' in mapped) return { kind: 'fail', error: mapped.error };
      return { kind: 'ok', user: mapped.user };
    },
    async stop() {
      provider.stopSchedule();
      // Destroying the sockets ends a fetch in progress at once instead of at its deadline.
      await closeDispatcher(dispatcher);
      await provider.inflight;
    },
  };
}
