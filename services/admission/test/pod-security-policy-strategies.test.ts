// PodSecurityPolicy's strategies one by one: uid and gid rules, SELinux, capabilities, sysctls,
// volumes and host paths, seccomp and AppArmor profiles, and how their errors print.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { capabilitiesStrategy } from '../plugins/pod-security-policy/capabilities.js';
import { errorListText, errorText, invalid, int64Slice, type PspFieldError } from '../plugins/pod-security-policy/field-errors.js';
import { groupStrategy, runAsUserStrategy, StrategyError } from '../plugins/pod-security-policy/id-strategies.js';
import { sameJson, type Pod } from '../plugins/pod-security-policy/pod.js';
import { appArmorStrategy, seccompAnnotationForField, seccompStrategy } from '../plugins/pod-security-policy/profiles.js';
import { equalLevels, seLinuxStrategy } from '../plugins/pod-security-policy/selinux.js';
import { sysctlsStrategy } from '../plugins/pod-security-policy/sysctls.js';
import { allowsHostPath, hasPathPrefix, isOnlyServiceAccountTokenSources, validatePodVolumes, volumeType } from '../plugins/pod-security-policy/volumes.js';

const texts = (errs: PspFieldError[]) => errs.map(errorText);
const SC = 'spec.containers[0].securityContext';

describe('PodSecurityPolicy strategies - errors print as upstream prints a field.ErrorList', () => {
  const cases: Array<[string, PspFieldError[], string]> = [
    ['none', [], '[]'],
    ['bool', [invalid('a.privileged', true, 'Privileged containers are not allowed')], '[a.privileged: Invalid value: true: Privileged containers are not allowed]'],
    ['string and number, space separated', [invalid('v', 'hostPath', 'x'), invalid('p', 8080, 'y')], '[v: Invalid value: "hostPath": x p: Invalid value: 8080: y]'],
    ['nil pointer', [invalid('c', null, 'required capabilities are not set on the securityContext')], '[c: Invalid value: "null": required capabilities are not set on the securityContext]'],
    ['go slice', [invalid('g', int64Slice([0]), 'd')], '[g: Invalid value: []int64{0}: d]'],
    ['nil slice', [invalid('g', int64Slice(undefined), 'd')], '[g: Invalid value: []int64(nil): d]'],
    ['empty detail', [invalid('spec.runtimeClassName', 'kata', '')], '[spec.runtimeClassName: Invalid value: "kata"]'],
  ];
  for (const [name, errs, want] of cases) it(name, () => assert.equal(errorListText(errs), want));
});

describe('PodSecurityPolicy strategies - runAsUser', () => {
  const cases: Array<[string, { rule: string; ranges?: Array<{ min: number; max: number }> }, boolean | undefined, number | undefined, string[]]> = [
    ['MustRunAs in range', { rule: 'MustRunAs', ranges: [{ min: 100, max: 200 }] }, undefined, 150, []],
    [
      'MustRunAs second range',
      {
        rule: 'MustRunAs',
        ranges: [
          { min: 1, max: 2 },
          { min: 500, max: 500 },
        ],
      },
      undefined,
      500,
      [],
    ],
    ['MustRunAs out of range', { rule: 'MustRunAs', ranges: [{ min: 100, max: 200 }] }, undefined, 99, [`${SC}.runAsUser: Invalid value: 99: must be in the ranges: [{100 200}]`]],
    ['MustRunAs unset', { rule: 'MustRunAs', ranges: [{ min: 100, max: 200 }] }, undefined, undefined, [`${SC}.runAsUser: Required value`]],
    ['MustRunAsNonRoot with nothing set', { rule: 'MustRunAsNonRoot' }, undefined, undefined, [`${SC}.runAsNonRoot: Required value: must be true`]],
    ['MustRunAsNonRoot runAsNonRoot false', { rule: 'MustRunAsNonRoot' }, false, 1000, [`${SC}.runAsNonRoot: Invalid value: false: must be true`]],
    ['MustRunAsNonRoot uid 0', { rule: 'MustRunAsNonRoot' }, true, 0, [`${SC}.runAsUser: Invalid value: 0: running with the root UID is forbidden`]],
    ['MustRunAsNonRoot uid set', { rule: 'MustRunAsNonRoot' }, undefined, 1000, []],
    ['MustRunAsNonRoot marker only', { rule: 'MustRunAsNonRoot' }, true, undefined, []],
    ['RunAsAny root', { rule: 'RunAsAny' }, undefined, 0, []],
  ];
  for (const [name, opts, nonRoot, uid, want] of cases) it(name, () => assert.deepEqual(texts(runAsUserStrategy(opts).validate(SC, nonRoot, uid)), want));

  it('generates the first range minimum for MustRunAs and nothing otherwise', () => {
    assert.equal(
      runAsUserStrategy({
        rule: 'MustRunAs',
        ranges: [
          { min: 7, max: 9 },
          { min: 1, max: 2 },
        ],
      }).generate(),
      7,
    );
    assert.equal(runAsUserStrategy({ rule: 'MustRunAsNonRoot' }).generate(), undefined);
    assert.equal(runAsUserStrategy({ rule: 'RunAsAny' }).generate(), undefined);
  });

  it('cannot be built from MustRunAs without ranges or an unknown rule', () => {
    assert.throws(() => runAsUserStrategy({ rule: 'MustRunAs' }), StrategyError);
    assert.throws(() => runAsUserStrategy({ rule: 'MayRunAs' }), /Unrecognized RunAsUser strategy type MayRunAs/);
  });
});

