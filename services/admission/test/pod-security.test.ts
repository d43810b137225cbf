import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import type { AdmissionRequest } from '../../../shared/bus/messages.js';
import { MetricsRegistry } from '../../../shared/metrics/registry.js';
import { ObjectCache } from '../object-cache.js';
import { AdmissionConfigError } from '../config.js';
import { createPodSecurity, isSignificantPodUpdate, PodSecurityAdmission, podSecurityPlugin, type PodSecurityAdmissionDeps } from '../plugins/pod-security/admission.js';
import { DEFAULT_POD_SECURITY_CONFIGURATION, loadPodSecurityConfiguration, type PodSecurityConfiguration } from '../plugins/pod-security/configuration.js';
import { PodSecurityMetrics } from '../plugins/pod-security/metrics.js';
import { ALL_PRIVILEGED, LATEST, Level, levelVersionString, minorVersion, policyToEvaluate, type Policy } from '../plugins/pod-security/policy.js';

type Json = Record<string, any>;

// ---- labels ------------------------------------------------------------------------------------

const P = 'pod-security.platform.io/';

test('pod security labels - the policy a namespace asks for', () => {
  const show = (p: Policy) => `${levelVersionString(p.enforce)} ${levelVersionString(p.audit)} ${levelVersionString(p.warn)}`;
  const baselineDefaults: Policy = {
    enforce: { level: Level.Baseline, version: minorVersion(22) },
    audit: { level: Level.Baseline, version: LATEST },
    warn: { level: Level.Restricted, version: LATEST },
  };
  const cases: Array<{ name: string; labels?: Record<string, string>; defaults?: Policy; want: string; errors?: string[] }> = [
    { name: 'no labels', want: 'privileged:latest privileged:latest privileged:latest' },
    { name: 'unrelated labels', labels: { 'platform.io/metadata.name': 'x' }, want: 'privileged:latest privileged:latest privileged:latest' },
    {
      name: 'every label',
      labels: { [`${P}enforce`]: 'baseline', [`${P}enforce-version`]: 'v1.22', [`${P}audit`]: 'restricted', [`${P}audit-version`]: 'v1.0', [`${P}warn`]: 'restricted', [`${P}warn-version`]: 'latest' },
      want: 'baseline:v1.22 restricted:v1.0 restricted:latest',
    },
    { name: 'version without level keeps the default level', labels: { [`${P}enforce-version`]: 'v1.5' }, want: 'privileged:v1.5 privileged:latest privileged:latest' },
    { name: 'defaults from the configuration', labels: { [`${P}warn`]: 'baseline' }, defaults: baselineDefaults, want: 'baseline:v1.22 baseline:latest baseline:latest' },
    {
      name: 'unreadable enforce level fails closed',
      labels: { [`${P}enforce`]: 'strict' },
      want: 'restricted:latest privileged:latest privileged:latest',
      errors: ['metadata.labels[pod-security.platform.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted'],
    },
    {
      name: 'unreadable audit and warn levels fail open',
      labels: { [`${P}audit`]: 'x', [`${P}warn`]: 'Restricted' },
      defaults: baselineDefaults,
      want: 'baseline:v1.22 privileged:latest privileged:latest',
      errors: [
        'metadata.labels[pod-security.platform.io/audit]: Invalid value: "x": must be one of privileged, baseline, restricted',
        'metadata.labels[pod-security.platform.io/warn]: Invalid value: "Restricted": must be one of privileged, baseline, restricted',
      ],
    },
    {
      name: 'unreadable versions mean latest',
      labels: { [`${P}enforce`]: 'baseline', [`${P}enforce-version`]: '1.22', [`${P}warn-version`]: 'v1.01' },
      defaults: baselineDefaults,
      want: 'baseline:latest baseline:latest restricted:latest',
      errors: [
        'metadata.labels[pod-security.platform.io/enforce-version]: Invalid value: "1.22": must be "latest" or "v1.x"',
        'metadata.labels[pod-security.platform.io/warn-version]: Invalid value: "v1.01": must be "latest" or "v1.x"',
      ],
    },
    {
      name: 'v2 is not a version',
      labels: { [`${P}enforce-version`]: 'v2.0' },
      want: 'privileged:latest privileged:latest privileged:latest',
      errors: ['metadata.labels[pod-security.platform.io/enforce-version]: Invalid value: "v2.0": must be "latest" or "v1.x"'],
    },
  ];
  for (const c of cases) {
    const r = policyToEvaluate(c.labels, c.defaults ?? ALL_PRIVILEGED);
    assert.equal(show(r.policy), c.want, c.name);
    assert.deepEqual(
      r.errors.map((e) => `${e.field}: ${e.type}: ${JSON.stringify(e.value)}: ${e.detail}`),
      c.errors ?? [],
      c.name,
    );
  }
});

