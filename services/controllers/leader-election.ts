// Leader election on a `coordination.platform.io/v1` Lease, as upstream's resourcelock: the holder
// renews `renewTime` every retry period; a candidate takes the lease over only once the holder has
// not renewed it for `leaseDurationSeconds`, and a leader that cannot renew within the renew
// deadline stops acting before anyone else may start. Every write is a compare-and-swap on the
// Lease's resourceVersion, so two candidates never both win.

import type { ApiObject } from '../../shared/api/types.js';
import { ApiClient, isAlreadyExists, isConflict, isNotFound, type ResourceRef } from '../../shared/client/rest.js';
import { sleep } from '../../shared/ground/sleep.js';

export interface LeaderElectionConfig {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/** MicroTime as the Lease carries it. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * What a candidate may do with the lease as it stands at `now`: `renew` its own, `take` a free or
 * expired one, or `wait` while another holder's lease is live.
 */
export function leaseDecision(spec: LeaseSpec | undefined, identity: string, now: number): 'renew' | 'take' | 'wait' {
  if (!spec?.holderIdentity) return 'take';
  if (spec.holderIdentity === identity) return 'renew';
  const renewed = Date.parse(spec.renewTime ?? spec.acquireTime ?? '');
  const duration = (spec.leaseDurationSeconds ?? 0) * 1000;
  if (!Number.isFinite(renewed) || now > renewed + duration) return 'take';
  return 'wait';
}

/** The lease spec after `identity` renewed or took it at `now`. */
export function nextLease(spec: LeaseSpec | undefined, identity: string, now: number, durationMs: number): LeaseSpec {
  const mine = spec?.holderIdentity === identity;
  return {
    holderIdentity: identity,
    leaseDurationSeconds: Math.ceil(durationMs / 1000),
    acquireTime: mine && spec?.acquireTime ? spec.acquireTime : microTime(now),
    renewTime: microTime(now),
    // Every change of holder counts (a released lease too), as upstream's; the first holder is transition 0.
    leaseTransitions: (spec?.leaseTransitions ?? 0) + (mine || !spec ? 0 : 1),
  };
}

const LEASES = (namespace: string, name?: string): ResourceRef => ({ group: 'coordination.platform.io', version: 'v1', resource: 'leases', namespace, ...(name !== undefined ? { name } : {}) });

/**
 * One try to acquire or renew; true when `identity` holds the lease afterwards. `mine` is the lease
 * as this candidate last wrote it: a renewal then writes it straight back (one request, not two),
 * and reads the lease only when that write loses a race.
 */
export async function tryAcquireOrRenew(client: ApiClient, cfg: LeaderElectionConfig, now = Date.now(), mine?: { lease?: ApiObject }): Promise<boolean> {
  const held = mine?.lease;
  if (held) {
    mine.lease = undefined;
    try {
      mine.lease = await client.update(LEASES(cfg.namespace, cfg.name), { ...held, spec: nextLease((held as { spec?: LeaseSpec }).spec, cfg.identity, now, cfg.leaseDurationMs) });
      return true;
    } catch (err) {
      if (!isConflict(err) && !isNotFound(err)) throw err;
    }
  }
  let lease: ApiObject | undefined;
  try {
    lease = await client.get(LEASES(cfg.namespace, cfg.name));
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  if (!lease) {
    try {
      const created = await client.create(LEASES(cfg.namespace), {
        apiVersion: 'coordination.platform.io/v1',
        kind: 'Lease',
        metadata: { name: cfg.name, namespace: cfg.namespace },
        spec: nextLease(undefined, cfg.identity, now, cfg.leaseDurationMs),
      });
      if (mine) mine.lease = created;
      return true;
    } catch (err) {
      if (isAlreadyExists(err)) return false;
      throw err;
    }
  }
  const spec = (lease as { spec?: LeaseSpec }).spec;
  if (leaseDecision(spec, cfg.identity, now) === 'wait') return false;
  try {
    const written = await client.update(LEASES(cfg.namespace, cfg.name), { ...lease, spec: nextLease(spec, cfg.identity, now, cfg.leaseDurationMs) });
    if (mine) mine.lease = written;
    return true;
  } catch (err) {
    if (isConflict(err)) return false;
    throw err;
  }
}

export interface LeaderCallbacks {
  onStartedLeading(signal: AbortSignal): void;
  onStoppedLeading(): void;
  onError?(err: unknown): void;
  /** Each time this candidate acquired or renewed the lease (its leaderElection health check reads it). */
  onRenewed?(at: number): void;
}

/**
 * Runs the election until `signal` aborts: waits to acquire, calls `onStartedLeading` with a signal
 * that aborts when leadership is lost (no renewal within the renew deadline), then tries again.
 */
export async function runLeaderElection(client: ApiClient, cfg: LeaderElectionConfig, cb: LeaderCallbacks, signal: AbortSignal): Promise<void> {
  const mine: { lease?: ApiObject } = {};
  const attempt = async (): Promise<boolean> => {
    try {
      return await tryAcquireOrRenew(client, cfg, Date.now(), mine);
    } catch (err) {
      cb.onError?.(err);
      return false;
    }
  };
  while (!signal.aborted) {
    if (!(await attempt())) {
      await sleep(cfg.retryPeriodMs, signal);
      continue;
    }
    const leading = new AbortController();
    let lastRenew = Date.now();
    cb.onRenewed?.(lastRenew);
    cb.onStartedLeading(leading.signal);
    let failing = false;
    while (!signal.aborted) {
      // A healthy leader renews a third of the way into its lease (still well inside the renew
      // deadline) rather than every retry period: an idle control plane then writes its lease every
      // 5 s by default instead of every 2 s. A failed renewal is retried every retry period.
      await sleep(failing ? cfg.retryPeriodMs : renewIntervalMs(cfg), signal);
      if (signal.aborted) break;
      failing = !(await attempt());
      if (!failing) {
        lastRenew = Date.now();
        cb.onRenewed?.(lastRenew);
      } else if (Date.now() - lastRenew > cfg.renewDeadlineMs) break;
    }
    leading.abort();
    cb.onStoppedLeading();
    if (signal.aborted) await release(client, cfg);
  }
}

/** How long a leader waits between successful renewals: a third of the lease, at least the retry period, never past half the renew deadline. */
export function renewIntervalMs(cfg: Pick<LeaderElectionConfig, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'>): number {
  return Math.max(cfg.retryPeriodMs, Math.min(Math.floor(cfg.leaseDurationMs / 3), Math.floor(cfg.renewDeadlineMs / 2)));
}

/** How far past its lease a leader may go without renewing before it reports itself unhealthy (upstream's 20 s). */
export const LEADER_TOLERABLE_EXPIRED_LEASE_MS = 20_000;

/**
 * Upstream's leader election health check: a replica that is not leading is healthy; a leader is
 * not once its last renewal is older than the lease plus a tolerance — it should have stopped
 * acting by then, and something (a hung request, a blocked loop) keeps it from noticing.
 */
export function leaderElectionProblem(
  s: { leading: boolean; lastRenewMs?: number },
  now: number,
  leaseDurationMs: number,
  lease: string,
  tolerableMs = LEADER_TOLERABLE_EXPIRED_LEASE_MS,
): string | undefined {
  if (!s.leading || s.lastRenewMs === undefined) return undefined;
  return now - s.lastRenewMs > leaseDurationMs + tolerableMs ? `failed election to renew leadership on lease ${lease}` : undefined;
}

/** On a clean stop the leader gives the lease up, so a successor need not wait for it to expire. */
async function release(client: ApiClient, cfg: LeaderElectionConfig): Promise<void> {
  try {
    const lease = await client.get(LEASES(cfg.namespace, cfg.name));
    const spec = (lease as { spec?: LeaseSpec }).spec;
    if (spec?.holderIdentity !== cfg.identity) return;
    await client.update(LEASES(cfg.namespace, cfg.name), { ...lease, spec: { ...spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(Date.now()) } });
  } catch {
    // Best effort: the lease expires by itself.
  }
}
