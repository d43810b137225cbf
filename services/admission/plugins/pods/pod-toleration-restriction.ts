// PodTolerationRestriction (alpha upstream): a namespace's default tolerations (annotation
// `scheduler.alpha.platform.io/defaultTolerations`, else the plugin configuration's `default`)
// are merged into each pod created in it, and every pod's tolerations must be covered by the
// namespace's whitelist (annotation `scheduler.alpha.platform.io/tolerationsWhitelist`, else the
// configuration's `whitelist`; empty allows everything). As upstream, a pod that is not
// BestEffort also gets a toleration of the memory-pressure taint, on creation and on update.
//
// Configuration: kind Configuration in podtolerationrestriction.admission.platform.io/v1alpha1
// (or upstream's podtolerationrestriction.admission.k8s.io/v1alpha1) with `default` and `whitelist`.

import { internalError, notFound } from '../../../../shared/api/status.js';
import { AdmissionOperation, type AdmissionRequest } from '../../../../shared/bus/messages.js';
import { quantitySign } from '../../../../shared/registry/builtin/autoscaling/hpa-validation.js';
import { checkPluginConfiguration, type PluginConfiguration } from '../../plugin-configuration.js';
import { AdmissionConfigError, admissionForbidden } from '../../errors.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';
import { namespaceAnnotation, namespaceReader, type NamespaceReader } from './namespace-objects.js';
import {
  isMainResource,
  list,
  mergeTolerations,
  rec,
  specOf,
  TAINT_NODE_MEMORY_PRESSURE,
  tolerationProblems,
  tolerationsOf,
  verifyAgainstWhitelist,
  type Json,
  type Toleration,
} from './pod-fields.js';

export const POD_TOLERATION_RESTRICTION = 'PodTolerationRestriction';
export const DEFAULT_TOLERATIONS_ANNOTATION = 'scheduler.alpha.platform.io/defaultTolerations';
export const TOLERATIONS_WHITELIST_ANNOTATION = 'scheduler.alpha.platform.io/tolerationsWhitelist';
export const POD_TOLERATION_RESTRICTION_CONFIG_VERSIONS: readonly string[] = ['podtolerationrestriction.admission.platform.io/v1alpha1', 'podtolerationrestriction.admission.k8s.io/v1alpha1'];

const PODS_CREATE_UPDATE: PluginMatch = {
  operations: [AdmissionOperation.Create, AdmissionOperation.Update],
  resources: [{ group: '', resource: 'pods' }],
};

export interface PodTolerationRestrictionConfig {
  default: Toleration[];
  whitelist: Toleration[];
}

export function parsePodTolerationRestrictionConfig(cfg: PluginConfiguration | undefined): PodTolerationRestrictionConfig {
  if (!cfg) return { default: [], whitelist: [] };
  const doc = checkPluginConfiguration(POD_TOLERATION_RESTRICTION, cfg, {
    apiVersions: POD_TOLERATION_RESTRICTION_CONFIG_VERSIONS,
    kind: 'Configuration',
    fields: ['default', 'whitelist'],
  });
  const problems = [...tolerationProblems(doc.default, 'default'), ...tolerationProblems(doc.whitelist, 'whitelist')];
  if (problems.length) throw new AdmissionConfigError(`admission plugin ${POD_TOLERATION_RESTRICTION}: configuration from ${cfg.source}: ${problems.join('; ')}`);
  return { default: list(doc.default) as Toleration[], whitelist: list(doc.whitelist) as Toleration[] };
}

const TOLERATION_FIELDS = ['key', 'operator', 'value', 'effect', 'tolerationSeconds'] as const;

/**
 * A namespace's toleration annotation: undefined without it, none when it is empty, else its
 * JSON list. Field names match case-insensitively, as Go's JSON decoding reads them.
 */
