// Rejections in upstream's shape: `<resource> "<name>" is forbidden: <why>`, where the name of an
// object not yet named (generateName) is its prefix, or `Unknown`.

import { forbidden, type StatusError } from '../../shared/api/status.js';
import type { AdmissionRequest } from '../../shared/bus/messages.js';

/** A start-up error in the plugins' flags or configuration, naming what is wrong. */
export class AdmissionConfigError extends Error {
  override name = 'AdmissionConfigError';
}

export function requestObjectName(req: AdmissionRequest): string {
  if (req.name) return req.name;
  const meta = (req.object ?? req.oldObject)?.metadata;
  return meta?.name || meta?.generateName || 'Unknown';
}

export function admissionForbidden(req: AdmissionRequest, why: string): StatusError {
  return forbidden({ group: req.resource.group, resource: req.resource.resource }, requestObjectName(req), why);
}
