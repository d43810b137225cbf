// PodSecurity (upstream's pod-security-admission, 1.24): each namespace's labels choose a level
// and version of the Pod Security Standards per mode. `enforce` refuses a violating pod; `audit`
// records the violation in the request's audit event; `warn` answers with a Warning header. Pod
// controllers and templates (Deployments, Jobs, …) are checked against their pod template for
// audit and warn only: enforcing there would leave a workload that never gets pods without saying
// why at creation, so the pods themselves are refused instead. A namespace update that tightens
// its enforce level is answered with warnings naming the pods already there that would be refused.
//
// Upstream's audit annotation keys are `pod-security.platform.io/<key>` here: `enforce-policy`
// (the policy a pod was checked against), `audit-violations`, `exempt` (user, namespace or
// runtimeClass) and `error`.

import { badRequest, fieldErrorMessage, internalError, invalid, StatusError, type FieldError } from '../../../../shared/api/status.js';
import type { ApiObject } from '../../../../shared/api/types.js';
import { AdmissionOperation, type AdmissionRequest } from '../../../../shared/bus/messages.js';
import type { Logger } from '../../../../shared/log.js';
import { admissionForbidden, requestObjectName } from '../../errors.js';
import type { ObjectCache } from '../../object-cache.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';
import { Evaluator, forbiddenDetail, forbiddenReason, SECCOMP_CONTAINER_ANNOTATION_PREFIX, SECCOMP_POD_ANNOTATION, type EvaluationResult } from './checks.js';
import { loadPodSecurityConfiguration, POD_SECURITY, type PodSecurityConfiguration } from './configuration.js';
import { PodSecurityMetrics } from './metrics.js';
import {
  aggregateFieldErrors,
  compareLevels,
  Level,
  levelVersionString,
  POD_SECURITY_PREFIX,
  PRIVILEGED_LATEST,
  policyToEvaluate,
  sameLevelVersion,
  type LevelVersion,
  type Policy,
  type PolicyResult,
} from './policy.js';

/** Upstream's bounds on checking a namespace's pods when its enforce level tightens. */
export const NAMESPACE_MAX_PODS_TO_CHECK = 3000;
export const NAMESPACE_POD_CHECK_TIMEOUT_MS = 1000;

export const ExemptionReason = { User: 'user', Namespace: 'namespace', RuntimeClass: 'runtimeClass' } as const;

/** Keys of the audit annotations (without the prefix the plugin adds). */
export const AnnotationKey = { Enforced: 'enforce-policy', AuditViolations: 'audit-violations', Exempt: 'exempt', Error: 'error' } as const;

type Json = Record<string, unknown>;
const rec = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** What the plugin decided, before it is turned into warnings, audit annotations or a refusal. */
export interface PodSecurityResponse {
  allowed: boolean;
  status?: StatusError;
  warnings: string[];
  /** Keys without the `pod-security.platform.io/` prefix. */
  auditAnnotations: Record<string, string>;
}

const allowed = (auditAnnotations: Record<string, string> = {}): PodSecurityResponse => ({ allowed: true, warnings: [], auditAnnotations });
const exempt = (reason: string): PodSecurityResponse => allowed({ [AnnotationKey.Exempt]: reason });
function refused(status: StatusError, auditAnnotations: Record<string, string> = {}): PodSecurityResponse {
  return { allowed: false, status, warnings: [], auditAnnotations };
}

// ---- which requests ----------------------------------------------------------------------------

const CORE = '';
const key = (group: string, resource: string): string => `${group}/${resource}`;

/** The resources carrying a pod template, and where it is in each. */
const TEMPLATE_PATHS: ReadonlyMap<string, readonly string[]> = new Map([
  [key(CORE, 'replicationcontrollers'), ['spec', 'template']],
  [key(CORE, 'podtemplates'), ['template']],
  [key('apps', 'replicasets'), ['spec', 'template']],
  [key('apps', 'deployments'), ['spec', 'template']],
  [key('apps', 'statefulsets'), ['spec', 'template']],
  [key('apps', 'daemonsets'), ['spec', 'template']],
  [key('batch', 'jobs'), ['spec', 'template']],
  [key('batch', 'cronjobs'), ['spec', 'jobTemplate', 'spec', 'template']],
]);

export const POD_SECURITY_MATCH: PluginMatch = {
  operations: [AdmissionOperation.Create, AdmissionOperation.Update],
  resources: [
    { group: CORE, resource: 'pods' },
    { group: CORE, resource: 'namespaces' },
    ...[...TEMPLATE_PATHS.keys()].map((k) => {
      const [group, resource] = k.split('/') as [string, string];
      return { group, resource };
    }),
  ],
};

