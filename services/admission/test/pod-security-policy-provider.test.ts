// One PodSecurityPolicy applied to a pod: the defaults it fills in (and only where the pod left a
// field unset) and every rule it checks, with upstream's field paths and messages.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { errorText } from '../plugins/pod-security-policy/field-errors.js';
import type { Pod } from '../plugins/pod-security-policy/pod.js';
import { Provider } from '../plugins/pod-security-policy/provider.js';

type Spec = Record<string, unknown>;

const ANY = { rule: 'RunAsAny' };
/** A policy allowing everything except what `spec` sets. */
const provider = (spec: Spec = {}, annotations: Record<string, string> = {}) =>
  new Provider({ metadata: { name: 'p', annotations }, spec: { allowPrivilegeEscalation: true, volumes: ['*'], runAsUser: ANY, seLinux: ANY, fsGroup: ANY, supplementalGroups: ANY, ...spec } });

const pod = (spec: Spec = {}, container: Spec = {}, annotations?: Record<string, string>): Pod => ({
  metadata: { name: 'web', ...(annotations ? { annotations } : {}) },
  spec: { containers: [{ name: 'c', image: 'img', ...container }], ...spec },
});

const mutated = (p: Provider, x: Pod): Pod => {
  const copy = structuredClone(x);
  p.mutatePod(copy);
  return copy;
};
const problems = (p: Provider, x: Pod) => p.validatePod(x).map(errorText);

describe('PodSecurityPolicy provider - defaults', () => {
  it('a permissive policy changes nothing', () => {
    const x = pod();
    assert.deepEqual(mutated(provider(), x), x);
  });

  it('MustRunAs rules default runAsUser, runAsGroup (per container), fsGroup and supplementalGroups (pod) to the first range minimum', () => {
    const ranges = [
      { min: 1000, max: 2000 },
      { min: 5, max: 5 },
    ];
    const p = provider({
      runAsUser: { rule: 'MustRunAs', ranges },
      runAsGroup: { rule: 'MustRunAs', ranges },
      fsGroup: { rule: 'MustRunAs', ranges },
      supplementalGroups: { rule: 'MustRunAs', ranges },
    });
    const out = mutated(p, pod({ initContainers: [{ name: 'init', image: 'img' }] }));
    assert.deepEqual(out.spec.securityContext, { supplementalGroups: [1000], fsGroup: 1000 });
    assert.deepEqual(out.spec.containers[0].securityContext, { runAsUser: 1000, runAsGroup: 1000 });
    assert.deepEqual(out.spec.initContainers[0].securityContext, { runAsUser: 1000, runAsGroup: 1000 });
    assert.deepEqual(problems(p, out), []);
  });

  it("what the pod sets itself is kept, and a container inheriting the pod's uid gets none of its own", () => {
    const p = provider({ runAsUser: { rule: 'MustRunAs', ranges: [{ min: 1000, max: 2000 }] }, fsGroup: { rule: 'MustRunAs', ranges: [{ min: 1, max: 10 }] } });
    const out = mutated(p, pod({ securityContext: { runAsUser: 1500, fsGroup: 3 } }));
    assert.deepEqual(out.spec.securityContext, { runAsUser: 1500, fsGroup: 3 });
    assert.equal(out.spec.containers[0].securityContext, undefined);
  });

  it('MustRunAsNonRoot marks containers that name no uid', () => {
    const p = provider({ runAsUser: { rule: 'MustRunAsNonRoot' } });
    assert.deepEqual(mutated(p, pod()).spec.containers[0].securityContext, { runAsNonRoot: true });
    assert.equal(mutated(p, pod({}, { securityContext: { runAsUser: 1000 } })).spec.containers[0].securityContext.runAsNonRoot, undefined);
    assert.equal(mutated(p, pod({ securityContext: { runAsNonRoot: false } })).spec.containers[0].securityContext, undefined);
  });

  it("seLinux MustRunAs sets the pod's options, which containers inherit", () => {
    const seLinuxOptions = { level: 's0:c1,c2', type: 'container_t' };
    const out = mutated(provider({ seLinux: { rule: 'MustRunAs', seLinuxOptions } }), pod());
    assert.deepEqual(out.spec.securityContext, { seLinuxOptions });
    assert.equal(out.spec.containers[0].securityContext, undefined);
  });

  it('capabilities: default adds and required drops, sorted', () => {
    const out = mutated(provider({ defaultAddCapabilities: ['NET_BIND_SERVICE'], requiredDropCapabilities: ['NET_RAW', 'ALL'] }), pod({}, { securityContext: { capabilities: { add: ['CHOWN'] } } }));
    assert.deepEqual(out.spec.containers[0].securityContext.capabilities, { add: ['CHOWN', 'NET_BIND_SERVICE'], drop: ['ALL', 'NET_RAW'] });
  });

  it('readOnlyRootFilesystem and privilege escalation defaults', () => {
    assert.deepEqual(mutated(provider({ readOnlyRootFilesystem: true }), pod()).spec.containers[0].securityContext, { readOnlyRootFilesystem: true });
    assert.equal(mutated(provider({ readOnlyRootFilesystem: true }), pod({}, { securityContext: { readOnlyRootFilesystem: false } })).spec.containers[0].securityContext.readOnlyRootFilesystem, false);
    assert.deepEqual(mutated(provider({ defaultAllowPrivilegeEscalation: false }), pod()).spec.containers[0].securityContext, { allowPrivilegeEscalation: false });
    assert.deepEqual(mutated(provider({ allowPrivilegeEscalation: false }), pod()).spec.containers[0].securityContext, { allowPrivilegeEscalation: false });
    assert.equal(
      mutated(provider({ defaultAllowPrivilegeEscalation: false }), pod({}, { securityContext: { allowPrivilegeEscalation: true } })).spec.containers[0].securityContext.allowPrivilegeEscalation,
      true,
    );
  });

  it('seccomp default on the pod, AppArmor default per container (ephemeral containers too), as annotations', () => {
    const p = provider(
      {},
      {
        'seccomp.security.alpha.platform.io/defaultProfileName': 'runtime/default',
        'seccomp.security.alpha.platform.io/allowedProfileNames': 'runtime/default',
        'apparmor.security.beta.platform.io/defaultProfileName': 'runtime/default',
      },
    );
    const out = mutated(p, pod({ ephemeralContainers: [{ name: 'debug', image: 'busybox' }] }));
    assert.deepEqual(out.metadata.annotations, {
      'seccomp.security.alpha.platform.io/pod': 'runtime/default',
      'container.apparmor.security.beta.platform.io/c': 'runtime/default',
      'container.apparmor.security.beta.platform.io/debug': 'runtime/default',
    });
    assert.deepEqual(problems(p, out), []);
  });

  it('a pod seccomp field is copied to the pod annotation', () => {
    const p = provider({}, { 'seccomp.security.alpha.platform.io/allowedProfileNames': 'runtime/default' });
    const out = mutated(p, pod({ securityContext: { seccompProfile: { type: 'RuntimeDefault' } } }));
    assert.equal(out.metadata.annotations?.['seccomp.security.alpha.platform.io/pod'], 'runtime/default');
  });

  it('runtimeClass default only when the pod names none', () => {
    const p = provider({ runtimeClass: { allowedRuntimeClassNames: ['gvisor', 'kata'], defaultRuntimeClassName: 'gvisor' } });
    assert.equal(mutated(p, pod()).spec.runtimeClassName, 'gvisor');
    assert.equal(mutated(p, pod({ runtimeClassName: 'kata' })).spec.runtimeClassName, 'kata');
    assert.equal(mutated(provider({ runtimeClass: { allowedRuntimeClassNames: ['*'] } }), pod()).spec.runtimeClassName, undefined);
  });
});

