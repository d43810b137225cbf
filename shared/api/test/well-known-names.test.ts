import { test } from 'node:test';
import assert from 'node:assert/strict';
import { namesOfServedGroups, PLATFORM_NAMES, serviceAccountAnnotations, UPSTREAM_NAMES } from '../well-known-names.js';

test('well-known names - upstream spellings mean their twins only with upstream names on', () => {
  const cases: Array<[string, (n: typeof UPSTREAM_NAMES) => unknown, unknown, unknown]> = [
    ['tls secret', (n) => n.secretType('kubernetes.io/tls'), 'kubernetes.io/tls', 'platform.io/tls'],
    ['service-account token', (n) => n.secretType('kubernetes.io/service-account-token'), 'kubernetes.io/service-account-token', 'platform.io/service-account-token'],
    ['dockercfg', (n) => n.secretType('kubernetes.io/dockercfg'), 'kubernetes.io/dockercfg', 'platform.io/dockercfg'],
    ['the spec type is itself', (n) => n.secretType('platform.io/tls'), 'platform.io/tls', 'platform.io/tls'],
    ['Opaque is itself', (n) => n.secretType('Opaque'), 'Opaque', 'Opaque'],
    ['an inherited key is no type', (n) => n.secretType('constructor'), 'constructor', 'constructor'],
    ['kubelet client signer', (n) => n.signer('kubernetes.io/kube-apiserver-client-kubelet'), 'kubernetes.io/kube-apiserver-client-kubelet', 'platform.io/apiserver-client-agent'],
    ['kubelet serving signer', (n) => n.signer('kubernetes.io/kubelet-serving'), 'kubernetes.io/kubelet-serving', 'platform.io/agent-serving'],
    ['legacy signer', (n) => n.signer('kubernetes.io/legacy-unknown'), 'kubernetes.io/legacy-unknown', 'platform.io/legacy-unknown'],
    ['a custom signer', (n) => n.signer('example.com/mine'), 'example.com/mine', 'example.com/mine'],
    [
      'signer spellings of upstream',
      (n) => n.signerSpellings('kubernetes.io/kube-apiserver-client'),
      ['kubernetes.io/kube-apiserver-client'],
      ['kubernetes.io/kube-apiserver-client', 'platform.io/apiserver-client'],
    ],
    [
      'signer spellings of the spec',
      (n) => n.signerSpellings('platform.io/apiserver-client'),
      ['platform.io/apiserver-client'],
      ['platform.io/apiserver-client', 'kubernetes.io/kube-apiserver-client'],
    ],
    ['namespace labels', (n) => n.namespaceNameLabels, ['platform.io/metadata.name'], ['platform.io/metadata.name', 'kubernetes.io/metadata.name']],
    ['system namespaces', (n) => n.systemNamespaces, [], ['kube-system', 'kube-public', 'kube-node-lease']],
    ['public namespaces', (n) => n.publicNamespaces, ['platform-public'], ['platform-public', 'kube-public']],
    ['node lease namespaces', (n) => n.nodeLeaseNamespaces, ['platform-node-lease'], ['platform-node-lease', 'kube-node-lease']],
    ['authentication info namespaces', (n) => n.authenticationInfoNamespaces, ['platform-system'], ['platform-system', 'kube-system']],
  ];
  for (const [name, read, off, on] of cases) {
    assert.deepEqual(read(PLATFORM_NAMES), off, `${name} (off)`);
    assert.deepEqual(read(UPSTREAM_NAMES), on, `${name} (on)`);
  }
});

test('well-known names - a service-account token names its account in annotations spelled as its type', () => {
  assert.deepEqual(serviceAccountAnnotations('kubernetes.io/service-account-token'), { name: 'kubernetes.io/service-account.name', uid: 'kubernetes.io/service-account.uid' });
  assert.deepEqual(serviceAccountAnnotations('platform.io/service-account-token'), { name: 'platform.io/service-account.name', uid: 'platform.io/service-account.uid' });
});

test('well-known names - a server serves upstream names when a built-in group answers to both spellings', () => {
  const cases: Array<[string[], boolean]> = [
    [['apps', 'certificates.platform.io', 'certificates.k8s.io'], true],
    [['apps', 'certificates.platform.io'], false],
    // A third-party upstream group alone (an aggregated metrics.k8s.io) says nothing.
    [['metrics.k8s.io', 'certificates.platform.io'], false],
    [[], false],
  ];
  for (const [groups, upstream] of cases) assert.equal(namesOfServedGroups(groups).upstream, upstream, groups.join(','));
});
