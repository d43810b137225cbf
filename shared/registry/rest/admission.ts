// The generic store's admission step as a client of the admission service: one request per phase,
// skipped when the service says no plugin or webhook of that phase is interested.

import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/nats-core';
import { badRequest, StatusError } from '../../api/status.js';
import { busRequest } from '../../bus/client.js';
import { Subjects } from '../../bus/subjects.js';
import type { AdmissionInterestCache } from '../../bus/service-interest.js';
import type { AdmissionReply, AdmissionRequest } from '../../bus/messages.js';
import type { Admitter } from './store.js';

export function admissionClient(nc: NatsConnection, interest: AdmissionInterestCache, timeoutMs: number): Admitter {
  return async (req, phase, operation, object, oldObject, kind) => {
    const t = req.target;
    if (!interest.wants(phase, operation, t.type.group, t.type.plural, req.user.groups)) return object;
    const request: AdmissionRequest = {
      uid: randomUUID(),
      phase,
      kind: kind ?? { group: t.type.group, version: t.served.version.name, kind: t.kind },
      resource: { group: t.type.group, version: t.served.version.name, resource: t.type.plural },
      name: req.name,
      operation,
      userInfo: req.user,
      object,
      oldObject,
      dryRun: req.dryRun,
    };
    if (req.subresource) request.subResource = req.subresource;
    // As upstream derives it from the URL: a namespace's own `namespaces/<name>` carries its name.
    const namespace = req.namespace ?? (t.kind === 'Namespace' && !t.type.group && operation !== 'CREATE' ? req.name : undefined);
    if (namespace) request.namespace = namespace;
    const reply = await busRequest<AdmissionReply>(nc, Subjects.admissionAdmit, request, timeoutMs);
    if (reply.warnings) req.warnings.push(...reply.warnings);
    if (reply.auditAnnotations && req.audit) for (const [k, v] of Object.entries(reply.auditAnnotations)) req.audit.annotate(k, v);
    if (!reply.allowed) {
      if (reply.status) throw new StatusError(reply.status);
      throw badRequest('admission denied the request');
    }
    return reply.object ?? object;
  };
}
