// Message types of every NATS contract. Bodies are JSON. A reply is either the value below or,
// with the error-code header set, a Status.

import type { ApiObject, GroupVersionKind, GroupVersionResource, UserInfo } from '../api/types.js';
import type { Status } from '../api/status.js';
import type { AdmissionMatch } from '../api/admission-match.js';

/** Identifies one stored object. `namespace` is absent for cluster-scoped resources. */
export interface ObjectRef {
  group: string;
  resource: string;
  namespace?: string;
  name: string;
}

// ---- storage --------------------------------------------------------------------------------

export interface StorageCreateRequest {
  ref: ObjectRef;
  object: ApiObject;
}

export interface StorageUpdateRequest {
  ref: ObjectRef;
  object: ApiObject;
  /** The object's current resourceVersion as a number; a mismatch is 409 Conflict. */
  expectedRevision: number;
}

export interface StorageDeleteRequest {
  ref: ObjectRef;
  /** When set, delete only if the object is still at this revision (409 otherwise). */
  expectedRevision?: number;
}

export interface StorageGetRequest {
  ref: ObjectRef;
}

/** The object as stored, with `metadata.resourceVersion` set to the write's revision. */
export interface StorageWriteReply {
  object: ApiObject;
  revision: number;
}

export interface StorageDeleteReply {
  revision: number;
}

export interface StorageGetReply {
  object: ApiObject;
  revision: number;
}

// ---- authn ----------------------------------------------------------------------------------

export interface AuthnRequest {
  /** Bearer token from the Authorization header, if any. */
  token?: string;
  /** Client certificate chain presented on the TLS connection, leaf first, PEM. */
  certificates?: string[];
  /** Headers an authenticator may read (front-proxy headers), lowercase names. */
  headers?: Record<string, string[]>;
  /** Audiences the token must be valid for (TokenReview); empty = the API server's. */
  audiences?: string[];
}

export interface AuthnReply {
  authenticated: boolean;
  user?: UserInfo;
  audiences?: string[];
  /** Why authentication failed; set when a credential was presented and rejected. */
  error?: string;
}

// ---- authz ----------------------------------------------------------------------------------

export interface AuthzAttributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  /** Request path, for non-resource requests. */
  path: string;
  apiGroup?: string;
  apiVersion?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

export const Decision = { Allow: 'Allow', Deny: 'Deny', NoOpinion: 'NoOpinion' } as const;
export type Decision = (typeof Decision)[keyof typeof Decision];

export interface AuthzReply {
  decision: Decision;
  reason?: string;
  evaluationError?: string;
}

// ---- admission ------------------------------------------------------------------------------

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
}

/** Which requests each phase's plugins want; a phase with no matching entry can be skipped. */
export interface AdmissionInterest {
  mutating: AdmissionMatch[];
  validating: AdmissionMatch[];
}

export interface AdmissionReply {
  allowed: boolean;
  /** Mutating phase: the object after every mutating plugin ran (absent = unchanged). */
  object?: ApiObject;
  /** Why the request was denied. */
  status?: Status;
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}
