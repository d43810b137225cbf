import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolvePlugins } from '../config.js';

/** The spec's default-enabled set, in the chain's fixed order. */
const DEFAULTS = [
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'TaintNodesByCondition',
  'PodSecurity',
  'Priority',
  'DefaultTolerationSeconds',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
];

test("admission config - the default set is exactly the spec's; enable/disable resolve in chain order", () => {
  const without = (...names: string[]) => DEFAULTS.filter((n) => !names.includes(n));
  const cases: Array<{ name: string; enable?: string[]; disable?: string[]; want: string[] }> = [
    { name: 'defaults', want: DEFAULTS },
    { name: 'enable order is irrelevant', enable: ['AlwaysDeny', 'AlwaysAdmit'], want: ['AlwaysAdmit', ...DEFAULTS, 'AlwaysDeny'] },
    { name: 'a default can be disabled', disable: ['NamespaceLifecycle', 'CertificateSigning'], want: without('NamespaceLifecycle', 'CertificateSigning') },
    { name: 'enabling a default again is harmless', enable: ['NamespaceLifecycle', ' NamespaceLifecycle '], want: DEFAULTS },
  ];
  for (const c of cases) assert.deepEqual(resolvePlugins({ enable: c.enable, disable: c.disable }).enabled, c.want, c.name);
  // EventRateLimit's place: after DenyExecOnPrivileged, before DefaultStorageClass.
  const withRate = resolvePlugins({ enable: ['EventRateLimit'] }).enabled;
  assert.ok(withRate.indexOf('EventRateLimit') > withRate.indexOf('DefaultTolerationSeconds') && withRate.indexOf('EventRateLimit') < withRate.indexOf('DefaultStorageClass'));
});

test('admission config - unknown and contradictory plugins fail', () => {
  const cases: Array<{ enable?: string[]; disable?: string[]; err: RegExp }> = [
    { enable: ['NoSuchPlugin'], err: /--enable-admission-plugins: unknown admission plugin "NoSuchPlugin" \(known: AlwaysAdmit, AlwaysDeny, AlwaysPullImages, / },
    { disable: ['namespacelifecycle'], err: /--disable-admission-plugins: unknown admission plugin "namespacelifecycle"/ },
    { enable: ['AlwaysDeny'], disable: ['AlwaysDeny'], err: /"AlwaysDeny" is in both --enable-admission-plugins and --disable-admission-plugins/ },
  ];
  for (const c of cases) assert.throws(() => resolvePlugins({ enable: c.enable, disable: c.disable }), c.err);
});
