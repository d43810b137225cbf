import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_CHECKS, Evaluator, forbiddenDetail, forbiddenReason, goQuote } from '../plugins/pod-security/checks.js';
import { LATEST, Level, minorVersion, type LevelVersion } from '../plugins/pod-security/policy.js';

type Json = Record<string, unknown>;
const evaluator = new Evaluator();

const restricted = (minor?: number): LevelVersion => ({ level: Level.Restricted, version: minor === undefined ? LATEST : minorVersion(minor) });
const baseline = (minor?: number): LevelVersion => ({ level: Level.Baseline, version: minor === undefined ? LATEST : minorVersion(minor) });

/** A pod that passes restricted:latest; each case changes one thing. */
function compliantSpec(extra: Json = {}, container: Json = {}): Json {
  return {
    securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [{ name: 'c', image: 'img', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } }, ...container }],
    ...extra,
  };
}
const withSC = (sc: Json): Json => compliantSpec({}, { securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, ...sc } });

function detail(lv: LevelVersion, spec: Json, meta: Json = {}): string {
  const r = evaluator.evaluate(lv, meta, spec);
  return r.allowed ? 'allowed' : forbiddenDetail(r);
}

test('pod security checks - a compliant pod passes every level and version', () => {
  for (let v = 0; v <= 30; v++) {
    assert.equal(detail(restricted(v), compliantSpec()), 'allowed', `restricted v1.${v}`);
    assert.equal(detail(baseline(v), compliantSpec()), 'allowed', `baseline v1.${v}`);
  }
  assert.equal(detail(restricted(), compliantSpec()), 'allowed');
  assert.equal(detail({ level: Level.Privileged, version: LATEST }, { hostNetwork: true, containers: [{ name: 'c', securityContext: { privileged: true } }] }), 'allowed');
});

