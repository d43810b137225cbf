// PodNodeSelector (alpha upstream): a namespace's node selector, from its annotation
// `scheduler.alpha.platform.io/node-selector` or else the cluster default of the plugin's
// configuration, is merged into every pod created in it; a pod whose own selector gives one of
// those labels another value is refused, and so is one that selects outside the namespace's
// whitelist from the configuration. Pods are only looked at on creation, as upstream.
//
// Configuration (upstream's legacy format, as the file `path` names or inline `configuration`):
//   podNodeSelectorPluginConfig:
//     clusterDefaultNodeSelector: env=prod
//     <namespace>: env=prod,tier=web      # that namespace's whitelist

import { internalError } from '../../../../shared/api/status.js';
import { AdmissionOperation, type AdmissionRequest } from '../../../../shared/bus/messages.js';
import type { PluginConfiguration } from '../../plugin-configuration.js';
import { AdmissionConfigError, admissionForbidden } from '../../errors.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';
import { namespaceAnnotation, namespaceReader, type NamespaceReader } from './namespace-objects.js';
import { isMainResource, labelsConflict, rec, selectorToLabels, specOf } from './pod-fields.js';

export const POD_NODE_SELECTOR = 'PodNodeSelector';
export const NODE_SELECTOR_ANNOTATION = 'scheduler.alpha.platform.io/node-selector';
export const CLUSTER_DEFAULT_NODE_SELECTOR = 'clusterDefaultNodeSelector';
const CONFIG_KEY = 'podNodeSelectorPluginConfig';

const PODS_CREATE: PluginMatch = { operations: [AdmissionOperation.Create], resources: [{ group: '', resource: 'pods' }] };

type Labels = Record<string, string>;

export interface PodNodeSelectorConfig {
  clusterDefault: Labels;
  /** Per namespace: the only labels (and values) its pods may select. */
  whitelists: ReadonlyMap<string, Labels>;
}

/** Reads the plugin's configuration; every selector is parsed here so a bad one fails the start. */
export function parsePodNodeSelectorConfig(cfg: PluginConfiguration | undefined): PodNodeSelectorConfig {
  const out = { clusterDefault: {} as Labels, whitelists: new Map<string, Labels>() };
  if (!cfg) return out;
  const at = `admission plugin ${POD_NODE_SELECTOR}: configuration from ${cfg.source}`;
  const doc = rec(cfg.configuration);
  if (!doc) throw new AdmissionConfigError(`${at} must be an object with ${CONFIG_KEY}`);
  for (const key of Object.keys(doc)) if (key !== CONFIG_KEY) throw new AdmissionConfigError(`${at}: unknown field ${JSON.stringify(key)}`);
  const entries = doc[CONFIG_KEY] ?? {};
  if (!rec(entries)) throw new AdmissionConfigError(`${at}: ${CONFIG_KEY} must map clusterDefaultNodeSelector and namespace names to node selectors`);
  for (const [name, selector] of Object.entries(entries as Record<string, unknown>)) {
    if (typeof selector !== 'string') throw new AdmissionConfigError(`${at}: ${CONFIG_KEY}.${name} must be a node selector string such as "env=prod,tier=web"`);
    let labels: Labels;
    try {
      labels = selectorToLabels(selector);
    } catch (err) {
      throw new AdmissionConfigError(`${at}: ${CONFIG_KEY}.${name}: ${(err as Error).message}`);
    }
    if (name === CLUSTER_DEFAULT_NODE_SELECTOR) out.clusterDefault = labels;
    else out.whitelists.set(name, labels);
  }
  return out;
}

const sortedLabels = (l: Labels): Labels => Object.fromEntries(Object.entries(l).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

export function createPodNodeSelector(config: PodNodeSelectorConfig, readNamespace: NamespaceReader): AdmissionPlugin {
  /** The namespace's annotation (even empty) overrides the cluster default. */
  const namespaceSelector = async (name: string): Promise<Labels> => {
    const ns = await readNamespace(name);
    // Upstream reports a namespace it cannot find as an internal error (NamespaceLifecycle refuses such requests first).
    if (!ns) throw internalError(`namespace ${name} does not exist`);
    const value = namespaceAnnotation(ns, NODE_SELECTOR_ANNOTATION);
    if (value === undefined) return config.clusterDefault;
    try {
      return selectorToLabels(value);
    } catch (err) {
      throw internalError((err as Error).message);
    }
  };

  const podSelector = (spec: Record<string, unknown>): Labels => (rec(spec.nodeSelector) as Labels | undefined) ?? {};

  const check = (req: AdmissionRequest, nsSelector: Labels, selector: Labels): void => {
    if (labelsConflict(nsSelector, selector)) throw admissionForbidden(req, 'pod node label selector conflicts with its namespace node label selector');
    const whitelist = config.whitelists.get(req.namespace ?? '') ?? {};
    if (Object.keys(whitelist).length === 0) return;
    if (Object.entries(selector).some(([k, v]) => whitelist[k] !== v)) throw admissionForbidden(req, 'pod node label selector labels conflict with its namespace whitelist');
  };

  return {
    name: POD_NODE_SELECTOR,
    match: PODS_CREATE,
    async mutate(req) {
      if (!req.object || !isMainResource(req, '', 'pods')) return;
      const spec = specOf(req.object);
      const nsSelector = await namespaceSelector(req.namespace ?? '');
      const own = podSelector(spec);
      if (labelsConflict(nsSelector, own)) throw admissionForbidden(req, 'pod node label selector conflicts with its namespace node label selector');
      const merged = { ...nsSelector, ...own };
      if (Object.keys(merged).length) spec.nodeSelector = sortedLabels(merged);
      check(req, nsSelector, merged);
    },
    async validate(req) {
      if (!req.object || !isMainResource(req, '', 'pods')) return;
      check(req, await namespaceSelector(req.namespace ?? ''), podSelector(rec(req.object.spec) ?? {}));
    },
  };
}

export const podNodeSelectorPlugin: PluginDefinition = {
  name: POD_NODE_SELECTOR,
  defaultEnabled: false,
  create: (deps) => createPodNodeSelector(parsePodNodeSelectorConfig(deps.config), namespaceReader(deps.objects('', 'namespaces'))),
};
