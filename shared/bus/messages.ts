// Message types of every NATS contract. Bodies are JSON. A reply is either the value below or,
// with the error-code header set, a Status.

import type { ApiObject, GroupVersionKind, GroupVersionResource, ObjectRef, UserInfo } from '../api/types.js';
import type { Status } from '../api/status.js';
import type { AdmissionMatch } from '../api/admission-match.js';

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

/** Which request headers the authn service's request-header authenticator reads (lowercase). The
 *  gateway forwards only these, and strips them (with Authorization) before anything downstream. */
export interface AuthnInterest {
  headers: string[];
  headerPrefixes: string[];
}

/** TokenRequest: a service-account token signed by the authn service. */
export interface TokenIssueRequest {
  serviceAccount: { namespace: string; name: string; uid: string };
  /** Empty = the API server's own audiences. */
  audiences: string[];
  expirationSeconds: number;
  /** The object the token is bound to; the token dies with it. */
  boundObject?: { kind: 'Pod' | 'Secret'; apiVersion: string; name: string; uid: string };
}

export interface TokenIssueReply {
  token: string;
  /** RFC 3339. */
  expirationTimestamp: string;
  audiences: string[];
  /** The lifetime given, which `--service-account-max-token-expiration` may have shortened. */
  expirationSeconds: number;
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
  /** The authorizer that allowed or denied; absent when the deny is the default (nobody decided). */
  decidedBy?: string;
  reason?: string;
  evaluationError?: string;
  /** Revision of the RBAC objects the decision reflects; a gateway that has seen a newer RBAC
   *  change does not cache it. */
  revision?: number;
}

/** An RBAC policy rule (rbac.authorization.platform.io/v1 PolicyRule). */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** SelfSubjectRulesReview: what `user` may do in `namespace`. */
export interface RulesReviewRequest {
  user: UserInfo;
  namespace: string;
}

export interface RulesReviewReply {
  resourceRules: Array<{ verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] }>;
  nonResourceRules: Array<{ verbs: string[]; nonResourceURLs?: string[] }>;
  /** A mode that cannot list rules (or failed to) was consulted. */
  incomplete: boolean;
  evaluationError?: string;
}

/**
 * Escalation check of an RBAC write (create or update of a Role, ClusterRole, RoleBinding or
 * ClusterRoleBinding), done whatever the authorization mode: a role needs every permission it
 * grants (or `escalate`), a binding needs the referenced role's permissions (or `bind`).
 */
export interface EscalationCheckRequest {
  user: UserInfo;
  /** Role, ClusterRole, RoleBinding or ClusterRoleBinding, after defaulting. */
  object: ApiObject;
  /** The binding's or role's namespace; absent for cluster-scoped kinds. */
  namespace?: string;
}

export interface EscalationCheckReply {
  allowed: boolean;
  /** The upstream-shaped explanation of a refusal (becomes a 403's message). */
  message?: string;
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
  /** Audit annotations recorded only at audit level Request and above (a mutating webhook's patch). */
  requestAuditAnnotations?: Record<string, string>;
}
