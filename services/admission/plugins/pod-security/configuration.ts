// PodSecurity's entry of `--admission-control-config-file`: a PodSecurityConfiguration
// (`pod-security.admission.config.platform.io/v1beta1` or v1alpha1, or upstream's
// `pod-security.admission.config.k8s.io` spellings) with the policy for namespaces that carry no
// labels (`defaults`) and the requests never evaluated (`exemptions`). Read strictly, as
// upstream's decoder does; every mistake stops the service at start with the field it concerns.
// Without a configuration everything is privileged:latest and nothing is exempt, so an
// unlabelled namespace is not affected at all.

import type { FieldError } from '../../../../shared/api/status.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../../../shared/api/validation.js';
import { checkPluginConfiguration, type PluginConfiguration } from '../../plugin-configuration.js';
import { AdmissionConfigError } from '../../errors.js';
import { aggregateFieldErrors, ALL_PRIVILEGED, parseLevel, parseVersion, type Policy } from './policy.js';

export const POD_SECURITY = 'PodSecurity';

export const POD_SECURITY_CONFIGURATION_KIND = 'PodSecurityConfiguration';
export const POD_SECURITY_CONFIGURATION_VERSIONS: readonly string[] = [
  'pod-security.admission.config.platform.io/v1beta1',
  'pod-security.admission.config.platform.io/v1alpha1',
  'pod-security.admission.config.k8s.io/v1beta1',
  'pod-security.admission.config.k8s.io/v1alpha1',
];

const DEFAULT_FIELDS = ['enforce', 'enforce-version', 'audit', 'audit-version', 'warn', 'warn-version'] as const;
const EXEMPTION_FIELDS = ['usernames', 'namespaces', 'runtimeClasses'] as const;

export interface PodSecurityConfiguration {
  defaults: Policy;
  exemptions: {
    usernames: ReadonlySet<string>;
    namespaces: ReadonlySet<string>;
    runtimeClasses: ReadonlySet<string>;
  };
}

export const DEFAULT_POD_SECURITY_CONFIGURATION: PodSecurityConfiguration = Object.freeze({
  defaults: ALL_PRIVILEGED,
  exemptions: Object.freeze({ usernames: new Set<string>(), namespaces: new Set<string>(), runtimeClasses: new Set<string>() }),
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads and validates the plugin's configuration (none: the privileged defaults). */
export function loadPodSecurityConfiguration(cfg: PluginConfiguration | undefined): PodSecurityConfiguration {
  if (!cfg) return DEFAULT_POD_SECURITY_CONFIGURATION;
  const doc = checkPluginConfiguration(POD_SECURITY, cfg, {
    apiVersions: POD_SECURITY_CONFIGURATION_VERSIONS,
    kind: POD_SECURITY_CONFIGURATION_KIND,
    fields: ['defaults', 'exemptions'],
  });
  const at = `admission plugin ${POD_SECURITY}: configuration from ${cfg.source}`;
  const fail = (why: string): never => {
    throw new AdmissionConfigError(`${at}: ${why}`);
  };

  const section = (name: string, fields: readonly string[]): Record<string, unknown> => {
    const v = doc[name];
    if (v === undefined || v === null) return {};
    if (!isObject(v)) fail(`${name} must be an object`);
    const obj = v as Record<string, unknown>;
    for (const key of Object.keys(obj)) if (!fields.includes(key)) fail(`unknown field "${name}.${key}"`);
    return obj;
  };
  const defaults = section('defaults', DEFAULT_FIELDS);
  const exemptions = section('exemptions', EXEMPTION_FIELDS);

  const errors: FieldError[] = [];
  // Unset defaults are privileged and latest (upstream's defaulting of v1alpha1 and v1beta1).
  const text = (key: string, fallback: string): string => {
    const v = defaults[key];
    if (v === undefined || v === null || v === '') return fallback;
    if (typeof v !== 'string') fail(`defaults.${key} must be a string`);
    return v as string;
  };
  const mode = (name: 'enforce' | 'audit' | 'warn') => {
    const levelValue = text(name, 'privileged');
    const versionValue = text(`${name}-version`, 'latest');
    const level = parseLevel(levelValue);
    if (level.error) errors.push({ type: 'Invalid value', field: `defaults.${name}`, value: levelValue, detail: level.error });
    const version = parseVersion(versionValue);
    if (version.error) errors.push({ type: 'Invalid value', field: `defaults.${name}-version`, value: versionValue, detail: version.error });
    return { level: level.level, version: version.version };
  };
  // Upstream validates in this order: enforce, warn, audit.
  const enforce = mode('enforce');
  const warn = mode('warn');
  const audit = mode('audit');

  const names = (key: (typeof EXEMPTION_FIELDS)[number], check: (value: string, field: string) => FieldError[]): Set<string> => {
    const v = exemptions[key];
    if (v === undefined || v === null) return new Set();
    if (!Array.isArray(v)) fail(`exemptions.${key} must be a list of strings`);
    const seen = new Set<string>();
    (v as unknown[]).forEach((item, i) => {
      const field = `exemptions.${key}[${i}]`;
      if (typeof item !== 'string') fail(`${field} must be a string`);
      const name = item as string;
      const problems = check(name, field);
      if (problems.length) errors.push({ type: 'Invalid value', field, value: name, detail: problems.map((p) => p.detail).join(', ') });
      else if (seen.has(name)) errors.push({ type: 'Duplicate value', field, value: name });
      else seen.add(name);
    });
    return seen;
  };
  const namespaces = names('namespaces', isDNS1123Label);
  const runtimeClasses = names('runtimeClasses', isDNS1123Subdomain);
  const usernames = names('usernames', (name, field) => (name === '' ? [{ type: 'Invalid value', field, value: name, detail: 'username must not be empty' }] : []));

  if (errors.length) fail(aggregateFieldErrors(errors));
  return { defaults: { enforce, audit, warn }, exemptions: { usernames, namespaces, runtimeClasses } };
}