/** The pod template of a workload object (undefined: it has none). */
export function podTemplateOf(req: Pick<AdmissionRequest, 'resource'>, obj: ApiObject): { meta: Json; spec: Json } | undefined {
  const path = TEMPLATE_PATHS.get(key(req.resource.group, req.resource.resource));
  if (!path) return undefined;
  let at: unknown = obj;
  for (const field of path) at = rec(at)?.[field];
  const template = rec(at);
  if (!template) return undefined;
  return { meta: rec(template.metadata) ?? {}, spec: rec(template.spec) ?? {} };
}

/** The only pod subresource whose writes are evaluated: everything else (status, binding, exec, …) is not a pod spec change. */
const EVALUATED_POD_SUBRESOURCE = 'ephemeralcontainers';

// ---- pod updates that matter -------------------------------------------------------------------

const annotation = (pod: ApiObject, k: string): string => {
  const v = pod.metadata?.annotations?.[k];
  return typeof v === 'string' ? v : '';
};
const containersOf = (pod: ApiObject, field: string): Json[] => list(rec(pod.spec)?.[field]).map((c) => rec(c) ?? {});

function significantContainerUpdate(c: Json, old: Json, pod: ApiObject, oldPod: ApiObject): boolean {
  if ((c.image ?? '') !== (old.image ?? '')) return true;
  const seccomp = SECCOMP_CONTAINER_ANNOTATION_PREFIX + String(c.name ?? '');
  return annotation(pod, seccomp) !== annotation(oldPod, seccomp);
}

/**
 * Whether an update can change the pod's standing. The security-relevant fields of a pod are
 * immutable once created except images, the seccomp annotations and the ephemeral containers,
 * so any other update (labels, annotations, status, tolerations) is not evaluated again: a
 * namespace tightened after the pod was created must not freeze the pods already running.
 */
export function isSignificantPodUpdate(pod: ApiObject, oldPod: ApiObject): boolean {
  if (annotation(pod, SECCOMP_POD_ANNOTATION) !== annotation(oldPod, SECCOMP_POD_ANNOTATION)) return true;
  for (const field of ['containers', 'initContainers']) {
    const next = containersOf(pod, field);
    const prev = containersOf(oldPod, field);
    if (next.length !== prev.length) return true;
    if (next.some((c, i) => significantContainerUpdate(c, prev[i]!, pod, oldPod))) return true;
  }
  const oldEphemeral = containersOf(oldPod, 'ephemeralContainers');
  for (const c of containersOf(pod, 'ephemeralContainers')) {
    const old = oldEphemeral.find((o) => o.name === c.name);
    if (!old || significantContainerUpdate(c, old, pod, oldPod)) return true;
  }
  return false;
}

// ---- the decision ------------------------------------------------------------------------------

export interface PodSecurityAdmissionDeps {
  configuration: PodSecurityConfiguration;
  /** Full Namespace objects (their labels). */
  namespaces: ObjectCache;
  /** The pods cache, asked for only when a namespace's existing pods must be checked. */
  pods: () => ObjectCache;
  evaluator?: Evaluator;
  metrics?: PodSecurityMetrics;
  log?: Logger;
  /** Milliseconds, monotonic (tests). */
  now?: () => number;
  maxPodsToCheck?: number;
  podCheckTimeoutMs?: number;
}

const sameErrors = (a: readonly FieldError[], b: readonly FieldError[]): boolean => a.length === b.length && a.every((e, i) => fieldErrorMessage(e) === fieldErrorMessage(b[i]!));

export class PodSecurityAdmission {
  private readonly config: PodSecurityConfiguration;
  private readonly evaluator: Evaluator;
  private readonly now: () => number;
  private readonly maxPodsToCheck: number;
  private readonly podCheckTimeoutMs: number;
  /** A namespace object's parsed policy, kept while the cache holds that object. */
  private readonly policies = new WeakMap<object, PolicyResult>();

  constructor(private readonly deps: PodSecurityAdmissionDeps) {
    this.config = deps.configuration;
    this.evaluator = deps.evaluator ?? new Evaluator();
    this.now = deps.now ?? (() => performance.now());
    this.maxPodsToCheck = deps.maxPodsToCheck ?? NAMESPACE_MAX_PODS_TO_CHECK;
    this.podCheckTimeoutMs = deps.podCheckTimeoutMs ?? NAMESPACE_POD_CHECK_TIMEOUT_MS;
  }

