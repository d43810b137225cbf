// Feature gates (`--feature-gates=Name=true,Other=false`): the features an operator may turn on or
// off, each with its maturity at the spec's reference release (1.24), read as upstream's
// component-base featuregate reads the flag. Pure: a service resolves its flag once at start and
// hands the result to whatever a gate changes; a test builds its own.
//
// A gate is listed only when this server has its feature: alpha and beta gates change behaviour
// here; GA gates cannot be turned off (spec, Versioning rule 8: GA gates are deprecated and have no
// effect). RunAsGroup and RuntimeClass, which the spec's PodSecurityPolicy table names, are GA
// here: setting them true warns, false fails the start (upstream dropped their names after GA).

import type { OptionSpec } from './options.js';

export const FeatureMaturity = { Alpha: 'ALPHA', Beta: 'BETA', GA: 'GA', Deprecated: 'DEPRECATED' } as const;
export type FeatureMaturity = (typeof FeatureMaturity)[keyof typeof FeatureMaturity];

export interface FeatureSpec {
  maturity: FeatureMaturity;
  /** State when not set: alpha off, beta on, GA on (and locked there). A deprecated gate states its own. */
  default: boolean;
  /** The release the feature reached this maturity. */
  since: string;
  /** What the gate changes in this server (alpha, beta and deprecated gates). */
  effect?: string;
}

export type FeatureTable = Readonly<Record<string, FeatureSpec>>;

const ga = (since: string): FeatureSpec => ({ maturity: FeatureMaturity.GA, default: true, since });

/** Every gate of this server, in its 1.24 state (upstream's pkg/features and apiserver's features). */
export const FEATURE_GATES = {
  APIListChunking: {
    maturity: FeatureMaturity.Beta,
    default: true,
    since: '1.9',
    effect: 'lists honour `limit` and `continue`; off, `limit` is ignored and every list comes back whole, with no continue token',
  },
  RemainingItemCount: {
    maturity: FeatureMaturity.Beta,
    default: true,
    since: '1.16',
    effect: 'a list page that stops at `limit` tells how many items remain (`metadata.remainingItemCount`)',
  },
  CSIInlineVolume: {
    maturity: FeatureMaturity.Beta,
    default: true,
    since: '1.16',
    effect: 'pods and pod templates may declare inline `csi` volumes and PodSecurityPolicies keep `spec.allowedCSIDrivers`; off, both are dropped on write unless the stored pod already had one',
  },
  ProcMountType: {
    maturity: FeatureMaturity.Alpha,
    default: false,
    since: '1.12',
    effect:
      "containers keep `securityContext.procMount` and PodSecurityPolicies `spec.allowedProcMountTypes`; off, a write's procMount becomes `Default` and allowedProcMountTypes is dropped unless already in use",
  },
  CustomResourceValidationExpressions: {
    maturity: FeatureMaturity.Alpha,
    default: false,
    since: '1.23',
    effect:
      "custom resources are checked against their definition's `x-kubernetes-validations` CEL rules on create and update; off, the rules are still compiled and stored with the definition but not evaluated",
  },
  RunAsGroup: ga('1.21'),
  RuntimeClass: ga('1.20'),
  DryRun: ga('1.18'),
  ServerSideApply: ga('1.22'),
  WatchBookmark: ga('1.17'),
  RemoveSelfLink: ga('1.24'),
  CSRDuration: ga('1.24'),
  CSIStorageCapacity: ga('1.24'),
  EndpointSlice: ga('1.21'),
  GenericEphemeralVolume: ga('1.23'),
  IndexedJob: ga('1.24'),
  IngressClassNamespacedParams: ga('1.23'),
  IPv6DualStack: ga('1.23'),
  NonPreemptingPriority: ga('1.24'),
  PodAffinityNamespaceSelector: ga('1.24'),
  PodDisruptionBudget: ga('1.21'),
  PodOverhead: ga('1.24'),
  ServiceLBNodePortControl: ga('1.24'),
  ServiceLoadBalancerClass: ga('1.24'),
  SuspendJob: ga('1.24'),
  TTLAfterFinished: ga('1.23'),
} satisfies FeatureTable;

export type Feature = keyof typeof FEATURE_GATES;

/** Upstream's meta-gates: set every alpha (beta) gate not named explicitly. */
const ALL_ALPHA = 'AllAlpha';
const ALL_BETA = 'AllBeta';

/** A `--feature-gates` value that cannot be used; a RangeError, so a service exits 2 with the message. */
export class FeatureGateError extends RangeError {
  override name = 'FeatureGateError';
}

/** The resolved state of every known gate. Asking about a gate the table lacks is a programming error. */
export class FeatureGates<F extends string = Feature> {
  constructor(
    private readonly known: Readonly<Record<F, FeatureSpec>>,
    private readonly set: ReadonlyMap<F, boolean> = new Map(),
  ) {}

  enabled(name: F): boolean {
    const spec = this.known[name];
    if (!spec) throw new Error(`feature gate ${name} is not registered`);
    return this.set.get(name) ?? spec.default;
  }
}

