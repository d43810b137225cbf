import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter } from 'prom-client';
import { annotateHelp, metricState, MetricState, StabilityLevel, validateShowHiddenMetricsVersion, type MetricState as State } from '../stability.js';
import { MetricsRegistry } from '../registry.js';
import { metricsOptionsFrom } from '../options.js';
import { OptionsError } from '../../config/options.js';

const { Alpha, Beta, Stable } = StabilityLevel;

test('metric stability - deprecated, hidden or active at a release (rules 9a/9b)', () => {
  const cases: Array<[string, StabilityLevel, string | undefined, string, State]> = [
    ['never deprecated', Stable, undefined, '1.24', MetricState.Active],
    ['deprecated in a later release: not yet', Alpha, '1.25.0', '1.24', MetricState.Active],
    ['deprecated in a later major: not yet', Stable, '2.0.0', '1.24', MetricState.Active],
    // The reference release shows apiserver_dropped_requests_total marked, hides apiserver_registered_watchers.
    ['ALPHA deprecated in this release: still shown', Alpha, '1.24.0', '1.24', MetricState.Deprecated],
    ['ALPHA deprecated one release ago: hidden', Alpha, '1.23.0', '1.24', MetricState.Hidden],
    ['ALPHA deprecated long ago: hidden', Alpha, '1.10', '1.24', MetricState.Hidden],
    ['BETA deprecated in this release: shown', Beta, '1.24', '1.24', MetricState.Deprecated],
    ['BETA deprecated one release ago: hidden', Beta, '1.23', '1.24', MetricState.Hidden],
    // STABLE: three releases after deprecation; hidden when deprecated = current - 3.
    ['STABLE deprecated in this release', Stable, '1.24.0', '1.24', MetricState.Deprecated],
    ['STABLE deprecated 1 release ago', Stable, '1.23.0', '1.24', MetricState.Deprecated],
    ['STABLE deprecated 2 releases ago', Stable, '1.22.0', '1.24', MetricState.Deprecated],
    ['STABLE deprecated 3 releases ago: hidden', Stable, '1.21.0', '1.24', MetricState.Hidden],
    ['STABLE deprecated 4 releases ago: hidden', Stable, '1.20.0', '1.24', MetricState.Hidden],
    ['the patch release does not matter', Stable, '1.21.7', '1.24.3', MetricState.Hidden],
    ['an older major: hidden', Stable, '0.99', '1.24', MetricState.Hidden],
  ];
  for (const [name, level, deprecated, current, want] of cases) assert.equal(metricState(level, deprecated, current), want, name);
  assert.throws(() => metricState(Alpha, 'soon', '1.24'), RangeError);
});

test('metric stability - HELP text as upstream writes it', () => {
  const cases: Array<[StabilityLevel, State, string | undefined, string]> = [
    [Stable, MetricState.Active, undefined, '[STABLE] Counter of requests.'],
    [Alpha, MetricState.Active, undefined, '[ALPHA] Counter of requests.'],
    [Beta, MetricState.Active, '1.25.0', '[BETA] Counter of requests.'],
    [Alpha, MetricState.Deprecated, '1.24.0', '[ALPHA] (Deprecated since 1.24.0) Counter of requests.'],
    [Stable, MetricState.Hidden, '1.21', '[STABLE] (Deprecated since 1.21) Counter of requests.'],
  ];
  for (const [level, state, deprecated, want] of cases) assert.equal(annotateHelp('Counter of requests.', level, state, deprecated), want);
});

test('metric stability - --show-hidden-metrics-for-version accepts only the previous minor release', () => {
  const refused = "--show-hidden-metrics-for-version must be omitted or have the value '1.23'. Only the previous minor version is allowed";
  const cases: Array<[string | undefined, string, string | null]> = [
    [undefined, '1.24', null],
    ['', '1.24', null],
    ['1.23', '1.24', null],
    ['1.24', '1.24', refused],
    ['1.22', '1.24', refused],
    ['1.23.0', '1.24', refused],
    ['v1.23', '1.24', refused],
    ['1.29', '1.30', null],
    ['1.23', '1.30', "--show-hidden-metrics-for-version must be omitted or have the value '1.29'. Only the previous minor version is allowed"],
  ];
  for (const [value, current, want] of cases) assert.equal(validateShowHiddenMetricsVersion(value, current), want, `${value} at ${current}`);
  assert.throws(
    () => metricsOptionsFrom({ 'show-hidden-metrics-for-version': '1.22', 'disabled-metrics': [] }),
    (e: unknown) => e instanceof OptionsError && e.message === refused,
  );
  assert.throws(() => new MetricsRegistry({ showHiddenMetricsForVersion: '1.24' }), RangeError);
});

/** The HELP line and sample lines of one metric in the exposition; null when absent. */
async function exposed(r: MetricsRegistry, name: string): Promise<string | null> {
  const text = await r.metrics();
  const help = text.split('\n').find((l) => l.startsWith(`# HELP ${name} `));
  return help ?? null;
}

function warnings(): { log: { warn(obj: object, msg: string): void }; seen: string[] } {
  const seen: string[] = [];
  return { seen, log: { warn: (_o, msg) => void seen.push(msg) } };
}

