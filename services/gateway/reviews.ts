// The create-only API kinds that are answered, never stored: TokenReview and SelfSubjectReview
// (authentication), the four access reviews (authorization), and TokenRequest
// (`serviceaccounts/<name>/token`). Each turns the posted object into a question for the authn or
// authz service and returns the object with its `status` filled in.

import type { NatsConnection } from '@nats-io/nats-core';
import type { ApiObject, UserInfo } from '../../shared/api/types.js';
import { badRequest, conflict, invalid, notFound, type FieldError } from '../../shared/api/status.js';
import { busRequest } from '../../shared/bus/client.js';
import { parseWriteOptions } from '../../shared/api/query.js';
import { Subjects } from '../../shared/bus/subjects.js';
import {
  AdmissionOperation,
  AdmissionPhase,
  type AdmissionRequest,
  type AuthnReply,
  type AuthnRequest,
  type AuthzAttributes,
  type AuthzReply,
  type RulesReviewReply,
  type RulesReviewRequest,
  type TokenIssueReply,
  type TokenIssueRequest,
} from '../../shared/bus/messages.js';
import { decodeBody } from '../../shared/api/decode.js';
import { podServiceAccount } from '../../shared/api/node-references.js';
import { json, type Reply } from './reply.js';
import type { RequestContext, ResourceHandlers } from './handlers.js';

const TOKEN_REQUEST_API_VERSION = 'authentication.platform.io/v1';
const TOKEN_REQUEST_KIND: AdmissionRequest['kind'] = { group: 'authentication.platform.io', version: 'v1', kind: 'TokenRequest' };
const MIN_TOKEN_SECONDS = 600;
const MAX_TOKEN_SECONDS = 2 ** 32;
export const DEFAULT_TOKEN_SECONDS = 3607;

interface ResourceAttributesSpec {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

interface AccessReviewSpec {
  resourceAttributes?: ResourceAttributesSpec;
  nonResourceAttributes?: { path?: string; verb?: string };
  user?: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

/** The authorization attributes an access review asks about. */
export function reviewAttributes(user: UserInfo, spec: AccessReviewSpec): AuthzAttributes {
  const r = spec.resourceAttributes;
  if (r) {
    const a: AuthzAttributes = { user, verb: r.verb ?? '', isResourceRequest: true, path: '', apiGroup: r.group ?? '', resource: r.resource ?? '' };
    if (r.version) a.apiVersion = r.version;
    if (r.subresource) a.subresource = r.subresource;
    if (r.namespace) a.namespace = r.namespace;
    if (r.name) a.name = r.name;
    return a;
  }
  const n = spec.nonResourceAttributes ?? {};
  return { user, verb: n.verb ?? '', isResourceRequest: false, path: n.path ?? '' };
}

/** The user a SubjectAccessReview names (not the caller). */
export function reviewedUser(spec: AccessReviewSpec): UserInfo {
  const u: UserInfo = { username: spec.user ?? '', groups: spec.groups ?? [] };
  if (spec.uid) u.uid = spec.uid;
  if (spec.extra && Object.keys(spec.extra).length) u.extra = spec.extra;
  return u;
}

export class Reviews {
  constructor(
    private readonly nc: NatsConnection,
    private readonly handlers: ResourceHandlers,
    private readonly busTimeoutMs: number,
  ) {}

  /** POST of a virtual kind. */
  async create(ctx: RequestContext): Promise<Reply> {
    const obj = this.handlers.decodeVirtual(ctx);
    const spec = (obj.spec ?? {}) as AccessReviewSpec;
    switch (ctx.target.kind) {
      case 'TokenReview':
        return this.tokenReview(obj);
      case 'SelfSubjectReview':
        return json(201, { ...obj, status: { userInfo: ctx.user } });
      case 'SubjectAccessReview':
      case 'LocalSubjectAccessReview':
        return this.accessReview(obj, reviewAttributes(reviewedUser(spec), spec));
      case 'SelfSubjectAccessReview':
        return this.accessReview(obj, reviewAttributes(ctx.user, spec));
      case 'SelfSubjectRulesReview':
        return this.rulesReview(obj, ctx.user);
      default:
        throw badRequest(`${ctx.target.kind} cannot be created here`);
    }
  }

