// The generic store's admission step as a client of the admission service: one request per phase,
// skipped when the service says no plugin or webhook of that phase is interested.

import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/nats-core';
import { badRequest, StatusError } from '../../api/status.js';
import { levelAtLeast, Level } from '../../audit/types.js';
import { busRequest } from '../../bus/client.js';
import { Subjects } from '../../bus/subjects.js';
import type { AdmissionInterestCache } from '../../bus/service-interest.js';
import type { NamespaceFacts } from '../../api/admission-match.js';
import { AdmissionOperation, type AdmissionReply, type AdmissionRequest } from '../../bus/messages.js';
import type { Admitter, WriteRequest } from './generic-store.js';

const OPTIONS_API_VERSION = 'meta.platform.io/v1';

/** The request's options as admission webhooks see them (CreateOptions, UpdateOptions, DeleteOptions; none for CONNECT). */
export function admissionOptions(req: WriteRequest, operation: AdmissionOperation): Record<string, unknown> | null {
  const dryRun = req.dryRun ? { dryRun: ['All'] } : {};
  switch (operation) {
    case AdmissionOperation.Create:
      return { kind: 'CreateOptions', apiVersion: OPTIONS_API_VERSION, ...dryRun, ...(req.manager ? { fieldManager: req.manager } : {}) };
    case AdmissionOperation.Update:
      return { kind: 'UpdateOptions', apiVersion: OPTIONS_API_VERSION, ...dryRun, ...(req.manager ? { fieldManager: req.manager } : {}) };
    case AdmissionOperation.Delete: {
      const d = req.deleteOptions ?? {};
      const out: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: OPTIONS_API_VERSION, ...dryRun };
      if (d.gracePeriodSeconds !== undefined) out.gracePeriodSeconds = d.gracePeriodSeconds;
      if (d.preconditions) out.preconditions = d.preconditions;
      if (d.propagationPolicy) out.propagationPolicy = d.propagationPolicy;
      if (d.orphanDependents !== undefined) out.orphanDependents = d.orphanDependents;
      return out;
    }
    default:
      return null;
  }
}

/**
 * `facts` (the gateway's watch cache) rule out plugins by their namespace condition. `timeoutMs`
 * is the bus's usual deadline. A phase whose plugins call out (webhooks in sequence,
 * each allowed up to 30 s) is waited for that much longer, up to upstream's 60 s request timeout;
 * one whose plugins only decide locally keeps the usual deadline, so a replica that vanished
 * mid-request costs seconds, not a minute.
 */
export function admissionClient(nc: NatsConnection, interest: AdmissionInterestCache, timeoutMs: number, facts?: NamespaceFacts): Admitter {
  return async (req, phase, operation, object, oldObject, kind) => {
    const t = req.target;
    // As upstream derives it from the URL: a namespace's own `namespaces/<name>` carries its name.
    const namespace = req.namespace ?? (t.kind === 'Namespace' && !t.type.group && operation !== 'CREATE' ? req.name : undefined);
    const deadlineMs = interest.deadlineMs(phase, operation, t.type.group, t.type.plural, req.user.groups, timeoutMs, namespace, facts);
    if (deadlineMs === null) return object;
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
      options: admissionOptions(req, operation),
      dryRun: req.dryRun,
    };
    if (req.subresource) request.subResource = req.subresource;
    if (namespace) request.namespace = namespace;
    const reply = await busRequest<AdmissionReply>(nc, Subjects.admissionAdmit, request, deadlineMs);
    if (reply.warnings) req.warnings.push(...reply.warnings);
    const audit = req.audit;
    if (audit) {
      if (reply.auditAnnotations) for (const [k, v] of Object.entries(reply.auditAnnotations)) audit.annotate(k, v);
      if (reply.requestAuditAnnotations && (!audit.level || levelAtLeast(audit.level, Level.Request))) {
        for (const [k, v] of Object.entries(reply.requestAuditAnnotations)) audit.annotate(k, v);
      }
    }
    if (!reply.allowed) {
      if (reply.status) throw new StatusError(reply.status);
      throw badRequest('admission denied the request');
    }
    return reply.object ?? object;
  };
}
