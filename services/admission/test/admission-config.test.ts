import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolvePlugins } from '../config.js';

const CERTIFICATES = ['CertificateApproval', 'CertificateSigning', 'CertificateSubjectRestriction'];

test('admission config - enable/disable resolve to the implemented plugins in chain order', () => {
  const cases: Array<{ name: string; enable?: string[]; disable?: string[]; want: string[] }> = [
    { name: 'defaults', want: ['NamespaceLifecycle', ...CERTIFICATES] },
    { name: 'enable order is irrelevant', enable: ['AlwaysDeny', 'AlwaysAdmit'], want: ['AlwaysAdmit', 'NamespaceLifecycle', ...CERTIFICATES, 'AlwaysDeny'] },
    { name: 'a default can be disabled', disable: ['NamespaceLifecycle', 'CertificateSigning'], want: ['CertificateApproval', 'CertificateSubjectRestriction'] },
    { name: 'enabling a default again is harmless', enable: ['NamespaceLifecycle', ' NamespaceLifecycle '], want: ['NamespaceLifecycle', ...CERTIFICATES] },
    { name: 'disabling a known plugin that is not built is accepted', disable: ['PodSecurity', 'ServiceAccount'], want: ['NamespaceLifecycle', ...CERTIFICATES] },
  ];
  for (const c of cases) assert.deepEqual(resolvePlugins({ enable: c.enable, disable: c.disable }).enabled, c.want, c.name);
});

test('admission config - spec defaults that are not built yet are reported, not run', () => {
  const r = resolvePlugins({ disable: ['ResourceQuota'] });
  assert.ok(r.defaultNotImplemented.includes('PodSecurity'));
  assert.ok(!r.defaultNotImplemented.includes('ResourceQuota'));
  assert.ok(!r.defaultNotImplemented.includes('NamespaceLifecycle'));
});

test('admission config - unknown, unimplemented and contradictory plugins fail', () => {
  const cases: Array<{ enable?: string[]; disable?: string[]; err: RegExp }> = [
    { enable: ['NoSuchPlugin'], err: /--enable-admission-plugins: unknown admission plugin "NoSuchPlugin" \(implemented: AlwaysAdmit, AlwaysDeny, CertificateApproval, CertificateSigning, CertificateSubjectRestriction, NamespaceLifecycle, NodeRestriction\)/ },
    { disable: ['namespacelifecycle'], err: /--disable-admission-plugins: unknown admission plugin "namespacelifecycle"/ },
    { enable: ['PodSecurity'], err: /--enable-admission-plugins: admission plugin "PodSecurity" is not implemented yet/ },
    { enable: ['AlwaysDeny'], disable: ['AlwaysDeny'], err: /"AlwaysDeny" is in both --enable-admission-plugins and --disable-admission-plugins/ },
  ];
  for (const c of cases) assert.throws(() => resolvePlugins({ enable: c.enable, disable: c.disable }), c.err);
});
