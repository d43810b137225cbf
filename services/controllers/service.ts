// The controllers service (upstream's controller manager): an ordinary API client of the gateway
// that runs the selected controllers while it holds the leader lease, so that of several replicas
// only one acts. No environment access here: main.ts maps flags onto ControllersConfig.

import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../shared/log.js';
import { ApiClient } from '../../shared/client/rest.js';
import { runLeaderElection, type LeaderElectionConfig } from './leader-election.js';
import { namespaceController } from './namespace/controller.js';
import { garbageCollector } from './garbagecollector/controller.js';
import { csrApprovingController, csrCleaner, csrSigningController, type CleanerDurations } from './certificates/controllers.js';
import type { SigningCA } from './certificates/signers.js';
import { bootstrapSigner, tokenCleaner } from './bootstrap/controllers.js';
import { serviceAccountTokenController } from './serviceaccount/tokens.js';
import { podGarbageCollector, type PodGcOptions } from './podgc/controller.js';
import type { KeyObject } from 'node:crypto';
import { rootCACertPublisher, serviceAccountController } from './serviceaccount/controllers.js';
import type { Controller } from './types.js';
import { KNOWN_CONTROLLERS } from './options.js';

export interface ControllersConfig {
  /** Names as `selectControllers` returns them. */
  controllers: string[];
  /** `--service-account-private-key-file` (serviceaccount-token). */
  serviceAccountKey?: KeyObject;
  /** The cluster signing CA (csrsigning). */
  signingCA?: SigningCA;
  /** `--cluster-signing-duration`. */
  signingDurationMs?: number;
  /** podgc's round and quarantine; upstream's by default. */
  podGc?: PodGcOptions;
  /** How long finished requests stay (csrcleaner); upstream's by default. */
  csrCleaner?: CleanerDurations;
  /** PEM published as platform-root-ca.crt; required by root-ca-cert-publisher. */
  rootCA?: string;
  /** Absent: no election, the controllers run at once (one replica only). */
  leaderElection?: Omit<LeaderElectionConfig, 'identity'> & { identity?: string };
}

export interface ControllersServiceDeps {
  client: ApiClient;
  log: Logger;
  config: ControllersConfig;
}

export interface ControllersService {
  /** True while this replica runs the controllers. */
  isLeader(): boolean;
  /** Resolves once this replica leads and its controllers' caches are synced (tests). */
  readonly leading: Promise<void>;
  controllers(): readonly Controller[];
  stop(): Promise<void>;
}

/** What a controller needs that the configuration lacks; undefined when it can be built. */
function missing(name: string, c: ControllersConfig): string | undefined {
  if (name === 'csrsigning' && !c.signingCA) return 'csrsigning needs --cluster-signing-cert-file and --cluster-signing-key-file';
  if (name === 'serviceaccount-token' && !c.serviceAccountKey) return 'serviceaccount-token needs --service-account-private-key-file';
  if (name === 'root-ca-cert-publisher' && !c.rootCA) return 'root-ca-cert-publisher needs a root CA: set --root-ca-file or a CA in the client configuration';
  return undefined;
}

function build(name: string, d: ControllersServiceDeps): Controller {
  const log = d.log.child({ controller: name });
  switch (name) {
    case 'namespace':
      return namespaceController(d.client, log);
    case 'garbagecollector':
      return garbageCollector(d.client, log);
    case 'serviceaccount':
      return serviceAccountController(d.client, log);
    case 'csrsigning':
      return csrSigningController(d.client, log, d.config.signingCA!, d.config.signingDurationMs ?? 365 * 24 * 3_600_000);
    case 'csrapproving':
      return csrApprovingController(d.client, log);
    case 'csrcleaner':
      return csrCleaner(d.client, log, d.config.csrCleaner);
    case 'serviceaccount-token':
      return serviceAccountTokenController(d.client, log, d.config.serviceAccountKey!, d.config.rootCA);
    case 'podgc':
      return podGarbageCollector(d.client, log, d.config.podGc);
    case 'tokencleaner':
      return tokenCleaner(d.client, log);
    case 'bootstrapsigner':
      return bootstrapSigner(d.client, log);
    case 'root-ca-cert-publisher':
      return rootCACertPublisher(d.client, log, d.config.rootCA!);
    default:
      throw new Error(`unknown controller ${name}`);
  }
}

export function createControllersService(d: ControllersServiceDeps): ControllersService {
  // Checked up front: a controller that cannot be built fails start, not the first election won.
  for (const name of d.config.controllers) {
    const problem = missing(name, d.config);
    if (problem) throw new Error(problem);
    if (!(name in KNOWN_CONTROLLERS)) throw new Error(`unknown controller ${name}`);
  }
  const stopAll = new AbortController();
  let running: Controller[] = [];
  let leader = false;
  let leadingResolve!: () => void;
  const leading = new Promise<void>((r) => (leadingResolve = r));

  const startControllers = async (signal: AbortSignal) => {
    const started = d.config.controllers.map((name) => build(name, d));
    running = started;
    await Promise.all(
      started.map(async (c) => {
        try {
          await c.start();
        } catch (err) {
          d.log.error({ err, controller: c.name }, 'controller failed to start');
        }
      }),
    );
    if (!signal.aborted) {
      d.log.info({ controllers: started.map((c) => c.name) }, 'controllers running');
      leadingResolve();
    }
  };
  const stopControllers = async () => {
    const was = running;
    running = [];
    await Promise.all(was.map((c) => c.stop().catch((err: unknown) => d.log.warn({ err, controller: c.name }, 'controller did not stop cleanly'))));
  };

  let election: Promise<void>;
  const le = d.config.leaderElection;
  if (le) {
    const identity = le.identity ?? `${hostname()}_${randomUUID()}`;
    let pending = Promise.resolve();
    election = runLeaderElection(
      d.client,
      { ...le, identity },
      {
        onStartedLeading(signal) {
          leader = true;
          d.log.info({ identity, lease: `${le.namespace}/${le.name}` }, 'became leader');
          pending = pending.then(() => startControllers(signal));
        },
        onStoppedLeading() {
          leader = false;
          d.log.warn({ identity }, 'leadership lost or given up; controllers stopped');
          pending = pending.then(stopControllers);
        },
        onError: (err) => d.log.warn({ err }, 'leader election: lease not acquired or renewed'),
      },
      stopAll.signal,
    ).then(() => pending);
  } else {
    leader = true;
    election = startControllers(stopAll.signal);
  }

  return {
    isLeader: () => leader,
    leading,
    controllers: () => running,
    async stop() {
      stopAll.abort();
      await election;
      await stopControllers();
      d.client.close();
    },
  };
}
