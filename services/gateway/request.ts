// What the filters learn about a request, carried on fastify's request as a typed decoration
// (`req.api`): set by the request-info filter, completed by authentication, impersonation and
// routing, read by the handlers, the audit filter and the metrics filter when the response is done.

import type { RequestInfo } from '../../shared/api/request-info.js';
import type { UserInfo } from '../../shared/api/types.js';
import type { Target } from '../../shared/registry/types.js';
import type { AuditRequest } from '../../shared/audit/event.js';
import type { Deadline } from '../../shared/api/deadline.js';

export interface ApiRequestState {
  /** performance.now() when the request arrived. */
  readonly startedAt: number;
  readonly auditId: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly info: RequestInfo;
  /** Who the request runs as (after impersonation). */
  user: UserInfo;
  /** The authenticated caller, when it impersonates `user` (both are recorded). */
  impersonator?: UserInfo;
  /** The served type a resource request addresses; undefined when none is served. */
  target?: Target;
  /** Accumulates `Warning` headers (299 "..."). */
  readonly warnings: string[];
  /** The request's audit record when the policy audits it (Metadata and above); null otherwise. */
  audit: AuditRequest | null;
  /** Why authentication failed (`Authentication failed, attempted: bearer`), for the audit of a 401. */
  failedAuthentication?: string;
  /** When a non-long-running request must be answered by (`--request-timeout`, `?timeout=`); none for watches and other long-running requests. */
  deadline?: Deadline;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Null until the request-info filter ran (a request fastify refused before any hook). */
    api: ApiRequestState | null;
  }
}

/** The user of a request no authenticator has looked at yet. */
export const NOBODY: UserInfo = Object.freeze({ username: '', groups: [] as string[] });
