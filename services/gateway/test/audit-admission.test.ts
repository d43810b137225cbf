// Admission's audit annotations (a plugin's `annotate`, upstream's admission audit annotations)
// reach the request's audit record through the gateway's admission client, against a real NATS
// with the admission service's subject answered by a stand-in.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { NatsConnection } from '@nats-io/nats-core';
import { startTestNats, type TestNats } from '../../../test/support/nats.js';
import { silentLogger } from '../../../shared/log.js';
import { jsonEndpoint, startJsonService, type JsonService } from '../../../shared/bus/service.js';
import { ServiceName, Subjects } from '../../../shared/bus/subjects.js';
import type { AdmissionReply, AdmissionRequest } from '../../../shared/bus/messages.js';
import { AdmissionInterestCache } from '../../../shared/bus/service-interest.js';
import { natsAdmission } from '../../../shared/bus/service-clients.js';
import { admissionAdmitter } from '../../../shared/registry/rest/admission.js';
import { createBuiltinRegistry } from '../../../shared/registry/builtin-registry.js';
import { Targets } from '../../../shared/registry/target.js';
import { AuditRequest, objectReference } from '../../../shared/audit/event.js';
import { Level, Stage, stageSet } from '../../../shared/audit/types.js';

let nats: TestNats;
let nc: NatsConnection;
let service: JsonService;
let reply: AdmissionReply = { allowed: true };

before(async () => {
  nats = await startTestNats();
  nc = await nats.connect('audit-admission');
  service = await startJsonService(nc, {
    name: ServiceName.admission,
    version: '0.0.1',
    description: 'stand-in admission that annotates',
    endpoints: [jsonEndpoint<AdmissionRequest, AdmissionReply>(Subjects.admissionAdmit, () => reply)],
  });
});
after(async () => {
  await service?.stop();
  await nats?.stop();
});

test("gateway - admission's audit annotations are recorded on the request's audit event, allowed or denied", async () => {
  const target = new Targets(createBuiltinRegistry()).of('', 'v1', 'configmaps')!;
  const admit = admissionAdmitter(natsAdmission(nc, new AdmissionInterestCache(nc, silentLogger()), 2_000));
  const audit = new AuditRequest({
    config: { level: Level.Metadata, omitStages: stageSet([]), omitManagedFields: false },
    auditID: 'adm-1',
    requestURI: '/api/v1/namespaces/ns/configmaps',
    verb: 'create',
    user: { username: 'jane' },
    sourceIPs: [],
    userAgent: undefined,
    objectRef: objectReference({ resource: 'configmaps', namespace: 'ns', name: '', apiGroup: '', apiVersion: 'v1', subresource: '' }),
    receivedAt: Date.now(),
  });
  const write = { target, user: { username: 'jane', groups: [] }, namespace: 'ns', name: 'cm', dryRun: false, warnings: [], manager: 'test', audit };
  const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns' } };

  reply = { allowed: true, auditAnnotations: { 'mutation.webhook.admission.platform.io/round_0_index_0': '{"configuration":"c","webhook":"w","mutated":false}' } };
  await admit(write, 'mutating', 'CREATE', obj, null);
  reply = {
    allowed: false,
    status: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'no', reason: 'Forbidden', code: 403 },
    auditAnnotations: { 'pod-security.platform.io/enforce-policy': 'restricted:latest' },
  };
  await assert.rejects(admit(write, 'validating', 'CREATE', obj, null), /no/);

  const ev = JSON.parse(audit.event(Stage.ResponseComplete, Date.now())!.json('audit.platform.io/v1')) as { annotations: Record<string, string> };
  assert.deepEqual(ev.annotations, {
    'mutation.webhook.admission.platform.io/round_0_index_0': '{"configuration":"c","webhook":"w","mutated":false}',
    'pod-security.platform.io/enforce-policy': 'restricted:latest',
  });
  // Without an audit record (the request is not audited) the annotations go nowhere, and nothing fails.
  reply = { allowed: true, auditAnnotations: { 'a.platform.io/b': 'c' } };
  await admit({ ...write, audit: null }, 'mutating', 'CREATE', obj, null);
});
