// `--runtime-config`: which group versions and resources are served. Parsing is pure and strict
// (a typo must stop the server at boot, not silently serve the wrong API); resolution applies the
// most specific setting: resource, then group version, then maturity level, then api/all.

import { parseVersion, versionLevel, type VersionLevel } from './versions.js';

export type RuntimeConfigTarget =
  { scope: 'all' } | { scope: 'level'; level: VersionLevel } | { scope: 'groupVersion'; group: string; version: string } | { scope: 'resource'; group: string; version: string; resource: string };

export interface RuntimeConfigEntry {
  /** The key as written, for error messages. */
  key: string;
  enabled: boolean;
  target: RuntimeConfigTarget;
}

const TRUE_WORDS = new Set(['', 'true', 'True', 'TRUE', 't', 'T', '1']);
const FALSE_WORDS = new Set(['false', 'False', 'FALSE', 'f', 'F', '0']);
const LEVEL_KEYS: Record<string, VersionLevel> = { 'api/ga': 'ga', 'api/beta': 'beta', 'api/alpha': 'alpha' };

function fail(message: string): never {
  throw new Error(`invalid --runtime-config: ${message}`);
}

function parseTarget(key: string): RuntimeConfigTarget {
  if (key === 'api/all') return { scope: 'all' };
  const level = LEVEL_KEYS[key];
  if (level) return { scope: 'level', level };
  const segs = key.split('/');
  if (segs.some((s) => s === '')) fail(`key "${key}" has an empty segment; expected <group>/<version>[/<resource>], v1 or api/<all|ga|beta|alpha>`);
  const shape = `expected <group>/<version>[/<resource>], v1, api/v1 or api/<all|ga|beta|alpha>`;
  if (segs.length === 1) {
    // A lone segment can only name a core version.
    if (!parseVersion(segs[0]!)) fail(`key "${key}" is not a group version; ${shape}`);
    return { scope: 'groupVersion', group: '', version: segs[0]! };
  }
  if (segs.length === 2) {
    const [a, b] = segs as [string, string];
    if (a === 'api') return { scope: 'groupVersion', group: '', version: b };
    // `v1/pods`: no group is named like a version, so this is a core resource.
    if (parseVersion(a) && !a.includes('.')) return { scope: 'resource', group: '', version: a, resource: b };
    return { scope: 'groupVersion', group: a, version: b };
  }
  if (segs.length === 3) {
    const [a, b, c] = segs as [string, string, string];
    return { scope: 'resource', group: a === 'api' ? '' : a, version: b, resource: c };
  }
  fail(`key "${key}" has too many segments; ${shape}`);
}

/** Parses `k1=v1,k2,k3=false`; a bare key means true. Throws on malformed keys or values. */
export function parseRuntimeConfig(s: string): RuntimeConfigEntry[] {
  const out: RuntimeConfigEntry[] = [];
  for (const raw of s.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    const key = (eq < 0 ? item : item.slice(0, eq)).trim();
    const value = eq < 0 ? '' : item.slice(eq + 1).trim();
    if (key === '') fail(`entry "${item}" has no key`);
    let enabled: boolean;
    if (TRUE_WORDS.has(value)) enabled = true;
    else if (FALSE_WORDS.has(value)) enabled = false;
    else fail(`invalid value "${value}" for key "${key}": must be true or false`);
    out.push({ key, enabled, target: parseTarget(key) });
  }
  return out;
}

function gvKey(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** Answers "is this served?" for parsed entries; later entries for the same key win. */
export class RuntimeConfig {
  private all: boolean | undefined;
  private readonly levels = new Map<VersionLevel, boolean>();
  private readonly groupVersions = new Map<string, boolean>();
  private readonly resources = new Map<string, boolean>();

  constructor(readonly entries: readonly RuntimeConfigEntry[] = []) {
    for (const e of entries) {
      const t = e.target;
      if (t.scope === 'all') this.all = e.enabled;
      else if (t.scope === 'level') this.levels.set(t.level, e.enabled);
      else if (t.scope === 'groupVersion') this.groupVersions.set(gvKey(t.group, t.version), e.enabled);
      else this.resources.set(`${gvKey(t.group, t.version)}/${t.resource}`, e.enabled);
    }
  }

  groupVersionEnabled(group: string, version: string): boolean {
    const explicit = this.groupVersions.get(gvKey(group, version));
    if (explicit !== undefined) return explicit;
    const level = versionLevel(version);
    const byLevel = level ? this.levels.get(level) : undefined;
    if (byLevel !== undefined) return byLevel;
    if (this.all !== undefined) return this.all;
    // Alpha APIs may be broken or change without notice: only served when asked for.
    return level !== 'alpha';
  }

  resourceEnabled(group: string, version: string, resource: string): boolean {
    return this.resources.get(`${gvKey(group, version)}/${resource}`) ?? this.groupVersionEnabled(group, version);
  }
}