/** Every gate at its default. */
export function defaultFeatureGates(): FeatureGates {
  return new FeatureGates(FEATURE_GATES);
}

/** Go's strconv.ParseBool, which upstream's flag uses. */
function parseBool(v: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

/** `Name=true,Other=false` (spaces around names and values allowed, empty items skipped) → settings. */
export function parseFeatureGateSettings(text: string): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const item of text.split(',')) {
    if (item.trim() === '') continue;
    const eq = item.indexOf('=');
    const name = (eq < 0 ? item : item.slice(0, eq)).trim();
    if (eq < 0) throw new FeatureGateError(`missing bool value for ${name}`);
    const raw = item.slice(eq + 1).trim();
    const value = parseBool(raw);
    if (value === undefined) throw new FeatureGateError(`invalid value of ${name}=${raw}: expected true or false`);
    out.set(name, value);
  }
  return out;
}

export interface ResolvedFeatureGates<F extends string> {
  gates: FeatureGates<F>;
  /** For the caller to log: setting a GA or deprecated gate works but the gate will go away. */
  warnings: string[];
}

/**
 * Checks settings against the table: unknown gates fail (listing the known ones), as
 * does turning a GA gate off; setting a GA or deprecated gate warns. Every problem is reported at once.
 */
export function resolveFeatureGates<F extends string>(settings: ReadonlyMap<string, boolean>, known: Readonly<Record<F, FeatureSpec>>): ResolvedFeatureGates<F> {
  const table = known as Readonly<Record<string, FeatureSpec>>;
  const set = new Map<F, boolean>();
  const problems: string[] = [];
  const warnings: string[] = [];
  let unknown = false;
  for (const [name, value] of settings) {
    if (name === ALL_ALPHA || name === ALL_BETA) continue;
    const spec = Object.hasOwn(table, name) ? table[name] : undefined;
    if (!spec) {
      problems.push(`unrecognized feature gate: ${name}`);
      unknown = true;
      continue;
    }
    if (spec.maturity === FeatureMaturity.GA && value !== spec.default) {
      problems.push(`cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`);
      continue;
    }
    set.set(name as F, value);
    if (spec.maturity === FeatureMaturity.GA) warnings.push(`Setting GA feature gate ${name}=${value}. It will be removed in a future release.`);
    if (spec.maturity === FeatureMaturity.Deprecated) warnings.push(`Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.`);
  }
  if (unknown) problems.push(`known feature gates: ${[...Object.keys(table), ALL_ALPHA, ALL_BETA].sort().join(', ')}`);
  if (problems.length) throw new FeatureGateError(problems.join('; '));
  // AllAlpha / AllBeta reach only the gates not named explicitly, whatever the order given.
  for (const [meta, maturity] of [
    [ALL_ALPHA, FeatureMaturity.Alpha],
    [ALL_BETA, FeatureMaturity.Beta],
  ] as const) {
    const value = settings.get(meta);
    if (value === undefined) continue;
    for (const [name, spec] of Object.entries(table)) if (spec.maturity === maturity && !settings.has(name)) set.set(name as F, value);
  }
  return { gates: new FeatureGates(known, set), warnings };
}

/**
 * The `--feature-gates` option's values (the flag may be repeated; each value is a comma list),
 * resolved. Errors read as upstream's: `invalid argument "<value>" for "--feature-gates" flag: …`.
 */
export function featureGatesFromFlag(values: readonly string[]): ResolvedFeatureGates<Feature> {
  const text = values.join(',');
  try {
    return resolveFeatureGates(parseFeatureGateSettings(text), FEATURE_GATES);
  } catch (err) {
    if (err instanceof FeatureGateError) throw new FeatureGateError(`invalid argument ${JSON.stringify(text)} for "--feature-gates" flag: ${err.message}`);
    throw err;
  }
}

/** `Name=true|false (BETA - default=true)` for each gate that may be set either way, as upstream's help lists them. */
export function describeFeatureGates(table: FeatureTable = FEATURE_GATES): string[] {
  const settable = Object.entries(table).filter(([, s]) => s.maturity === FeatureMaturity.Alpha || s.maturity === FeatureMaturity.Beta);
  return [
    `${ALL_ALPHA}=true|false (ALPHA - default=false)`,
    `${ALL_BETA}=true|false (BETA - default=false)`,
    ...settable.sort(([a], [b]) => a.localeCompare(b)).map(([name, s]) => `${name}=true|false (${s.maturity} - default=${s.default})`),
  ];
}

/** The option every service that a gate changes declares. */
export const featureGatesOption = {
  type: 'list',
  repeatable: true,
  default: [],
  description: `comma-separated Name=true|false pairs turning features on or off (alpha: off by default; beta: on, may be turned off; GA: always on, =true only warns; an unknown name fails the start). Gates: ${describeFeatureGates().join(', ')}; GA: ${Object.entries(
    FEATURE_GATES as FeatureTable,
  )
    .filter(([, s]) => s.maturity === FeatureMaturity.GA)
    .map(([n]) => n)
    .sort()
    .join(', ')}`,
} as const satisfies OptionSpec;
