// A stand-in admission service for services tested without the real one: it admits every request
// unchanged and records what it was asked, so a test can see who wrote what through admission.

import type { NatsConnection } from '@nats-io/nats-core';
import { jsonEndpoint, startJsonService } from '../../shared/bus/service.js';
import { ServiceName, Subjects } from '../../shared/bus/subjects.js';
import type { AdmissionReply, AdmissionRequest } from '../../shared/bus/messages.js';

export interface FakeAdmission {
  /** Every admission request received, in order. */
  readonly requests: AdmissionRequest[];
  stop(): Promise<void>;
}

export async function startFakeAdmission(nc: NatsConnection): Promise<FakeAdmission> {
  const requests: AdmissionRequest[] = [];
  const service = await startJsonService(nc, {
    name: ServiceName.admission,
    version: '0.0.1',
    description: 'fake admission: admits everything',
    endpoints: [
      jsonEndpoint<AdmissionRequest, AdmissionReply>(Subjects.admissionAdmit, (req) => {
        requests.push(req);
        return { allowed: true };
      }),
    ],
  });
  return { requests, stop: () => service.stop().then(() => undefined) };
}