  async validate(req: AdmissionRequest): Promise<PodSecurityResponse> {
    const { group, resource } = req.resource;
    if (group === CORE && resource === 'namespaces') return this.validateNamespace(req);
    if (group === CORE && resource === 'pods') return this.validatePod(req);
    if (TEMPLATE_PATHS.has(key(group, resource))) return this.validatePodController(req);
    return allowed();
  }

  policyFor(labels: unknown, owner?: object): PolicyResult {
    if (owner) {
      const held = this.policies.get(owner);
      if (held) return held;
    }
    const result = policyToEvaluate(rec(labels), this.config.defaults);
    if (owner) this.policies.set(owner, result);
    return result;
  }

  private exemptNamespace(ns: string | undefined): boolean {
    return Boolean(ns) && this.config.exemptions.namespaces.has(ns!);
  }

  private exemptUser(username: string | undefined): boolean {
    return Boolean(username) && this.config.exemptions.usernames.has(username!);
  }

  private exemptRuntimeClass(spec: Json): boolean {
    const rc = spec.runtimeClassName;
    return typeof rc === 'string' && rc !== '' && this.config.exemptions.runtimeClasses.has(rc);
  }

  private async namespaceLabels(name: string): Promise<{ labels: unknown; owner: object } | { error: string }> {
    await this.deps.namespaces.ready();
    const ns = await this.deps.namespaces.lookup(undefined, name);
    if (!ns) return { error: `namespaces "${name}" not found` };
    return { labels: ns.metadata?.labels, owner: ns };
  }

  // ---- namespaces ----

  async validateNamespace(req: AdmissionRequest): Promise<PodSecurityResponse> {
    if (req.subResource) return allowed();
    const ns = req.object;
    if (!ns) return refused(badRequest('failed to decode namespace'));
    const next = this.policyFor(ns.metadata?.labels);
    const invalidLabels = (): PodSecurityResponse => refused(invalid('Namespace', CORE, requestObjectName(req), next.errors));

    if (req.operation === AdmissionOperation.Create) return next.errors.length ? invalidLabels() : allowed();
    if (req.operation !== AdmissionOperation.Update) return allowed();

    const oldNs = req.oldObject;
    if (!oldNs) return refused(badRequest('failed to decode old namespace'));
    const prev = this.policyFor(oldNs.metadata?.labels);
    // Labels already unreadable before this update may stay so; new mistakes are refused.
    if (next.errors.length && (!prev.errors.length || !sameErrors(next.errors, prev.errors))) return invalidLabels();

    const enforce = next.policy.enforce;
    const oldEnforce = prev.policy.enforce;
    if (sameLevelVersion(enforce, oldEnforce)) return allowed();
    if (enforce.level === Level.Privileged) return allowed();
    const sameVersion = enforce.version.latest === oldEnforce.version.latest && enforce.version.minor === oldEnforce.version.minor;
    if (sameVersion && compareLevels(enforce.level, oldEnforce.level) < 1) return allowed();
    const name = req.namespace || ns.metadata?.name || req.name;
    if (this.exemptNamespace(name)) return exempt(ExemptionReason.Namespace);
    return { ...allowed(), warnings: await this.evaluatePodsInNamespace(name, enforce) };
  }