describe('PodSecurityPolicy strategies - fsGroup, supplementalGroups, runAsGroup', () => {
  const F = 'spec.securityContext.fsGroup';
  const ranges = [
    { min: 1, max: 100 },
    { min: 1000, max: 1000 },
  ];
  const cases: Array<[string, string, number[] | undefined, string[]]> = [
    ['MustRunAs in range', 'MustRunAs', [1000], []],
    ['MustRunAs empty', 'MustRunAs', undefined, [`${F}: Invalid value: []int64(nil): unable to validate empty groups against required ranges`]],
    ['MustRunAs one out of range', 'MustRunAs', [5, 0], [`${F}: Invalid value: []int64{5, 0}: group 0 must be in the ranges: [{1 100} {1000 1000}]`]],
    ['MayRunAs empty', 'MayRunAs', undefined, []],
    ['MayRunAs out of range', 'MayRunAs', [101], [`${F}: Invalid value: []int64{101}: group 101 must be in the ranges: [{1 100} {1000 1000}]`]],
    ['RunAsAny anything', 'RunAsAny', [0], []],
  ];
  for (const [name, rule, groups, want] of cases) it(name, () => assert.deepEqual(texts(groupStrategy({ rule, ranges: rule === 'RunAsAny' ? [] : ranges }).validate(F, groups)), want));

  it('MustRunAs generates the first range minimum, MayRunAs and RunAsAny nothing', () => {
    const must = groupStrategy({ rule: 'MustRunAs', ranges });
    assert.deepEqual([must.generate(), must.generateSingle()], [[1], 1]);
    const may = groupStrategy({ rule: 'MayRunAs', ranges });
    assert.deepEqual([may.generate(), may.generateSingle()], [undefined, undefined]);
  });

  it('an omitted runAsGroup is RunAsAny; an omitted fsGroup rule cannot be built', () => {
    assert.deepEqual(groupStrategy(undefined, true).validate('x', [0]), []);
    assert.throws(() => groupStrategy(undefined), StrategyError);
    assert.throws(() => groupStrategy({ rule: 'MayRunAs' }), /ranges must be supplied/);
  });
});

describe('PodSecurityPolicy strategies - SELinux', () => {
  const opts = { user: 'system_u', role: 'system_r', type: 'container_t', level: 's0:c1,c2' };
  const must = seLinuxStrategy({ rule: 'MustRunAs', seLinuxOptions: opts });
  const F = `${SC}.seLinuxOptions`;
  const cases: Array<[string, Record<string, string> | undefined, string[]]> = [
    ['same', { ...opts }, []],
    ['categories in another order', { ...opts, level: 's0:c2,c1' }, []],
    ['unset', undefined, [`${F}: Required value`]],
    ['other level', { ...opts, level: 's1:c1,c2' }, [`${F}.level: Invalid value: "s1:c1,c2": must be s0:c1,c2`]],
    [
      'every label wrong',
      { level: 's0:c1,c2' },
      [`${F}.role: Invalid value: "": must be system_r`, `${F}.type: Invalid value: "": must be container_t`, `${F}.user: Invalid value: "": must be system_u`],
    ],
  ];
  for (const [name, got, want] of cases) it(name, () => assert.deepEqual(texts(must.validate(F, got)), want));

  it('levels compare sensitivity exactly and categories as a set', () => {
    assert.equal(equalLevels('s0', 's0'), true);
    assert.equal(equalLevels('s0:c0,c6', 's0:c6,c0'), true);
    assert.equal(equalLevels('s0:c0', 's0'), false);
    assert.equal(equalLevels('s0:c0', 's1:c0'), false);
  });

  it('MustRunAs generates the options and needs them; RunAsAny generates nothing', () => {
    assert.deepEqual(must.generate(), opts);
    assert.throws(() => seLinuxStrategy({ rule: 'MustRunAs' }), /MustRunAs requires SELinuxOptions/);
    assert.equal(seLinuxStrategy({ rule: 'RunAsAny' }).generate(), undefined);
  });
});

