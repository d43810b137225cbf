// A service's metrics registry: prom-client's Registry (exposition, process metrics) with upstream's
// stability rules (stability.ts). A metric is declared with its stability level and, when
// deprecated, the release that deprecated it; the registry writes both into its HELP text, warns
// once for a deprecated metric it exposes, and leaves hidden metrics out unless
// `--show-hidden-metrics-for-version` asks for them (or `--disabled-metrics` names them). Metrics
// registered directly (prom-client's `registers: [registry]`) are ALPHA, as upstream's default.

import { collectDefaultMetrics, Registry as PromRegistry, type Metric } from 'prom-client';
import { CounterFamily, GaugeFamily, HistogramFamily, type FamilyOptions, type HistogramOptions } from './families.js';
import { annotateHelp, metricState, MetricState, REFERENCE_VERSION, StabilityLevel, validateShowHiddenMetricsVersion } from './stability.js';

export interface MetricDeclaration {
  name: string;
  help: string;
  /** Default ALPHA. */
  stabilityLevel?: StabilityLevel;
  /** The release that deprecated the metric (`1.23.0`). */
  deprecatedVersion?: string;
}

export interface WarnLogger {
  warn(obj: object, msg: string): void;
}

export interface MetricsOptions {
  /** `--show-hidden-metrics-for-version`: the previous minor release shows the hidden metrics. */
  showHiddenMetricsForVersion?: string;
  /** `--disabled-metrics`: names never exposed (this wins over showing hidden metrics). */
  disabledMetrics?: readonly string[];
  log?: WarnLogger;
}

/** A prom-client metric or a family (its name is the declaration's). */
type Exposable = object;

interface Entry {
  readonly metric: Exposable;
  readonly name: string;
  readonly state: MetricState;
  readonly deprecatedVersion: string | undefined;
  warned: boolean;
}

/** The fields a prom-client metric's constructor takes from a declaration: annotated help, no registers yet. */
export interface DeclaredOptions {
  name: string;
  help: string;
  registers: [];
}

export class MetricsRegistry extends PromRegistry {
  private readonly entries = new Map<string, Entry>();
  private showHidden = false;
  private disabled: ReadonlySet<string> = new Set();
  private log: WarnLogger | undefined;
  /** Set while process metrics register: they keep their HELP as is (upstream registers them raw). */
  private raw = false;

  constructor(
    opts: MetricsOptions = {},
    /** The release the rules are applied at; tests pass others. */
    readonly currentVersion: string = REFERENCE_VERSION,
  ) {
    super();
    this.configure(opts);
  }

  /**
   * Applies the metric flags: hidden metrics are registered when asked for (a warning each, as
   * upstream), disabled ones removed. Throws RangeError for a refused `--show-hidden-metrics-for-version`.
   */
  configure(opts: MetricsOptions): void {
    const refused = validateShowHiddenMetricsVersion(opts.showHiddenMetricsForVersion, this.currentVersion);
    if (refused) throw new RangeError(refused);
    this.showHidden = Boolean(opts.showHiddenMetricsForVersion);
    this.disabled = new Set(opts.disabledMetrics ?? []);
    if (opts.log) this.log = opts.log;
    for (const e of this.entries.values()) this.place(e);
  }

  /** A prom-client metric from a declaration: `build` receives the name, the annotated help and no registers. */
  define<M extends Exposable>(d: MetricDeclaration, build: (o: DeclaredOptions) => M): M {
    const { help, state } = this.annotate(d);
    const metric = build({ name: d.name, help, registers: [] });
    this.track(metric, d, state);
    return metric;
  }

  counter(d: MetricDeclaration & Omit<FamilyOptions, 'name' | 'help'>): CounterFamily {
    const { help, state } = this.annotate(d);
    return this.track(new CounterFamily({ ...d, help }), d, state);
  }

  gauge(d: MetricDeclaration & Omit<FamilyOptions, 'name' | 'help'>): GaugeFamily {
    const { help, state } = this.annotate(d);
    return this.track(new GaugeFamily({ ...d, help }), d, state);
  }

  histogram(d: MetricDeclaration & Omit<HistogramOptions, 'name' | 'help'>): HistogramFamily {
    const { help, state } = this.annotate(d);
    return this.track(new HistogramFamily({ ...d, help }), d, state);
  }

  /** Whether a declared metric is exposed now (not hidden, not disabled). */
  exposes(name: string): boolean {
    return this.getSingleMetric(name) !== undefined;
  }

  /**
   * The process's own metrics (CPU, memory, event loop, handles), as prom-client collects them. The
   * event-loop delay is sampled every 100 ms rather than prom-client's 10: an idle service then
   * wakes 10 times a second for it, not 100.
   */
  processMetrics(): void {
    this.raw = true;
    try {
      collectDefaultMetrics({ register: this, eventLoopMonitoringPrecision: 100 });
    } finally {
      this.raw = false;
    }
  }

  /** A metric registered directly (prom-client's `registers`) is ALPHA, unless declared. */
  override registerMetric<T extends string>(metric: Metric<T>): void {
    const m = metric as unknown as { name: string; help?: string };
    if (!this.raw && !this.entries.has(m.name) && typeof m.help === 'string' && !m.help.startsWith('[')) {
      m.help = annotateHelp(m.help, StabilityLevel.Alpha, MetricState.Active);
    }
    super.registerMetric(metric);
  }

  private annotate(d: MetricDeclaration): { help: string; state: MetricState } {
    const stability = d.stabilityLevel ?? StabilityLevel.Alpha;
    const state = metricState(stability, d.deprecatedVersion, this.currentVersion);
    return { help: annotateHelp(d.help, stability, state, d.deprecatedVersion), state };
  }

  private track<M extends Exposable>(metric: M, d: MetricDeclaration, state: MetricState): M {
    if (this.entries.has(d.name)) throw new Error(`metric ${d.name} is declared twice`);
    const e: Entry = { metric, name: d.name, state, deprecatedVersion: d.deprecatedVersion, warned: false };
    this.entries.set(d.name, e);
    this.place(e);
    return metric;
  }

  private place(e: Entry): void {
    const want = !this.disabled.has(e.name) && (e.state !== MetricState.Hidden || this.showHidden);
    const has = this.getSingleMetric(e.name) === (e.metric as unknown);
    if (want && !has) super.registerMetric(e.metric as unknown as Metric<string>);
    else if (!want && has) this.removeSingleMetric(e.name);
    // A deprecated metric says so in its HELP only, as upstream's: a warning at every start would
    // ask the operator for nothing. Showing a hidden one is the operator's override: that is logged.
    if (!want || e.state !== MetricState.Hidden || e.warned || !this.log) return;
    e.warned = true;
    this.log.warn({ metric: e.name, deprecatedVersion: e.deprecatedVersion }, `Hidden metrics (${e.name}) have been manually overridden, showing this very deprecated metric.`);
  }
}