// ---- configuration -----------------------------------------------------------------------------

const cfg = (configuration: unknown) => ({ configuration, dir: '/tmp', source: 'test.yaml' });
const doc = (extra: Json = {}, apiVersion = 'pod-security.admission.config.platform.io/v1beta1') => ({ apiVersion, kind: 'PodSecurityConfiguration', ...extra });

test('pod security configuration - accepted documents', () => {
  assert.equal(loadPodSecurityConfiguration(undefined), DEFAULT_POD_SECURITY_CONFIGURATION);
  for (const apiVersion of [
    'pod-security.admission.config.platform.io/v1beta1',
    'pod-security.admission.config.platform.io/v1alpha1',
    'pod-security.admission.config.k8s.io/v1beta1',
    'pod-security.admission.config.k8s.io/v1alpha1',
  ]) {
    const c = loadPodSecurityConfiguration(cfg(doc({}, apiVersion)));
    assert.deepEqual(c.defaults, ALL_PRIVILEGED, apiVersion);
  }
  const c = loadPodSecurityConfiguration(
    cfg(
      doc({
        defaults: { enforce: 'baseline', 'enforce-version': 'v1.23', warn: 'restricted' },
        exemptions: { usernames: ['admin', 'system:serviceaccount:ci:deployer'], namespaces: ['platform-system'], runtimeClasses: ['kata.io'] },
      }),
    ),
  );
  assert.equal(levelVersionString(c.defaults.enforce), 'baseline:v1.23');
  assert.equal(levelVersionString(c.defaults.warn), 'restricted:latest');
  assert.equal(levelVersionString(c.defaults.audit), 'privileged:latest');
  assert.deepEqual([...c.exemptions.usernames], ['admin', 'system:serviceaccount:ci:deployer']);
  assert.deepEqual([...c.exemptions.namespaces], ['platform-system']);
  assert.deepEqual([...c.exemptions.runtimeClasses], ['kata.io']);
  // Empty sections, as YAML writes them.
  assert.deepEqual(loadPodSecurityConfiguration(cfg(doc({ defaults: null, exemptions: { usernames: null } }))).defaults, ALL_PRIVILEGED);
});

test('pod security configuration - mistakes stop the start with the field', () => {
  const at = 'admission plugin PodSecurity: configuration from test.yaml';
  const cases: Array<[string, unknown, string]> = [
    ['wrong kind', { apiVersion: 'pod-security.admission.config.platform.io/v1beta1', kind: 'Configuration' }, `${at}: kind must be PodSecurityConfiguration, not "Configuration"`],
    ['unknown version', doc({}, 'pod-security.admission.config.platform.io/v1'), 'apiVersion "pod-security.admission.config.platform.io/v1" is not one of'],
    ['unknown top-level field', doc({ deflaults: {} }), `${at}: unknown field "deflaults"`],
    ['unknown default', doc({ defaults: { enforce: 'baseline', enforceVersion: 'v1.2' } }), `${at}: unknown field "defaults.enforceVersion"`],
    ['defaults not an object', doc({ defaults: 'baseline' }), `${at}: defaults must be an object`],
    ['bad level', doc({ defaults: { enforce: 'strict' } }), `${at}: defaults.enforce: Invalid value: "strict": must be one of privileged, baseline, restricted`],
    [
      'several errors in upstream order',
      doc({ defaults: { audit: 'x', warn: 'y', 'enforce-version': 'v2' } }),
      `${at}: [defaults.enforce-version: Invalid value: "v2": must be "latest" or "v1.x", defaults.warn: Invalid value: "y": must be one of privileged, baseline, restricted, defaults.audit: Invalid value: "x": must be one of privileged, baseline, restricted]`,
    ],
    ['level not a string', doc({ defaults: { warn: 3 } }), `${at}: defaults.warn must be a string`],
    ['usernames not a list', doc({ exemptions: { usernames: 'admin' } }), `${at}: exemptions.usernames must be a list of strings`],
    ['empty username', doc({ exemptions: { usernames: ['a', ''] } }), `${at}: exemptions.usernames[1]: Invalid value: "": username must not be empty`],
    ['duplicate username', doc({ exemptions: { usernames: ['a', 'a'] } }), `${at}: exemptions.usernames[1]: Duplicate value: "a"`],
    ['bad namespace', doc({ exemptions: { namespaces: ['Kube_System'] } }), `${at}: exemptions.namespaces[0]: Invalid value: "Kube_System": a lowercase RFC 1123 label must consist of`],
    ['bad runtime class', doc({ exemptions: { runtimeClasses: ['-x'] } }), `${at}: exemptions.runtimeClasses[0]: Invalid value: "-x": a lowercase RFC 1123 subdomain`],
    ['unknown exemption', doc({ exemptions: { users: ['a'] } }), `${at}: unknown field "exemptions.users"`],
  ];
  for (const [name, d, want] of cases) {
    assert.throws(
      () => loadPodSecurityConfiguration(cfg(d)),
      (err: unknown) => err instanceof AdmissionConfigError && err.message.includes(want),
      name,
    );
  }
});

