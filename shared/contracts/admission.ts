// The admission service as the API machinery asks it: one phase (mutating, then validating) of the
// plugin and webhook chain on one request. Implemented over NATS by `natsAdmission`
// (shared/bus/service-clients.ts), which skips a phase no plugin is interested in; the admission
// service answers (services/admission/service.ts). The generic store's side is
// shared/registry/rest/admission.ts.

import type { ApiObject, GroupVersionKind, GroupVersionResource, UserInfo } from '../api/types.js';
import type { Status } from '../api/status.js';
import type { Deadline } from '../api/deadline.js';

export const AdmissionOperation = { Create: 'CREATE', Update: 'UPDATE', Delete: 'DELETE', Connect: 'CONNECT' } as const;
export type AdmissionOperation = (typeof AdmissionOperation)[keyof typeof AdmissionOperation];

export const AdmissionPhase = { Mutating: 'mutating', Validating: 'validating' } as const;
export type AdmissionPhase = (typeof AdmissionPhase)[keyof typeof AdmissionPhase];

export interface AdmissionRequest {
  uid: string;
  phase: AdmissionPhase;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  name: string;
  namespace?: string;
  operation: AdmissionOperation;
  userInfo: UserInfo;
  object: ApiObject | null;
  oldObject: ApiObject | null;
  options?: Record<string, unknown> | null;
  dryRun: boolean;
  /**
   * The gateway serves upstream's well-known names beside the spec's (`--upstream-group-aliases`):
   * plugins then treat upstream's system namespaces and signers as the spec's (shared/api/well-known-names.ts).
   * Not part of what webhooks see.
   */
  upstreamNames?: boolean;
}

export interface AdmissionReply {
  allowed: boolean;
  /** Mutating phase: the object after every mutating plugin ran (absent = unchanged). */
  object?: ApiObject;
  /** Why the request was denied. */
  status?: Status;
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
  /** Audit annotations recorded only at audit level Request and above (a mutating webhook's patch). */
  requestAuditAnnotations?: Record<string, string>;
}

/** Failures are Status errors (503 when no admission replica answers, 504 on timeout). */
export interface AdmissionPort {
  /**
   * Runs the request's phase; null when no plugin or webhook of that phase is interested, so
   * nothing was asked. `deadline`: the request's; the phase is not asked past it nor waited for beyond it.
   */
  admit(request: AdmissionRequest, deadline?: Deadline): Promise<AdmissionReply | null>;
}
