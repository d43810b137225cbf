// What the admission service's plugins want to see, refreshed every few seconds, so the gateway
// skips a bus round trip for a phase no plugin handles. Until it is known (or when the service
// cannot be asked) every phase is called, so nothing is ever skipped by mistake.

import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from 'pino';
import { admissionMatches } from '../../shared/api/admission-match.js';
import { busRequest } from '../../shared/bus/client.js';
import { Subjects } from '../../shared/bus/subjects.js';
import type { AdmissionInterest, AdmissionPhase } from '../../shared/bus/messages.js';

export class AdmissionInterestCache {
  private interest: AdmissionInterest | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly log: Logger,
    private readonly refreshMs = 5_000,
  ) {}

  start(): void {
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.refreshMs);
    this.timer.unref();
  }

  async refresh(): Promise<void> {
    try {
      this.interest = await busRequest<AdmissionInterest>(this.nc, Subjects.admissionInterest, {}, 2_000);
    } catch (err) {
      if (this.interest) this.log.warn({ err: (err as Error).message }, 'cannot read admission interest; calling every phase');
      this.interest = null;
    }
  }

  wants(phase: AdmissionPhase, operation: string, group: string, resource: string): boolean {
    const i = this.interest;
    if (!i) return true;
    return i[phase].some((m) => admissionMatches(m, operation, group, resource));
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
