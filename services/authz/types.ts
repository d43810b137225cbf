// The contract every authorizer implements (`--authorization-mode` entries and the built-in
// privileged-group check). A mode is one file exporting a ModeFactory plus one line in modes.ts.

import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from '../../shared/log.js';
import type { UserInfo } from '../../shared/api/types.js';
import type { AuthzAttributes, Decision, RulesReviewReply } from '../../shared/bus/messages.js';
import type { FeedEvent, ObjectFeed } from '../../shared/store/object-feed.js';
import type { RbacState } from './rbac/state.js';

export interface AuthorizerDecision {
  decision: Decision;
  /** Shown to the caller after the 403 message (upstream appends it the same way). */
  reason?: string;
  /** An evaluation problem the authorizer hit but survived (a missing role binding target). */
  error?: string;
}

/** What one mode says `user` may do in `namespace` (SelfSubjectRulesReview). */
export type RulesOfUser = Omit<RulesReviewReply, 'evaluationError'> & { evaluationError?: string };

export interface Authorizer {
  readonly name: string;
  /** Allow or Deny ends the chain; NoOpinion passes to the next authorizer. Throwing = NoOpinion + error. */
  authorize(attrs: AuthzAttributes): Promise<AuthorizerDecision> | AuthorizerDecision;
  /** The rules this mode grants; absent = the mode cannot list rules (the review is `incomplete`). */
  rulesFor?(user: UserInfo, namespace: string): RulesOfUser;
  stop?(): Promise<void>;
}

export interface WebhookAuthzConfig {
  /** `--authorization-webhook-config-file` (client configuration format). */
  configFile: string;
  /** `--authorization-webhook-version`, default v1beta1. */
  version: 'v1' | 'v1beta1';
  /** `--authorization-webhook-cache-authorized-ttl`, default 5 minutes. */
  authorizedTtlMs: number;
  /** `--authorization-webhook-cache-unauthorized-ttl`, default 30 seconds. */
  unauthorizedTtlMs: number;
}

export interface AuthzConfig {
  /** `--authorization-mode`, in the order the modes are consulted. */
  modes: string[];
  /** `--authorization-policy-file` (ABAC). */
  policyFile?: string;
  /** `--authorization-webhook-*`. */
  webhook?: WebhookAuthzConfig;
  /** Object bucket the RBAC objects and the node graph are read from (default `objects`). */
  bucket?: string;
  /**
   * `--upstream-group-aliases`: the gateway serves branded groups under upstream's spelling too,
   * so a group named either way in a request, a review, a rule, a subject or an ABAC policy is the
   * branded group.
   */
  upstreamGroupAliases?: boolean;
}

/** What a mode gets to build itself. */
export interface ModeContext {
  nc: NatsConnection;
  config: AuthzConfig;
  log: Logger;
  /** RBAC objects held in memory, kept current by the service (present whatever the modes). */
  rbac: RbacState;
  /** Starts a watch of the object bucket; the service stops it with the mode. */
  feed(filters: string[], onEvent: (e: FeedEvent) => void): ObjectFeed;
}

export type ModeFactory = (ctx: ModeContext) => Authorizer | Promise<Authorizer>;
