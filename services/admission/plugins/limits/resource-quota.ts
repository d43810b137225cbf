// ResourceQuota (upstream plugin/pkg/admission/resourcequota): a namespaced create, or an update
// that changes what an object uses (services, claims), is charged to every ResourceQuota of its
// namespace that tracks it; over a hard limit it is refused with upstream's `exceeded quota: …`.
// Runs in the validating phase, on the final object, and records the charge in the quota's
// status.used itself (quota-admitter.ts) so concurrent requests cannot overshoot; dry runs are
// checked but not charged. Usage goes down only through the resource quota controller's recount.
// Configuration (optional): `limitedResources`, resources that may be consumed only where a quota
// covers them.

import { cachedMatches } from './cached-matches.js';
import { AdmissionConfigError } from '../../errors.js';
import { checkPluginConfiguration, type PluginConfiguration } from '../../plugin-configuration.js';
import type { ApiObject } from '../../../../shared/api/types.js';
import { claimEvaluator, EvaluatorRegistry, serviceEvaluator, type ScopeRequirement } from '../../../../shared/quota/evaluators.js';
import type { ObjectCache } from '../../object-cache.js';
import type { AdmissionPlugin, PluginDefinition, PluginDeps, PluginMatch } from '../../types.js';
import type { LimitedResource } from './quota-check.js';
import { QuotaAdmitter, type QuotaAccessor } from './quota-admitter.js';

export const RESOURCE_QUOTA = 'ResourceQuota';

const CONFIG_KINDS: Record<string, readonly string[]> = {
  ResourceQuotaConfiguration: ['apiserver.config.platform.io/v1', 'apiserver.config.k8s.io/v1'],
  Configuration: ['resourcequota.admission.platform.io/v1beta1', 'resourcequota.admission.platform.io/v1alpha1', 'resourcequota.admission.k8s.io/v1beta1', 'resourcequota.admission.k8s.io/v1alpha1'],
};

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** `limitedResources` of the plugin's configuration. */
export function readQuotaConfiguration(cfg: PluginConfiguration): LimitedResource[] {
  const kind = (cfg.configuration as { kind?: unknown } | null)?.kind;
  const doc = checkPluginConfiguration(RESOURCE_QUOTA, cfg, {
    kind: typeof kind === 'string' && kind in CONFIG_KINDS ? kind : 'ResourceQuotaConfiguration',
    apiVersions: CONFIG_KINDS[typeof kind === 'string' && kind in CONFIG_KINDS ? kind : 'ResourceQuotaConfiguration']!,
    fields: ['limitedResources'],
  });
  const at = `admission plugin ${RESOURCE_QUOTA}: configuration from ${cfg.source}`;
  const raw = doc.limitedResources ?? [];
  if (!Array.isArray(raw)) throw new AdmissionConfigError(`${at}: limitedResources must be a list`);
  return raw.map((item: unknown, i): LimitedResource => {
    const path = `${at}: limitedResources[${i}]`;
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw new AdmissionConfigError(`${path} must be an object`);
    const l = item as Record<string, unknown>;
    for (const k of Object.keys(l)) if (!['apiGroup', 'resource', 'matchContains', 'matchScopes'].includes(k)) throw new AdmissionConfigError(`${path}: unknown field ${JSON.stringify(k)}`);
    if (typeof l.resource !== 'string' || !l.resource) throw new AdmissionConfigError(`${path}.resource: Required value`);
    if (l.apiGroup !== undefined && typeof l.apiGroup !== 'string') throw new AdmissionConfigError(`${path}.apiGroup must be a string`);
    if (l.matchContains !== undefined && !isStringList(l.matchContains)) throw new AdmissionConfigError(`${path}.matchContains must be a list of strings`);
    const scopes = l.matchScopes ?? [];
    if (!Array.isArray(scopes)) throw new AdmissionConfigError(`${path}.matchScopes must be a list`);
    const matchScopes = scopes.map((s: unknown, j): ScopeRequirement => {
      const sp = `${path}.matchScopes[${j}]`;
      const o = (s ?? {}) as Record<string, unknown>;
      if (typeof o.scopeName !== 'string' || typeof o.operator !== 'string') throw new AdmissionConfigError(`${sp} needs scopeName and operator`);
      if (o.values !== undefined && !isStringList(o.values)) throw new AdmissionConfigError(`${sp}.values must be a list of strings`);
      return { scopeName: o.scopeName, operator: o.operator, values: (o.values as string[] | undefined) ?? [] };
    });
    return { apiGroup: (l.apiGroup as string | undefined) ?? '', resource: l.resource, matchContains: (l.matchContains as string[] | undefined) ?? [], matchScopes };
  });
}

