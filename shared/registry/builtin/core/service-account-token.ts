// TokenRequest (`POST serviceaccounts/<name>/token`): a bound service-account token issued by the
// authn service. Admission sees it like any create (NodeRestriction: a node's token must be bound
// to a pod on that node): the mutating phase on the object as posted, as upstream, then the
// validating phase once the request is known to be valid.

import type { ApiObject } from '../../../api/types.js';
import { badRequest, conflict, invalid, notFound, type FieldError } from '../../../api/status.js';
import { nowTimestamp } from '../../../api/time.js';
import { AUTHENTICATION_GROUP, upstreamSpelling } from '../../../api/groups.js';
import { podServiceAccount } from '../../../api/node-references.js';
import { AdmissionOperation, AdmissionPhase } from '../../../contracts/admission.js';
import type { TokenIssueRequest } from '../../../contracts/authn.js';
import type { RestAction } from '../../types.js';
import { invalidValue, required, unsupported } from '../../../api/field-errors.js';

const TOKEN_REQUEST_KIND = { group: AUTHENTICATION_GROUP, version: 'v1', kind: 'TokenRequest' };
const MIN_TOKEN_SECONDS = 600;
const MAX_TOKEN_SECONDS = 2 ** 32;
export const DEFAULT_TOKEN_SECONDS = 3607;

type TokenRequestObject = ApiObject & { spec?: { audiences?: unknown; expirationSeconds?: unknown; boundObjectRef?: Record<string, unknown> } };

function validateTokenRequest(tr: TokenRequestObject, name: string, namespace: string): FieldError[] {
  const spec = tr.spec ?? {};
  const errs: FieldError[] = [];
  const audiences = spec.audiences ?? [];
  if (!Array.isArray(audiences) || audiences.some((a) => typeof a !== 'string')) errs.push(invalidValue('spec.audiences', undefined, 'must be a list of strings'));
  const seconds = spec.expirationSeconds ?? DEFAULT_TOKEN_SECONDS;
  if (typeof seconds !== 'number' || !Number.isInteger(seconds)) errs.push(invalidValue('spec.expirationSeconds', seconds, 'must be an integer'));
  else if (seconds < MIN_TOKEN_SECONDS) errs.push(invalidValue('spec.expirationSeconds', seconds, 'may not specify a duration less than 10 minutes'));
  else if (seconds > MAX_TOKEN_SECONDS) errs.push(invalidValue('spec.expirationSeconds', seconds, 'may not specify a duration larger than 2^32 seconds'));
  const bound = spec.boundObjectRef;
  if (bound && !['Pod', 'Secret'].includes(String(bound.kind))) errs.push(unsupported('spec.boundObjectRef.kind', bound.kind, ['Pod', 'Secret']));
  if (bound && !bound.name) errs.push(required('spec.boundObjectRef.name'));
  // The object names the service account the URL names, or nothing.
  const meta = tr.metadata ?? {};
  if (meta.name && meta.name !== name) errs.push(invalidValue('metadata.name', meta.name, 'must match the service account name if specified'));
  if (meta.namespace && meta.namespace !== namespace) errs.push(invalidValue('metadata.namespace', meta.namespace, 'must match the service account namespace if specified'));
  return errs;
}

export const tokenRequestAction: RestAction = {
  verbs: ['create'],
  async handle(req, cluster) {
    const { name, namespace } = req;
    const body = req.decodedBody();
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the body of a token request must be a TokenRequest object');
    const posted = body as ApiObject;
    if (posted.kind !== undefined && posted.kind !== 'TokenRequest') throw badRequest(`expected a TokenRequest, got ${String(posted.kind)}`);
    const tr = (await cluster.admit(AdmissionPhase.Mutating, AdmissionOperation.Create, { ...posted, metadata: posted.metadata ?? {} }, null, TOKEN_REQUEST_KIND)) as TokenRequestObject;
    const errs = validateTokenRequest(tr, name, namespace);
    if (errs.length) throw invalid('TokenRequest', AUTHENTICATION_GROUP, name, errs);
    await cluster.admit(AdmissionPhase.Validating, AdmissionOperation.Create, tr, null, TOKEN_REQUEST_KIND);
    const spec = tr.spec ?? {};
    const seconds = (spec.expirationSeconds ?? DEFAULT_TOKEN_SECONDS) as number;

    const sa = await cluster.get('', 'serviceaccounts', namespace, name);
    if (!sa) throw notFound({ group: '', resource: 'serviceaccounts' }, name);
    const issue: TokenIssueRequest = {
      serviceAccount: { namespace, name, uid: sa.metadata.uid ?? '' },
      audiences: (spec.audiences ?? []) as string[],
      expirationSeconds: seconds,
    };
    const bound = spec.boundObjectRef;
    if (bound) {
      const kind = bound.kind as 'Pod' | 'Secret';
      const resource = kind === 'Pod' ? 'pods' : 'secrets';
      const target = await cluster.get('', resource, namespace, String(bound.name));
      if (!target) throw notFound({ group: '', resource }, String(bound.name));
      if (bound.uid && bound.uid !== target.metadata.uid) {
        throw conflict(
          { group: '', resource },
          String(bound.name),
          `the UID in the bound object reference (${String(bound.uid)}) does not match the UID in record (${target.metadata.uid ?? ''}). The object might have been deleted and then recreated`,
        );
      }
      if (target.metadata.deletionTimestamp) throw badRequest(`the ${kind.toLowerCase()} ${JSON.stringify(bound.name)} is being deleted`);
      // A pod-bound token speaks for the pod's own account only.
      if (kind === 'Pod' && podServiceAccount(target) !== name) {
        throw badRequest(`cannot bind token for serviceaccount ${JSON.stringify(name)} to pod running with different serviceaccount name.`);
      }
      issue.boundObject = { kind, apiVersion: 'v1', name: String(bound.name), uid: target.metadata.uid ?? '' };
    }
    const issued = await cluster.authn.issueToken(issue);
    // Answered in the spelling of the group the client posted (kubectl's typed client posts upstream's).
    const upstream = upstreamSpelling(AUTHENTICATION_GROUP)!;
    const apiVersion = posted.apiVersion === `${upstream}/v1` && cluster.servesGroup(upstream) ? `${upstream}/v1` : `${AUTHENTICATION_GROUP}/v1`;
    if (issued.expirationSeconds < seconds) req.warnings.push(`requested expiration of ${String(seconds)} seconds shortened to ${issued.expirationSeconds} seconds`);
    const outSpec: Record<string, unknown> = { audiences: issued.audiences, expirationSeconds: issued.expirationSeconds };
    if (issue.boundObject) outSpec.boundObjectRef = issue.boundObject;
    return {
      code: 201,
      body: {
        apiVersion,
        kind: 'TokenRequest',
        metadata: { name, namespace, creationTimestamp: nowTimestamp() },
        spec: outSpec,
        status: { token: issued.token, expirationTimestamp: issued.expirationTimestamp },
      },
    };
  },
};