// ---- decisions ---------------------------------------------------------------------------------

let revision = 0;
function put(cache: ObjectCache, obj: ApiObject): void {
  const namespace = obj.metadata.namespace;
  revision++;
  const object = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(revision) } };
  cache.apply({ key: `k${revision}`, ref: { group: cache.group, resource: cache.resource, name: obj.metadata.name!, ...(namespace ? { namespace } : {}) }, revision, object });
}

const nsObj = (name: string, labels: Record<string, string> = {}): ApiObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'platform.io/metadata.name': name, ...labels } } });

const restrictedPod = (name: string, namespace: string, over: Json = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace },
  spec: {
    securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [{ name: 'c', image: 'img:1', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
    ...over,
  },
});
const privilegedPod = (name: string, namespace: string, extraMeta: Json = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, ...extraMeta },
  spec: { containers: [{ name: 'c', image: 'img:1', securityContext: { privileged: true } }] },
});
const plainPod = (name: string, namespace: string): ApiObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec: { containers: [{ name: 'c', image: 'img:1' }] } });

function podReq(object: ApiObject | null, over: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return {
    uid: 'u',
    phase: 'validating',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    name: object?.metadata.name ?? 'p',
    namespace: object?.metadata.namespace ?? 'ns',
    operation: 'CREATE',
    userInfo: { username: 'jane', groups: ['system:authenticated'] },
    object,
    oldObject: null,
    dryRun: false,
    ...over,
  };
}

function nsReq(object: ApiObject, oldObject: ApiObject | null, over: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return {
    uid: 'u',
    phase: 'validating',
    kind: { group: '', version: 'v1', kind: 'Namespace' },
    resource: { group: '', version: 'v1', resource: 'namespaces' },
    name: object.metadata.name!,
    ...(oldObject ? { namespace: object.metadata.name! } : {}),
    operation: oldObject ? 'UPDATE' : 'CREATE',
    userInfo: { username: 'jane', groups: [] },
    object,
    oldObject,
    dryRun: false,
    ...over,
  };
}

function setup(configuration: PodSecurityConfiguration = DEFAULT_POD_SECURITY_CONFIGURATION, over: Partial<PodSecurityAdmissionDeps> = {}) {
  const namespaces = new ObjectCache('', 'namespaces');
  namespaces.markSynced();
  const pods = new ObjectCache('', 'pods');
  pods.markSynced();
  let podsAsked = 0;
  const registry = new MetricsRegistry();
  const admission = new PodSecurityAdmission({
    configuration,
    namespaces,
    pods: () => {
      podsAsked++;
      return pods;
    },
    metrics: new PodSecurityMetrics(registry),
    ...over,
  });
  put(namespaces, nsObj('open'));
  put(namespaces, nsObj('locked', { [`${P}enforce`]: 'restricted' }));
  put(namespaces, nsObj('base', { [`${P}enforce`]: 'baseline', [`${P}warn`]: 'restricted', [`${P}audit`]: 'restricted', [`${P}audit-version`]: 'v1.21' }));
  put(namespaces, nsObj('watched', { [`${P}warn`]: 'restricted', [`${P}warn-version`]: 'v1.23', [`${P}audit`]: 'baseline' }));
  put(namespaces, nsObj('broken', { [`${P}enforce`]: 'strict' }));
  return { admission, namespaces, pods, registry, podsAsked: () => podsAsked };
}

const PRIVILEGED_RESTRICTED =
  'privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

