// Metric families for hot paths. prom-client's `inc(labels)` and its `labels(...)` children hash
// the label object into a string on every call; here a caller looks a series up once (or per
// request through nested maps, with no allocation when the series exists) and then adds to a plain
// number. A family is registered in a prom-client Registry like any of its metrics: `get()` turns
// the series into prom-client's value records at scrape time only.

/** One sample as prom-client's registry formats it. */
export interface SampleValue {
  value: number;
  labels: Record<string, string | number>;
  /** `<name>_bucket`, `_sum`, `_count` for histograms; the family's name otherwise. */
  metricName?: string;
}

/** What prom-client's registry reads from a metric at scrape time. */
export interface FamilySnapshot {
  name: string;
  help: string;
  type: MetricType;
  aggregator: 'sum';
  values: SampleValue[];
}

export class CounterCell {
  value = 0;
  inc(n = 1): void {
    this.value += n;
  }
}

export class GaugeCell {
  value = 0;
  set(v: number): void {
    this.value = v;
  }
  inc(n = 1): void {
    this.value += n;
  }
  dec(n = 1): void {
    this.value -= n;
  }
}

export class HistogramCell {
  /** Observations per bucket (not cumulative): counts[i] holds those in (bounds[i-1], bounds[i]]. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length);
  }
  observe(v: number): void {
    const b = this.bounds;
    // Latencies and sizes are mostly small: a scan from the low end is done in a step or two.
    for (let i = 0; i < b.length; i++) {
      if (v <= b[i]!) {
        this.counts[i]!++;
        break;
      }
    }
    this.sum += v;
    this.count++;
  }
}

/** `count` buckets from `start`, each `factor` times the one before (upstream's ExponentialBuckets). */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  const out: number[] = [];
  for (let i = 0, v = start; i < count; i++, v *= factor) out.push(v);
  return out;
}

type Tree<T> = Map<string, Tree<T> | T>;

/**
 * Values of type T found by a fixed number of label values, through one Map per label: no key
 * string is built, so a lookup of a known series allocates nothing. A caller on a hot path may
 * pass the same scratch array every time: `make` gets a copy.
 */
export class SeriesIndex<T> {
  private root: Tree<T> = new Map();
  constructor(
    private readonly depth: number,
    private readonly make: (values: string[]) => T,
  ) {}

  get(values: readonly string[]): T {
    let node = this.root;
    const n = this.depth;
    for (let i = 0; i < n - 1; i++) {
      const v = values[i] ?? '';
      let next = node.get(v) as Tree<T> | undefined;
      if (!next) node.set(v, (next = new Map()));
      node = next;
    }
    const last = values[n - 1] ?? '';
    let t = node.get(last) as T | undefined;
    if (t === undefined) node.set(last, (t = this.make(values.slice(0, n))));
    return t;
  }

  clear(): void {
    this.root = new Map();
  }
}

export interface FamilyOptions {
  name: string;
  /** The HELP text as exposed (the registry adds the stability annotations). */
  help: string;
  labelNames?: readonly string[];
  /** Called at scrape time before the values are read (set gauges from live state here). */
  collect?: () => void | Promise<void>;
}

export type MetricType = 'counter' | 'gauge' | 'histogram';

/** Series of one metric, each a cell found by its label values in label-name order. */
export abstract class Family<C> {
  readonly name: string;
  help: string;
  readonly labelNames: readonly string[];
  abstract readonly type: MetricType;
  /** prom-client reads this for its cluster mode; series of one process only. */
  readonly aggregator = 'sum';
  private readonly collectFn: FamilyOptions['collect'];
  private readonly index: SeriesIndex<C>;
  private series: { labels: Record<string, string>; cell: C }[] = [];
  private single: C | undefined;

  constructor(o: FamilyOptions) {
    this.name = o.name;
    this.help = o.help;
    this.labelNames = o.labelNames ?? [];
    this.collectFn = o.collect;
    this.index = new SeriesIndex(this.labelNames.length, (values) => this.add(values));
  }

  protected abstract newCell(): C;

  /**
   * The cell of one series; `values` in label-name order. A caller on a hot path may pass the same
   * scratch array every time: it is copied only when the series is new.
   */
  with(values: readonly string[]): C {
    if (this.labelNames.length === 0) return (this.single ??= this.add([]));
    return this.index.get(values);
  }

  /** The cell of a metric without labels. */
  cell(): C {
    return this.with([]);
  }

  private add(values: readonly string[]): C {
    const labels: Record<string, string> = {};
    this.labelNames.forEach((l, i) => (labels[l] = values[i] ?? ''));
    const cell = this.newCell();
    this.series.push({ labels, cell });
    return cell;
  }

  /** Forgets every series (cells handed out before keep counting, unseen). */
  reset(): void {
    this.index.clear();
    this.series = [];
    this.single = undefined;
  }

  protected abstract values(labels: Record<string, string>, cell: C, out: SampleValue[]): void;

  /** prom-client's read of a metric: what the registry formats into the exposition. */
  async get(): Promise<FamilySnapshot> {
    if (this.collectFn) await this.collectFn();
    const values: SampleValue[] = [];
    for (const s of this.series) this.values(s.labels, s.cell, values);
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

export class CounterFamily extends Family<CounterCell> {
  readonly type = 'counter';
  protected newCell(): CounterCell {
    return new CounterCell();
  }
  protected values(labels: Record<string, string>, cell: CounterCell, out: SampleValue[]): void {
    out.push({ labels, value: cell.value });
  }
}

export class GaugeFamily extends Family<GaugeCell> {
  readonly type = 'gauge';
  protected newCell(): GaugeCell {
    return new GaugeCell();
  }
  protected values(labels: Record<string, string>, cell: GaugeCell, out: SampleValue[]): void {
    out.push({ labels, value: cell.value });
  }
}

export interface HistogramOptions extends FamilyOptions {
  buckets: readonly number[];
}

export class HistogramFamily extends Family<HistogramCell> {
  readonly type = 'histogram';
  readonly buckets: readonly number[];
  constructor(o: HistogramOptions) {
    super(o);
    this.buckets = [...o.buckets].sort((a, b) => a - b);
  }
  protected newCell(): HistogramCell {
    return new HistogramCell(this.buckets);
  }
  protected values(labels: Record<string, string>, cell: HistogramCell, out: SampleValue[]): void {
    let cumulative = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      cumulative += cell.counts[i]!;
      out.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: this.buckets[i]! }, value: cumulative });
    }
    out.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: cell.count });
    out.push({ metricName: `${this.name}_sum`, labels, value: cell.sum });
    out.push({ metricName: `${this.name}_count`, labels, value: cell.count });
  }
}
