// The one list of admission plugins (plugins.ts) against what the server shipped before each plugin
// file carried its own definition: the table below is copied from the old plugin-names.ts, so a
// name, a place in the run order or a default that changed shows here.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { admissionPlugins, isKnownPlugin, pluginDefinition } from '../plugins.js';
import { resolvePlugins } from '../config.js';

/** Every plugin in run order, and whether it is on by default, as shipped. */
const SHIPPED: ReadonlyArray<readonly [name: string, defaultEnabled: boolean]> = [
  ['AlwaysAdmit', false],
  ['NamespaceAutoProvision', false],
  ['NamespaceLifecycle', true],
  ['NamespaceExists', false],
  ['SecurityContextDeny', false],
  ['LimitPodHardAntiAffinityTopology', false],
  ['LimitRanger', true],
  ['ServiceAccount', true],
  ['NodeRestriction', false],
  ['TaintNodesByCondition', true],
  ['AlwaysPullImages', false],
  ['ImagePolicyWebhook', false],
  ['PodSecurity', true],
  ['PodSecurityPolicy', false],
  ['PodNodeSelector', false],
  ['Priority', true],
  ['DefaultTolerationSeconds', true],
  ['PodTolerationRestriction', false],
  ['DenyEscalatingExec', false],
  ['DenyExecOnPrivileged', false],
  ['EventRateLimit', false],
  ['ExtendedResourceToleration', false],
  ['PersistentVolumeLabel', false],
  ['DefaultStorageClass', true],
  ['StorageObjectInUseProtection', true],
  ['OwnerReferencesPermissionEnforcement', false],
  ['PersistentVolumeClaimResize', true],
  ['RuntimeClass', true],
  ['CertificateApproval', true],
  ['CertificateSigning', true],
  ['CertificateSubjectRestriction', true],
  ['DefaultIngressClass', true],
  ['DenyServiceExternalIPs', false],
  ['MutatingAdmissionWebhook', true],
  ['ValidatingAdmissionWebhook', true],
  ['ResourceQuota', true],
  ['AlwaysDeny', false],
];

const names = admissionPlugins.map((p) => p.name);
const shippedDefaults = SHIPPED.filter(([, on]) => on).map(([name]) => name);

const cases: Array<{ name: string; got: () => unknown; want: unknown }> = [
  { name: 'no name is listed twice', got: () => names.filter((n, i) => names.indexOf(n) !== i), want: [] },
  { name: 'the names and their run order are as shipped', got: () => names, want: SHIPPED.map(([name]) => name) },
  { name: 'each plugin is on or off by default as shipped', got: () => admissionPlugins.map((p) => [p.name, p.defaultEnabled]), want: SHIPPED },
  { name: 'no flags enable the shipped default set, in run order', got: () => resolvePlugins({}).enabled, want: shippedDefaults },
  { name: 'every plugin enabled runs in the shipped order', got: () => resolvePlugins({ enable: SHIPPED.map(([name]) => name).reverse() }).enabled, want: SHIPPED.map(([name]) => name) },
  { name: 'every name finds its own definition', got: () => names.filter((n) => pluginDefinition(n)?.name !== n || !isKnownPlugin(n)), want: [] },
  { name: 'names are matched exactly', got: () => ['namespacelifecycle', 'NamespaceLifecycle ', 'Namespace', ''].filter(isKnownPlugin), want: [] },
];

for (const c of cases) {
  test(`admission plugins - ${c.name}`, () => assert.deepEqual(c.got(), c.want));
}
