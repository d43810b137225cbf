// PodSecurityPolicy (deprecated in 1.21, off by default): a pod is admitted only under a policy
// that the requesting user, or the pod's service account, may `use` (policy group, in the pod's
// namespace). On create the pod may be defaulted by a policy, but a policy that admits it as it
// is wins over one that would change it; each candidate is tried in name order and the admitting
// policy's name is recorded in the pod's `platform.io/psp` annotation. The validating phase (create
// and update) accepts only a pod that some usable policy admits without a change, trying the one
// that admitted it first. A rejection lists what every usable policy found wrong.

import type { ApiObject, UserInfo } from '../../../../shared/api/types.js';
import { AdmissionOperation, Decision, type AdmissionRequest, type AuthzAttributes, type AuthzReply } from '../../../../shared/bus/messages.js';
import type { Logger } from '../../../../shared/log.js';
import { serviceAccountUsername } from '../../../../shared/serviceaccount/tokens.js';
import { admissionForbidden } from '../../errors.js';
import type { ObjectCache } from '../../object-cache.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';
import { errorListText, type PspFieldError } from './field-errors.js';
import { StrategyError } from './id-strategies.js';
import { setAnnotation, sameJson, type Pod } from './pod.js';
import { Provider, type PodSecurityPolicyObject } from './provider.js';
import { cloneJson } from '../../../../shared/patch/json-value.js';

export const POD_SECURITY_POLICY = 'PodSecurityPolicy';
/** The policy that admitted a pod (upstream's `kubernetes.io/psp`). */
export const VALIDATED_PSP_ANNOTATION = 'platform.io/psp';
export const PSP_AUDIT_PREFIX = 'podsecuritypolicy.policy.platform.io';
export const PSP_GROUP = 'policy';
/** Grants written for the group PodSecurityPolicy lived in before `policy` still count, as upstream. */
const LEGACY_PSP_GROUP = 'extensions';
export const PSP_RESOURCE = 'podsecuritypolicies';

export const POD_SECURITY_POLICY_MATCH: PluginMatch = {
  operations: [AdmissionOperation.Create, AdmissionOperation.Update],
  resources: [{ group: '', resource: 'pods' }],
};

export type Authorize = (attrs: AuthzAttributes) => Promise<AuthzReply>;

export interface PodSecurityPolicyDeps {
  policies: ObjectCache;
  authorize: Authorize;
  log?: Logger;
}

