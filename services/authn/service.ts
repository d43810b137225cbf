// The authn service: answers `authn.authenticate` on the bus with the identity the chain
// establishes. No environment access; main.ts reads flags and passes an AuthnConfig.

import type { NatsConnection } from '@nats-io/nats-core';
import { silentLogger, type Logger } from '../../shared/log.js';
import type { AuthnReply, AuthnRequest } from '../../shared/bus/messages.js';
import { jsonEndpoint, startJsonService } from '../../shared/bus/service.js';
import { ServiceName, Subjects } from '../../shared/bus/subjects.js';
import { buildAuthnChain, type AuthnConfig } from './config.js';
import { runAuthnChain } from './chain.js';

export type { AuthnConfig } from './config.js';

export const AUTHN_SERVICE_VERSION = '0.1.0';

export interface AuthnServiceDeps {
  nc: NatsConnection;
  config: AuthnConfig;
  log?: Logger;
}

export interface AuthnService {
  stop(): Promise<void>;
}

export async function createAuthnService(deps: AuthnServiceDeps): Promise<AuthnService> {
  const log = deps.log ?? silentLogger();
  // Only the authenticator's name and the error reach the log, never the credential.
  const onError = (authenticator: string, err: unknown) => log.error({ err, authenticator }, 'authenticator failed');
  const chain = await buildAuthnChain(deps.config, { onError });
  const service = await startJsonService(deps.nc, {
    name: ServiceName.authn,
    version: AUTHN_SERVICE_VERSION,
    description: 'authenticates requests',
    endpoints: [jsonEndpoint<AuthnRequest, AuthnReply>(Subjects.authnAuthenticate, (req) => runAuthnChain(chain, req ?? {}, { onError }))],
    log,
  });
  log.info({ authenticators: chain.authenticators.map((a) => a.name), anonymous: Boolean(chain.anonymous) }, 'authn service started');
  return {
    stop: async () => {
      await service.stop();
    },
  };
}
