// The PodSecurityPolicy admission plugin: which policies a request may use (user or the pod's
// service account, `use` in the pod's namespace), which one admits the pod (unchanged first, by
// name; else the first that admits it after defaulting), the `platform.io/psp` annotation, the
// validating phase that keeps the admitting policy on update, and upstream's messages.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../../shared/api/status.js';
import type { ApiObject, UserInfo } from '../../../shared/api/types.js';
import { AdmissionOperation, AdmissionPhase, Decision, type AdmissionRequest, type AuthzAttributes } from '../../../shared/bus/messages.js';
import { ObjectCache } from '../object-cache.js';
import { pluginMatches } from '../chain.js';
import { createPodSecurityPolicy, VALIDATED_PSP_ANNOTATION } from '../plugins/pod-security-policy/admission.js';
import type { AdmissionContext } from '../types.js';

const JANE: UserInfo = { username: 'jane', groups: ['developers', 'system:authenticated'] };
const ANY = { rule: 'RunAsAny' };

const psp = (name: string, spec: Record<string, unknown>, annotations?: Record<string, string>): ApiObject => ({
  apiVersion: 'policy/v1beta1',
  kind: 'PodSecurityPolicy',
  metadata: { name, resourceVersion: '1', ...(annotations ? { annotations } : {}) },
  spec: { allowPrivilegeEscalation: true, volumes: ['*'], runAsUser: ANY, seLinux: ANY, fsGroup: ANY, supplementalGroups: ANY, ...spec },
});

const RESTRICTED = psp('restricted', {
  allowPrivilegeEscalation: false,
  requiredDropCapabilities: ['ALL'],
  volumes: ['configMap', 'emptyDir', 'projected', 'secret'],
  runAsUser: { rule: 'MustRunAsNonRoot' },
  fsGroup: { rule: 'MustRunAs', ranges: [{ min: 1, max: 65535 }] },
  supplementalGroups: { rule: 'MustRunAs', ranges: [{ min: 1, max: 65535 }] },
});
const PRIVILEGED = psp('privileged', { privileged: true, allowedCapabilities: ['*'], hostNetwork: true, hostPID: true, hostIPC: true, hostPorts: [{ min: 0, max: 65535 }] });

function cacheOf(...policies: ApiObject[]): ObjectCache {
  const cache = new ObjectCache('policy', 'podsecuritypolicies');
  for (const p of policies) cache.apply({ key: p.metadata.name!, ref: { group: 'policy', resource: 'podsecuritypolicies', name: p.metadata.name! }, revision: 1, object: p } as never);
  cache.markSynced();
  return cache;
}

/** Grants: `<username>` → policy names it may use (in `namespace`, or '*' for all namespaces). */
function authorizer(grants: Record<string, string[]>, opts: { namespace?: string; group?: string } = {}) {
  const asked: AuthzAttributes[] = [];
  const authorize = async (a: AuthzAttributes) => {
    asked.push(a);
    const ok =
      a.verb === 'use' &&
      a.resource === 'podsecuritypolicies' &&
      a.apiGroup === (opts.group ?? 'policy') &&
      (grants[a.user.username] ?? []).includes(a.name!) &&
      (!opts.namespace || a.namespace === opts.namespace);
    return { decision: ok ? Decision.Allow : Decision.NoOpinion };
  };
  return { authorize, asked };
}

function pod(spec: Record<string, unknown> = {}, container: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): ApiObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'team-a', ...meta }, spec: { containers: [{ name: 'c', image: 'img', ...container }], ...spec } };
}

function request(op: AdmissionOperation, phase: AdmissionPhase, object: ApiObject, extra: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return {
    uid: 'u',
    phase,
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    name: object.metadata.name ?? '',
    namespace: 'team-a',
    operation: op,
    userInfo: JANE,
    object,
    oldObject: null,
    dryRun: false,
    ...extra,
  };
}

function context() {
  const annotations: Record<string, string> = {};
  const ctx: AdmissionContext = { log: undefined as never, warn: () => {}, annotate: (k, v) => (annotations[k] = v) };
  return { ctx, annotations };
}

async function admit(plugin: ReturnType<typeof createPodSecurityPolicy>, object: ApiObject, extra: Partial<AdmissionRequest> = {}) {
  const { ctx, annotations } = context();
  const out = (await plugin.mutate!(request(AdmissionOperation.Create, AdmissionPhase.Mutating, structuredClone(object), extra), ctx)) as ApiObject;
  return { pod: out, annotations };
}