export function parseTolerationAnnotation(text: string | undefined): Toleration[] | undefined {
  if (text === undefined) return undefined;
  if (text === '') return [];
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw internalError((err as Error).message);
  }
  if (doc === null) return [];
  if (!Array.isArray(doc)) throw internalError('json: cannot unmarshal into []Toleration: the annotation must hold a JSON list of tolerations');
  return doc.map((item) => {
    if (item === null) return {};
    const o = rec(item);
    if (!o) throw internalError('json: cannot unmarshal into Toleration: each toleration must be a JSON object');
    const t: Toleration = {};
    for (const [k, v] of Object.entries(o)) {
      const field = TOLERATION_FIELDS.find((f) => f.toLowerCase() === k.toLowerCase());
      if (!field || v === null) continue;
      const wantNumber = field === 'tolerationSeconds';
      if (wantNumber ? !Number.isSafeInteger(v) : typeof v !== 'string') {
        throw internalError(`json: cannot unmarshal ${typeof v} into Go struct field Toleration.${field} of type ${wantNumber ? 'int64' : 'string'}`);
      }
      (t as Record<string, unknown>)[field] = v;
    }
    return t;
  });
}

/** Upstream's QoS rule: BestEffort when no container asks for or is limited to any cpu or memory. */
export function isBestEffort(spec: Json | undefined): boolean {
  const containers = [...list(spec?.containers), ...list(spec?.initContainers)];
  return !containers.some((c) => {
    const resources = rec(rec(c)?.resources);
    return [rec(resources?.requests), rec(resources?.limits)].some((l) => ['cpu', 'memory'].some((r) => l?.[r] !== undefined && quantitySign(l[r]) === 1));
  });
}

const MEMORY_PRESSURE: Toleration = { key: TAINT_NODE_MEMORY_PRESSURE, operator: 'Exists', effect: 'NoSchedule' };

export function createPodTolerationRestriction(config: PodTolerationRestrictionConfig, readNamespace: NamespaceReader): AdmissionPlugin {
  const annotation = async (name: string, key: string): Promise<Toleration[] | undefined> => {
    const ns = await readNamespace(name);
    if (!ns) throw notFound({ group: '', resource: 'namespaces' }, name);
    return parseTolerationAnnotation(namespaceAnnotation(ns, key));
  };

  const checkWhitelist = async (req: AdmissionRequest, tolerations: Toleration[]): Promise<void> => {
    if (tolerations.length === 0) return;
    let whitelist = await annotation(req.namespace ?? '', TOLERATIONS_WHITELIST_ANNOTATION);
    let scope = 'namespace';
    if (whitelist === undefined) {
      whitelist = config.whitelist;
      scope = 'cluster';
    }
    if (!verifyAgainstWhitelist(tolerations, whitelist)) {
      throw admissionForbidden(req, `pod tolerations (possibly merged with namespace default tolerations) conflict with its ${scope} whitelist`);
    }
  };

  return {
    name: POD_TOLERATION_RESTRICTION,
    match: PODS_CREATE_UPDATE,
    async mutate(req) {
      if (!req.object || !isMainResource(req, '', 'pods')) return;
      const spec = specOf(req.object);
      const extra: Toleration[] = [];
      if (req.operation === AdmissionOperation.Create) {
        extra.push(...((await annotation(req.namespace ?? '', DEFAULT_TOLERATIONS_ANNOTATION)) ?? config.default));
      }
      if (!isBestEffort(spec)) extra.push(MEMORY_PRESSURE);
      // Copies: the configuration's tolerations are shared by every request.
      if (extra.length)
        spec.tolerations = mergeTolerations(
          tolerationsOf(spec),
          extra.map((t) => ({ ...t })),
        );
      await checkWhitelist(req, tolerationsOf(spec));
    },
    async validate(req) {
      if (!req.object || !isMainResource(req, '', 'pods')) return;
      await checkWhitelist(req, tolerationsOf(rec(req.object.spec)));
    },
  };
}

export const podTolerationRestrictionPlugin: PluginDefinition = {
  name: POD_TOLERATION_RESTRICTION,
  defaultEnabled: false,
  create: (deps) => createPodTolerationRestriction(parsePodTolerationRestrictionConfig(deps.config), namespaceReader(deps.objects('', 'namespaces'))),
};
