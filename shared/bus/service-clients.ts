// The other services' ports (shared/contracts/authn.ts, authz.ts, admission.ts) over NATS: each
// call is one request on the service's subject. No responders is 503, no reply in time 504, an
// error reply the Status it carries (client.ts).

import type { NatsConnection } from '@nats-io/nats-core';
import type { NamespaceFacts } from '../api/admission-match.js';
import type { AdmissionPort, AdmissionReply } from '../contracts/admission.js';
import type { AuthnPort, TokenIssueReply } from '../contracts/authn.js';
import type { AuthzPort, EscalationCheckReply, RulesReviewReply } from '../contracts/authz.js';
import { requestAuthentication, requestAuthorization } from './auth-messages.js';
import { busRequest, DEFAULT_BUS_TIMEOUT_MS } from './client.js';
import type { AdmissionInterestCache } from './service-interest.js';
import { Subjects } from './subjects.js';

/** The authn service, each request given `timeoutMs` to answer. */
export function natsAuthn(nc: NatsConnection, timeoutMs = DEFAULT_BUS_TIMEOUT_MS): AuthnPort {
  return {
    authenticate: (request) => requestAuthentication(nc, request, timeoutMs),
    issueToken: (request) => busRequest<TokenIssueReply>(nc, Subjects.authnIssueToken, request, timeoutMs),
  };
}

/** The authz service, each request given `timeoutMs` to answer. */
export function natsAuthz(nc: NatsConnection, timeoutMs = DEFAULT_BUS_TIMEOUT_MS): AuthzPort {
  return {
    authorize: (attrs) => requestAuthorization(nc, attrs, timeoutMs),
    reviewRules: (request) => busRequest<RulesReviewReply>(nc, Subjects.authzRules, request, timeoutMs),
    checkEscalation: (request) => busRequest<EscalationCheckReply>(nc, Subjects.authzEscalation, request, timeoutMs),
  };
}

/**
 * The admission service. A phase no plugin or webhook is interested in (as `interest` last heard
 * it, with `facts`, the gateway's watch cache, ruling out plugins by their namespace condition) is
 * not asked. `timeoutMs` is the bus's usual deadline; a phase whose plugins call out (webhooks in
 * sequence, each allowed up to 30 s) is waited for that much longer, up to upstream's 60 s request
 * timeout, while one whose plugins only decide locally keeps the usual deadline, so a replica that
 * vanished mid-request costs seconds, not a minute. A request's own deadline cuts either short.
 */
export function natsAdmission(nc: NatsConnection, interest: AdmissionInterestCache, timeoutMs: number, facts?: NamespaceFacts): AdmissionPort {
  return {
    async admit(request, deadline) {
      const { phase, operation, resource, userInfo, namespace } = request;
      const deadlineMs = interest.deadlineMs(phase, operation, resource.group, resource.resource, userInfo.groups, timeoutMs, namespace, facts);
      if (deadlineMs === null) return null;
      return busRequest<AdmissionReply>(nc, Subjects.admissionAdmit, request, deadlineMs, deadline);
    },
  };
}
