// AdmissionReview, the body of every webhook call, in `admission.platform.io/v1` or `v1beta1`:
// the request as the webhook sees it (its matched resource and kind, the original request's as
// requestKind/requestResource), and the checks a response must pass before it is believed
// (upstream's VerifyAdmissionResponse: v1 answers must name the same kind and version and echo the
// request's uid; a patch must say JSONPatch). A response that fails them is the webhook's failure,
// handled by its failure policy like a call that never came back.

import type { Status, StatusDetails } from '../../../../shared/api/status.js';
import type { ApiObject } from '../../../../shared/api/types.js';
import type { AdmissionRequest } from '../../../../shared/bus/messages.js';
import type { Invocation } from './invocation.js';
import type { ReviewVersion } from './webhooks.js';
import type { ConditionRequest } from '../../../../shared/registry/builtin/admissionregistration/match-conditions.js';

export const REVIEW_GROUP = 'admission.platform.io';
/** Upstream's spelling, accepted in answers: webhook libraries echo the version they were sent, or upstream's. */
const UPSTREAM_REVIEW_GROUP = 'admission.k8s.io';
export const PATCH_TYPE_JSON_PATCH = 'JSONPatch';

/** The object and old object in the version the webhook matched. */
export interface VersionedObjects {
  object: ApiObject | null;
  oldObject: ApiObject | null;
}

export function reviewRequest(version: ReviewVersion, uid: string, inv: Invocation, req: AdmissionRequest, objects: VersionedObjects): Record<string, unknown> {
  const { dryRun, options, ...head } = requestAttributes(inv, req);
  const request: Record<string, unknown> = { uid, ...head, object: objects.object, oldObject: objects.oldObject, dryRun, options: options ?? null };
  return { apiVersion: `${REVIEW_GROUP}/${version}`, kind: 'AdmissionReview', request };
}

/** The request's attributes as a webhook sees them, without uid and objects (also match conditions' `request`). */
export function requestAttributes(inv: Invocation, req: AdmissionRequest): ConditionRequest {
  const user: Record<string, unknown> = { username: req.userInfo.username };
  if (req.userInfo.uid) user.uid = req.userInfo.uid;
  if (req.userInfo.groups?.length) user.groups = req.userInfo.groups;
  if (req.userInfo.extra && Object.keys(req.userInfo.extra).length) user.extra = req.userInfo.extra;
  return {
    kind: inv.kind,
    resource: inv.resource,
    ...(inv.subResource ? { subResource: inv.subResource } : {}),
    requestKind: req.kind,
    requestResource: req.resource,
    ...(req.subResource ? { requestSubResource: req.subResource } : {}),
    ...(req.name ? { name: req.name } : {}),
    ...(req.namespace ? { namespace: req.namespace } : {}),
    operation: req.operation,
    userInfo: user,
    dryRun: req.dryRun,
    ...(req.options ? { options: req.options } : {}),
  };
}

/** What a webhook answered, checked. */
export interface WebhookResponse {
  allowed: boolean;
  /** The rejection, as the webhook gave it (`code`, `message`, `reason`, `details`). */
  status?: Record<string, unknown>;
  /** The decoded JSON patch operations (mutating webhooks); absent or empty: no change. */
  patch?: unknown[];
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

/** A response that cannot be believed: the webhook's failure (failure policy applies). */
export class InvalidResponseError extends Error {
  override name = 'InvalidResponseError';
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseReviewResponse(version: ReviewVersion, uid: string, body: unknown, mutating: boolean): WebhookResponse {
  if (!isObj(body)) throw new InvalidResponseError('the response is not an AdmissionReview object');
  const response = body.response;
  if (!isObj(response)) throw new InvalidResponseError('webhook response was absent');
  if (version === 'v1') {
    const apiVersions = [`${REVIEW_GROUP}/v1`, `${UPSTREAM_REVIEW_GROUP}/v1`];
    if (!apiVersions.includes(String(body.apiVersion)) || body.kind !== 'AdmissionReview') {
      throw new InvalidResponseError(`expected webhook response of ${REVIEW_GROUP}/v1, Kind=AdmissionReview, got ${String(body.apiVersion ?? '')}, Kind=${String(body.kind ?? '')}`);
    }
    if (response.uid !== uid) throw new InvalidResponseError(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(response.uid ?? '')}`);
  }
  if (typeof response.allowed !== 'boolean' && response.allowed !== undefined) throw new InvalidResponseError('response.allowed must be a boolean');
  const out: WebhookResponse = { allowed: response.allowed === true, warnings: [], auditAnnotations: {} };
  if (isObj(response.status)) out.status = response.status;
  if (Array.isArray(response.warnings)) out.warnings = response.warnings.filter((w): w is string => typeof w === 'string');
  if (isObj(response.auditAnnotations)) {
    for (const [k, v] of Object.entries(response.auditAnnotations)) if (typeof v === 'string') out.auditAnnotations[k] = v;
  }
  const patch = response.patch;
  if (mutating && typeof patch === 'string' && patch !== '') {
    const patchType = typeof response.patchType === 'string' ? response.patchType : '';
    if (version === 'v1' && !patchType) throw new InvalidResponseError('webhook returned response.patch but not response.patchType');
    if (patchType && patchType !== PATCH_TYPE_JSON_PATCH) throw new InvalidResponseError(`webhook returned invalid response.patchType of ${JSON.stringify(patchType)}`);
    let ops: unknown;
    try {
      ops = JSON.parse(Buffer.from(patch, 'base64').toString('utf8'));
    } catch {
      throw new InvalidResponseError('received undecodable patch in webhook response: not base64-encoded JSON');
    }
    if (!Array.isArray(ops)) throw new InvalidResponseError('received undecodable patch in webhook response: a JSON patch must be an array of operations');
    out.patch = ops;
  }
  return out;
}

/** The code a refusing webhook gave in its answer's status, as given; 0 when it gave none (what the rejection metric records). */
export function givenCode(given: Record<string, unknown> | undefined): number {
  return typeof given?.code === 'number' && Number.isFinite(given.code) ? Math.trunc(given.code) : 0;
}

/** The Status a refusing webhook's answer becomes (upstream's ToStatusErr): never below 400, its message prefixed. */
export function rejectionStatus(webhook: string, given: Record<string, unknown> | undefined): Status {
  const deniedBy = `admission webhook ${JSON.stringify(webhook)} denied the request`;
  const code = Math.max(givenCode(given), 400);
  const message = typeof given?.message === 'string' ? given.message : '';
  const reason = typeof given?.reason === 'string' ? given.reason : '';
  const status: Status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: message ? `${deniedBy}: ${message}` : reason ? `${deniedBy}: ${reason}` : `${deniedBy} without explanation`,
    reason,
    code,
  };
  if (isObj(given?.details)) status.details = given.details as StatusDetails;
  return status;
}
