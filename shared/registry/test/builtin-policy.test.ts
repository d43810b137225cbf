import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../api/types.js';
import { podsecuritypolicies as psp } from '../builtin/policy/pod-security-policy.js';
import { createFlow, fields, schemaErrors } from './builtin-helpers.js';
import { samples } from './builtin-samples.js';
import { deprecationWarning } from '../versions.js';

const base = samples['policy/podsecuritypolicies']!;

function spec(patch: Record<string, unknown>): ApiObject {
  const o = structuredClone(base);
  const s = o.spec as Record<string, unknown>;
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) delete s[k];
    else s[k] = v;
  }
  return o;
}

function annotated(annotations: Record<string, string>): ApiObject {
  const o = structuredClone(base);
  o.metadata = { ...o.metadata, annotations };
  return o;
}

describe('podsecuritypolicies', () => {
  it('is deprecated in policy/v1beta1 with the upstream warning', () => {
    const v = psp.versions[0]!;
    assert.equal(v.name, 'v1beta1');
    assert.equal(v.deprecation?.removedIn, '1.25');
    assert.equal(deprecationWarning(psp.group, v.name, psp.kind, v.deprecation!), 'policy/v1beta1 PodSecurityPolicy is deprecated in v1.21+, unavailable in v1.25+');
    assert.equal(psp.scope, 'Cluster');
  });

  it('defaults allowPrivilegeEscalation to true and trims trailing slashes of host paths', () => {
    const { obj } = createFlow(psp, spec({ allowedHostPaths: [{ pathPrefix: '/var/log//' }, { pathPrefix: '/' }] }));
    const s = obj.spec as Record<string, any>;
    assert.equal(s.allowPrivilegeEscalation, true);
    assert.deepEqual(s.allowedHostPaths, [{ pathPrefix: '/var/log' }, { pathPrefix: '/' }]);
  });

  it('models every field of the table (schema accepts a full object)', () => {
    const full = spec({
      privileged: true,
      defaultAddCapabilities: ['NET_ADMIN'],
      requiredDropCapabilities: ['ALL'],
      allowedCapabilities: ['CHOWN'],
      volumes: ['*'],
      hostNetwork: true,
      hostPorts: [{ min: 80, max: 443 }],
      hostPID: false,
      hostIPC: false,
      seLinux: { rule: 'MustRunAs', seLinuxOptions: { level: 's0', role: 'r', type: 't', user: 'u' } },
      runAsUser: { rule: 'MustRunAs', ranges: [{ min: 1000, max: 2000 }] },
      runAsGroup: { rule: 'MayRunAs', ranges: [{ min: 1, max: 1 }] },
      readOnlyRootFilesystem: true,
      defaultAllowPrivilegeEscalation: false,
      allowPrivilegeEscalation: true,
      allowedHostPaths: [{ pathPrefix: '/var/log', readOnly: true }],
      allowedFlexVolumes: [{ driver: 'example/lvm' }],
      allowedCSIDrivers: [{ name: 'csi.example.com' }],
      allowedUnsafeSysctls: ['kernel.msg*'],
      forbiddenSysctls: ['net.core.somaxconn'],
      allowedProcMountTypes: ['Default', 'Unmasked'],
      runtimeClass: { allowedRuntimeClassNames: ['gvisor', 'kata'], defaultRuntimeClassName: 'gvisor' },
    });
    const r = createFlow(psp, full);
    assert.deepEqual([r.schema, fields(r.errors)], [[], []]);
  });

  describe('schema', () => {
    const cases: Array<[string, ApiObject, number]> = [
      ['runAsUser required', spec({ runAsUser: undefined }), 1],
      ['seLinux required', spec({ seLinux: undefined }), 1],
      ['fsGroup required', spec({ fsGroup: undefined }), 1],
      ['supplementalGroups required', spec({ supplementalGroups: undefined }), 1],
      ['runAsUser.rule required', spec({ runAsUser: {} }), 1],
      ['unknown runAsUser rule', spec({ runAsUser: { rule: 'MayRunAs' } }), 1],
      ['unknown volume', spec({ volumes: ['hostDisk'] }), 1],
      ['range needs min and max', spec({ fsGroup: { rule: 'MustRunAs', ranges: [{ min: 1 }] } }), 1],
      ['host port needs both ends', spec({ hostPorts: [{ max: 1 }] }), 1],
      ['flex volume needs driver', spec({ allowedFlexVolumes: [{}] }), 1],
      ['CSI driver needs name', spec({ allowedCSIDrivers: [{}] }), 1],
      ['runtimeClass needs allowed names', spec({ runtimeClass: { defaultRuntimeClassName: 'x' } }), 1],
      ['unknown proc mount type', spec({ allowedProcMountTypes: ['Masked'] }), 1],
      ['unknown field', spec({ allowHostDevices: true }), 1],
    ];
    for (const [name, obj, n] of cases) it(name, () => assert.equal(schemaErrors(psp, obj).length, n, schemaErrors(psp, obj).join('; ')));
  });

  describe('rules', () => {
    const cases: Array<[string, ApiObject, string[]]> = [
      ['valid', base, []],
      ['MustRunAs user without ranges', spec({ runAsUser: { rule: 'MustRunAs' } }), ['spec.runAsUser.ranges: Required value']],
      ['MustRunAs fsGroup without ranges', spec({ fsGroup: { rule: 'MustRunAs' } }), ['spec.fsGroup.ranges: Required value']],
      ['RunAsAny fsGroup without ranges', spec({ fsGroup: { rule: 'RunAsAny' } }), []],
      ['fsGroup without rule', spec({ fsGroup: {} }), ['spec.fsGroup.rule: Unsupported value']],
      ['min greater than max', spec({ supplementalGroups: { rule: 'MustRunAs', ranges: [{ min: 10, max: 5 }] } }), ['spec.supplementalGroups.ranges[0]: Invalid value']],
      ['negative min', spec({ runAsGroup: { rule: 'MustRunAs', ranges: [{ min: -1, max: 5 }] } }), ['spec.runAsGroup.ranges[0].min: Invalid value']],
      ['id above 2^31-1', spec({ runAsUser: { rule: 'MustRunAs', ranges: [{ min: 1, max: 2147483648 }] } }), ['spec.runAsUser.ranges[0].max: Invalid value']],
      ['runAsGroup RunAsAny takes no ranges', spec({ runAsGroup: { rule: 'RunAsAny', ranges: [{ min: 1, max: 5 }] } }), ['spec.runAsGroup.ranges: Invalid value']],
      ['runAsGroup MayRunAs needs a range', spec({ runAsGroup: { rule: 'MayRunAs' } }), ['spec.runAsGroup.ranges: Invalid value']],
      ['required drops with all capabilities allowed', spec({ allowedCapabilities: ['*'], requiredDropCapabilities: ['NET_RAW'] }), ['spec.requiredDropCapabilities: Invalid value']],
      ['forbidden sysctl under an allowed prefix', spec({ allowedUnsafeSysctls: ['kernel.*'], forbiddenSysctls: ['kernel.sem'] }), ['spec.forbiddenSysctls[0]: Invalid value']],
      ['allowed and forbidden prefixes apart', spec({ allowedUnsafeSysctls: ['kernel.msg*'], forbiddenSysctls: ['net.*'] }), []],
      [
        'valid profile annotations',
        annotated({
          'seccomp.security.alpha.platform.io/allowedProfileNames': 'runtime/default,localhost/p.json,*',
          'seccomp.security.alpha.platform.io/defaultProfileName': 'runtime/default',
          'apparmor.security.beta.platform.io/allowedProfileNames': 'runtime/default,localhost/k',
          'apparmor.security.beta.platform.io/defaultProfileName': 'runtime/default',
        }),
        [],
      ],
      [
        'bad seccomp profile',
        annotated({ 'seccomp.security.alpha.platform.io/defaultProfileName': 'default' }),
        ['metadata.annotations[seccomp.security.alpha.platform.io/defaultProfileName]: Invalid value'],
      ],
      [
        'seccomp localhost path escaping',
        annotated({ 'seccomp.security.alpha.platform.io/allowedProfileNames': 'localhost/../x' }),
        ['metadata.annotations[seccomp.security.alpha.platform.io/allowedProfileNames]: Invalid value'],
      ],
      [
        'bad AppArmor profile',
        annotated({ 'apparmor.security.beta.platform.io/allowedProfileNames': 'runtime/default,complain' }),
        ['metadata.annotations[apparmor.security.beta.platform.io/allowedProfileNames]: Invalid value'],
      ],
      ['single id range', spec({ runAsUser: { rule: 'MustRunAs', ranges: [{ min: 7, max: 7 }] } }), []],
      ['seLinux MustRunAs without options', spec({ seLinux: { rule: 'MustRunAs' } }), ['spec.seLinux.seLinuxOptions: Required value']],
      ['allowed overlaps required drop', spec({ allowedCapabilities: ['NET_RAW'], requiredDropCapabilities: ['NET_RAW'] }), ['spec.allowedCapabilities: Invalid value']],
      ['default add overlaps required drop', spec({ defaultAddCapabilities: ['SYS_TIME'], requiredDropCapabilities: ['SYS_TIME'] }), ['spec.defaultAddCapabilities: Invalid value']],
      ['host path with *', spec({ allowedHostPaths: [{ pathPrefix: '/var/*' }] }), ['spec.allowedHostPaths[0].pathPrefix: Invalid value']],
      ['host path with ..', spec({ allowedHostPaths: [{ pathPrefix: '/var/../etc' }] }), ['spec.allowedHostPaths[0].pathPrefix: Invalid value']],
      ['host port min > max', spec({ hostPorts: [{ min: 9000, max: 8000 }] }), ['spec.hostPorts[0]: Invalid value']],
      ['host port above 65535', spec({ hostPorts: [{ min: 1, max: 70000 }] }), ['spec.hostPorts[0].max: Invalid value']],
      ['sysctl * alone', spec({ forbiddenSysctls: ['*'] }), []],
      ['sysctl * with others', spec({ forbiddenSysctls: ['*', 'kernel.shm_rmid_forced'] }), ['spec.forbiddenSysctls[0]: Forbidden']],
      ['sysctl prefix pattern', spec({ allowedUnsafeSysctls: ['net.ipv4.*', 'kernel.sem'] }), []],
      ['sysctl bad pattern', spec({ allowedUnsafeSysctls: ['net.*.foo'] }), ['spec.allowedUnsafeSysctls[0]: Invalid value']],
      ['sysctl allowed and forbidden', spec({ allowedUnsafeSysctls: ['kernel.sem'], forbiddenSysctls: ['kernel.*'] }), ['spec.allowedUnsafeSysctls[0]: Invalid value']],
      ['runtime class * alone', spec({ runtimeClass: { allowedRuntimeClassNames: ['*'], defaultRuntimeClassName: 'any' } }), []],
      ['runtime class * with others', spec({ runtimeClass: { allowedRuntimeClassNames: ['*', 'kata'] } }), ['spec.runtimeClass.allowedRuntimeClassNames[0]: Invalid value']],
      ['runtime class empty list', spec({ runtimeClass: { allowedRuntimeClassNames: [] } }), []],
      [
        'default runtime class not allowed',
        spec({ runtimeClass: { allowedRuntimeClassNames: ['kata'], defaultRuntimeClassName: 'gvisor' } }),
        ['spec.runtimeClass.defaultRuntimeClassName: Invalid value'],
      ],
      ['runtime class bad name', spec({ runtimeClass: { allowedRuntimeClassNames: ['Bad_Name'] } }), ['spec.runtimeClass.allowedRuntimeClassNames[0]: Invalid value']],
      ['default escalation without escalation', spec({ allowPrivilegeEscalation: false, defaultAllowPrivilegeEscalation: true }), ['spec.defaultAllowPrivilegeEscalation: Invalid value']],
    ];
    for (const [name, obj, want] of cases) it(name, () => assert.deepEqual(fields(createFlow(psp, obj).errors), want));
  });
});
