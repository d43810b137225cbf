import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FEATURE_GATES,
  FeatureGateError,
  FeatureMaturity,
  defaultFeatureGates,
  describeFeatureGates,
  featureGatesFromFlag,
  featureGatesOption,
  parseFeatureGateSettings,
  resolveFeatureGates,
  type FeatureSpec,
} from '../feature-gates.js';
import { parseOptions } from '../options.js';

test('feature gates - 1.24 maturities and defaults of the gates this server has', () => {
  const cases: Array<[keyof typeof FEATURE_GATES, FeatureMaturity, boolean]> = [
    ['APIListChunking', FeatureMaturity.Beta, true],
    ['RemainingItemCount', FeatureMaturity.Beta, true],
    ['CSIInlineVolume', FeatureMaturity.Beta, true],
    ['ProcMountType', FeatureMaturity.Alpha, false],
    ['DryRun', FeatureMaturity.GA, true],
    ['ServerSideApply', FeatureMaturity.GA, true],
    ['RemoveSelfLink', FeatureMaturity.GA, true],
  ];
  const gates = defaultFeatureGates();
  for (const [name, maturity, on] of cases) {
    assert.equal(FEATURE_GATES[name].maturity, maturity, name);
    assert.equal(gates.enabled(name), on, name);
  }
  // The spec's PodSecurityPolicy table names both; GA, so locked on.
  for (const name of ['RunAsGroup', 'RuntimeClass'] as const) {
    assert.equal(FEATURE_GATES[name].maturity, FeatureMaturity.GA);
    assert.equal(gates.enabled(name), true);
  }
});

test('feature gates - parsing Name=value lists as upstream reads the flag', () => {
  const cases: Array<[string, Record<string, boolean> | RegExp]> = [
    ['', {}],
    ['APIListChunking=false', { APIListChunking: false }],
    [' ProcMountType = true , CSIInlineVolume=False,', { ProcMountType: true, CSIInlineVolume: false }],
    ['ProcMountType=1,APIListChunking=0,RemainingItemCount=T', { ProcMountType: true, APIListChunking: false, RemainingItemCount: true }],
    ['ProcMountType=true,ProcMountType=false', { ProcMountType: false }],
    ['ProcMountType', /missing bool value for ProcMountType/],
    ['ProcMountType=yes', /invalid value of ProcMountType=yes: expected true or false/],
    ['ProcMountType=', /invalid value of ProcMountType=/],
  ];
  for (const [text, want] of cases) {
    if (want instanceof RegExp)
      assert.throws(
        () => parseFeatureGateSettings(text),
        (e: unknown) => e instanceof FeatureGateError && want.test(e.message),
        text,
      );
    else assert.deepEqual(Object.fromEntries(parseFeatureGateSettings(text)), want, text);
  }
});

test('feature gates - unknown, removed and locked gates fail the whole setting; GA gates set to true warn', () => {
  const cases: Array<{ flag: string; error?: RegExp; warnings?: string[]; enabled?: Record<string, boolean> }> = [
    { flag: 'Nope=true', error: /^invalid argument "Nope=true" for "--feature-gates" flag: unrecognized feature gate: Nope; known feature gates: .*APIListChunking.*ProcMountType/ },
    { flag: 'RuntimeClass=false', error: /cannot set feature gate RuntimeClass to false, feature is locked to true/ },
    { flag: 'RunAsGroup=true', warnings: ['Setting GA feature gate RunAsGroup=true. It will be removed in a future release.'], enabled: { RunAsGroup: true } },
    { flag: 'DryRun=false', error: /cannot set feature gate DryRun to false, feature is locked to true/ },
    { flag: 'ServerSideApply=false,Nope=true', error: /cannot set feature gate ServerSideApply to false.*; unrecognized feature gate: Nope/ },
    { flag: 'ProcMountType=maybe', error: /invalid value of ProcMountType=maybe/ },
    { flag: 'ServerSideApply=true', warnings: ['Setting GA feature gate ServerSideApply=true. It will be removed in a future release.'], enabled: { ServerSideApply: true } },
    { flag: 'APIListChunking=false,ProcMountType=true', warnings: [], enabled: { APIListChunking: false, ProcMountType: true, CSIInlineVolume: true } },
    // The meta-gates reach every alpha (beta) gate not named, whatever the order.
    { flag: 'ProcMountType=false,AllAlpha=true', warnings: [], enabled: { ProcMountType: false } },
    { flag: 'AllAlpha=true', warnings: [], enabled: { ProcMountType: true, APIListChunking: true } },
    { flag: 'AllBeta=false,CSIInlineVolume=true', warnings: [], enabled: { APIListChunking: false, RemainingItemCount: false, CSIInlineVolume: true, DryRun: true } },
  ];
  for (const c of cases) {
    if (c.error) {
      assert.throws(
        () => featureGatesFromFlag([c.flag]),
        (e: unknown) => e instanceof FeatureGateError && e instanceof RangeError && c.error!.test(e.message),
        c.flag,
      );
      continue;
    }
    const { gates, warnings } = featureGatesFromFlag([c.flag]);
    assert.deepEqual(warnings, c.warnings, c.flag);
    for (const [name, on] of Object.entries(c.enabled ?? {})) assert.equal(gates.enabled(name as keyof typeof FEATURE_GATES), on, `${c.flag}: ${name}`);
  }
});

test('feature gates - a deprecated gate works and warns; asking about an unregistered gate is a programming error', () => {
  const table = {
    OldThing: { maturity: FeatureMaturity.Deprecated, default: false, since: '1.22' },
    NewThing: { maturity: FeatureMaturity.Beta, default: true, since: '1.23' },
  } satisfies Record<string, FeatureSpec>;
  const { gates, warnings } = resolveFeatureGates(new Map([['OldThing', true]]), table);
  assert.equal(gates.enabled('OldThing'), true);
  assert.equal(gates.enabled('NewThing'), true);
  assert.deepEqual(warnings, ['Setting deprecated feature gate OldThing=true. It will be removed in a future release.']);
  assert.throws(() => (gates as unknown as { enabled(n: string): boolean }).enabled('Missing'), /not registered/);
});

test('feature gates - the option takes repeated flags, env and config lists; --help lists what may be set', () => {
  const specs = { 'feature-gates': featureGatesOption };
  const fromFlags = parseOptions(specs, ['--feature-gates=APIListChunking=false,ProcMountType=true', '--feature-gates', 'CSIInlineVolume=false'], {});
  const { gates } = featureGatesFromFlag(fromFlags['feature-gates']);
  assert.equal(gates.enabled('APIListChunking'), false);
  assert.equal(gates.enabled('ProcMountType'), true);
  assert.equal(gates.enabled('CSIInlineVolume'), false);
  const fromEnv = parseOptions(specs, [], { PLATFORM_FEATURE_GATES: 'ProcMountType=true' });
  assert.equal(featureGatesFromFlag(fromEnv['feature-gates']).gates.enabled('ProcMountType'), true);
  assert.deepEqual(parseOptions(specs, [], {})['feature-gates'], []);
  assert.ok(describeFeatureGates().includes('ProcMountType=true|false (ALPHA - default=false)'));
  assert.ok(describeFeatureGates().includes('APIListChunking=true|false (BETA - default=true)'));
  assert.match(featureGatesOption.description, /GA: .*DryRun/);
});