describe('PodSecurityPolicy strategies - capabilities', () => {
  const F = `${SC}.capabilities`;
  const generateCases: Array<[string, Record<string, string[]>, { add?: string[]; drop?: string[] } | undefined, unknown]> = [
    ['nothing to do', {}, undefined, undefined],
    ['required drop added', { requiredDropCapabilities: ['NET_RAW', 'KILL'] }, undefined, { drop: ['KILL', 'NET_RAW'] }],
    ['default add', { defaultAddCapabilities: ['CHOWN'] }, { drop: ['KILL'] }, { add: ['CHOWN'], drop: ['KILL'] }],
    ['a default add the container drops is not added', { defaultAddCapabilities: ['CHOWN'] }, { drop: ['CHOWN'] }, { drop: ['CHOWN'] }],
    ['already complete: the same object back', { requiredDropCapabilities: ['ALL'] }, { add: ['NET_BIND_SERVICE'], drop: ['ALL'] }, { add: ['NET_BIND_SERVICE'], drop: ['ALL'] }],
  ];
  for (const [name, spec, current, want] of generateCases) it(`generate - ${name}`, () => assert.deepEqual(capabilitiesStrategy(spec).generate(current), want));

  it("generate - returns the container's own object when nothing changes", () => {
    const caps = { add: ['A'], drop: ['B'] };
    assert.equal(capabilitiesStrategy({ requiredDropCapabilities: ['B'] }).generate(caps), caps);
  });

  const validateCases: Array<[string, Record<string, string[]>, { add?: string[]; drop?: string[] } | undefined, string[]]> = [
    ['nothing asked, nothing required', {}, undefined, []],
    ['required but unset', { requiredDropCapabilities: ['ALL'] }, undefined, [`${F}: Invalid value: "null": required capabilities are not set on the securityContext`]],
    ['add not allowed', { allowedCapabilities: ['CHOWN'] }, { add: ['SYS_ADMIN', 'CHOWN'] }, [`${F}.add: Invalid value: "SYS_ADMIN": capability may not be added`]],
    ['default add is allowed', { defaultAddCapabilities: ['CHOWN'] }, { add: ['CHOWN'] }, []],
    ['wildcard allows any add', { allowedCapabilities: ['*'] }, { add: ['SYS_ADMIN'] }, []],
    [
      'required drop missing',
      { requiredDropCapabilities: ['ALL', 'NET_RAW'] },
      { drop: ['ALL'] },
      [`${F}.drop: Invalid value: []core.Capability{"ALL"}: NET_RAW is required to be dropped but was not found`],
    ],
  ];
  for (const [name, spec, caps, want] of validateCases) it(`validate - ${name}`, () => assert.deepEqual(texts(capabilitiesStrategy(spec).validate(F, caps)), want));
});

