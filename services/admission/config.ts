// Resolves `--enable-admission-plugins` / `--disable-admission-plugins` into the ordered list of
// plugins to run: the default-enabled ones plus those enabled, minus those disabled, in the
// fixed chain order. Every mistake is a start-up error naming the offending plugin.

import { knownPlugins, isKnownPlugin } from './plugin-names.js';
import { implementedPlugins } from './registry.js';

export interface AdmissionConfig {
  /** `--enable-admission-plugins` (order irrelevant). */
  enable?: string[];
  /** `--disable-admission-plugins` (order irrelevant). */
  disable?: string[];
  /** `--admission-control-config-file`: the plugins' configurations. */
  configFile?: string;
}

export class AdmissionConfigError extends Error {
  override name = 'AdmissionConfigError';
}

export interface ResolvedPlugins {
  /** Plugins to run, in chain order. */
  enabled: string[];
  /** Plugins the spec enables by default that are not built yet (reported at start-up). */
  defaultNotImplemented: string[];
}

const isImplemented = (name: string) => Object.hasOwn(implementedPlugins, name);

function clean(list: string[] | undefined): string[] {
  return [...new Set((list ?? []).map((s) => s.trim()).filter(Boolean))];
}

export function resolvePlugins(config: AdmissionConfig): ResolvedPlugins {
  const enable = clean(config.enable);
  const disable = clean(config.disable);
  const implemented = Object.keys(implementedPlugins).join(', ');
  for (const [flag, list] of [
    ['--enable-admission-plugins', enable],
    ['--disable-admission-plugins', disable],
  ] as const) {
    for (const name of list) {
      if (!isKnownPlugin(name)) throw new AdmissionConfigError(`${flag}: unknown admission plugin "${name}" (implemented: ${implemented})`);
    }
  }
  for (const name of enable) {
    if (disable.includes(name)) throw new AdmissionConfigError(`admission plugin "${name}" is in both --enable-admission-plugins and --disable-admission-plugins`);
    if (!isImplemented(name)) throw new AdmissionConfigError(`--enable-admission-plugins: admission plugin "${name}" is not implemented yet (implemented: ${implemented})`);
  }
  // Disabling a plugin that is not built is accepted: it is off either way, and operators
  // routinely disable default plugins by name.
  const enabled: string[] = [];
  const defaultNotImplemented: string[] = [];
  for (const p of knownPlugins) {
    const on = (p.defaultEnabled || enable.includes(p.name)) && !disable.includes(p.name);
    if (!on) continue;
    if (isImplemented(p.name)) enabled.push(p.name);
    else defaultNotImplemented.push(p.name);
  }
  return { enabled, defaultNotImplemented };
}