async function rejection(p: unknown): Promise<string> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    assert.equal(err.status.code, 403);
    return err.status.message;
  }
  assert.fail('expected a rejection');
}

describe('PodSecurityPolicy admission - choosing a policy', () => {
  it('a plain pod under the restricted policy is defaulted and annotated', async () => {
    const plugin = createPodSecurityPolicy({ policies: cacheOf(RESTRICTED, PRIVILEGED), authorize: authorizer({ jane: ['restricted'] }).authorize });
    const { pod: out, annotations } = await admit(plugin, pod());
    assert.equal(out.metadata.annotations?.[VALIDATED_PSP_ANNOTATION], 'restricted');
    assert.deepEqual((out.spec as any).securityContext, { supplementalGroups: [1], fsGroup: 1 });
    assert.deepEqual((out.spec as any).containers[0].securityContext, { runAsNonRoot: true, capabilities: { drop: ['ALL'] }, allowPrivilegeEscalation: false });
    assert.deepEqual(annotations, { 'podsecuritypolicy.policy.platform.io/admit-policy': 'restricted' });
  });

  const ordering: Array<[string, ApiObject[], string[], ApiObject, string]> = [
    ['a policy that needs no change wins over an earlier one that would default', [RESTRICTED, PRIVILEGED], ['restricted', 'privileged'], pod(), 'privileged'],
    ['among policies that need no change, the first by name', [psp('b-open', {}), psp('a-open', {})], ['a-open', 'b-open'], pod(), 'a-open'],
    [
      'among policies that would default, the first by name',
      [psp('z-defaults', { runAsUser: { rule: 'MustRunAs', ranges: [{ min: 9, max: 9 }] } }), psp('m-defaults', { runAsUser: { rule: 'MustRunAs', ranges: [{ min: 7, max: 7 }] } })],
      ['z-defaults', 'm-defaults'],
      pod(),
      'm-defaults',
    ],
    ['a policy the user may not use is skipped', [RESTRICTED, PRIVILEGED], ['restricted'], pod(), 'restricted'],
    [
      'a pod already meeting the restricted policy needs no change',
      [RESTRICTED, psp('z-open', {})],
      ['restricted', 'z-open'],
      pod({ securityContext: { fsGroup: 5, supplementalGroups: [5] } }, { securityContext: { runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }),
      'restricted',
    ],
  ];
  for (const [name, policies, usable, p, want] of ordering) {
    it(name, async () => {
      const plugin = createPodSecurityPolicy({ policies: cacheOf(...policies), authorize: authorizer({ jane: usable }).authorize });
      assert.equal((await admit(plugin, p)).pod.metadata.annotations?.[VALIDATED_PSP_ANNOTATION], want);
    });
  }

  it("the pod's service account may hold the grant (with its own groups, in the pod's namespace)", async () => {
    const { authorize, asked } = authorizer({ 'system:serviceaccount:team-a:builder': ['privileged'] }, { namespace: 'team-a' });
    const plugin = createPodSecurityPolicy({ policies: cacheOf(RESTRICTED, PRIVILEGED), authorize });
    const privileged = pod({ serviceAccountName: 'builder' }, { securityContext: { privileged: true } });
    assert.equal((await admit(plugin, privileged)).pod.metadata.annotations?.[VALIDATED_PSP_ANNOTATION], 'privileged');
    const sa = asked.find((a) => a.user.username.startsWith('system:serviceaccount:'))!;
    assert.deepEqual(sa.user.groups, ['system:serviceaccounts', 'system:serviceaccounts:team-a']);
    assert.deepEqual([sa.verb, sa.apiGroup, sa.resource, sa.namespace, sa.name], ['use', 'policy', 'podsecuritypolicies', 'team-a', 'privileged']);
    // Another account of the namespace has no grant.
    await rejection(admit(plugin, pod({ serviceAccountName: 'default' }, { securityContext: { privileged: true } })));
  });

  it('grants in the extensions group still count, as upstream', async () => {
    const plugin = createPodSecurityPolicy({ policies: cacheOf(PRIVILEGED), authorize: authorizer({ jane: ['privileged'] }, { group: 'extensions' }).authorize });
    assert.equal((await admit(plugin, pod())).pod.metadata.annotations?.[VALIDATED_PSP_ANNOTATION], 'privileged');
  });

  it('a policy whose rules cannot be applied is skipped', async () => {
    const broken = psp('a-broken', { runAsUser: { rule: 'MustRunAs' } });
    const plugin = createPodSecurityPolicy({ policies: cacheOf(broken, RESTRICTED), authorize: authorizer({ jane: ['a-broken', 'restricted'] }).authorize });
    assert.equal((await admit(plugin, pod())).pod.metadata.annotations?.[VALIDATED_PSP_ANNOTATION], 'restricted');
  });
});

describe('PodSecurityPolicy admission - rejections', () => {
  it("lists the errors of the policies the user may use, in upstream's words", async () => {
    const plugin = createPodSecurityPolicy({ policies: cacheOf(RESTRICTED, PRIVILEGED), authorize: authorizer({ jane: ['restricted'] }).authorize });
    const message = await rejection(admit(plugin, pod({ volumes: [{ name: 'h', hostPath: { path: '/etc' } }] }, { securityContext: { privileged: true } })));
    assert.equal(
      message,
      'pods "web" is forbidden: PodSecurityPolicy: unable to admit pod: [spec.volumes[0]: Invalid value: "hostPath": hostPath volumes are not allowed to be used spec.containers[0].securityContext.privileged: Invalid value: true: Privileged containers are not allowed]',
    );
  });

  it('with policies but none usable the list is empty', async () => {
    const plugin = createPodSecurityPolicy({ policies: cacheOf(RESTRICTED), authorize: authorizer({}).authorize });
    assert.equal(await rejection(admit(plugin, pod({}, {}, { name: undefined, generateName: 'web-' }), { name: '' })), 'pods "web-" is forbidden: PodSecurityPolicy: unable to admit pod: []');
  });

  it('with no policies at all there is nothing to validate against', async () => {
    const plugin = createPodSecurityPolicy({ policies: cacheOf(), authorize: authorizer({ jane: ['x'] }).authorize });
    assert.equal(await rejection(admit(plugin, pod())), 'pods "web" is forbidden: PodSecurityPolicy: no providers available to validate pod request');
  });

  it('an authorizer that cannot be reached is reported as such, not as a policy violation', async () => {
    const plugin = createPodSecurityPolicy({
      policies: cacheOf(RESTRICTED),
      authorize: async () => {
        throw new StatusError({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 503, reason: 'ServiceUnavailable', message: 'authorizer unavailable' } as never);
      },
    });
    await assert.rejects(admit(plugin, pod()), (err: unknown) => err instanceof StatusError && err.status.code === 503);
  });

  it('grants are asked each time: a revoked grant takes effect on the next request', async () => {
    const grants: Record<string, string[]> = { jane: ['privileged'] };
    const plugin = createPodSecurityPolicy({ policies: cacheOf(PRIVILEGED), authorize: authorizer(grants).authorize });
    await admit(plugin, pod());
    grants.jane = [];
    await rejection(admit(plugin, pod()));
  });
});

describe('PodSecurityPolicy admission - validating phase and updates', () => {
  const plugin = createPodSecurityPolicy({ policies: cacheOf(RESTRICTED, PRIVILEGED), authorize: authorizer({ jane: ['restricted', 'privileged'] }).authorize });
  const validate = (object: ApiObject, op: AdmissionOperation = AdmissionOperation.Create, extra: Partial<AdmissionRequest> = {}) => {
    const { ctx, annotations } = context();
    return Promise.resolve(plugin.validate!(request(op, AdmissionPhase.Validating, object, extra), ctx)).then(() => annotations);
  };

  it('a pod admitted by a policy validates against it first, with nothing to change', async () => {
    const { pod: admitted } = await admit(createPodSecurityPolicy({ policies: cacheOf(RESTRICTED, PRIVILEGED), authorize: authorizer({ jane: ['restricted'] }).authorize }), pod());
    assert.deepEqual(await validate(admitted), { 'podsecuritypolicy.policy.platform.io/validate-policy': 'restricted' });
  });

  it('a pod a later plugin made invalid is refused', async () => {
    const onlyRestricted = createPodSecurityPolicy({ policies: cacheOf(RESTRICTED, PRIVILEGED), authorize: authorizer({ jane: ['restricted'] }).authorize });
    const { pod: admitted } = await admit(onlyRestricted, pod());
    (admitted.spec as any).containers[0].securityContext.privileged = true;
    const { ctx } = context();
    assert.equal(
      await rejection(onlyRestricted.validate!(request(AdmissionOperation.Create, AdmissionPhase.Validating, admitted), ctx)),
      'pods "web" is forbidden: PodSecurityPolicy: unable to validate pod: [spec.containers[0].securityContext.privileged: Invalid value: true: Privileged containers are not allowed]',
    );
  });

  it('validation never defaults: a pod that would need a change is refused', async () => {
    const onlyRestricted = createPodSecurityPolicy({ policies: cacheOf(RESTRICTED), authorize: authorizer({ jane: ['restricted'] }).authorize });
    const { ctx } = context();
    assert.equal(
      await rejection(onlyRestricted.validate!(request(AdmissionOperation.Create, AdmissionPhase.Validating, pod()), ctx)),
      'pods "web" is forbidden: PodSecurityPolicy: unable to validate pod: []',
    );
  });

  it('an update keeps the admitting policy when the pod still meets it', async () => {
    const { pod: admitted } = await admit(createPodSecurityPolicy({ policies: cacheOf(RESTRICTED, PRIVILEGED), authorize: authorizer({ jane: ['restricted'] }).authorize }), pod());
    const updated = structuredClone(admitted);
    updated.metadata.labels = { tier: 'web' };
    assert.deepEqual(await validate(updated, AdmissionOperation.Update, { oldObject: admitted }), { 'podsecuritypolicy.policy.platform.io/validate-policy': 'restricted' });
  });

  it('an update breaking the admitting policy falls to another usable policy, else is refused', async () => {
    const { pod: admitted } = await admit(createPodSecurityPolicy({ policies: cacheOf(RESTRICTED, PRIVILEGED), authorize: authorizer({ jane: ['restricted'] }).authorize }), pod());
    const escalated = structuredClone(admitted);
    (escalated.spec as any).containers[0].image = 'img:2';
    (escalated.spec as any).containers[0].securityContext.privileged = true;
    assert.deepEqual(await validate(escalated, AdmissionOperation.Update, { oldObject: admitted }), { 'podsecuritypolicy.policy.platform.io/validate-policy': 'privileged' });
    const onlyRestricted = createPodSecurityPolicy({ policies: cacheOf(RESTRICTED, PRIVILEGED), authorize: authorizer({ jane: ['restricted'] }).authorize });
    const { ctx } = context();
    assert.match(
      await rejection(onlyRestricted.validate!(request(AdmissionOperation.Update, AdmissionPhase.Validating, escalated, { oldObject: admitted }), ctx)),
      /unable to validate pod: \[spec\.containers\[0\]\.securityContext\.privileged/,
    );
  });

  it('garbage collection updates (owners, finalizers) and subresources are not checked', async () => {
    const nobody = createPodSecurityPolicy({ policies: cacheOf(RESTRICTED), authorize: authorizer({}).authorize });
    const old = pod({}, { securityContext: { privileged: true } });
    const gc = structuredClone(old);
    gc.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1' }];
    gc.metadata.finalizers = ['example.com/x'];
    const { ctx } = context();
    await nobody.validate!(request(AdmissionOperation.Update, AdmissionPhase.Validating, gc, { oldObject: old }), ctx);
    await nobody.validate!(request(AdmissionOperation.Update, AdmissionPhase.Validating, old, { oldObject: old, subResource: 'status' }), ctx);
    const relabelled = structuredClone(old);
    relabelled.metadata.labels = { a: 'b' };
    await rejection(nobody.validate!(request(AdmissionOperation.Update, AdmissionPhase.Validating, relabelled, { oldObject: old }), ctx));
  });

  it('matches pod creates and updates only, and mutates only on create', async () => {
    const req = (op: AdmissionOperation, resource = 'pods') => ({ ...request(op, AdmissionPhase.Mutating, pod()), resource: { group: '', version: 'v1', resource } });
    assert.equal(pluginMatches(plugin.match, req(AdmissionOperation.Create)), true);
    assert.equal(pluginMatches(plugin.match, req(AdmissionOperation.Update)), true);
    assert.equal(pluginMatches(plugin.match, req(AdmissionOperation.Delete)), false);
    assert.equal(pluginMatches(plugin.match, req(AdmissionOperation.Create, 'services')), false);
    const { ctx } = context();
    assert.equal(await plugin.mutate!(request(AdmissionOperation.Update, AdmissionPhase.Mutating, pod(), { oldObject: pod() }), ctx), undefined);
  });
});