test('pod security admission - pods per namespace policy', async () => {
  const { admission } = setup();
  const run = async (r: AdmissionRequest) => {
    const res = await admission.validate(r);
    return { allowed: res.allowed, code: res.status?.code, message: res.status?.message, warnings: res.warnings, annotations: res.auditAnnotations };
  };

  // Unlabelled: nothing evaluated, only the policy recorded.
  assert.deepEqual(await run(podReq(privilegedPod('p', 'open'))), { allowed: true, code: undefined, message: undefined, warnings: [], annotations: { 'enforce-policy': 'privileged:latest' } });

  // Enforce restricted: upstream's message.
  assert.deepEqual(await run(podReq(privilegedPod('p', 'locked'))), {
    allowed: false,
    code: 403,
    message: `pods "p" is forbidden: violates PodSecurity "restricted:latest": ${PRIVILEGED_RESTRICTED}`,
    warnings: [],
    annotations: { 'enforce-policy': 'restricted:latest' },
  });
  assert.deepEqual(await run(podReq(restrictedPod('p', 'locked'))), { allowed: true, code: undefined, message: undefined, warnings: [], annotations: { 'enforce-policy': 'restricted:latest' } });

  // Enforce baseline, warn restricted, audit restricted at 1.21 (before restricted capabilities).
  assert.deepEqual(await run(podReq(plainPod('p', 'base'))), {
    allowed: true,
    code: undefined,
    message: undefined,
    warnings: [
      'would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    ],
    annotations: {
      'enforce-policy': 'baseline:latest',
      'audit-violations':
        'would violate PodSecurity "restricted:v1.21": allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    },
  });
  // A refused pod gets no warning repeating the refusal, but its audit violation is recorded.
  const refused = await run(podReq(privilegedPod('p', 'base')));
  assert.equal(refused.code, 403);
  assert.equal(refused.message, 'pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)');
  assert.deepEqual(refused.warnings, []);
  assert.match(refused.annotations['audit-violations']!, /^would violate PodSecurity "restricted:v1.21": privileged \(/);

  // Unreadable enforce label: restricted:latest with the error recorded.
  const broken = await run(podReq(plainPod('p', 'broken')));
  assert.equal(broken.code, 403);
  assert.match(broken.message!, /violates PodSecurity "restricted:latest"/);
  assert.equal(broken.annotations.error, 'Failed to parse policy: metadata.labels[pod-security.platform.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted');

  // A namespace created a moment ago and not cached yet is read live; one that does not exist is a 500.
  const missing = await run(podReq(plainPod('p', 'nowhere')));
  assert.equal(missing.code, 500);
  assert.equal(missing.message, 'Internal error occurred: failed to lookup namespace nowhere');
  assert.equal(missing.annotations.error, 'Internal error occurred: failed to lookup namespace nowhere: namespaces "nowhere" not found');
});

test('pod security admission - subresources, updates and ephemeral containers', async () => {
  const { admission } = setup();
  const old = restrictedPod('p', 'locked');
  const bad = privilegedPod('p', 'locked');
  for (const sub of ['status', 'binding', 'eviction', 'exec', 'attach', 'log', 'portforward', 'proxy']) {
    assert.equal((await admission.validate(podReq(bad, { subResource: sub, operation: 'UPDATE', oldObject: old }))).allowed, true, sub);
  }
  // Metadata-only updates of a pod that would now be refused pass untouched.
  const relabelled = { ...bad, metadata: { ...bad.metadata, labels: { a: 'b' } } };
  const res = await admission.validate(podReq(relabelled, { operation: 'UPDATE', oldObject: bad }));
  assert.deepEqual(res, { allowed: true, warnings: [], auditAnnotations: {} });
  // A new image is evaluated.
  const reimaged = structuredClone(bad);
  (reimaged.spec as Json).containers[0].image = 'img:2';
  assert.equal((await admission.validate(podReq(reimaged, { operation: 'UPDATE', oldObject: bad }))).status?.code, 403);
  // The ephemeralcontainers subresource adding a privileged debug container is refused.
  const debugged = structuredClone(old);
  (debugged.spec as Json).ephemeralContainers = [{ name: 'debug', image: 'busybox', securityContext: { privileged: true } }];
  const eph = await admission.validate(podReq(debugged, { operation: 'UPDATE', oldObject: old, subResource: 'ephemeralcontainers' }));
  assert.equal(eph.status?.code, 403);
  assert.match(eph.status!.message, /privileged \(container "debug" must not set securityContext.privileged=true\)/);
});

test('pod security admission - which pod updates are evaluated again', () => {
  const base = (over: Json = {}, meta: Json = {}): ApiObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', ...meta },
    spec: { initContainers: [{ name: 'i', image: 'i:1' }], containers: [{ name: 'c', image: 'c:1' }], ...over },
  });
  const cases: Array<[string, ApiObject, ApiObject, boolean]> = [
    ['nothing changed', base(), base(), false],
    ['labels and tolerations', base({ tolerations: [{ key: 'k' }] }, { labels: { a: 'b' } }), base(), false],
    ['activeDeadlineSeconds', base({ activeDeadlineSeconds: 5 }), base(), false],
    ['container image', base({ containers: [{ name: 'c', image: 'c:2' }] }), base(), true],
    ['init container image', base({ initContainers: [{ name: 'i', image: 'i:2' }] }), base(), true],
    [
      'container added',
      base({
        containers: [
          { name: 'c', image: 'c:1' },
          { name: 'd', image: 'd' },
        ],
      }),
      base(),
      true,
    ],
    ['pod seccomp annotation', base({}, { annotations: { 'seccomp.security.alpha.platform.io/pod': 'unconfined' } }), base(), true],
    ['container seccomp annotation', base({}, { annotations: { 'container.seccomp.security.alpha.platform.io/c': 'unconfined' } }), base(), true],
    ['another container seccomp annotation', base({}, { annotations: { 'container.seccomp.security.alpha.platform.io/zz': 'unconfined' } }), base(), false],
    ['ephemeral container added', base({ ephemeralContainers: [{ name: 'e', image: 'e' }] }), base(), true],
    ['ephemeral container unchanged', base({ ephemeralContainers: [{ name: 'e', image: 'e' }] }), base({ ephemeralContainers: [{ name: 'e', image: 'e' }] }), false],
    ['ephemeral container image', base({ ephemeralContainers: [{ name: 'e', image: 'e2' }] }), base({ ephemeralContainers: [{ name: 'e', image: 'e' }] }), true],
  ];
  for (const [name, next, prev, want] of cases) assert.equal(isSignificantPodUpdate(next, prev), want, name);
});

function workloadReq(resource: string, group: string, object: Json, over: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return podReq(object as ApiObject, { kind: { group, version: 'v1', kind: object.kind }, resource: { group, version: 'v1', resource }, ...over });
}
const template = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'img', securityContext: { privileged: true } }] } };

