// The controllers service (upstream's controller manager): an ordinary API client of the gateway
// that runs the selected controllers while it holds the leader lease, so that of several replicas
// only one acts — each controller with its own service account's credentials when asked to
// (client-builder.ts), the election always with the service's own. No environment access here:
// main.ts maps flags onto ControllersConfig.

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
import { resourceQuotaController, type ResourceQuotaOptions } from './resourcequota/controller.js';
import { pvcProtectionController, pvProtectionController } from './volumeprotection/controllers.js';
import type { KeyObject } from 'node:crypto';
import { rootCACertPublisher, serviceAccountController } from './serviceaccount/controllers.js';
import type { Controller } from './types.js';
import { customResourceDefinitionController } from './customresources/controller.js';
import { apiServiceAvailabilityController } from './apiservices/controller.js';
import type { ClientCertificate } from './apiservices/check.js';
import { KNOWN_CONTROLLERS } from './options.js';
import { controllerClients } from './client-builder.js';
import { servedNames } from './served-names.js';
import { PLATFORM_NAMES, type WellKnownNames } from '../../shared/api/well-known-names.js';

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
  /** resourcequota's resync period and workers; upstream's by default. */
  resourceQuota?: ResourceQuotaOptions;
  /** How long finished requests stay (csrcleaner); upstream's by default. */
  csrCleaner?: CleanerDurations;
  /** PEM published as platform-root-ca.crt; required by root-ca-cert-publisher. */
  rootCA?: string;
  /** Absent: no election, the controllers run at once (one replica only). */
  leaderElection?: Omit<LeaderElectionConfig, 'identity'> & { identity?: string };
  /** `--use-service-account-credentials`: each controller acts as its own service account. */
  useServiceAccountCredentials?: boolean;
  /** The service's own user agent (a controller's client adds its account to it). */
  userAgent?: string;
  /** `--proxy-client-cert-file` / `--proxy-client-key-file` (apiservice-availability). */
  proxyClientCertificate?: ClientCertificate;
  /** apiservice-availability's re-check period of remote APIServices; upstream's 30 s by default. */
  apiServiceResyncMs?: number;
}

/** Where a controller is, as its readiness check reports it. */
export type ControllerState = { state: 'starting' } | { state: 'running' } | { state: 'failed'; error: string };

/** The leader election as its health check reads it. */
export interface ElectionStatus {
  lease: string;
  leaseDurationMs: number;
  leading: boolean;
  /** When this replica last acquired or renewed the lease. */
  lastRenewMs?: number;
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
  /** Each controller of the current term (none while not leading) and how far its start got. */
  controllerStates(): ReadonlyMap<string, ControllerState>;
  /** Undefined without leader election. */
  election(): ElectionStatus | undefined;
  /** True once stop() was called. */
  stopping(): boolean;
  stop(): Promise<void>;
}

/** What a controller needs that the configuration lacks; undefined when it can be built. */
function missing(name: string, c: ControllersConfig): string | undefined {
  if (name === 'csrsigning' && !c.signingCA) return 'csrsigning needs --cluster-signing-cert-file and --cluster-signing-key-file';
  if (name === 'serviceaccount-token' && !c.serviceAccountKey) return 'serviceaccount-token needs --service-account-private-key-file';
  if (name === 'root-ca-cert-publisher' && !c.rootCA) return 'root-ca-cert-publisher needs a root CA: set --root-ca-file or a CA in the client configuration';
  return undefined;
}

function build(name: string, client: ApiClient, d: ControllersServiceDeps, names: WellKnownNames): Controller {
  const log = d.log.child({ controller: name });
  switch (name) {
    case 'namespace':
      return namespaceController(client, log);
    case 'garbagecollector':
      return garbageCollector(client, log);
    case 'serviceaccount':
      return serviceAccountController(client, log);
    case 'csrsigning':
      return csrSigningController(client, log, d.config.signingCA!, d.config.signingDurationMs ?? 365 * 24 * 3_600_000, names);
    case 'csrapproving':
      return csrApprovingController(client, log, names);
    case 'csrcleaner':
      return csrCleaner(client, log, d.config.csrCleaner);
    case 'serviceaccount-token':
      return serviceAccountTokenController(client, log, d.config.serviceAccountKey!, d.config.rootCA, names);
    case 'podgc':
      return podGarbageCollector(client, log, d.config.podGc);
    case 'resourcequota':
      return resourceQuotaController(client, log, d.config.resourceQuota);
    case 'pvc-protection':
      return pvcProtectionController(client, log);
    case 'pv-protection':
      return pvProtectionController(client, log);
    case 'tokencleaner':
      return tokenCleaner(client, log);
    case 'bootstrapsigner':
      return bootstrapSigner(client, log, names);
    case 'root-ca-cert-publisher':
      return rootCACertPublisher(client, log, d.config.rootCA!, names);
    case 'customresourcedefinitions':
      return customResourceDefinitionController(client, log);
    case 'apiservice-availability':
      return apiServiceAvailabilityController(client, log, {
        ...(d.config.proxyClientCertificate ? { clientCertificate: d.config.proxyClientCertificate } : {}),
        ...(d.config.apiServiceResyncMs ? { resyncMs: d.config.apiServiceResyncMs } : {}),
      });
    default:
      throw new Error(`unknown controller ${name}`);
  }
}

