// `--admission-control-config-file`: an AdmissionConfiguration naming, per plugin, its
// configuration inline (`configuration`) or in a file (`path`, relative to the configuration's
// own directory). Read once at start; every mistake is a start-up error naming the file and the
// plugin. Each plugin validates the shape of its own configuration when it is built
// (plugin-configuration.ts).

import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import YAML from 'yaml';
import { AdmissionConfigError } from './errors.js';
import type { PluginConfiguration } from './plugin-configuration.js';
import { isKnownPlugin } from './plugins.js';

export const ADMISSION_CONFIGURATION_KIND = 'AdmissionConfiguration';

/** The spellings accepted for the configuration's apiVersion: ours and upstream's. */
export const ADMISSION_CONFIGURATION_VERSIONS: readonly string[] = [
  'apiserver.config.platform.io/v1',
  'apiserver.config.platform.io/v1alpha1',
  'apiserver.config.k8s.io/v1',
  'apiserver.config.k8s.io/v1alpha1',
  'apiserver.k8s.io/v1alpha1',
];

export type AdmissionConfiguration = ReadonlyMap<string, PluginConfiguration>;

function readDocument(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new AdmissionConfigError(`${what}: cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    return YAML.parse(text) as unknown;
  } catch (err) {
    throw new AdmissionConfigError(`${what}: ${path} is not valid YAML or JSON: ${(err as Error).message}`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses an AdmissionConfiguration document read from `path` (its directory anchors relative paths). */
export function parseAdmissionConfiguration(doc: unknown, path: string): AdmissionConfiguration {
  const flag = '--admission-control-config-file';
  if (!isObject(doc)) throw new AdmissionConfigError(`${flag}: ${path} must hold an ${ADMISSION_CONFIGURATION_KIND} object`);
  if (doc.kind !== ADMISSION_CONFIGURATION_KIND) throw new AdmissionConfigError(`${flag}: ${path}: kind must be ${ADMISSION_CONFIGURATION_KIND}, not ${JSON.stringify(doc.kind)}`);
  if (typeof doc.apiVersion !== 'string' || !ADMISSION_CONFIGURATION_VERSIONS.includes(doc.apiVersion)) {
    throw new AdmissionConfigError(`${flag}: ${path}: apiVersion ${JSON.stringify(doc.apiVersion)} is not one of ${ADMISSION_CONFIGURATION_VERSIONS.join(', ')}`);
  }
  for (const key of Object.keys(doc)) {
    if (!['apiVersion', 'kind', 'plugins'].includes(key)) throw new AdmissionConfigError(`${flag}: ${path}: unknown field ${JSON.stringify(key)}`);
  }
  const plugins = doc.plugins ?? [];
  if (!Array.isArray(plugins)) throw new AdmissionConfigError(`${flag}: ${path}: plugins must be a list`);
  const dir = dirname(resolve(path));
  const out = new Map<string, PluginConfiguration>();
  plugins.forEach((p: unknown, i) => {
    const at = `${flag}: ${path}: plugins[${i}]`;
    if (!isObject(p)) throw new AdmissionConfigError(`${at} must be an object`);
    for (const key of Object.keys(p)) {
      if (!['name', 'path', 'configuration'].includes(key)) throw new AdmissionConfigError(`${at}: unknown field ${JSON.stringify(key)}`);
    }
    const name = p.name;
    if (typeof name !== 'string' || !name) throw new AdmissionConfigError(`${at}.name is required`);
    if (!isKnownPlugin(name)) throw new AdmissionConfigError(`${at}: unknown admission plugin ${JSON.stringify(name)}`);
    if (out.has(name)) throw new AdmissionConfigError(`${at}: plugin ${JSON.stringify(name)} is configured twice`);
    const hasPath = p.path !== undefined && p.path !== '';
    const hasInline = p.configuration !== undefined && p.configuration !== null;
    if (hasPath && hasInline) throw new AdmissionConfigError(`${at}: set either path or configuration, not both`);
    if (!hasPath && !hasInline) throw new AdmissionConfigError(`${at}: plugin ${JSON.stringify(name)} needs path or configuration`);
    if (hasPath) {
      if (typeof p.path !== 'string') throw new AdmissionConfigError(`${at}.path must be a string`);
      const file = isAbsolute(p.path) ? p.path : resolve(dir, p.path);
      out.set(name, { configuration: readDocument(file, at), dir: dirname(file), source: file });
    } else {
      out.set(name, { configuration: p.configuration, dir, source: `${path} (plugins[${i}])` });
    }
  });
  return out;
}

/** Reads `--admission-control-config-file` (none given: no plugin is configured). */
export function loadAdmissionConfiguration(path: string | undefined): AdmissionConfiguration {
  if (!path) return new Map();
  return parseAdmissionConfiguration(readDocument(path, '--admission-control-config-file'), path);
}
