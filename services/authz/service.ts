// The authz service: answers `authz.authorize` on the bus with the chain's decision. No
// environment access; main.ts reads `--authorization-mode` and passes an AuthzConfig.

import type { NatsConnection } from '@nats-io/nats-core';
import { silentLogger, type Logger } from '../../shared/log.js';
import type { AuthzAttributes, AuthzReply } from '../../shared/bus/messages.js';
import { badRequest } from '../../shared/api/status.js';
import { jsonEndpoint, startJsonService } from '../../shared/bus/service.js';
import { ServiceName, Subjects } from '../../shared/bus/subjects.js';
import { createPrivilegedGroupsAuthorizer } from './authorizers/privileged-groups.js';
import { buildModeAuthorizers } from './modes.js';
import { runAuthzChain } from './chain.js';
import type { Authorizer, AuthzConfig } from './types.js';

export type { AuthzConfig } from './types.js';

export const AUTHZ_SERVICE_VERSION = '0.1.0';

export interface AuthzServiceDeps {
  nc: NatsConnection;
  config: AuthzConfig;
  log?: Logger;
}

export interface AuthzService {
  stop(): Promise<void>;
}

export async function createAuthzService(deps: AuthzServiceDeps): Promise<AuthzService> {
  const log = deps.log ?? silentLogger();
  const authorizers: Authorizer[] = [createPrivilegedGroupsAuthorizer(), ...(await buildModeAuthorizers({ nc: deps.nc, config: deps.config, log }))];
  const onError = (authorizer: string, err: unknown) => log.error({ err, authorizer }, 'authorizer failed');
  const service = await startJsonService(deps.nc, {
    name: ServiceName.authz,
    version: AUTHZ_SERVICE_VERSION,
    description: 'authorizes requests',
    endpoints: [
      jsonEndpoint<AuthzAttributes, AuthzReply>(Subjects.authzAuthorize, (attrs) => {
        if (!attrs || typeof attrs !== 'object' || !attrs.user || !Array.isArray(attrs.user.groups)) throw badRequest('authorization attributes need a user with groups');
        return runAuthzChain(authorizers, attrs, { onError });
      }),
    ],
    log,
  });
  log.info({ modes: deps.config.modes }, 'authz service started');
  return {
    stop: async () => {
      await service.stop();
      for (const a of authorizers) await a.stop?.();
    },
  };
}
