// Resolves `--enable-admission-plugins` / `--disable-admission-plugins` into the ordered list of
// plugins to run: the default-enabled ones plus those enabled, minus those disabled, in the
// fixed chain order. Every mistake is a start-up error naming the offending plugin.

import { admissionPlugins, isKnownPlugin } from './plugins.js';
import { AdmissionConfigError } from './errors.js';

export { AdmissionConfigError } from './errors.js';

export interface AdmissionConfig {
  /** `--enable-admission-plugins` (order irrelevant). */
  enable?: string[];
  /** `--disable-admission-plugins` (order irrelevant). */
  disable?: string[];
  /** `--admission-control-config-file`: the plugins' configurations. */
  configFile?: string;
}

export interface ResolvedPlugins {
  /** Plugins to run, in chain order. */
  enabled: string[];
}

function clean(list: string[] | undefined): string[] {
  return [...new Set((list ?? []).map((s) => s.trim()).filter(Boolean))];
}

export function resolvePlugins(config: AdmissionConfig): ResolvedPlugins {
  const enable = clean(config.enable);
  const disable = clean(config.disable);
  const known = admissionPlugins
    .map((p) => p.name)
    .sort()
    .join(', ');
  for (const [flag, list] of [
    ['--enable-admission-plugins', enable],
    ['--disable-admission-plugins', disable],
  ] as const) {
    for (const name of list) {
      if (!isKnownPlugin(name)) throw new AdmissionConfigError(`${flag}: unknown admission plugin "${name}" (known: ${known})`);
    }
  }
  for (const name of enable) {
    if (disable.includes(name)) throw new AdmissionConfigError(`admission plugin "${name}" is in both --enable-admission-plugins and --disable-admission-plugins`);
  }
  const enabled = admissionPlugins.filter((p) => (p.defaultEnabled || enable.includes(p.name)) && !disable.includes(p.name)).map((p) => p.name);
  return { enabled };
}
