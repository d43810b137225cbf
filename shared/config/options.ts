// Service configuration: flags named as in the spec (`--token-auth-file`), the same options as
// environment variables (`PLATFORM_TOKEN_AUTH_FILE`) and as keys of a YAML file given with
// `--config` (`token-auth-file: ...`). Precedence: flag > env > file > default.

import { readFileSync } from 'node:fs';
import YAML from 'yaml';

export type OptionType = 'string' | 'boolean' | 'number' | 'list' | 'duration';

interface SpecBase {
  description?: string;
  /**
   * Why the flag is deprecated and what to use instead (pflag's MarkDeprecated message): setting it
   * (flag, env or file) warns `Flag --X has been deprecated, <message>` at start.
   */
  deprecated?: string;
  /** A deprecated spelling of another option: its value is that option's, unless that one is set too. */
  aliasOf?: string;
}

/**
 * One option. A default is written the way a user would write the value (a duration as `'5m'`,
 * never a bare number whose unit a reader must guess) and goes through the same conversion as a
 * value from a flag, the environment or a file, so a default can never reach a service unconverted.
 */
export type OptionSpec =
  | (SpecBase & { type: 'string'; default?: string })
  | (SpecBase & { type: 'boolean'; default?: boolean })
  | (SpecBase & { type: 'number'; default?: number })
  | (SpecBase & { type: 'duration'; default?: string })
  /** `repeatable`: the flag may be given several times (`--oidc-required-claim a=b --oidc-required-claim c=d`). */
  | (SpecBase & { type: 'list'; default?: string[]; repeatable?: boolean });

export type OptionSpecs = Record<string, OptionSpec>;

interface ValueOfType {
  string: string;
  boolean: boolean;
  number: number;
  /** Milliseconds. */
  duration: number;
  list: string[];
}

/** The parsed value of one option: its converted type, or undefined when it has no default. */
export type OptionValueOf<S extends OptionSpec> = S extends { default: unknown } ? ValueOfType[S['type']] : ValueOfType[S['type']] | undefined;
export type OptionValue = ValueOfType[OptionType] | undefined;
export type Options<S extends OptionSpecs> = { [K in keyof S]: OptionValueOf<S[K]> };

export class OptionsError extends Error {
  override name = 'OptionsError';
}

export function envName(flag: string): string {
  return 'PLATFORM_' + flag.toUpperCase().replace(/-/g, '_');
}

/**
 * Parses Go-style durations (`2m`, `1h30m`, `500ms`, `10s`) and bare seconds into milliseconds. Go
 * reads `-1s` too; no duration option here takes one, so it is refused in upstream's words.
 */
export function parseDuration(s: string): number {
  const negative = s.startsWith('-');
  const ms = parseUnsigned(negative ? s.slice(1) : s, s);
  if (negative) throw new OptionsError(`${JSON.stringify(s)} can not be negative value`);
  return ms;
}

function parseUnsigned(s: string, written: string): number {
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let consumed = 0;
  for (const m of s.matchAll(re)) {
    total += Number(m[1]) * units[m[2]!]!;
    consumed += m[0].length;
  }
  if (consumed !== s.length || consumed === 0) throw new OptionsError(`invalid duration ${JSON.stringify(written)}`);
  return total;
}

function convert(flag: string, spec: OptionSpec, raw: unknown): OptionValue {
  try {
    return convertValue(flag, spec, raw);
  } catch (err) {
    if (err instanceof OptionsError && !err.message.startsWith(`--${flag}`)) throw new OptionsError(`--${flag}: ${err.message}`);
    throw err;
  }
}

function convertValue(flag: string, spec: OptionSpec, raw: unknown): OptionValue {
  if (raw === undefined || raw === null) return undefined;
  switch (spec.type) {
    case 'boolean':
      if (typeof raw === 'boolean') return raw;
      if (raw === '' || raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      throw new OptionsError(`--${flag} expects true or false, got ${JSON.stringify(raw)}`);
    case 'number': {
      const n = Number(raw);
      if (!Number.isFinite(n)) throw new OptionsError(`--${flag} expects a number, got ${JSON.stringify(raw)}`);
      return n;
    }
    case 'duration': {
      // A bare number (YAML `ttl: 30`) is seconds, as parseDuration reads `'30'`.
      const ms = parseDuration(String(raw));
      if (!Number.isFinite(ms)) throw new OptionsError(`--${flag}: duration ${JSON.stringify(raw)} is out of range`);
      return ms;
    }
    case 'list':
      if (Array.isArray(raw)) return raw.map(String);
      return String(raw)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    default:
      return String(raw);
  }
}

/**
 * Options the parser reads for every service: `--config` (the YAML file) and
 * `--suppress-deprecation-warnings` (spec, Versioning rule 6: deprecated flags warn, and the
 * warning can be suppressed).
 */
export const parserOptions = {
  config: { type: 'string', description: 'YAML file mapping option names to values (env PLATFORM_CONFIG)' },
  'suppress-deprecation-warnings': { type: 'boolean', default: false, description: 'do not warn at start about deprecated flags that are set' },
} satisfies OptionSpecs;

/** Upstream's (pflag's) words for a deprecated flag that is set. */
export function deprecationWarning(flag: string, message: string): string {
  return `Flag --${flag} has been deprecated, ${message}`;
}

function specOf(specs: OptionSpecs, name: string): OptionSpec | undefined {
  return Object.hasOwn(parserOptions, name) ? parserOptions[name as keyof typeof parserOptions] : Object.hasOwn(specs, name) ? specs[name] : undefined;
}

function flagValues(specs: OptionSpecs, argv: string[]): Map<string, unknown> {
  const fromFlags = new Map<string, unknown>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new OptionsError(`unexpected argument ${JSON.stringify(arg)}`);
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    const spec = specOf(specs, name);
    if (!spec) throw new OptionsError(`unknown flag --${name}`);
    let value: string;
    if (eq >= 0) value = arg.slice(eq + 1);
    else if (spec.type === 'boolean' && (argv[i + 1] === undefined || argv[i + 1]!.startsWith('--'))) value = 'true';
    else {
      const next = argv[++i];
      if (next === undefined) throw new OptionsError(`--${name} needs a value`);
      value = next;
    }
    if (spec.type === 'list' && spec.repeatable) fromFlags.set(name, [...((fromFlags.get(name) as string[]) ?? []), value]);
    else fromFlags.set(name, value);
  }
  return fromFlags;
}

