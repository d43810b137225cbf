// What a neighbouring service wants its callers to send it, asked on the bus and refreshed every
// few seconds: the admission service's phases and matches, the authn service's proxy headers.
// Until it is known (or while the service cannot be asked) `value()` is null and each caller
// falls back to its safe default.

import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from 'pino';
import { admissionMatches } from '../api/admission-match.js';
import { busRequest } from './client.js';
import { Subjects } from './subjects.js';
import type { AdmissionInterest, AdmissionPhase, AuthnInterest } from './messages.js';

export class ServiceInterest<T> {
  private current: T | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly subject: string,
    private readonly log: Logger,
    private readonly refreshMs = 5_000,
  ) {}

  start(): Promise<void> {
    this.timer = setInterval(() => void this.refresh(), this.refreshMs);
    this.timer.unref();
    return this.refresh();
  }

  async refresh(): Promise<void> {
    try {
      this.current = await busRequest<T>(this.nc, this.subject, {}, 2_000);
    } catch (err) {
      if (this.current) this.log.warn({ err: (err as Error).message, subject: this.subject }, 'cannot read a service\'s interest; using the safe default');
      this.current = null;
    }
  }

  value(): T | null {
    return this.current;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** Admission: a phase no plugin is interested in is skipped; unknown interest calls every phase. */
export class AdmissionInterestCache extends ServiceInterest<AdmissionInterest> {
  constructor(nc: NatsConnection, log: Logger, refreshMs?: number) {
    super(nc, Subjects.admissionInterest, log, refreshMs);
  }

  wants(phase: AdmissionPhase, operation: string, group: string, resource: string, userGroups?: readonly string[]): boolean {
    const i = this.value();
    if (!i) return true;
    return i[phase].some((m) => admissionMatches(m, operation, group, resource, userGroups));
  }
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