  /**
   * Warnings about the pods of a namespace the new enforce level would refuse: one line per
   * distinct set of reasons naming the first pod (by name) and how many others share it. At most
   * `maxPodsToCheck` pods and `podCheckTimeoutMs` of work; one pod per controller comes first so
   * a big ReplicaSet does not hide the other workloads.
   */
  async evaluatePodsInNamespace(namespace: string, enforce: LevelVersion): Promise<string[]> {
    let pods: ApiObject[];
    try {
      const cache = this.deps.pods();
      await cache.ready();
      pods = cache.list(namespace);
    } catch (err) {
      this.deps.log?.error({ err, namespace }, 'PodSecurity: failed to list pods');
      return ['failed to list pods while checking new PodSecurity enforce level'];
    }
    const deadline = this.now() + this.podCheckTimeoutMs;
    const prioritized = this.prioritizePods(pods);
    const total = prioritized.length;
    const toCheck = prioritized.slice(0, this.maxPodsToCheck);

    let checked = toCheck.length;
    const seen = new Map<string, { pod: string; count: number }>();
    for (let i = 0; i < toCheck.length; i++) {
      const pod = toCheck[i]!;
      const r = this.evaluator.evaluate(enforce, rec(pod.metadata) ?? {}, rec(pod.spec) ?? {});
      if (!r.allowed) {
        const reason = forbiddenReason(r);
        const name = pod.metadata?.name ?? '';
        const held = seen.get(reason);
        if (!held) seen.set(reason, { pod: name, count: 1 });
        else {
          held.count++;
          if (name < held.pod) held.pod = name;
        }
      }
      if (this.now() > deadline) {
        checked = i + 1;
        break;
      }
    }

    const warnings: string[] = [];
    if (checked < total) warnings.push(`new PodSecurity enforce level only checked against the first ${checked} of ${total} existing pods`);
    if (seen.size) warnings.push(`existing pods in namespace "${namespace}" violate the new PodSecurity enforce level "${levelVersionString(enforce)}"`);
    const lines = [...seen].map(([reason, { pod, count }]) => {
      if (count === 1) return `${pod}: ${reason}`;
      if (count === 2) return `${pod} (and 1 other pod): ${reason}`;
      return `${pod} (and ${count - 1} other pods): ${reason}`;
    });
    lines.sort();
    return [...warnings, ...lines];
  }

  /** Pods without a controller and the first pod of each controller, then the other replicas. */
  private prioritizePods(pods: ApiObject[]): ApiObject[] {
    const sorted = [...pods].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
    const first: ApiObject[] = [];
    const replicas: ApiObject[] = [];
    const controllers = new Set<string>();
    for (const pod of sorted) {
      if (this.exemptRuntimeClass(rec(pod.spec) ?? {})) continue;
      const controller = list(pod.metadata?.ownerReferences)
        .map(rec)
        .find((o) => o?.controller === true);
      if (!controller) first.push(pod);
      else {
        const uid = String(controller.uid ?? '');
        if (controllers.has(uid)) replicas.push(pod);
        else {
          controllers.add(uid);
          first.push(pod);
        }
      }
    }
    return [...first, ...replicas];
  }

  /** The exemption that covers the request (its namespace, then its user), counted; null if none. */
  private exemption(req: AdmissionRequest): PodSecurityResponse | null {
    const reason = this.exemptNamespace(req.namespace) ? ExemptionReason.Namespace : this.exemptUser(req.userInfo?.username) ? ExemptionReason.User : null;
    if (reason === null) return null;
    this.deps.metrics?.recordExemption(req);
    return exempt(reason);
  }

  // ---- pods ----

  async validatePod(req: AdmissionRequest): Promise<PodSecurityResponse> {
    if (req.subResource && req.subResource !== EVALUATED_POD_SUBRESOURCE) return allowed();
    const exemption = this.exemption(req);
    if (exemption) return exemption;
    const ns = await this.namespaceLabels(req.namespace ?? '');
    if ('error' in ns) {
      this.deps.metrics?.recordError(true, req);
      const status = internalError(`failed to lookup namespace ${req.namespace ?? ''}`);
      return refused(status, { [AnnotationKey.Error]: `${status.message}: ${ns.error}` });
    }
    const { policy, errors } = this.policyFor(ns.labels, ns.owner);
    // The common case costs nothing more: a namespace that asks for nothing.
    if (!errors.length && policy.enforce.level === Level.Privileged && policy.warn.level === Level.Privileged && policy.audit.level === Level.Privileged) {
      this.deps.metrics?.recordEvaluation('allow', policy.enforce, 'enforce', req);
      return allowed({ [AnnotationKey.Enforced]: levelVersionString(PRIVILEGED_LATEST) });
    }
    const pod = req.object;
    if (!pod) {
      this.deps.metrics?.recordError(true, req);
      return refused(badRequest('failed to decode pod'), { [AnnotationKey.Error]: 'failed to decode pod' });
    }
    if (req.operation === AdmissionOperation.Update) {
      if (!req.oldObject) {
        this.deps.metrics?.recordError(true, req);
        return refused(badRequest('failed to decode old pod'), { [AnnotationKey.Error]: 'failed to decode old pod' });
      }
      if (!isSignificantPodUpdate(pod, req.oldObject)) return allowed();
    }
    return this.evaluatePod(req, policy, errors, rec(pod.metadata) ?? {}, rec(pod.spec) ?? {}, true);
  }

  // ---- workloads ----