/**
 * Starts a controller; false when the term ends first. A controller's start waits for its caches,
 * which never fill while RBAC refuses its lists, and the term's end (a stop, a lost lease) must not wait for that.
 */
async function startUnlessEnded(c: Controller, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  let onAbort = () => {};
  const ended = new Promise<false>((resolve) => {
    onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([c.start().then(() => true), ended]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** The controllers of one term of leadership: built and started when it begins, stopped when it ends. */
class Term {
  running: Controller[] = [];
  states = new Map<string, ControllerState>();

  constructor(
    private readonly d: ControllersServiceDeps,
    private readonly clients: ReturnType<typeof controllerClients>,
    /** Called once a term's controllers are started (unless the term already ended). */
    private readonly onRunning: () => void,
  ) {}

  startControllers = async (signal: AbortSignal): Promise<void> => {
    const { d } = this;
    const names = await this.servedNames(signal);
    const started = d.config.controllers.map((name) => build(name, this.clients.forController(name), d, names));
    const termStates = new Map<string, ControllerState>(started.map((c) => [c.name, { state: 'starting' }]));
    this.running = started;
    this.states = termStates;
    await Promise.all(
      started.map(async (c) => {
        try {
          if (!(await startUnlessEnded(c, signal))) return;
          termStates.set(c.name, { state: 'running' });
        } catch (err) {
          termStates.set(c.name, { state: 'failed', error: (err as Error).message });
          d.log.error({ err, controller: c.name }, 'controller failed to start');
        }
      }),
    );
    if (!signal.aborted) {
      d.log.info({ controllers: started.map((c) => c.name) }, 'controllers running');
      this.onRunning();
    }
  };

  /** The well-known names the gateway serves (upstream's too with its group aliases); the spec's when it cannot tell. */
  private async servedNames(signal: AbortSignal): Promise<WellKnownNames> {
    try {
      return await servedNames(this.d.client, this.d.log, signal);
    } catch (err) {
      this.d.log.error({ err }, "cannot tell whether the gateway serves upstream's names; acting on the spec's only");
      return PLATFORM_NAMES;
    }
  }

  stopControllers = async (): Promise<void> => {
    const was = this.running;
    this.running = [];
    this.states = new Map();
    await Promise.all(was.map((c) => c.stop().catch((err: unknown) => this.d.log.warn({ err, controller: c.name }, 'controller did not stop cleanly'))));
  };
}

export function createControllersService(d: ControllersServiceDeps): ControllersService {
  // Checked up front: a controller that cannot be built fails start, not the first election won.
  for (const name of d.config.controllers) {
    const problem = missing(name, d.config);
    if (problem) throw new Error(problem);
    if (!(name in KNOWN_CONTROLLERS)) throw new Error(`unknown controller ${name}`);
  }
  const stopAll = new AbortController();
  let leader = false;
  let leadingResolve!: () => void;
  const leading = new Promise<void>((r) => (leadingResolve = r));
  const clients = controllerClients(d.client, {
    useServiceAccountCredentials: d.config.useServiceAccountCredentials ?? false,
    log: d.log,
    ...(d.config.userAgent ? { userAgent: d.config.userAgent } : {}),
  });
  if (d.config.useServiceAccountCredentials) {
    d.log.info({ accounts: Object.fromEntries(d.config.controllers.map((n) => [n, clients.accountOf(n) ?? '(own credentials)'])) }, 'controllers act as their own service accounts');
  }
  const term = new Term(d, clients, () => leadingResolve());

  let election: Promise<void>;
  let lastRenewMs: number | undefined;
  const le = d.config.leaderElection;
  if (le) {
    const identity = le.identity ?? `${hostname()}_${randomUUID()}`;
    let pending = Promise.resolve();
    election = runLeaderElection(
      d.client,
      { ...le, identity },
      {
        onRenewed: (at) => (lastRenewMs = at),
        onStartedLeading(signal) {
          leader = true;
          d.log.info({ identity, lease: `${le.namespace}/${le.name}` }, 'became leader');
          pending = pending.then(() => term.startControllers(signal));
        },
        onStoppedLeading() {
          leader = false;
          // Giving the lease up on the way out is the normal end of a term; losing it is not.
          if (stopAll.signal.aborted) d.log.info({ identity }, 'leadership given up; controllers stopped');
          else d.log.warn({ identity }, 'leadership lost; controllers stopped');
          pending = pending.then(term.stopControllers);
        },
        onError: (err) => d.log.warn({ err }, 'leader election: lease not acquired or renewed'),
      },
      stopAll.signal,
    ).then(() => pending);
  } else {
    leader = true;
    election = term.startControllers(stopAll.signal);
  }

  return {
    isLeader: () => leader,
    leading,
    controllers: () => term.running,
    controllerStates: () => term.states,
    election: () => (le ? { lease: `${le.namespace}/${le.name}`, leaseDurationMs: le.leaseDurationMs, leading: leader, ...(lastRenewMs !== undefined ? { lastRenewMs } : {}) } : undefined),
    stopping: () => stopAll.signal.aborted,
    async stop() {
      stopAll.abort();
      await election;
      await term.stopControllers();
      clients.close();
      d.client.close();
    },
  };
}