/** The identity the pod's service account would have (no `system:authenticated`, as upstream). */
export function serviceAccountUser(namespace: string, name: string): UserInfo {
  return { username: serviceAccountUsername(namespace, name), groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`] };
}

/**
 * Who may use which policy, asked of the authorizer once per policy and identity within one
 * request and never remembered beyond it, so a revoked grant takes effect at once.
 */
class PolicyAccess {
  private readonly answers = new Map<string, Promise<boolean>>();
  /** The first time the authorizer could not be asked at all. */
  failure: unknown;

  constructor(
    private readonly authorize: Authorize,
    private readonly user: UserInfo,
    private readonly serviceAccount: UserInfo | undefined,
    private readonly namespace: string,
  ) {}

  /** The service account first, as upstream (the common case), then the requesting user. */
  usable(policy: string): Promise<boolean> {
    let answer = this.answers.get(policy);
    if (!answer) {
      answer = (async () => (this.serviceAccount !== undefined && (await this.mayUse(this.serviceAccount, policy))) || (await this.mayUse(this.user, policy)))();
      this.answers.set(policy, answer);
    }
    return answer;
  }

  private async mayUse(user: UserInfo, policy: string): Promise<boolean> {
    for (const apiGroup of [PSP_GROUP, LEGACY_PSP_GROUP]) {
      const attrs: AuthzAttributes = { user, verb: 'use', isResourceRequest: true, path: '', apiGroup, apiVersion: '*', resource: PSP_RESOURCE, namespace: this.namespace, name: policy };
      try {
        if ((await this.authorize(attrs)).decision === Decision.Allow) return true;
      } catch (err) {
        this.failure ??= err;
      }
    }
    return false;
  }
}

interface Outcome {
  /** The pod as the chosen policy leaves it; absent when no usable policy admits it. */
  pod?: Pod;
  policy?: string;
  errors: PspFieldError[];
}

const isOnlyMetadataBookkeeping = (obj: ApiObject, old: ApiObject): boolean => {
  // Garbage collection rewrites owners and finalizers of pods it may delete anyway; such an
  // update changes nothing the policy governs (upstream's IsOnlyMutatingGCFields). The field
  // manager's own bookkeeping and the version are not the client's change either.
  const copy = { ...obj, metadata: { ...obj.metadata } };
  for (const k of ['ownerReferences', 'finalizers', 'managedFields', 'resourceVersion', 'selfLink']) {
    if (old.metadata[k] === undefined) delete copy.metadata[k];
    else copy.metadata[k] = old.metadata[k];
  }
  return sameJson(copy, old);
};

function ignored(req: AdmissionRequest): boolean {
  if (req.resource.group !== '' || req.resource.resource !== 'pods' || req.subResource) return true;
  if (!req.object) return true;
  return req.operation === AdmissionOperation.Update && !!req.oldObject && isOnlyMetadataBookkeeping(req.object, req.oldObject);
}

/** Chooses the policy that admits a pod, from the policies the user or the pod's account may use. */
class PolicyChooser {
  private readonly providers = new WeakMap<object, Provider | null>();

  constructor(private readonly deps: PodSecurityPolicyDeps) {}

  async choose(req: AdmissionRequest, pod: Pod, mutationAllowed: boolean, hint: string): Promise<Outcome> {
    const deps = this.deps;
    await deps.policies.ready();
    const namespace = req.namespace ?? '';
    const saName = pod.spec?.serviceAccountName;
    const access = new PolicyAccess(deps.authorize, req.userInfo, typeof saName === 'string' && saName ? serviceAccountUser(namespace, saName) : undefined, namespace);
    const byName = (a: Provider, b: Provider): number => {
      if (!mutationAllowed && hint) {
        if (a.name === hint) return b.name === hint ? 0 : -1;
        if (b.name === hint) return 1;
      }
      return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
    };
    const candidates = deps.policies
      .list()
      .map((psp) => this.providerFor(psp))
      .filter((p): p is Provider => p !== null)
      .sort(byName);
    if (!candidates.length) throw admissionForbidden(req, 'PodSecurityPolicy: no providers available to validate pod request');

    const failed: Array<[string, PspFieldError[]]> = [];
    let mutatedPick: { pod: Pod; policy: string } | undefined;
    for (const provider of candidates) {
      const copy = cloneJson(pod);
      provider.mutatePod(copy);
      const errors = provider.validatePod(copy);
      if (errors.length) {
        failed.push([provider.name, errors]);
        continue;
      }
      const mutated = !sameJson(pod, copy);
      if (mutated && (!mutationAllowed || mutatedPick)) continue;
      if (!(await access.usable(provider.name))) continue;
      if (!mutated) return { pod: copy, policy: provider.name, errors: [] };
      mutatedPick = { pod: copy, policy: provider.name };
    }
    if (mutatedPick) return { ...mutatedPick, errors: [] };

    // Rejected: report only what the policies this user or account may use found wrong.
    const errors: PspFieldError[] = [];
    for (const [policy, errs] of failed) if (await access.usable(policy)) errors.push(...errs);
    // When the authorizer could not be asked, say so (503/504, retriable) rather than blame the pod.
    if (access.failure !== undefined) throw access.failure;
    return { errors };
  }

  /** The policy's provider, built once per stored version of it (a changed policy is a new object). */
  private providerFor(psp: ApiObject): Provider | null {
    let p = this.providers.get(psp);
    if (p === undefined) {
      try {
        p = new Provider(psp as PodSecurityPolicyObject);
      } catch (err) {
        if (!(err instanceof StrategyError)) throw err;
        this.deps.log?.debug({ policy: psp.metadata.name, err: err.message }, 'PodSecurityPolicy skipped: its rules cannot be applied');
        p = null;
      }
      this.providers.set(psp, p);
    }
    return p;
  }
}

export function createPodSecurityPolicy(deps: PodSecurityPolicyDeps): AdmissionPlugin {
  const chooser = new PolicyChooser(deps);
  return {
    name: POD_SECURITY_POLICY,
    match: POD_SECURITY_POLICY_MATCH,

    async mutate(req, ctx) {
      if (req.operation !== AdmissionOperation.Create || ignored(req)) return;
      const outcome = await chooser.choose(req, req.object as Pod, true, '');
      if (!outcome.pod || !outcome.policy) throw admissionForbidden(req, `PodSecurityPolicy: unable to admit pod: ${errorListText(outcome.errors)}`);
      setAnnotation(outcome.pod, VALIDATED_PSP_ANNOTATION, outcome.policy);
      ctx.annotate(`${PSP_AUDIT_PREFIX}/admit-policy`, outcome.policy);
      return outcome.pod as unknown as ApiObject;
    },

    async validate(req, ctx) {
      if (ignored(req)) return;
      const pod = req.object as Pod;
      const hint = pod.metadata?.annotations?.[VALIDATED_PSP_ANNOTATION] ?? '';
      const outcome = await chooser.choose(req, pod, false, hint);
      if (outcome.pod && outcome.policy !== undefined && sameJson(pod, outcome.pod)) {
        ctx.annotate(`${PSP_AUDIT_PREFIX}/validate-policy`, outcome.policy);
        return;
      }
      throw admissionForbidden(req, `PodSecurityPolicy: unable to validate pod: ${errorListText(outcome.errors)}`);
    },
  };
}

export const podSecurityPolicyPlugin: PluginDefinition = {
  name: POD_SECURITY_POLICY,
  defaultEnabled: false,
  create: (deps) => createPodSecurityPolicy({ policies: deps.objects('policy', PSP_RESOURCE), authorize: (attrs) => deps.authorize(attrs), log: deps.log }),
};