describe('PodSecurityPolicy strategies - sysctls', () => {
  const s = sysctlsStrategy({ allowedUnsafeSysctls: ['kernel.msg*', 'net.core.somaxconn'], forbiddenSysctls: ['kernel.shm_rmid_forced', 'kernel.msgmax'] });
  const cases: Array<[string, string, string[]]> = [
    ['safe', 'net.ipv4.ip_local_port_range', []],
    ['safe but forbidden', 'kernel.shm_rmid_forced', ['pod.spec.securityContext.sysctls[0]: Forbidden: sysctl "kernel.shm_rmid_forced" is not allowed']],
    ['allowed unsafe by prefix', 'kernel.msgmnb', []],
    ['forbidden wins over an allowed prefix', 'kernel.msgmax', ['pod.spec.securityContext.sysctls[0]: Forbidden: sysctl "kernel.msgmax" is not allowed']],
    ['allowed unsafe by name', 'net.core.somaxconn', []],
    ['unsafe', 'kernel.sem', ['pod.spec.securityContext.sysctls[0]: Forbidden: unsafe sysctl "kernel.sem" is not allowed']],
  ];
  for (const [name, sysctl, want] of cases) it(name, () => assert.deepEqual(texts(s.validate([{ name: sysctl }])), want));

  it('`*` forbids or allows everything', () => {
    assert.equal(sysctlsStrategy({ forbiddenSysctls: ['*'] }).validate([{ name: 'net.ipv4.tcp_syncookies' }]).length, 1);
    assert.equal(sysctlsStrategy({ allowedUnsafeSysctls: ['*'] }).validate([{ name: 'kernel.sem' }, { name: 'vm.x' }]).length, 0);
  });
});

