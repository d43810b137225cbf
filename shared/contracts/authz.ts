// The authz service as the API machinery asks it: may a user do this (SubjectAccessReview), what
// may they do (SelfSubjectRulesReview), and may they write this RBAC object (the escalation check).
// Implemented over NATS by `natsAuthz` (shared/bus/service-clients.ts); the authz service answers
// (services/authz/service.ts).

import type { ApiObject, UserInfo } from '../api/types.js';

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

/** Failures are Status errors (503 when no authz replica answers, 504 on timeout). */
export interface AuthzPort {
  /** Asks the authorizer chain (SubjectAccessReview). */
  authorize(attrs: AuthzAttributes): Promise<AuthzReply>;
  /** Lists what a user may do in a namespace (SelfSubjectRulesReview). */
  reviewRules(request: RulesReviewRequest): Promise<RulesReviewReply>;
  /** Whether the user may write the RBAC object without escalating their own permissions. */
  checkEscalation(request: EscalationCheckRequest): Promise<EscalationCheckReply>;
}
