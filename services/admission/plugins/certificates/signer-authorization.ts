// What the certificate plugins share: which requests concern CertificateSigningRequests, and the
// `signers` permission check (upstream's IsAuthorizedForSignerName) asked of the authz service:
// may the user <verb> the signer by its exact name, or else by `<domain>/*`?

import type { NatsConnection } from '@nats-io/nats-core';
import type { ApiObject, UserInfo } from '../../../../shared/api/types.js';
import { DEFAULT_BUS_TIMEOUT_MS } from '../../../../shared/bus/client.js';
import { requestAuthorization } from '../../../../shared/bus/auth-messages.js';
import { Decision, type AdmissionRequest, type AuthzAttributes, type AuthzReply } from '../../../../shared/bus/messages.js';
import { PLATFORM_NAMES, UPSTREAM_NAMES, type WellKnownNames } from '../../../../shared/api/well-known-names.js';

export const CERTIFICATES_GROUP = 'certificates.platform.io';
export const CSR_RESOURCE = 'certificatesigningrequests';

/** Asks the authorizer chain one question. */
export type Authorize = (attrs: AuthzAttributes) => Promise<AuthzReply>;

export function authorizeOverBus(nc: NatsConnection, timeoutMs = DEFAULT_BUS_TIMEOUT_MS): Authorize {
  return (attrs) => requestAuthorization(nc, attrs, timeoutMs);
}

export function isCsrRequest(req: AdmissionRequest): boolean {
  return req.resource.group === CERTIFICATES_GROUP && req.resource.resource === CSR_RESOURCE;
}

export function signerNameOf(obj: ApiObject | null): string {
  const name = (obj?.spec as { signerName?: unknown } | undefined)?.signerName;
  return typeof name === 'string' ? name : '';
}

export function signerAttributes(user: UserInfo, verb: string, name: string): AuthzAttributes {
  return { user, verb, isResourceRequest: true, path: '', apiGroup: CERTIFICATES_GROUP, apiVersion: '*', resource: 'signers', name };
}

/** The well-known names the gateway serves, as the request tells. */
export function namesOf(req: AdmissionRequest): WellKnownNames {
  return req.upstreamNames ? UPSTREAM_NAMES : PLATFORM_NAMES;
}

/**
 * Whether `user` may `verb` the signer: by its name or `<domain>/*`, or with upstream names on by
 * its twin's (`kubernetes.io/kube-apiserver-client` is `platform.io/apiserver-client`). When the authorizer could not be asked at all (no
 * responder, timeout) that error is thrown rather than a "no": the request is still refused,
 * but with a 503/504 the caller can retry instead of a 403 that blames their permissions.
 */
export async function authorizedForSigner(authorize: Authorize, user: UserInfo, verb: string, signerName: string, names: WellKnownNames = PLATFORM_NAMES): Promise<boolean> {
  let failure: unknown;
  for (const name of names.signerSpellings(signerName).flatMap((n) => [n, `${n.split('/')[0]!}/*`])) {
    try {
      if ((await authorize(signerAttributes(user, verb, name))).decision === Decision.Allow) return true;
    } catch (err) {
      failure ??= err;
    }
  }
  if (failure !== undefined) throw failure;
  return false;
}