/** The quotas of the object cache, overlaid with this replica's own writes until the cache has them. */
function quotaAccessor(cache: ObjectCache, deps: PluginDeps): QuotaAccessor {
  const written = new Map<string, Map<string, ApiObject>>();
  const revision = (o: ApiObject) => Number(o.metadata.resourceVersion ?? 0);
  /** The stored quota when it is newer than `o`, which the controller has not processed yet as far as the cache knows. */
  async function fresher(o: ApiObject): Promise<ApiObject> {
    const live = await deps.read({ ...QUOTA_REF, namespace: o.metadata.namespace!, name: o.metadata.name! });
    return live && revision(live) > revision(o) ? live : o;
  }
  return {
    async list(namespace) {
      const mine = written.get(namespace);
      let out = cache.list(namespace);
      if (mine) {
        out = out.map((o) => {
          const w = mine.get(o.metadata.name ?? '');
          return w && revision(w) > revision(o) ? w : o;
        });
        // Entries the cache has caught up with (or that are gone) are dropped.
        for (const [name, w] of mine) if (!out.includes(w)) mine.delete(name);
        if (mine.size === 0) written.delete(namespace);
      }
      // A quota without status.hard does not apply yet; the store may already know better.
      return Promise.all(out.map(async (o) => (unprocessed(o) ? fresher(o) : o)));
    },
    read: (namespace, name) => deps.read({ ...QUOTA_REF, namespace, name }),
    async update(quota, rev) {
      const { resourceVersion: _rv, ...metadata } = quota.metadata;
      const reply = await deps.write.update({ ...QUOTA_REF, namespace: quota.metadata.namespace!, name: quota.metadata.name! }, { ...quota, metadata }, rev);
      const ns = quota.metadata.namespace!;
      let mine = written.get(ns);
      if (!mine) written.set(ns, (mine = new Map()));
      mine.set(quota.metadata.name!, reply.object);
      return reply.object;
    },
  };
}

const QUOTA_REF = { group: '', resource: 'resourcequotas' };

function unprocessed(q: ApiObject): boolean {
  const hard = (o: unknown) => Object.keys(((o as { hard?: object } | undefined)?.hard ?? {}) as object).length;
  return hard(q.spec) > 0 && hard(q.status) === 0;
}

/** Whether a quota limits something an update can change (services' type, claims' size). */
function tracksUpdates(q: ApiObject): boolean {
  const names = [...Object.keys((q.spec as { hard?: object } | undefined)?.hard ?? {}), ...Object.keys((q.status as { hard?: object } | undefined)?.hard ?? {})];
  return serviceEvaluator.matchingResources(names).length > 0 || claimEvaluator.matchingResources(names).length > 0;
}

function createResourceQuota(deps: PluginDeps): AdmissionPlugin {
  const limited = deps.config ? readQuotaConfiguration(deps.config) : [];
  const cache = deps.objects('', 'resourcequotas');
  const registry = new EvaluatorRegistry();
  const admitter = new QuotaAdmitter(quotaAccessor(cache, deps), { limited });
  // Every create is a candidate (any resource can be counted); updates only while some quota
  // limits what an update changes, so that otherwise the many updates of a cluster skip this phase.
  // Without limitedResources, a namespace without quotas charges nothing: the gateway need not ask.
  const namespace: PluginMatch['namespace'] = limited.length ? undefined : { holds: { group: '', resource: 'resourcequotas' } };
  const CREATE_ONLY: PluginMatch = { operations: ['CREATE'], ...(namespace ? { namespace } : {}) };
  const CREATE_UPDATE: PluginMatch = { operations: ['CREATE', 'UPDATE'], ...(namespace ? { namespace } : {}) };
  const tracking = cachedMatches(cache, tracksUpdates);

  return {
    name: RESOURCE_QUOTA,
    sideEffects: 'NoneOnDryRun',
    get match(): PluginMatch {
      // Until the quotas are known, updates are wanted too.
      return limited.length || tracking.possible() ? CREATE_UPDATE : CREATE_ONLY;
    },
    async validate(req) {
      // Subresources, cluster-scoped objects and namespaces themselves are never charged.
      if (req.subResource || !req.namespace || !req.object) return;
      if (req.resource.group === '' && req.resource.resource === 'namespaces') return;
      const evaluator = registry.get(req.resource.group, req.resource.resource);
      if (!evaluator || !evaluator.handles(req.operation)) return;
      await cache.ready();
      if (!limited.length && cache.list(req.namespace).length === 0) return;
      await admitter.admit(req, evaluator);
    },
    stop() {
      tracking.stop();
      return Promise.resolve();
    },
  };
}

export const resourceQuotaPlugin: PluginDefinition = {
  name: RESOURCE_QUOTA,
  defaultEnabled: true,
  create: createResourceQuota,
};
