// The audit API's vocabulary (`audit.platform.io/v1`, upstream's audit.k8s.io/v1): how much of a
// request is recorded (levels), the moments of a request an event is written at (stages), and the
// shape of the events and lists the backends write.

export const AUDIT_GROUP = 'audit.platform.io';
/** Upstream's spelling of the group: stock policy files and audit consumers use it. */
export const UPSTREAM_AUDIT_GROUP = 'audit.k8s.io';
export const AUDIT_API_VERSION = `${AUDIT_GROUP}/v1`;
export const UPSTREAM_AUDIT_API_VERSION = `${UPSTREAM_AUDIT_GROUP}/v1`;
/** The versions a policy file may declare and events may be written in. */
export const AUDIT_API_VERSIONS: readonly string[] = [AUDIT_API_VERSION, UPSTREAM_AUDIT_API_VERSION];

export const Level = { None: 'None', Metadata: 'Metadata', Request: 'Request', RequestResponse: 'RequestResponse' } as const;
export type Level = (typeof Level)[keyof typeof Level];
export const LEVELS: readonly Level[] = [Level.None, Level.Metadata, Level.Request, Level.RequestResponse];

/** Levels in order: a level records everything the ones before it record. */
export function levelAtLeast(level: Level, min: Level): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(min);
}

export const Stage = {
  RequestReceived: 'RequestReceived',
  ResponseStarted: 'ResponseStarted',
  ResponseComplete: 'ResponseComplete',
  Panic: 'Panic',
} as const;
export type Stage = (typeof Stage)[keyof typeof Stage];
export const STAGES: readonly Stage[] = [Stage.RequestReceived, Stage.ResponseStarted, Stage.ResponseComplete, Stage.Panic];

/** A set of stages as bits, so the per-request "is this stage omitted" check allocates nothing. */
export type StageSet = number;
export const stageBit = (s: Stage): number => 1 << STAGES.indexOf(s);
export function stageSet(stages: Iterable<Stage>): StageSet {
  let set = 0;
  for (const s of stages) set |= stageBit(s);
  return set;
}
export function stagesOf(set: StageSet): Stage[] {
  return STAGES.filter((s) => (set & stageBit(s)) !== 0);
}

/** The audit annotation keys this server writes. */
export const AuditAnnotation = {
  /** `allow` or `forbid`: the authorization decision of the request. */
  Decision: 'authorization.platform.io/decision',
  Reason: 'authorization.platform.io/reason',
  /** A request to a deprecated API version (spec, Versioning rule 10). */
  Deprecated: 'platform.io/deprecated',
  RemovedRelease: 'platform.io/removed-release',
  /** The event was too large for the backend: its request and response objects were dropped. */
  Truncated: 'audit.platform.io/truncated',
} as const;

/** Who made a request (authentication.platform.io/v1 UserInfo). */
export interface AuditUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** The bounded fields of the response's Status (upstream copies these and nothing else). */
export interface ResponseStatus {
  metadata: Record<string, never>;
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
  code: number;
}

/** One event as written (field order is upstream's). */
export interface EventJson {
  kind: 'Event';
  apiVersion: string;
  level: Level;
  auditID: string;
  stage: Stage;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: ObjectReference;
  responseStatus?: ResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}