  private async tokenReview(obj: ApiObject): Promise<Reply> {
    const spec = (obj.spec ?? {}) as { token?: string; audiences?: string[] };
    if (!spec.token) throw badRequest('token is required for TokenReview in authentication');
    const req: AuthnRequest = { token: spec.token };
    if (spec.audiences?.length) req.audiences = spec.audiences;
    const reply = await busRequest<AuthnReply>(this.nc, Subjects.authnAuthenticate, req, this.busTimeoutMs);
    const status: Record<string, unknown> = { authenticated: reply.authenticated };
    if (reply.authenticated && reply.user) {
      status.user = reply.user;
      const audiences = reply.audiences ?? spec.audiences;
      if (audiences?.length) status.audiences = audiences;
    } else {
      status.user = {};
      if (reply.error) status.error = reply.error;
    }
    // The token is the caller's secret: it is not echoed back.
    return json(201, { ...obj, spec: { ...spec, token: '' }, status });
  }

  private async accessReview(obj: ApiObject, attrs: AuthzAttributes): Promise<Reply> {
    const reply = await busRequest<AuthzReply>(this.nc, Subjects.authzAuthorize, attrs, this.busTimeoutMs);
    const status: Record<string, unknown> = { allowed: reply.decision === 'Allow' };
    // `denied` is set only when a module actively denied, not when nobody had an opinion.
    if (reply.decision === 'Deny' && reply.decidedBy !== undefined) status.denied = true;
    if (reply.reason) status.reason = reply.reason;
    if (reply.evaluationError) status.evaluationError = reply.evaluationError;
    return json(201, { ...obj, status });
  }

  private async rulesReview(obj: ApiObject, user: UserInfo): Promise<Reply> {
    const namespace = (obj.spec as { namespace?: string } | undefined)?.namespace ?? '';
    if (!namespace) throw badRequest('no namespace on request');
    const req: RulesReviewRequest = { user, namespace };
    const reply = await busRequest<RulesReviewReply>(this.nc, Subjects.authzRules, req, this.busTimeoutMs);
    return json(201, { ...obj, status: reply });
  }

