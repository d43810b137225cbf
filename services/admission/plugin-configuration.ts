// What a plugin is handed of `--admission-control-config-file` (its own entry) and the check each
// plugin makes of that entry's shape when it is built. Apart from admission-configuration.ts, which
// reads the file and knows every plugin's name, so that plugins never import the plugin list.

import { AdmissionConfigError } from './errors.js';

export interface PluginConfiguration {
  /** The plugin's configuration document as parsed (YAML or JSON). */
  configuration: unknown;
  /** The directory relative paths inside it (kubeconfig files) are resolved from. */
  dir: string;
  /** Where it was read from, for error messages. */
  source: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a plugin's configuration document: an object of one of `kinds` spelled with one of the
 * `apiVersions`, with no field outside `fields`. Returns it for the plugin to read.
 */
export function checkPluginConfiguration(plugin: string, cfg: PluginConfiguration, expect: { apiVersions: readonly string[]; kind: string; fields: readonly string[] }): Record<string, unknown> {
  const at = `admission plugin ${plugin}: configuration from ${cfg.source}`;
  const doc = cfg.configuration;
  if (!isObject(doc)) throw new AdmissionConfigError(`${at} must be an object`);
  if (doc.kind !== expect.kind) throw new AdmissionConfigError(`${at}: kind must be ${expect.kind}, not ${JSON.stringify(doc.kind)}`);
  if (typeof doc.apiVersion !== 'string' || !expect.apiVersions.includes(doc.apiVersion)) {
    throw new AdmissionConfigError(`${at}: apiVersion ${JSON.stringify(doc.apiVersion)} is not one of ${expect.apiVersions.join(', ')}`);
  }
  for (const key of Object.keys(doc)) {
    if (key !== 'apiVersion' && key !== 'kind' && !expect.fields.includes(key)) throw new AdmissionConfigError(`${at}: unknown field ${JSON.stringify(key)}`);
  }
  return doc;
}