test('pod security admission - workloads are warned and audited against their template, never refused', async () => {
  const { admission } = setup();
  const workloads: Array<[string, string, Json]> = [
    ['deployments', 'apps', { kind: 'Deployment', metadata: { name: 'w', namespace: 'base' }, spec: { template } }],
    ['replicasets', 'apps', { kind: 'ReplicaSet', metadata: { name: 'w', namespace: 'base' }, spec: { template } }],
    ['statefulsets', 'apps', { kind: 'StatefulSet', metadata: { name: 'w', namespace: 'base' }, spec: { template } }],
    ['daemonsets', 'apps', { kind: 'DaemonSet', metadata: { name: 'w', namespace: 'base' }, spec: { template } }],
    ['jobs', 'batch', { kind: 'Job', metadata: { name: 'w', namespace: 'base' }, spec: { template } }],
    ['cronjobs', 'batch', { kind: 'CronJob', metadata: { name: 'w', namespace: 'base' }, spec: { jobTemplate: { spec: { template } } } }],
    ['replicationcontrollers', '', { kind: 'ReplicationController', metadata: { name: 'w', namespace: 'base' }, spec: { template } }],
    ['podtemplates', '', { kind: 'PodTemplate', metadata: { name: 'w', namespace: 'base' }, template }],
  ];
  for (const [resource, group, object] of workloads) {
    const res = await admission.validate(workloadReq(resource, group, object));
    assert.equal(res.allowed, true, resource);
    assert.equal(res.warnings.length, 1, resource);
    assert.match(
      res.warnings[0]!,
      /^would violate PodSecurity "restricted:latest": privileged \(container "c" must not set securityContext.privileged=true\), allowPrivilegeEscalation != false/,
      resource,
    );
    assert.match(res.auditAnnotations['audit-violations']!, /^would violate PodSecurity "restricted:v1.21": privileged/, resource);
    assert.equal(res.auditAnnotations['enforce-policy'], undefined, resource);
  }
  // In a namespace that only enforces, a workload costs nothing.
  const [, , deployment] = workloads[0]!;
  const locked = await admission.validate(workloadReq('deployments', 'apps', { ...deployment, metadata: { name: 'w', namespace: 'locked' } }));
  assert.deepEqual(locked, { allowed: true, warnings: [], auditAnnotations: {} });
  // Scale and status subresources are not templates.
  assert.deepEqual(await admission.validate(workloadReq('deployments', 'apps', deployment, { subResource: 'scale' })), { allowed: true, warnings: [], auditAnnotations: {} });
  // A missing namespace never refuses a workload.
  const lost = await admission.validate(workloadReq('deployments', 'apps', { ...deployment, metadata: { name: 'w', namespace: 'gone' } }, { namespace: 'gone' }));
  assert.equal(lost.allowed, true);
  assert.equal(lost.auditAnnotations.error, 'failed to lookup namespace gone: namespaces "gone" not found');
});

