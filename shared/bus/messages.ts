// Message types of every NATS contract (proto/bus/v1/*.proto). Storage's bodies are protobuf, and
// so are authn.authenticate's and authz.authorize's (auth-messages.ts), the others' JSON
// (docs/bus-contract.md says why). A reply is either the value below or, with the error-code
// header set, a Status as JSON.
//
// The bodies the API machinery also sees as typed calls (the storage interface and the other
// services' ports) are defined in shared/contracts/ and re-exported here, so that a service names
// every message from this one module; what is only the bus's (the storage requests' envelopes,
// the interest subjects) is defined here.

import type { ObjectRef } from '../api/types.js';
import type { Uint64 } from './codec.js';
import type { AdmissionMatch } from '../api/admission-match.js';

export type { StorageDeleteReply, StorageGetReply, StorageWriteReply } from '../contracts/storage.js';
export type { AuthnReply, AuthnRequest, TokenIssueReply, TokenIssueRequest } from '../contracts/authn.js';
export { Decision } from '../contracts/authz.js';
export type { AuthzAttributes, AuthzReply, EscalationCheckReply, EscalationCheckRequest, PolicyRule, RulesReviewReply, RulesReviewRequest } from '../contracts/authz.js';
export { AdmissionOperation, AdmissionPhase } from '../contracts/admission.js';
export type { AdmissionReply, AdmissionRequest } from '../contracts/admission.js';

// ---- storage ----------------------------------------------------------------------------------
// Protobuf (proto/bus/v1/storage.proto, the types in storage-messages.ts); the object travels as the
// bytes of its stored JSON (shared/contracts/stored-value.ts), which storage writes without parsing.

export interface StorageCreateRequest {
  ref: ObjectRef;
  objectJson: Uint8Array;
}

export interface StorageUpdateRequest {
  ref: ObjectRef;
  objectJson: Uint8Array;
  /** The object's current resourceVersion as a number; a mismatch is 409 Conflict. */
  expectedRevision: Uint64;
}

export interface StorageDeleteRequest {
  ref: ObjectRef;
  /** When set (not 0), delete only if the object is still at this revision (409 otherwise). */
  expectedRevision?: Uint64;
}

export interface StorageGetRequest {
  ref: ObjectRef;
}

/** create and update: the write's revision (the caller has the object). */
export interface StorageRevisionMessage {
  revision: Uint64;
}

export interface StorageGetMessage {
  objectJson: Uint8Array;
  revision: Uint64;
}

// ---- authn ----------------------------------------------------------------------------------

/** Which request headers the authn service's request-header authenticator reads (lowercase). The
 *  gateway forwards only these, and strips them (with Authorization) before anything downstream. */
export interface AuthnInterest {
  headers: string[];
  headerPrefixes: string[];
}

// ---- authz ----------------------------------------------------------------------------------

/** The authz service's `--authorization-mode`, in order. */
export interface AuthzInterest {
  modes: string[];
}

// ---- admission ------------------------------------------------------------------------------

/** Which requests each phase's plugins want; a phase with no matching entry can be skipped. */
export interface AdmissionInterest {
  mutating: AdmissionMatch[];
  validating: AdmissionMatch[];
}