  /** POST serviceaccounts/<name>/token: a bound service-account token. */
  async tokenRequest(ctx: RequestContext): Promise<Reply> {
    const { info } = ctx;
    const namespace = info.namespace!;
    const body = ctx.body && ctx.body.length ? (ctx.decoded ?? decodeBody(ctx.body, ctx.contentType ?? 'application/json')).value : null;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the body of a token request must be a TokenRequest object');
    const posted = body as ApiObject;
    if (posted.kind !== undefined && posted.kind !== 'TokenRequest') throw badRequest(`expected a TokenRequest, got ${String(posted.kind)}`);
    // Admission sees a TokenRequest like any create (NodeRestriction: a node's token must be bound
    // to a pod on that node): the mutating phase on the object as posted, as upstream, then the
    // validating phase once the request is known to be valid.
    const dryRun = parseWriteOptions(ctx.query).dryRun;
    const admit = (phase: AdmissionRequest['phase'], obj: ApiObject) => this.handlers.admit(ctx, phase, AdmissionOperation.Create, obj, null, dryRun, info.name, TOKEN_REQUEST_KIND);
    const tr = (await admit(AdmissionPhase.Mutating, { ...posted, metadata: posted.metadata ?? {} })) as ApiObject & { spec?: { audiences?: unknown; expirationSeconds?: unknown; boundObjectRef?: Record<string, unknown> } };
    const spec = tr.spec ?? {};
    const errs: FieldError[] = [];
    const audiences = spec.audiences ?? [];
    if (!Array.isArray(audiences) || audiences.some((a) => typeof a !== 'string')) errs.push({ type: 'Invalid value', field: 'spec.audiences', detail: 'must be a list of strings' });
    const seconds = spec.expirationSeconds ?? DEFAULT_TOKEN_SECONDS;
    if (typeof seconds !== 'number' || !Number.isInteger(seconds)) errs.push({ type: 'Invalid value', field: 'spec.expirationSeconds', value: seconds, detail: 'must be an integer' });
    else if (seconds < MIN_TOKEN_SECONDS) errs.push({ type: 'Invalid value', field: 'spec.expirationSeconds', value: seconds, detail: 'may not specify a duration less than 10 minutes' });
    else if (seconds > MAX_TOKEN_SECONDS) errs.push({ type: 'Invalid value', field: 'spec.expirationSeconds', value: seconds, detail: 'may not specify a duration larger than 2^32 seconds' });
    const bound = spec.boundObjectRef;
    if (bound && !['Pod', 'Secret'].includes(String(bound.kind))) errs.push({ type: 'Unsupported value', field: 'spec.boundObjectRef.kind', value: bound.kind, detail: 'supported values: "Pod", "Secret"' });
    if (bound && !bound.name) errs.push({ type: 'Required value', field: 'spec.boundObjectRef.name', detail: '' });
    // The object names the service account the URL names, or nothing.
    const meta = tr.metadata ?? {};
    if (meta.name && meta.name !== info.name) errs.push({ type: 'Invalid value', field: 'metadata.name', value: meta.name, detail: 'must match the service account name if specified' });
    if (meta.namespace && meta.namespace !== namespace) errs.push({ type: 'Invalid value', field: 'metadata.namespace', value: meta.namespace, detail: 'must match the service account namespace if specified' });
    if (errs.length) throw invalid('TokenRequest', 'authentication.platform.io', info.name, errs);
    await admit(AdmissionPhase.Validating, tr);

    const sa = await this.handlers.lookup('', 'serviceaccounts', namespace, info.name);
    if (!sa) throw notFound({ group: '', resource: 'serviceaccounts' }, info.name);
    const req: TokenIssueRequest = {
      serviceAccount: { namespace, name: info.name, uid: sa.metadata.uid ?? '' },
      audiences: audiences as string[],
      expirationSeconds: seconds as number,
    };
    if (bound) {
      const kind = bound.kind as 'Pod' | 'Secret';
      const resource = kind === 'Pod' ? 'pods' : 'secrets';
      const target = await this.handlers.lookup('', resource, namespace, String(bound.name));
      if (!target) throw notFound({ group: '', resource }, String(bound.name));
      if (bound.uid && bound.uid !== target.metadata.uid) {
        throw conflict({ group: '', resource }, String(bound.name), `the UID in the bound object reference (${String(bound.uid)}) does not match the UID in record (${target.metadata.uid ?? ''}). The object might have been deleted and then recreated`);
      }
      if (target.metadata.deletionTimestamp) throw badRequest(`the ${kind.toLowerCase()} ${JSON.stringify(bound.name)} is being deleted`);
      // A pod-bound token speaks for the pod's own account only.
      if (kind === 'Pod' && podServiceAccount(target) !== info.name) {
        throw badRequest(`cannot bind token for serviceaccount ${JSON.stringify(info.name)} to pod running with different serviceaccount name.`);
      }
      req.boundObject = { kind, apiVersion: 'v1', name: String(bound.name), uid: target.metadata.uid ?? '' };
    }
    const issued = await busRequest<TokenIssueReply>(this.nc, Subjects.authnIssueToken, req, this.busTimeoutMs);
    if (issued.expirationSeconds < (seconds as number)) ctx.warnings.push(`requested expiration of ${String(seconds)} seconds shortened to ${issued.expirationSeconds} seconds`);
    const outSpec: Record<string, unknown> = { audiences: issued.audiences, expirationSeconds: issued.expirationSeconds };
    if (req.boundObject) outSpec.boundObjectRef = req.boundObject;
    return json(201, {
      apiVersion: TOKEN_REQUEST_API_VERSION,
      kind: 'TokenRequest',
      metadata: { name: info.name, namespace, creationTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') },
      spec: outSpec,
      status: { token: issued.token, expirationTimestamp: issued.expirationTimestamp },
    });
  }
}