test('pod security admission - exemptions by user, namespace and runtime class', async () => {
  const configuration = loadPodSecurityConfiguration(cfg(doc({ exemptions: { usernames: ['ci-bot'], namespaces: ['locked'], runtimeClasses: ['kata'] } })));
  const { admission, namespaces } = setup(configuration);
  put(namespaces, nsObj('strict', { [`${P}enforce`]: 'restricted' }));
  assert.deepEqual(await admission.validate(podReq(privilegedPod('p', 'locked'))), { allowed: true, warnings: [], auditAnnotations: { exempt: 'namespace' } });
  assert.deepEqual(await admission.validate(podReq(privilegedPod('p', 'strict'), { userInfo: { username: 'ci-bot', groups: [] } })), {
    allowed: true,
    warnings: [],
    auditAnnotations: { exempt: 'user' },
  });
  const kata = privilegedPod('p', 'strict');
  (kata.spec as Json).runtimeClassName = 'kata';
  assert.deepEqual(await admission.validate(podReq(kata)), { allowed: true, warnings: [], auditAnnotations: { exempt: 'runtimeClass' } });
  assert.equal((await admission.validate(podReq(privilegedPod('p', 'strict')))).status?.code, 403);
  // Workloads too.
  const dep = { kind: 'Deployment', metadata: { name: 'w', namespace: 'strict' }, spec: { template: { spec: { ...template.spec, runtimeClassName: 'kata' } } } };
  assert.deepEqual((await admission.validate(workloadReq('deployments', 'apps', dep))).auditAnnotations, {});
});

test('pod security admission - namespace labels are validated on create and update', async () => {
  const { admission } = setup();
  const created = await admission.validate(nsReq(nsObj('n', { [`${P}enforce`]: 'strict', [`${P}warn-version`]: 'v1' }), null));
  assert.equal(created.status?.code, 422);
  assert.equal(
    created.status?.message,
    'Namespace "n" is invalid: [metadata.labels[pod-security.platform.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted, metadata.labels[pod-security.platform.io/warn-version]: Invalid value: "v1": must be "latest" or "v1.x"]',
  );
  assert.equal((await admission.validate(nsReq(nsObj('n', { [`${P}enforce`]: 'baseline' }), null))).allowed, true);
  // An update introducing a bad label is refused; one keeping an old mistake as it was is not.
  const bad = nsObj('n', { [`${P}audit`]: 'x' });
  assert.equal((await admission.validate(nsReq(bad, nsObj('n')))).status?.code, 422);
  assert.equal((await admission.validate(nsReq({ ...bad, metadata: { ...bad.metadata, annotations: { a: 'b' } } }, bad))).allowed, true);
  assert.equal((await admission.validate(nsReq(nsObj('n', { [`${P}audit`]: 'y' }), bad))).status?.code, 422);
  // Status and finalize writes are not looked at.
  assert.equal((await admission.validate(nsReq(nsObj('n', { [`${P}enforce`]: 'strict' }), nsObj('n'), { subResource: 'status' }))).allowed, true);
});

