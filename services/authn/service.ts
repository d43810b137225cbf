// The authn service: answers `authn.authenticate` with the identity the chain establishes
// (protobuf, shared/bus/auth-messages.ts), `authn.interest` with the request headers its proxy
// authenticator reads, and `authn.issuetoken` (TokenRequest) when a service-account signing key is
// configured. No environment access; main.ts reads flags and passes an AuthnConfig.

import type { NatsConnection } from '@nats-io/nats-core';
import { silentLogger, type Logger } from '../../shared/log.js';
import { badRequest, failure, StatusReason } from '../../shared/api/status.js';
import type { AuthnInterest, AuthnReply, AuthnRequest, TokenIssueReply, TokenIssueRequest } from '../../shared/bus/messages.js';
import { jsonEndpoint, protoEndpoint, startJsonService } from '../../shared/bus/service.js';
import { AuthnMessages } from '../../shared/bus/auth-messages.js';
import { ServiceName, Subjects } from '../../shared/bus/subjects.js';
import { buildAuthn, type AuthnConfig } from './config.js';
import { runAuthnChain } from './chain.js';
import { AuthnMetrics } from './metrics.js';
import { instrumentBus } from '../../shared/bus/client.js';
import { BusMetrics } from '../../shared/bus/metrics.js';
import { MetricsRegistry } from '../../shared/metrics/registry.js';

export type { AuthnConfig } from './config.js';

export const AUTHN_SERVICE_VERSION = '0.2.0';

export interface AuthnServiceDeps {
  nc: NatsConnection;
  config: AuthnConfig;
  log?: Logger;
  /** Where the authenticators are counted (main.ts serves it at /metrics); default: a registry of its own. */
  metrics?: MetricsRegistry;
}

export interface AuthnService {
  stop(): Promise<void>;
}

export async function createAuthnService(deps: AuthnServiceDeps): Promise<AuthnService> {
  const log = deps.log ?? silentLogger();
  // Only the authenticator's name and the error reach the log, never the credential.
  const onError = (authenticator: string, err: unknown) => log.error({ err, authenticator }, 'authenticator failed');
  const built = await buildAuthn(deps.config, { nc: deps.nc, log, onError });
  const { chain, issuer } = built;
  const registry = deps.metrics ?? new MetricsRegistry();
  const onResult = new AuthnMetrics(registry).observe;
  instrumentBus(deps.nc, new BusMetrics(registry));
  // Bootstrap tokens and service-account lookups read cluster objects: give the first load a
  // moment before answering (a lookup that finds nothing then falls back to a live read).
  if (built.objects) await Promise.race([built.objects.synced, new Promise((r) => setTimeout(r, 3_000).unref())]);
  const service = await startJsonService(deps.nc, {
    name: ServiceName.authn,
    version: AUTHN_SERVICE_VERSION,
    description: 'authenticates requests',
    endpoints: [
      protoEndpoint<AuthnRequest, AuthnReply>(Subjects.authnAuthenticate, AuthnMessages.request, AuthnMessages.reply, (req) => runAuthnChain(chain, req, { onError, onResult })),
      jsonEndpoint<unknown, AuthnInterest>(Subjects.authnInterest, () => built.interest),
      jsonEndpoint<TokenIssueRequest, TokenIssueReply>(Subjects.authnIssueToken, (req) => {
        if (!issuer) throw failure(503, StatusReason.ServiceUnavailable, 'token issuance is not configured: the authn service has no --service-account-signing-key-file');
        if (!req || typeof req !== 'object' || !req.serviceAccount) throw badRequest('a token request needs a service account');
        return issuer.issue(req);
      }),
    ],
    log,
  });
  log.info({ authenticators: chain.authenticators.map((a) => a.name), anonymous: Boolean(chain.anonymous), tokenIssuer: Boolean(issuer) }, 'authn service started');
  return {
    stop: async () => {
      await service.stop();
      await built.stop();
    },
  };
}