  async validatePodController(req: AdmissionRequest): Promise<PodSecurityResponse> {
    if (req.subResource) return allowed();
    const exemption = this.exemption(req);
    if (exemption) return exemption;
    const ns = await this.namespaceLabels(req.namespace ?? '');
    if ('error' in ns) {
      // Never refuses: the pods it would create are checked on their own.
      this.deps.metrics?.recordError(true, req);
      return allowed({ [AnnotationKey.Error]: `failed to lookup namespace ${req.namespace ?? ''}: ${ns.error}` });
    }
    const { policy, errors } = this.policyFor(ns.labels, ns.owner);
    if (!errors.length && policy.warn.level === Level.Privileged && policy.audit.level === Level.Privileged) return allowed();
    const template = req.object ? podTemplateOf(req, req.object) : undefined;
    if (!template) return allowed();
    return this.evaluatePod(req, policy, errors, template.meta, template.spec, false);
  }

  // ---- one pod or template ----

  private evaluatePod(req: AdmissionRequest, policy: Policy, policyErrors: FieldError[], meta: Json, spec: Json, enforce: boolean): PodSecurityResponse {
    const metrics = this.deps.metrics;
    if (this.exemptRuntimeClass(spec)) {
      metrics?.recordExemption(req);
      return exempt(ExemptionReason.RuntimeClass);
    }
    const annotations: Record<string, string> = {};
    if (policyErrors.length) {
      annotations[AnnotationKey.Error] = `Failed to parse policy: ${aggregateFieldErrors(policyErrors)}`;
      metrics?.recordError(false, req);
    }
    const results = new Map<string, EvaluationResult>();
    const evaluate = (lv: LevelVersion): EvaluationResult => {
      const k = levelVersionString(lv);
      let r = results.get(k);
      if (!r) results.set(k, (r = this.evaluator.evaluate(lv, meta, spec)));
      return r;
    };

    const response: PodSecurityResponse = allowed(annotations);
    if (enforce) {
      annotations[AnnotationKey.Enforced] = levelVersionString(policy.enforce);
      const r = evaluate(policy.enforce);
      if (!r.allowed) {
        response.allowed = false;
        response.status = admissionForbidden(req, `violates PodSecurity "${levelVersionString(policy.enforce)}": ${forbiddenDetail(r)}`);
      }
      metrics?.recordEvaluation(r.allowed ? 'allow' : 'deny', policy.enforce, 'enforce', req);
    }
    const audit = evaluate(policy.audit);
    if (!audit.allowed) {
      annotations[AnnotationKey.AuditViolations] = `would violate PodSecurity "${levelVersionString(policy.audit)}": ${forbiddenDetail(audit)}`;
      metrics?.recordEvaluation('deny', policy.audit, 'audit', req);
    }
    // A refused request's warnings would only repeat the refusal.
    if (response.allowed) {
      const warn = evaluate(policy.warn);
      if (!warn.allowed) {
        response.warnings.push(`would violate PodSecurity "${levelVersionString(policy.warn)}": ${forbiddenDetail(warn)}`);
        metrics?.recordEvaluation('deny', policy.warn, 'warn', req);
      }
    }
    return response;
  }
}

// ---- the plugin --------------------------------------------------------------------------------

/** The admission plugin around the decision: warnings, prefixed audit annotations, refusals. */
export function createPodSecurity(deps: PodSecurityAdmissionDeps): AdmissionPlugin {
  const admission = new PodSecurityAdmission(deps);
  return {
    name: POD_SECURITY,
    match: POD_SECURITY_MATCH,
    async validate(req, ctx) {
      const result = await admission.validate(req);
      for (const w of result.warnings) ctx.warn(w);
      for (const [k, v] of Object.entries(result.auditAnnotations)) ctx.annotate(POD_SECURITY_PREFIX + k, v);
      if (!result.allowed) throw result.status ?? admissionForbidden(req, 'Not allowed by PodSecurity');
    },
  };
}

/**
 * Reads its configuration at start (a mistake stops the service) and watches namespaces at once,
 * for their labels; the pods cache starts only when a namespace's enforce level first tightens.
 */
export const podSecurityPlugin: PluginDefinition = {
  name: POD_SECURITY,
  defaultEnabled: true,
  create: (deps) =>
    createPodSecurity({
      configuration: loadPodSecurityConfiguration(deps.config),
      namespaces: deps.objects('', 'namespaces'),
      pods: () => deps.objects('', 'pods'),
      metrics: new PodSecurityMetrics(deps.metrics),
      log: deps.log,
    }),
};
