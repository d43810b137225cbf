// The generic store's admission step over the admission service's port: one AdmissionRequest per
// phase, built from the write; the reply's object, warnings and audit annotations taken back into
// the write, a denial thrown as its Status. Whether a phase is asked at all, and how long it may
// take, is the port's (over NATS: natsAdmission in shared/bus/service-clients.ts).

import { randomUUID } from 'node:crypto';
import { badRequest, StatusError } from '../../api/status.js';
import { levelAtLeast, Level } from '../../audit/types.js';
import { AdmissionOperation, type AdmissionPort, type AdmissionRequest } from '../../contracts/admission.js';
import type { Admitter, WriteRequest } from './store-types.js';
import { PLATFORM_NAMES, type WellKnownNames } from '../../api/well-known-names.js';

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
 * Admission through `port`: a phase the port skips (no plugin interested) leaves the object as it
 * is. `names`: the well-known names the server takes, told to the plugins with each request.
 */
export function admissionAdmitter(port: AdmissionPort, names: WellKnownNames = PLATFORM_NAMES): Admitter {
  return async (req, phase, operation, object, oldObject, kind) => {
    const t = req.target;
    // As upstream derives it from the URL: a namespace's own `namespaces/<name>` carries its name.
    const namespace = req.namespace ?? (t.kind === 'Namespace' && !t.type.group && operation !== 'CREATE' ? req.name : undefined);
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
    if (names.upstream) request.upstreamNames = true;
    const reply = await port.admit(request, req.deadline);
    if (!reply) return object;
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