test('metrics registry - deprecated metrics are marked in their help, not logged; hidden ones only shown when asked, with a warning once', async () => {
  const w = warnings();
  const r = new MetricsRegistry({ log: w.log });
  const declare = (reg: MetricsRegistry) => {
    reg.counter({ name: 'x_stable_total', help: 'Stable.', stabilityLevel: Stable });
    reg.counter({ name: 'x_alpha_total', help: 'Alpha.' });
    reg.counter({ name: 'x_dropped_total', help: 'Dropped.', deprecatedVersion: '1.24.0' });
    reg.gauge({ name: 'x_watchers', help: 'Watchers.', deprecatedVersion: '1.23.0', labelNames: ['kind'] });
    reg.define({ name: 'x_old_stable', help: 'Old.', stabilityLevel: Stable, deprecatedVersion: '1.22.0' }, (o) => new Counter(o));
  };
  declare(r);
  assert.equal(await exposed(r, 'x_stable_total'), '# HELP x_stable_total [STABLE] Stable.');
  assert.equal(await exposed(r, 'x_alpha_total'), '# HELP x_alpha_total [ALPHA] Alpha.');
  assert.equal(await exposed(r, 'x_dropped_total'), '# HELP x_dropped_total [ALPHA] (Deprecated since 1.24.0) Dropped.');
  assert.equal(await exposed(r, 'x_old_stable'), '# HELP x_old_stable [STABLE] (Deprecated since 1.22.0) Old.');
  assert.equal(await exposed(r, 'x_watchers'), null, 'ALPHA deprecated in 1.23 is hidden at 1.24');
  assert.deepEqual(w.seen, [], 'a deprecated metric is no reason for a warning at every start');

  const shown = warnings();
  const s = new MetricsRegistry({ showHiddenMetricsForVersion: '1.23', log: shown.log });
  declare(s);
  assert.equal(await exposed(s, 'x_watchers'), '# HELP x_watchers [ALPHA] (Deprecated since 1.23.0) Watchers.');
  assert.ok(shown.seen.includes('Hidden metrics (x_watchers) have been manually overridden, showing this very deprecated metric.'), shown.seen.join('\n'));

  // Asked for after the metrics exist (a service configures its registry once its flags are read).
  r.configure({ showHiddenMetricsForVersion: '1.23' });
  assert.notEqual(await exposed(r, 'x_watchers'), null);
  r.configure({ disabledMetrics: ['x_alpha_total'], showHiddenMetricsForVersion: '1.23' });
  assert.equal(await exposed(r, 'x_alpha_total'), null, 'disabled');
  r.configure({ disabledMetrics: ['x_watchers'], showHiddenMetricsForVersion: '1.23' });
  assert.equal(await exposed(r, 'x_watchers'), null, 'disabling wins over showing hidden metrics');
  assert.notEqual(await exposed(r, 'x_alpha_total'), null, 'enabled again');
  assert.deepEqual(w.seen, ['Hidden metrics (x_watchers) have been manually overridden, showing this very deprecated metric.'], 'the override warned about once, however often configured');
});

test('metrics registry - a metric registered directly is ALPHA; process metrics keep their HELP', async () => {
  const r = new MetricsRegistry();
  new Counter({ name: 'x_direct_total', help: 'Direct.', registers: [r] });
  r.processMetrics();
  const text = await r.metrics();
  assert.match(text, /^# HELP x_direct_total \[ALPHA\] Direct\.$/m);
  assert.match(text, /^# HELP process_cpu_user_seconds_total Total user CPU time spent in seconds\.$/m);
});

test('metrics registry - families expose their series in label order, histograms cumulative', async () => {
  const r = new MetricsRegistry();
  const c = r.counter({ name: 'x_requests_total', help: 'Requests.', stabilityLevel: Stable, labelNames: ['verb', 'code'] });
  const scratch = ['GET', '200'];
  c.with(scratch).inc();
  scratch[1] = '404';
  c.with(scratch).inc(2);
  scratch[1] = '200';
  c.with(scratch).inc();
  const g = r.gauge({ name: 'x_objects', help: 'Objects.', labelNames: ['resource'], collect: () => g.with(['pods']).set(7) });
  const h = r.histogram({ name: 'x_seconds', help: 'Latency.', labelNames: ['op'], buckets: [0.1, 1, 10] });
  for (const v of [0.05, 0.1, 0.5, 20]) h.with(['get']).observe(v);
  const text = await r.metrics();
  assert.match(text, /^x_requests_total\{verb="GET",code="200"\} 2$/m);
  assert.match(text, /^x_requests_total\{verb="GET",code="404"\} 2$/m);
  assert.match(text, /^x_objects\{resource="pods"\} 7$/m);
  assert.match(text, /^# TYPE x_seconds histogram$/m);
  for (const [le, n] of [
    ['0.1', 2],
    ['1', 3],
    ['10', 3],
    ['+Inf', 4],
  ] as const)
    assert.match(text, new RegExp(`^x_seconds_bucket\\{op="get",le="${le.replace('+', '\\+')}"\\} ${n}$`, 'm'), le);
  assert.match(text, /^x_seconds_sum\{op="get"\} 20\.65$/m);
  assert.match(text, /^x_seconds_count\{op="get"\} 4$/m);
  assert.throws(() => r.counter({ name: 'x_requests_total', help: 'Again.' }), /declared twice/);
});