test('pod security admission - tightening a namespace warns about its pods', async () => {
  const { admission, pods, podsAsked } = setup();
  const owner = (uid: string) => ({ ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: uid, uid, controller: true }] });
  put(pods, restrictedPod('good', 'open'));
  put(pods, privilegedPod('priv-b', 'open'));
  put(pods, privilegedPod('priv-a', 'open'));
  put(pods, privilegedPod('priv-c', 'open'));
  put(pods, { ...plainPod('plain', 'open'), spec: { hostNetwork: true, containers: [{ name: 'c', image: 'i' }] } });
  put(pods, privilegedPod('other-ns', 'elsewhere'));
  const open = nsObj('open');
  const label = (labels: Record<string, string>) => nsObj('open', labels);

  // Loosening, unchanged or privileged enforce levels never look at pods.
  for (const [next, prev] of [
    [open, open],
    [label({ [`${P}enforce`]: 'privileged' }), open],
    [label({ [`${P}warn`]: 'restricted' }), open],
    [label({ [`${P}enforce`]: 'baseline' }), label({ [`${P}enforce`]: 'restricted' })],
  ] as const) {
    assert.deepEqual(await admission.validate(nsReq(next, prev)), { allowed: true, warnings: [], auditAnnotations: {} });
  }
  assert.equal(podsAsked(), 0);

  const baseline = await admission.validate(nsReq(label({ [`${P}enforce`]: 'baseline' }), open));
  assert.equal(baseline.allowed, true);
  assert.deepEqual(baseline.warnings, [
    'existing pods in namespace "open" violate the new PodSecurity enforce level "baseline:latest"',
    'plain: host namespaces',
    'priv-a (and 2 other pods): privileged',
  ]);
  // A version change at the same level is checked too; so is a dry run (kubectl label --dry-run=server).
  const versioned = await admission.validate(nsReq(label({ [`${P}enforce`]: 'baseline', [`${P}enforce-version`]: 'v1.0' }), label({ [`${P}enforce`]: 'baseline' }), { dryRun: true }));
  assert.equal(versioned.warnings.length, 3);
  const restricted = await admission.validate(nsReq(label({ [`${P}enforce`]: 'restricted' }), label({ [`${P}enforce`]: 'baseline' })));
  assert.deepEqual(restricted.warnings, [
    'existing pods in namespace "open" violate the new PodSecurity enforce level "restricted:latest"',
    'plain: host namespaces, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
    'priv-a (and 2 other pods): privileged, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
  ]);

  // One pod per controller first: with a cap of 2, the replicas of rs1 do not hide the lone pod.
  const { admission: capped, pods: cappedPods } = setup(DEFAULT_POD_SECURITY_CONFIGURATION, { maxPodsToCheck: 2 });
  put(cappedPods, privilegedPod('a-1', 'open', owner('rs1')));
  put(cappedPods, privilegedPod('a-2', 'open', owner('rs1')));
  put(cappedPods, privilegedPod('a-3', 'open', owner('rs1')));
  put(cappedPods, { ...plainPod('z-lone', 'open'), spec: { hostPID: true, containers: [{ name: 'c', image: 'i' }] } });
  assert.deepEqual((await capped.validate(nsReq(label({ [`${P}enforce`]: 'baseline' }), open))).warnings, [
    'new PodSecurity enforce level only checked against the first 2 of 4 existing pods',
    'existing pods in namespace "open" violate the new PodSecurity enforce level "baseline:latest"',
    'a-1: privileged',
    'z-lone: host namespaces',
  ]);

  // Out of time after the first pod (each reading of the clock is 1.1 s later).
  let t = 0;
  const { admission: slow, pods: slowPods } = setup(DEFAULT_POD_SECURITY_CONFIGURATION, { now: () => (t += 1100) });
  put(slowPods, privilegedPod('a', 'open'));
  put(slowPods, privilegedPod('b', 'open'));
  put(slowPods, privilegedPod('c', 'open'));
  assert.deepEqual((await slow.validate(nsReq(label({ [`${P}enforce`]: 'baseline' }), open))).warnings, [
    'new PodSecurity enforce level only checked against the first 1 of 3 existing pods',
    'existing pods in namespace "open" violate the new PodSecurity enforce level "baseline:latest"',
    'a: privileged',
  ]);

  // The pods cannot be listed: one warning, the update goes through.
  const { admission: blind } = setup(DEFAULT_POD_SECURITY_CONFIGURATION, {
    pods: () => {
      throw new Error('no pods');
    },
  });
  assert.deepEqual(await blind.validate(nsReq(label({ [`${P}enforce`]: 'baseline' }), open)), {
    allowed: true,
    warnings: ['failed to list pods while checking new PodSecurity enforce level'],
    auditAnnotations: {},
  });

  // An exempt namespace is not checked.
  const { admission: exemptNs } = setup(loadPodSecurityConfiguration(cfg(doc({ exemptions: { namespaces: ['open'] } }))));
  assert.deepEqual(await exemptNs.validate(nsReq(label({ [`${P}enforce`]: 'baseline' }), open)), { allowed: true, warnings: [], auditAnnotations: { exempt: 'namespace' } });
});