function fileValues(specs: OptionSpecs, configPath: string | undefined): Record<string, unknown> {
  if (!configPath) return {};
  const parsed = YAML.parse(readFileSync(configPath, 'utf8')) as unknown;
  if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed))) throw new OptionsError(`${configPath}: expected a mapping of flag names to values`);
  const fromFile = (parsed ?? {}) as Record<string, unknown>;
  for (const k of Object.keys(fromFile)) if (k === 'config' || !specOf(specs, k)) throw new OptionsError(`${configPath}: unknown option ${k}`);
  return fromFile;
}

/**
 * Parses argv (without node and script), env and an optional `--config` YAML file. `warn` hears
 * of each deprecated option that is set, unless `--suppress-deprecation-warnings` is.
 */
export function parseOptions<S extends OptionSpecs>(specs: S, argv: string[], env: NodeJS.ProcessEnv = {}, warn?: (message: string) => void): Options<S> & { config?: string } {
  const fromFlags = flagValues(specs, argv);
  const configPath = (fromFlags.get('config') as string | undefined) ?? env.PLATFORM_CONFIG;
  const fromFile = fileValues(specs, configPath);
  const given = (flag: string): unknown => (fromFlags.has(flag) ? fromFlags.get(flag) : env[envName(flag)] !== undefined ? env[envName(flag)] : fromFile[flag]);
  const out: Record<string, OptionValue> = {};
  for (const [flag, spec] of Object.entries(specs)) {
    const raw = given(flag);
    // One path for every source: a default is converted exactly like a given value.
    out[flag] = convert(flag, spec, raw === undefined ? spec.default : raw);
  }
  const deprecatedSet = Object.entries(specs).filter(([flag, spec]) => spec.deprecated !== undefined && given(flag) !== undefined);
  for (const [flag, spec] of deprecatedSet) {
    const target = spec.aliasOf;
    if (target !== undefined && specs[target] && given(target) === undefined) out[target] = convert(target, specs[target], given(flag));
  }
  const suppress = convert('suppress-deprecation-warnings', parserOptions['suppress-deprecation-warnings'], given('suppress-deprecation-warnings')) === true;
  if (warn && !suppress) for (const [flag, spec] of deprecatedSet) warn(deprecationWarning(flag, spec.deprecated!));
  if (configPath) out.config = configPath;
  return out as Options<S> & { config?: string };
}

/** `--help` text listing each flag with its env name and default. */
export function describeOptions(specs: OptionSpecs): string {
  return Object.entries({ ...specs, ...parserOptions })
    .map(([flag, s]: [string, OptionSpec]) => {
      const deprecated = s.deprecated ? ` (DEPRECATED: ${s.deprecated})` : '';
      return `  --${flag} (${s.type}; env ${envName(flag)})${s.default !== undefined ? ` [default ${JSON.stringify(s.default)}]` : ''}${deprecated}${s.description ? `\n      ${s.description}` : ''}`;
    })
    .join('\n');
}

/** How a service reaches NATS: where, as whom, over TLS with which CA (shared/bus/connect.ts reads them). */
export const natsOptions = {
  'nats-url': { type: 'string', default: 'nats://127.0.0.1:4222', description: 'NATS server URL(s), comma separated' },
  'nats-creds': { type: 'string', description: 'NATS credentials file (user JWT and seed), instead of --nats-user' },
  'nats-user': { type: 'string', description: 'NATS user name (one per service, see shared/bus/permissions.ts)' },
  'nats-password': { type: 'string', description: 'password of --nats-user; prefer PLATFORM_NATS_PASSWORD or --nats-password-file to a command line' },
  'nats-password-file': { type: 'string', description: 'file holding the password of --nats-user' },
  'nats-inbox-prefix': { type: 'string', description: "prefix of this connection's reply subjects (default _INBOX.<nats-user> with --nats-user, else _INBOX)" },
  'nats-tls-ca-file': { type: 'string', description: "PEM bundle verifying the NATS server's certificate; TLS is then required" },
  'nats-tls-cert-file': { type: 'string', description: 'client certificate presented to NATS (PEM), with --nats-tls-key-file' },
  'nats-tls-key-file': { type: 'string', description: 'private key of --nats-tls-cert-file (PEM)' },
} satisfies OptionSpecs;

/** Options every service shares. */
export const commonOptions = {
  ...natsOptions,
  'log-level': { type: 'string', default: 'info', description: 'pino log level' },
} satisfies OptionSpecs;