test('pod security checks - baseline checks (allowed and violating)', () => {
  const cases: Array<{ name: string; spec: Json; meta?: Json; lv?: LevelVersion; want: string }> = [
    // hostProcess
    {
      name: 'hostProcess false',
      spec: compliantSpec({ securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' }, windowsOptions: { hostProcess: false } } }),
      want: 'allowed',
    },
    {
      name: 'hostProcess on pod and container',
      spec: {
        securityContext: { windowsOptions: { hostProcess: true } },
        containers: [{ name: 'a', securityContext: { windowsOptions: { hostProcess: true } } }, { name: 'b' }],
      },
      lv: baseline(),
      want: 'hostProcess (pod and container "a" must not set securityContext.windowsOptions.hostProcess=true)',
    },
    // host namespaces
    { name: 'host namespaces false', spec: compliantSpec({ hostNetwork: false, hostPID: false, hostIPC: false }), want: 'allowed' },
    {
      name: 'host namespaces',
      spec: { hostNetwork: true, hostPID: true, hostIPC: true, containers: [{ name: 'c' }] },
      lv: baseline(),
      want: 'host namespaces (hostNetwork=true, hostPID=true, hostIPC=true)',
    },
    { name: 'hostIPC only', spec: { hostIPC: true, containers: [{ name: 'c' }] }, lv: baseline(), want: 'host namespaces (hostIPC=true)' },
    // privileged
    { name: 'privileged false', spec: withSC({ privileged: false }), want: 'allowed' },
    {
      name: 'privileged containers of every kind',
      spec: {
        initContainers: [{ name: 'i', securityContext: { privileged: true } }],
        containers: [
          { name: 'a', securityContext: { privileged: true } },
          { name: 'b', securityContext: { privileged: false } },
        ],
        ephemeralContainers: [{ name: 'e', securityContext: { privileged: true } }],
      },
      lv: baseline(),
      want: 'privileged (containers "i", "a", "e" must not set securityContext.privileged=true)',
    },
    // capabilities (baseline)
    {
      name: 'default capabilities added',
      spec: { containers: [{ name: 'c', securityContext: { capabilities: { add: ['CHOWN', 'NET_BIND_SERVICE', 'SYS_CHROOT'] } } }] },
      lv: baseline(),
      want: 'allowed',
    },
    {
      name: 'non-default capabilities',
      spec: {
        containers: [
          { name: 'a', securityContext: { capabilities: { add: ['SYS_ADMIN', 'NET_RAW'] } } },
          { name: 'b', securityContext: { capabilities: { add: ['NET_RAW', 'CHOWN'] } } },
        ],
      },
      lv: baseline(),
      want: 'non-default capabilities (containers "a", "b" must not include "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add)',
    },
    // hostPath volumes
    { name: 'emptyDir volume', spec: { volumes: [{ name: 'v', emptyDir: {} }], containers: [{ name: 'c' }] }, lv: baseline(), want: 'allowed' },
    {
      name: 'hostPath volumes',
      spec: {
        volumes: [
          { name: 'a', hostPath: { path: '/' } },
          { name: 'b', hostPath: { path: '/etc' } },
          { name: 'c', emptyDir: {} },
        ],
        containers: [{ name: 'c' }],
      },
      lv: baseline(),
      want: 'hostPath volumes (volumes "a", "b")',
    },
    // host ports
    { name: 'hostPort 0', spec: { containers: [{ name: 'c', ports: [{ containerPort: 80, hostPort: 0 }] }] }, lv: baseline(), want: 'allowed' },
    { name: 'one hostPort', spec: { containers: [{ name: 'c', ports: [{ containerPort: 80, hostPort: 8080 }] }] }, lv: baseline(), want: 'hostPort (container "c" uses hostPort 8080)' },
    {
      name: 'hostPorts sorted as text',
      spec: {
        containers: [
          {
            name: 'a',
            ports: [
              { containerPort: 80, hostPort: 8080 },
              { containerPort: 81, hostPort: 10000 },
            ],
          },
          { name: 'b', ports: [{ containerPort: 82, hostPort: 8080 }] },
        ],
      },
      lv: baseline(),
      want: 'hostPort (containers "a", "b" use hostPorts 10000, 8080)',
    },
    // AppArmor
    {
      name: 'AppArmor runtime/default and localhost',
      spec: { containers: [{ name: 'a' }, { name: 'b' }] },
      meta: { annotations: { 'container.apparmor.security.beta.platform.io/a': 'runtime/default', 'container.apparmor.security.beta.platform.io/b': 'localhost/prof' } },
      lv: baseline(),
      want: 'allowed',
    },
    {
      name: 'AppArmor unconfined',
      spec: { containers: [{ name: 'a' }, { name: 'b' }] },
      meta: { annotations: { 'container.apparmor.security.beta.platform.io/b': 'unconfined', 'container.apparmor.security.beta.platform.io/a': 'x\ty' } },
      lv: baseline(),
      want: 'forbidden AppArmor profiles (container.apparmor.security.beta.platform.io/a="x\\ty", container.apparmor.security.beta.platform.io/b="unconfined")',
    },
    // SELinux
    {
      name: 'SELinux allowed types and level',
      spec: { securityContext: { seLinuxOptions: { type: 'container_t', level: 's0:c1' } }, containers: [{ name: 'c', securityContext: { seLinuxOptions: { type: 'container_kvm_t' } } }] },
      lv: baseline(),
      want: 'allowed',
    },
    {
      name: 'SELinux bad type, user and role',
      spec: { securityContext: { seLinuxOptions: { type: 'spc_t' } }, containers: [{ name: 'a', securityContext: { seLinuxOptions: { user: 'root', role: 'sysadm_r', type: 'unconfined_t' } } }] },
      lv: baseline(),
      want: 'seLinuxOptions (pod and container "a" set forbidden securityContext.seLinuxOptions: types "spc_t", "unconfined_t"; user may not be set; role may not be set)',
    },
    {
      name: 'SELinux user only',
      spec: { containers: [{ name: 'a', securityContext: { seLinuxOptions: { user: 'root' } } }] },
      lv: baseline(),
      want: 'seLinuxOptions (container "a" set forbidden securityContext.seLinuxOptions: user may not be set)',
    },
    // /proc mount
    { name: 'procMount Default', spec: { containers: [{ name: 'c', securityContext: { procMount: 'Default' } }] }, lv: baseline(), want: 'allowed' },
    {
      name: 'procMount Unmasked',
      spec: { containers: [{ name: 'c', securityContext: { procMount: 'Unmasked' } }] },
      lv: baseline(),
      want: 'procMount (container "c" must not set securityContext.procMount to "Unmasked")',
    },
    // seccomp (baseline)
    { name: 'seccomp Localhost', spec: { securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'p' } }, containers: [{ name: 'c' }] }, lv: baseline(), want: 'allowed' },
    {
      name: 'seccomp Unconfined on pod and container',
      spec: { securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [{ name: 'a', securityContext: { seccompProfile: { type: 'Unconfined' } } }, { name: 'b' }] },
      lv: baseline(),
      want: 'seccompProfile (pod and container "a" must not set securityContext.seccompProfile.type to "Unconfined")',
    },
    // sysctls
    {
      name: 'safe sysctls',
      spec: {
        securityContext: {
          sysctls: [
            { name: 'net.ipv4.ip_local_port_range', value: '1024 65535' },
            { name: 'kernel.shm_rmid_forced', value: '1' },
          ],
        },
        containers: [{ name: 'c' }],
      },
      lv: baseline(),
      want: 'allowed',
    },
    {
      name: 'unsafe sysctls in order',
      spec: {
        securityContext: {
          sysctls: [
            { name: 'net.ipv4.tcp_syncookies', value: '1' },
            { name: 'kernel.msgmax', value: '1' },
            { name: 'a.b', value: '1' },
          ],
        },
        containers: [{ name: 'c' }],
      },
      lv: baseline(),
      want: 'forbidden sysctls (kernel.msgmax, a.b)',
    },
    // order across checks: by check id, baseline ones first
    {
      name: 'several violations in upstream order',
      spec: {
        hostNetwork: true,
        securityContext: { sysctls: [{ name: 'kernel.msgmax' }] },
        containers: [{ name: 'c', ports: [{ containerPort: 1, hostPort: 1 }], securityContext: { privileged: true, capabilities: { add: ['NET_ADMIN'] } } }],
      },
      lv: baseline(),
      want: 'non-default capabilities (container "c" must not include "NET_ADMIN" in securityContext.capabilities.add), host namespaces (hostNetwork=true), hostPort (container "c" uses hostPort 1), privileged (container "c" must not set securityContext.privileged=true), forbidden sysctls (kernel.msgmax)',
    },
  ];
  for (const c of cases) assert.equal(detail(c.lv ?? restricted(), c.spec, c.meta ?? {}), c.want, c.name);
});

