// What a neighbouring service wants its callers to send it, asked on the bus and refreshed every
// few seconds: the admission service's phases and matches, the authn service's proxy headers.
// Until it is known (or while the service cannot be asked) `value()` is null and each caller
// falls back to its safe default. A service whose interest changes at run time (admission, when
// webhook configurations come and go) also announces the change, and callers read it again at
// once instead of at the next refresh.

import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import type { Logger } from 'pino';
import { admissionMatches, MAX_ADMISSION_SECONDS, ruledOutByNamespace, type NamespaceFacts } from '../api/admission-match.js';
import { busRequest } from './client.js';
import { Subjects } from './subjects.js';
import type { AdmissionInterest, AdmissionPhase, AuthnInterest, AuthzInterest } from './messages.js';

export class ServiceInterest<T> {
  private current: T | null = null;
  /** Keep the last answer while the service cannot be asked (a start-up setting, not a state that changes). */
  protected keepLastKnown = false;
  private timer: NodeJS.Timeout | undefined;
  private changes: Subscription | undefined;
  /** The refresh under way, and whether another was asked for meanwhile (it must see later state). */
  private inFlight: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly subject: string,
    private readonly log: Logger,
    private readonly refreshMs = 5_000,
    /** Where the service announces a change (no payload), if it does. */
    private readonly changedSubject?: string,
  ) {}

  start(): Promise<void> {
    this.timer = setInterval(() => void this.refresh(), this.refreshMs);
    this.timer.unref();
    if (this.changedSubject) this.changes = this.nc.subscribe(this.changedSubject, { callback: () => void this.refresh() });
    return this.refresh();
  }

  /** Reads the interest again; calls made while one read is under way share one more read after it. */
  refresh(): Promise<void> {
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    this.inFlight = (async () => {
      do {
        this.again = false;
        await this.readOnce();
      } while (this.again);
    })().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async readOnce(): Promise<void> {
    try {
      this.current = await busRequest<T>(this.nc, this.subject, {}, 2_000);
    } catch (err) {
      if (this.keepLastKnown) return;
      if (this.current) this.log.warn({ err: (err as Error).message, subject: this.subject }, "cannot read a service's interest; using the safe default");
      this.current = null;
    }
  }

  value(): T | null {
    return this.current;
  }

  stop(): void {
    clearInterval(this.timer);
    this.changes?.unsubscribe();
  }
}

/** Admission: a phase no plugin is interested in is skipped; unknown interest calls every phase. */
export class AdmissionInterestCache extends ServiceInterest<AdmissionInterest> {
  constructor(nc: NatsConnection, log: Logger, refreshMs?: number) {
    super(nc, Subjects.admissionInterest, log, refreshMs, Subjects.admissionInterestChanged);
  }

  wants(phase: AdmissionPhase, operation: string, group: string, resource: string, userGroups?: readonly string[]): boolean {
    return this.deadlineMs(phase, operation, group, resource, userGroups, 0) !== null;
  }

  /**
   * How long to wait for the phase: `baseMs` plus what the interested plugins may spend calling
   * out, at most upstream's request timeout; null when no plugin is interested (skip the phase).
   * While the interest is unknown, every phase is called and waited for as long as any may take.
   * With `facts`, a plugin whose namespace condition they rule out does not count.
   */
  deadlineMs(
    phase: AdmissionPhase,
    operation: string,
    group: string,
    resource: string,
    userGroups: readonly string[] | undefined,
    baseMs: number,
    namespace?: string,
    facts?: NamespaceFacts,
  ): number | null {
    const i = this.value();
    const cap = Math.max(baseMs, MAX_ADMISSION_SECONDS * 1000);
    if (!i) return cap;
    let wanted = false;
    let extra = 0;
    for (const m of i[phase]) {
      if (!admissionMatches(m, operation, group, resource, userGroups)) continue;
      if (ruledOutByNamespace(m, namespace, group, resource, facts)) continue;
      wanted = true;
      extra += (m.timeoutSeconds ?? 0) * 1000;
    }
    return wanted ? Math.min(baseMs + extra, cap) : null;
  }
}

/** Tells every caller of the admission service to read its interest again (a plugin's match changed). */
export function announceAdmissionInterestChange(nc: NatsConnection): void {
  if (!nc.isClosed()) nc.publish(Subjects.admissionInterestChanged);
}

/** Authn: the front-proxy headers forwarded for authentication (none until known). */
export class AuthnInterestCache extends ServiceInterest<AuthnInterest> {
  constructor(nc: NatsConnection, log: Logger, refreshMs?: number) {
    super(nc, Subjects.authnInterest, log, refreshMs);
  }

  /** Whether a (lowercase) header name is one the authn service reads. */
  wants(name: string): boolean {
    const i = this.value();
    if (!i) return false;
    return i.headers.includes(name) || i.headerPrefixes.some((p) => name.startsWith(p));
  }
}

/**
 * Authz: its `--authorization-mode`. Anonymous requests are allowed only once it is known that no
 * mode is AlwaysAllow (upstream's ApplyAuthorization turns anonymous access off under AlwaysAllow).
 * The modes are a start-up setting of the authz service: the last answer stands while it cannot
 * be asked, so a NATS outage does not turn the anonymous health probes into 401s.
 */
export class AuthzInterestCache extends ServiceInterest<AuthzInterest> {
  constructor(nc: NatsConnection, log: Logger, refreshMs?: number) {
    super(nc, Subjects.authzInterest, log, refreshMs);
    this.keepLastKnown = true;
  }

  anonymousAllowed(): boolean {
    const i = this.value();
    return i !== null && !i.modes.includes('AlwaysAllow');
  }
}