describe('PodSecurityPolicy provider - validation', () => {
  const C = 'spec.containers[0]';
  const cases: Array<[string, Spec, Pod, string[]]> = [
    ['privileged container', {}, pod({}, { securityContext: { privileged: true } }), [`${C}.securityContext.privileged: Invalid value: true: Privileged containers are not allowed`]],
    ['privileged allowed', { privileged: true }, pod({}, { securityContext: { privileged: true } }), []],
    [
      'host namespaces',
      {},
      pod({ hostNetwork: true, hostPID: true, hostIPC: true }),
      [
        'spec.securityContext.hostNetwork: Invalid value: true: Host network is not allowed to be used',
        'spec.securityContext.hostPID: Invalid value: true: Host PID is not allowed to be used',
        'spec.securityContext.hostIPC: Invalid value: true: Host IPC is not allowed to be used',
      ],
    ],
    ['host namespaces allowed', { hostNetwork: true, hostPID: true, hostIPC: true }, pod({ hostNetwork: true, hostPID: true, hostIPC: true }), []],
    [
      'host port outside the ranges',
      {
        hostPorts: [
          { min: 80, max: 80 },
          { min: 8000, max: 8080 },
        ],
      },
      pod({}, { ports: [{ containerPort: 80, hostPort: 80 }, { containerPort: 9090, hostPort: 9090 }, { containerPort: 1 }] }),
      [`${C}.hostPort: Invalid value: 9090: Host port 9090 is not allowed to be used. Allowed ports: [80,8000-8080]`],
    ],
    [
      'host port with no ranges',
      {},
      pod({ initContainers: [{ name: 'i', ports: [{ containerPort: 1, hostPort: 1 }] }] }),
      ['spec.initContainers[0].hostPort: Invalid value: 1: Host port 1 is not allowed to be used. Allowed ports: []'],
    ],
    [
      'proc mount Unmasked not allowed by default',
      {},
      pod({}, { securityContext: { procMount: 'Unmasked' } }),
      [`${C}.securityContext.procMount: Invalid value: "Unmasked": ProcMountType is not allowed`],
    ],
    ['proc mount Unmasked allowed', { allowedProcMountTypes: ['Default', 'Unmasked'] }, pod({}, { securityContext: { procMount: 'Unmasked' } }), []],
    [
      'read-only root unset',
      { readOnlyRootFilesystem: true },
      pod(),
      [`${C}.securityContext.readOnlyRootFilesystem: Invalid value: "null": ReadOnlyRootFilesystem may not be nil and must be set to true`],
    ],
    [
      'read-only root false',
      { readOnlyRootFilesystem: true },
      pod({}, { securityContext: { readOnlyRootFilesystem: false } }),
      [`${C}.securityContext.readOnlyRootFilesystem: Invalid value: false: ReadOnlyRootFilesystem must be set to true`],
    ],
    [
      'escalation unset',
      { allowPrivilegeEscalation: false },
      pod(),
      [`${C}.securityContext.allowPrivilegeEscalation: Invalid value: "null": Allowing privilege escalation for containers is not allowed`],
    ],
    [
      'escalation true',
      { allowPrivilegeEscalation: false },
      pod({}, { securityContext: { allowPrivilegeEscalation: true } }),
      [`${C}.securityContext.allowPrivilegeEscalation: Invalid value: true: Allowing privilege escalation for containers is not allowed`],
    ],
    ['runtime class not allowed', { runtimeClass: { allowedRuntimeClassNames: ['gvisor'] } }, pod({ runtimeClassName: 'kata' }), ['spec.runtimeClassName: Invalid value: "kata"']],
    ['runtime class unset is fine', { runtimeClass: { allowedRuntimeClassNames: [] } }, pod(), []],
    ['runtime class *', { runtimeClass: { allowedRuntimeClassNames: ['*'] } }, pod({ runtimeClassName: 'kata' }), []],
    [
      'unsafe sysctl',
      {},
      pod({ securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '1' }] } }),
      ['pod.spec.securityContext.sysctls[0]: Forbidden: unsafe sysctl "kernel.msgmax" is not allowed'],
    ],
    [
      'run-as-group of a container',
      { runAsGroup: { rule: 'MustRunAs', ranges: [{ min: 10, max: 20 }] } },
      pod({}, { securityContext: { runAsGroup: 0 } }),
      [`${C}.securityContext: Invalid value: []int64{0}: group 0 must be in the ranges: [{10 20}]`],
    ],
    [
      'pod-level uid checked per container',
      { runAsUser: { rule: 'MustRunAsNonRoot' } },
      pod({ securityContext: { runAsUser: 0 } }),
      [`${C}.securityContext.runAsUser: Invalid value: 0: running with the root UID is forbidden`],
    ],
    [
      'every container list, in upstream order',
      {},
      pod(
        { initContainers: [{ name: 'i', securityContext: { privileged: true } }], ephemeralContainers: [{ name: 'e', securityContext: { privileged: true } }] },
        { securityContext: { privileged: true } },
      ),
      [
        'spec.initContainers[0].securityContext.privileged: Invalid value: true: Privileged containers are not allowed',
        `${C}.securityContext.privileged: Invalid value: true: Privileged containers are not allowed`,
        'spec.ephemeralContainers[0].securityContext.privileged: Invalid value: true: Privileged containers are not allowed',
      ],
    ],
    [
      "pod-level problems come before the containers'",
      { fsGroup: { rule: 'MustRunAs', ranges: [{ min: 1, max: 1 }] } },
      pod({ securityContext: { fsGroup: 2 }, volumes: [{ name: 'v', hostPath: { path: '/' } }] }, { securityContext: { privileged: true } }),
      [
        'spec.securityContext.fsGroup: Invalid value: []int64{2}: group 2 must be in the ranges: [{1 1}]',
        `${C}.securityContext.privileged: Invalid value: true: Privileged containers are not allowed`,
      ],
    ],
  ];
  for (const [name, spec, x, want] of cases) it(name, () => assert.deepEqual(problems(provider(spec), x), want));

  it('rules a policy cannot be built with are refused when the provider is made', () => {
    assert.throws(() => provider({ runAsUser: { rule: 'MustRunAs' } }), /at least one range/);
    assert.throws(() => provider({ seLinux: { rule: 'MustRunAs' } }), /SELinuxOptions/);
  });
});