test('pod security checks - restricted checks (allowed and violating)', () => {
  const cases: Array<{ name: string; spec: Json; lv?: LevelVersion; want: string }> = [
    // volume types
    {
      name: 'allowed volume types',
      spec: compliantSpec({
        volumes: [
          { name: 'a', configMap: { name: 'x' } },
          { name: 'b', secret: { secretName: 'x' } },
          { name: 'c', emptyDir: {} },
          { name: 'd', projected: { sources: [] } },
          { name: 'e', downwardAPI: {} },
          { name: 'f', persistentVolumeClaim: { claimName: 'x' } },
          { name: 'g', csi: { driver: 'x' } },
          { name: 'h', ephemeral: { volumeClaimTemplate: {} } },
        ],
      }),
      want: 'allowed',
    },
    {
      name: 'restricted volume types (hostPath reported once, by this check)',
      spec: compliantSpec({
        volumes: [
          { name: 'a', hostPath: { path: '/' } },
          { name: 'b', nfs: { server: 's', path: '/' } },
          { name: 'c', gitRepo: { repository: 'r' } },
          { name: 'd', configMap: {} },
        ],
      }),
      want: 'restricted volume types (volumes "a", "b", "c" use restricted volume types "gitRepo", "hostPath", "nfs")',
    },
    { name: 'one restricted volume', spec: compliantSpec({ volumes: [{ name: 'a', hostPath: { path: '/' } }] }), want: 'restricted volume types (volume "a" uses restricted volume type "hostPath")' },
    { name: 'a volume with no known source', spec: compliantSpec({ volumes: [{ name: 'a' }] }), want: 'restricted volume types (volume "a" uses restricted volume type "unknown")' },
    // privilege escalation
    {
      name: 'allowPrivilegeEscalation unset or true',
      spec: {
        ...compliantSpec(),
        containers: [
          { name: 'a', securityContext: { capabilities: { drop: ['ALL'] } } },
          { name: 'b', securityContext: { allowPrivilegeEscalation: true, capabilities: { drop: ['ALL'] } } },
        ],
      },
      want: 'allowPrivilegeEscalation != false (containers "a", "b" must set securityContext.allowPrivilegeEscalation=false)',
    },
    // runAsNonRoot
    {
      name: 'runAsNonRoot on every container instead of the pod',
      spec: {
        ...compliantSpec({ securityContext: { seccompProfile: { type: 'RuntimeDefault' } } }),
        containers: [{ name: 'c', securityContext: { runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
      },
      want: 'allowed',
    },
    {
      name: 'runAsNonRoot unset',
      spec: compliantSpec({ securityContext: { seccompProfile: { type: 'RuntimeDefault' } } }),
      want: 'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true)',
    },
    { name: 'runAsNonRoot false on a container', spec: withSC({ runAsNonRoot: false }), want: 'runAsNonRoot != true (container "c" must not set securityContext.runAsNonRoot=false)' },
    {
      name: 'runAsNonRoot false on the pod',
      spec: compliantSpec({ securityContext: { runAsNonRoot: false, seccompProfile: { type: 'RuntimeDefault' } } }),
      want: 'runAsNonRoot != true (pod must not set securityContext.runAsNonRoot=false)',
    },
    // runAsUser (1.23+)
    { name: 'runAsUser 1000', spec: withSC({ runAsUser: 1000 }), want: 'allowed' },
    {
      name: 'runAsUser 0',
      spec: compliantSpec(
        { securityContext: { runAsNonRoot: true, runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' } } },
        { securityContext: { runAsUser: 0, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } },
      ),
      want: 'runAsUser=0 (pod and container "c" must not set runAsUser=0)',
    },
    { name: 'runAsUser 0 before 1.23', spec: withSC({ runAsUser: 0 }), lv: restricted(22), want: 'allowed' },
    // seccomp (restricted)
    {
      name: 'seccomp on the container only',
      spec: compliantSpec(
        { securityContext: { runAsNonRoot: true } },
        { securityContext: { seccompProfile: { type: 'Localhost' }, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } },
      ),
      want: 'allowed',
    },
    {
      name: 'seccomp unset',
      spec: compliantSpec({ securityContext: { runAsNonRoot: true } }),
      want: 'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    },
    {
      name: 'seccomp Unconfined on a container over a good pod profile',
      spec: withSC({ seccompProfile: { type: 'Unconfined' } }),
      want: 'seccompProfile (container "c" must not set securityContext.seccompProfile.type to "Unconfined")',
    },
    { name: 'seccomp unset before 1.19', spec: compliantSpec({ securityContext: { runAsNonRoot: true } }), lv: restricted(18), want: 'allowed' },
    // capabilities (restricted, 1.22+)
    { name: 'NET_BIND_SERVICE may be added', spec: withSC({ capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } }), want: 'allowed' },
    {
      name: 'no drop ALL, forbidden add',
      spec: withSC({ capabilities: { drop: ['NET_RAW'], add: ['CHOWN', 'SYS_ADMIN'] } }),
      want: 'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]; container "c" must not include "CHOWN", "SYS_ADMIN" in securityContext.capabilities.add)',
    },
    { name: 'capabilities unset', spec: withSC({ capabilities: null }), want: 'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"])' },
    { name: 'before 1.22 restricted capabilities are baseline capabilities', spec: withSC({ capabilities: { add: ['CHOWN'] } }), lv: restricted(21), want: 'allowed' },
    {
      name: 'before 1.22 a non-default capability is reported by the baseline check',
      spec: withSC({ capabilities: { add: ['SYS_ADMIN'] } }),
      lv: restricted(21),
      want: 'non-default capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add)',
    },
  ];
  for (const c of cases) assert.equal(detail(c.lv ?? restricted(), c.spec), c.want, c.name);
});

test('pod security checks - versions: each check as it was at the version asked for', () => {
  const unconfinedAnnotation = { annotations: { 'seccomp.security.alpha.platform.io/pod': 'unconfined', 'container.seccomp.security.alpha.platform.io/c': 'docker/default' } };
  const bare = { containers: [{ name: 'c', image: 'img' }] };
  const cases: Array<{ name: string; lv: LevelVersion; spec: Json; meta?: Json; want: string }> = [
    {
      name: 'seccomp annotations before 1.19',
      lv: baseline(18),
      spec: bare,
      meta: unconfinedAnnotation,
      want: 'seccompProfile (forbidden annotation seccomp.security.alpha.platform.io/pod="unconfined")',
    },
    { name: 'seccomp annotations ignored from 1.19', lv: baseline(19), spec: bare, meta: unconfinedAnnotation, want: 'allowed' },
    { name: 'seccomp field ignored before 1.19', lv: baseline(18), spec: { securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [{ name: 'c' }] }, want: 'allowed' },
    { name: 'restricted v1.0', lv: restricted(0), spec: bare, want: 'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true)' },
    {
      name: 'restricted v1.8 adds privilege escalation',
      lv: restricted(8),
      spec: bare,
      want: 'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true)',
    },
    {
      name: 'restricted v1.19 adds seccomp',
      lv: restricted(19),
      spec: bare,
      want: 'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    },
    {
      name: 'restricted v1.22 adds capabilities',
      lv: restricted(22),
      spec: bare,
      want: 'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    },
  ];
  for (const c of cases) assert.equal(detail(c.lv, c.spec, c.meta ?? {}), c.want, c.name);
  // A future version and latest evaluate as the newest version any check changed at.
  assert.equal(evaluator.maxVersion, 23);
  assert.equal(detail(restricted(99), withSC({ runAsUser: 0 })), detail(restricted(), withSC({ runAsUser: 0 })));
  assert.equal(evaluator.checksFor(restricted(99)).length, evaluator.checksFor(restricted()).length);
  assert.equal(evaluator.checksFor(restricted(23)).length, 14);
  assert.equal(evaluator.checksFor(baseline(23)).length, 11);
});

test('pod security checks - reasons alone, for namespace warnings', () => {
  const r = evaluator.evaluate(baseline(), {}, { hostPID: true, containers: [{ name: 'c', securityContext: { privileged: true } }] });
  assert.equal(forbiddenReason(r), 'host namespaces, privileged');
});

test('pod security checks - the check table keeps upstream invariants', () => {
  assert.throws(() => new Evaluator([...DEFAULT_CHECKS, DEFAULT_CHECKS[0]!]), /multiple checks registered for ID appArmorProfile/);
  assert.throws(
    () => new Evaluator([{ id: 'x', level: Level.Baseline, versions: [{ minVersion: 0, check: () => undefined, overrides: ['privileged'] }] }]),
    /only restricted checks may set overrides/,
  );
  assert.throws(
    () =>
      new Evaluator([
        {
          id: 'x',
          level: Level.Baseline,
          versions: [
            { minVersion: 3, check: () => undefined },
            { minVersion: 3, check: () => undefined },
          ],
        },
      ]),
    /strictly increasing/,
  );
});

test('pod security checks - Go quoting of annotation values', () => {
  assert.equal(goQuote('a"b\\c'), '"a\\"b\\\\c"');
  assert.equal(goQuote('x\ny\u0001'), '"x\\ny\\x01"');
  assert.equal(goQuote('ünï'), '"ünï"');
});