describe('PodSecurityPolicy strategies - volumes and host paths', () => {
  const pod = (volumes: unknown[], mounts: unknown[] = []): Pod => ({ metadata: { name: 'p' }, spec: { volumes, containers: [{ name: 'c', volumeMounts: mounts }] } });
  const saVolume = {
    name: 'platform-api-access-x',
    projected: {
      sources: [
        { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
        { configMap: { name: 'platform-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };
  const cases: Array<[string, Record<string, unknown>, Pod, string[]]> = [
    ['allowed type', { volumes: ['emptyDir'] }, pod([{ name: 'a', emptyDir: {} }]), []],
    ['type not listed', { volumes: ['emptyDir'] }, pod([{ name: 'a', secret: { secretName: 's' } }]), ['spec.volumes[0]: Invalid value: "secret": secret volumes are not allowed to be used']],
    ['no volumes listed allows none', {}, pod([{ name: 'a', emptyDir: {} }]), ['spec.volumes[0]: Invalid value: "emptyDir": emptyDir volumes are not allowed to be used']],
    ['* allows any', { volumes: ['*'] }, pod([{ name: 'a', hostPath: { path: '/etc' } }]), []],
    ['cephfs is cephFS', { volumes: ['cephFS'] }, pod([{ name: 'a', cephfs: { monitors: ['m'] } }]), []],
    [
      'ephemeral',
      { volumes: ['emptyDir'] },
      pod([{ name: 'a', ephemeral: { volumeClaimTemplate: { spec: {} } } }]),
      ['spec.volumes[0]: Invalid value: "ephemeral": ephemeral volumes are not allowed to be used'],
    ],
    ['the service-account volume counts as secret', { volumes: ['secret'] }, pod([saVolume]), []],
    [
      'another projected volume does not',
      { volumes: ['secret'] },
      pod([{ name: 'p', projected: { sources: [{ secret: { name: 's' } }] } }]),
      ['spec.volumes[0]: Invalid value: "projected": projected volumes are not allowed to be used'],
    ],
    [
      'host path outside the prefixes',
      { volumes: ['hostPath'], allowedHostPaths: [{ pathPrefix: '/var/log' }] },
      pod([{ name: 'h', hostPath: { path: '/var/logs' } }]),
      ['spec.volumes[0].hostPath.pathPrefix: Invalid value: "/var/logs": is not allowed to be used'],
    ],
    [
      'host path under a prefix',
      { volumes: ['hostPath'], allowedHostPaths: [{ pathPrefix: '/var/log/' }] },
      pod([{ name: 'h', hostPath: { path: '/var/log/pods' } }], [{ name: 'h', mountPath: '/l' }]),
      [],
    ],
    [
      'read-only prefix needs read-only mounts',
      { volumes: ['hostPath'], allowedHostPaths: [{ pathPrefix: '/var/log', readOnly: true }] },
      pod(
        [{ name: 'h', hostPath: { path: '/var/log' } }],
        [
          { name: 'h', mountPath: '/a', readOnly: true },
          { name: 'h', mountPath: '/b' },
        ],
      ),
      ['spec.containers[0].volumeMounts[1].readOnly: Invalid value: false: must be read-only'],
    ],
    [
      'flex driver not listed',
      { volumes: ['flexVolume'], allowedFlexVolumes: [{ driver: 'example/lvm' }] },
      pod([{ name: 'f', flexVolume: { driver: 'example/cifs' } }]),
      ['spec.volumes[0].driver: Invalid value: "example/cifs": Flexvolume driver is not allowed to be used'],
    ],
    ['flex drivers unlisted allow any', { volumes: ['flexVolume'] }, pod([{ name: 'f', flexVolume: { driver: 'example/cifs' } }]), []],
    [
      'inline CSI driver not listed',
      { volumes: ['csi'], allowedCSIDrivers: [{ name: 'csi.a' }] },
      pod([{ name: 'c', csi: { driver: 'csi.b' } }]),
      ['spec.volumes[0].csi.driver: Invalid value: "csi.b": Inline CSI driver is not allowed to be used'],
    ],
    ['inline CSI driver listed', { volumes: ['csi'], allowedCSIDrivers: [{ name: 'csi.a' }] }, pod([{ name: 'c', csi: { driver: 'csi.a' } }]), []],
  ];
  for (const [name, psp, p, want] of cases) it(name, () => assert.deepEqual(texts(validatePodVolumes(psp, p)), want));

  it('path prefixes match whole segments, trailing slashes ignored', () => {
    const table: Array<[string, string, boolean]> = [
      ['/foo', '/foo', true],
      ['/foo/', '/foo', true],
      ['/foo/bar', '/foo/', true],
      ['/foobar', '/foo', false],
      ['/etc', '/', true],
      ['/fo', '/foo', false],
    ];
    for (const [path, prefix, want] of table) assert.equal(hasPathPrefix(path, prefix), want, `${path} under ${prefix}`);
  });

  it('a writable prefix wins over a read-only one; no prefixes allow any path', () => {
    assert.deepEqual(allowsHostPath([{ pathPrefix: '/var', readOnly: true }, { pathPrefix: '/var/log' }], '/var/log/x'), { allowed: true, readOnly: false });
    assert.deepEqual(allowsHostPath([{ pathPrefix: '/var', readOnly: true }], '/var/log'), { allowed: true, readOnly: true });
    assert.deepEqual(allowsHostPath(undefined, '/'), { allowed: true, readOnly: false });
  });

  it('volume types and the token projection test', () => {
    assert.equal(volumeType({ name: 'x', storageos: {} }), 'storageos');
    assert.equal(volumeType({ name: 'x' }), undefined);
    assert.equal(isOnlyServiceAccountTokenSources(saVolume.projected), true);
    assert.equal(isOnlyServiceAccountTokenSources({ sources: [{ serviceAccountToken: { path: 'token', audience: 'vault' } }] }), false);
  });
});

describe('PodSecurityPolicy strategies - seccomp and AppArmor', () => {
  const S = 'seccomp.security.alpha.platform.io';
  const A = 'apparmor.security.beta.platform.io';
  const pod = (annotations: Record<string, string>, sc?: Record<string, unknown>, containerSC?: Record<string, unknown>): Pod => ({
    metadata: { name: 'p', annotations },
    spec: { ...(sc ? { securityContext: sc } : {}), containers: [{ name: 'c', ...(containerSC ? { securityContext: containerSC } : {}) }] },
  });

  it('the field stands for the annotation value', () => {
    assert.equal(seccompAnnotationForField({ type: 'RuntimeDefault' }), 'runtime/default');
    assert.equal(seccompAnnotationForField({ type: 'Unconfined' }), 'unconfined');
    assert.equal(seccompAnnotationForField({ type: 'Localhost', localhostProfile: 'p.json' }), 'localhost/p.json');
    assert.equal(seccompAnnotationForField({ type: 'Localhost' }), '');
  });

  it('seccomp generate: default when unset, the pod field translated, the annotation kept', () => {
    const s = seccompStrategy({ [`${S}/defaultProfileName`]: 'runtime/default', [`${S}/allowedProfileNames`]: 'runtime/default' });
    assert.equal(s.generate(pod({})), 'runtime/default');
    assert.equal(s.generate(pod({}, { seccompProfile: { type: 'Unconfined' } })), 'unconfined');
    assert.equal(s.generate(pod({ [`${S}/pod`]: 'localhost/x' })), 'localhost/x');
  });

  const seccompCases: Array<[string, Record<string, string>, Pod, string[]]> = [
    ['no annotations, nothing set', {}, pod({}), []],
    [
      'no allowed list forbids any profile',
      {},
      pod({ [`${S}/pod`]: 'runtime/default' }),
      [`pod.metadata.annotations[${S}/pod]: Forbidden: seccomp may not be set`, `pod.metadata.annotations[container.${S}/c]: Forbidden: seccomp may not be set`],
    ],
    ['allowed', { [`${S}/allowedProfileNames`]: 'runtime/default,localhost/a' }, pod({ [`${S}/pod`]: 'runtime/default' }), []],
    [
      'not allowed (pod field)',
      { [`${S}/allowedProfileNames`]: 'runtime/default' },
      pod({}, { seccompProfile: { type: 'Unconfined' } }),
      [
        `pod.metadata.annotations[${S}/pod]: Forbidden: unconfined is not an allowed seccomp profile. Valid values are runtime/default`,
        `pod.metadata.annotations[container.${S}/c]: Forbidden: unconfined is not an allowed seccomp profile. Valid values are runtime/default`,
      ],
    ],
    [
      'container field overrides the pod',
      { [`${S}/allowedProfileNames`]: 'runtime/default' },
      pod({ [`${S}/pod`]: 'runtime/default' }, undefined, { seccompProfile: { type: 'Unconfined' } }),
      [`pod.metadata.annotations[container.${S}/c]: Forbidden: unconfined is not an allowed seccomp profile. Valid values are runtime/default`],
    ],
    [
      'an allowed list requires a profile',
      { [`${S}/allowedProfileNames`]: 'runtime/default' },
      pod({}),
      [
        `pod.metadata.annotations[${S}/pod]: Forbidden:  is not an allowed seccomp profile. Valid values are runtime/default`,
        `pod.metadata.annotations[container.${S}/c]: Forbidden:  is not an allowed seccomp profile. Valid values are runtime/default`,
      ],
    ],
    ['* allows any', { [`${S}/allowedProfileNames`]: '*' }, pod({ [`${S}/pod`]: 'localhost/anything' }), []],
  ];
  for (const [name, annotations, p, want] of seccompCases) {
    it(`seccomp validate - ${name}`, () => {
      const s = seccompStrategy(annotations);
      assert.deepEqual(texts([...s.validatePod(p), ...s.validateContainer(p, p.spec.containers[0])]), want);
    });
  }

  const appArmorCases: Array<[string, Record<string, string>, Record<string, string>, string[]]> = [
    ['unrestricted without an allowed list', {}, { [`container.${A}/c`]: 'unconfined' }, []],
    ['allowed', { [`${A}/allowedProfileNames`]: 'runtime/default,localhost/x' }, { [`container.${A}/c`]: 'localhost/x' }, []],
    ['must be set', { [`${A}/allowedProfileNames`]: 'runtime/default' }, {}, [`pod.metadata.annotations[container.${A}/c]: Forbidden: AppArmor profile must be set`]],
    [
      'not allowed',
      { [`${A}/allowedProfileNames`]: 'runtime/default' },
      { [`container.${A}/c`]: 'unconfined' },
      [`pod.metadata.annotations[container.${A}/c]: Forbidden: unconfined is not an allowed profile. Allowed values: "runtime/default"`],
    ],
  ];
  for (const [name, annotations, podAnnotations, want] of appArmorCases) {
    it(`AppArmor validate - ${name}`, () => {
      const p = pod(podAnnotations);
      assert.deepEqual(texts(appArmorStrategy(annotations).validate(p, p.spec.containers[0])), want);
    });
  }

  it('AppArmor generate: the default for a container that names none', () => {
    const s = appArmorStrategy({ [`${A}/defaultProfileName`]: 'runtime/default' });
    const c = { name: 'c' };
    assert.equal(s.generate(pod({}), c), 'runtime/default');
    assert.equal(s.generate(pod({ [`container.${A}/c`]: 'localhost/x' }), c), '');
    assert.equal(appArmorStrategy({}).generate(pod({}), c), '');
  });
});

describe('PodSecurityPolicy strategies - semantic equality', () => {
  const cases: Array<[unknown, unknown, boolean]> = [
    [{ a: 1 }, { a: 1 }, true],
    [{ a: [] }, {}, true],
    [{ metadata: { annotations: {} } }, { metadata: {} }, true],
    [{ a: [1] }, { a: [1, 2] }, false],
    [{ a: { b: false } }, { a: {} }, false],
    [{ a: 0 }, {}, false],
  ];
  for (const [a, b, want] of cases) it(`${JSON.stringify(a)} vs ${JSON.stringify(b)}`, () => assert.equal(sameJson(a, b), want));
});