test('pod security admission - configured defaults apply to unlabelled namespaces', async () => {
  const configuration = loadPodSecurityConfiguration(cfg(doc({ defaults: { enforce: 'baseline', warn: 'restricted', 'warn-version': 'v1.18' } })));
  const { admission } = setup(configuration);
  const refused = await admission.validate(podReq(privilegedPod('p', 'open')));
  assert.equal(refused.status?.message, 'pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)');
  const warned = await admission.validate(podReq(plainPod('p', 'open')));
  assert.deepEqual(warned.warnings, [
    'would violate PodSecurity "restricted:v1.18": allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true)',
  ]);
  // A label overrides its own default only: "watched" warns at restricted:v1.23 and still enforces baseline.
  assert.equal((await admission.validate(podReq(privilegedPod('p', 'watched')))).status?.code, 403);
  assert.match((await admission.validate(podReq(plainPod('p', 'watched')))).warnings[0]!, /^would violate PodSecurity "restricted:v1.23": allowPrivilegeEscalation != false/);
});

test('pod security plugin - warnings, prefixed audit annotations and refusals reach the chain', async () => {
  const namespaces = new ObjectCache('', 'namespaces');
  namespaces.markSynced();
  put(namespaces, nsObj('w', { [`${P}warn`]: 'baseline', [`${P}audit`]: 'baseline' }));
  put(namespaces, nsObj('e', { [`${P}enforce`]: 'baseline' }));
  const plugin = createPodSecurity({ configuration: DEFAULT_POD_SECURITY_CONFIGURATION, namespaces, pods: () => new ObjectCache('', 'pods') });
  assert.equal(plugin.name, 'PodSecurity');
  assert.deepEqual(plugin.match?.operations, ['CREATE', 'UPDATE']);
  assert.equal(plugin.match?.resources?.length, 10);
  const warnings: string[] = [];
  const annotations: Record<string, string> = {};
  const ctx = { log: undefined as never, warn: (m: string) => warnings.push(m), annotate: (k: string, v: string) => (annotations[k] = v) };
  await plugin.validate!(podReq(privilegedPod('p', 'w')), ctx);
  assert.deepEqual(warnings, ['would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)']);
  assert.deepEqual(annotations, {
    'pod-security.platform.io/enforce-policy': 'privileged:latest',
    'pod-security.platform.io/audit-violations': 'would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)',
  });
  await assert.rejects(
    async () => plugin.validate!(podReq(privilegedPod('p', 'e')), ctx),
    (err: any) => err.code === 403 && err.status.reason === 'Forbidden',
  );
  assert.equal(annotations['pod-security.platform.io/enforce-policy'], 'baseline:latest');
});

test('pod security plugin - registered with a configuration read at start', async () => {
  const deps = { config: cfg(doc({ defaults: { enforce: 'nope' } })), objects: () => new ObjectCache('', 'x'), metrics: new MetricsRegistry(), log: undefined } as never;
  await assert.rejects(async () => podSecurityPlugin.create(deps), AdmissionConfigError);
});

test('pod security metrics - evaluations, exemptions and errors', async () => {
  const configuration = loadPodSecurityConfiguration(cfg(doc({ exemptions: { usernames: ['ci-bot'] } })));
  const { admission, registry, namespaces } = setup(configuration);
  put(namespaces, nsObj('future', { [`${P}enforce`]: 'baseline', [`${P}enforce-version`]: 'v1.30' }));
  await admission.validate(podReq(privilegedPod('p', 'locked')));
  await admission.validate(podReq(restrictedPod('p', 'future')));
  await admission.validate(podReq(plainPod('p', 'open'), { userInfo: { username: 'ci-bot', groups: [] } }));
  await admission.validate(podReq(plainPod('p', 'broken')));
  const text = await registry.metrics();
  // The refused pod, and the one in the namespace whose unreadable label means restricted:latest.
  assert.match(text, /pod_security_evaluations_total\{decision="deny",policy_level="restricted",policy_version="latest",mode="enforce",request_operation="create",resource="pod",subresource=""\} 2/);
  assert.match(text, /pod_security_evaluations_total\{decision="allow",policy_level="baseline",policy_version="future",mode="enforce",request_operation="create",resource="pod",subresource=""\} 1/);
  assert.match(text, /pod_security_exemptions_total\{request_operation="create",resource="pod",subresource=""\} 1/);
  assert.match(text, /pod_security_errors_total\{fatal="false",request_operation="create",resource="pod",subresource=""\} 1/);
});
