// Every NATS subject of every contract, in one place. The version token lets a new contract run
// beside an old one during a rolling upgrade.

export const BUS_VERSION = 'v1';
const root = `platform.${BUS_VERSION}`;

/** Service names double as queue groups and as `$SRV.PING.<name>` targets for readiness checks. */
export const ServiceName = {
  storage: 'platform-storage',
  authn: 'platform-authn',
  authz: 'platform-authz',
  admission: 'platform-admission',
} as const;
export type ServiceName = (typeof ServiceName)[keyof typeof ServiceName];

/** The discovery subjects every `@nats-io/services` service answers. */
export const serviceSubjects = {
  ping: (name: string) => `$SRV.PING.${name}`,
  info: (name: string) => `$SRV.INFO.${name}`,
  stats: (name: string) => `$SRV.STATS.${name}`,
};

/** Group prefixes under which each service adds its endpoints. */
export const SubjectGroup = {
  storage: `${root}.storage`,
  authn: `${root}.authn`,
  authz: `${root}.authz`,
  admission: `${root}.admission`,
} as const;

export const Subjects = {
  storageCreate: `${SubjectGroup.storage}.create`,
  storageUpdate: `${SubjectGroup.storage}.update`,
  storageDelete: `${SubjectGroup.storage}.delete`,
  storageGet: `${SubjectGroup.storage}.get`,
  authnAuthenticate: `${SubjectGroup.authn}.authenticate`,
  authnInterest: `${SubjectGroup.authn}.interest`,
  authnIssueToken: `${SubjectGroup.authn}.issuetoken`,
  authzAuthorize: `${SubjectGroup.authz}.authorize`,
  authzRules: `${SubjectGroup.authz}.rules`,
  authzEscalation: `${SubjectGroup.authz}.escalation`,
  /** The authorization modes in use (the gateway turns anonymous access off under AlwaysAllow). */
  authzInterest: `${SubjectGroup.authz}.interest`,
  admissionAdmit: `${SubjectGroup.admission}.admit`,
  admissionInterest: `${SubjectGroup.admission}.interest`,
  /** Published (no reply) when a plugin's match changed (webhook configurations): callers re-read the interest at once. */
  admissionInterestChanged: `${SubjectGroup.admission}.interestchanged`,
} as const;

/**
 * Requests that change nothing, so sending one again is harmless: when the replica that took one
 * vanishes without answering (killed mid-request), the caller asks once more and another replica
 * answers. Writes are never resent (a lost reply may hide a write that happened).
 */
export const IDEMPOTENT_SUBJECTS: ReadonlySet<string> = new Set([
  Subjects.storageGet,
  Subjects.authnAuthenticate,
  Subjects.authnInterest,
  Subjects.authzAuthorize,
  Subjects.authzRules,
  Subjects.authzEscalation,
  Subjects.authzInterest,
  Subjects.admissionInterest,
]);

/** The endpoint name is the last token of its subject. */
export function endpointName(subject: string): string {
  return subject.slice(subject.lastIndexOf('.') + 1);
}

/** Header carrying the Status code on an error reply (set by `@nats-io/services` respondError). */
export const ERROR_CODE_HEADER = 'Nats-Service-Error-Code';
