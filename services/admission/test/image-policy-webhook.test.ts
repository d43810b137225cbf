import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ApiObject } from '../../../shared/api/types.js';
import type { PluginDeps } from '../types.js';
import { silentLogger } from '../../../shared/log.js';
import type { AdmissionReply, AdmissionRequest } from '../../../shared/bus/messages.js';
import { HttpJsonError } from '../../../shared/webhook/http-json.js';
import { runAdmissionChain } from '../chain.js';
import { AdmissionConfigError } from '../config.js';
import { goDuration } from '../plugins/image-policy/go-duration.js';
import {
  createImagePolicyWebhook,
  FAILED_OPEN_AUDIT_KEY,
  FAILED_OPEN_POD_ANNOTATION,
  imagePolicyWebhookPlugin,
  imageReview,
  imageReviewSpec,
  parseImagePolicyConfiguration,
  readImageReviewStatus,
  type ImagePolicySettings,
  type ImageReviewSpec,
} from '../plugins/image-policy/image-policy-webhook.js';

test('goDuration - writes durations as Go does', () => {
  const S = 1_000_000_000n;
  const cases: Array<[bigint, string]> = [
    [0n, '0s'],
    [1n, '1ns'],
    [1_500n, '1.5µs'],
    [400_000_000n, '400ms'],
    [S, '1s'],
    [1_500_000_000n, '1.5s'],
    [5n * 60n * S, '5m0s'],
    [30n * 60n * S, '30m0s'],
    [45n * 60n * S + 3n * S, '45m3s'],
    [2n * 3600n * S, '2h0m0s'],
    [-5n * S, '-5s'],
  ];
  for (const [ns, want] of cases) assert.equal(goDuration(ns), want, String(ns));
});

describe('ImagePolicyWebhook configuration', () => {
  const cfg = (configuration: unknown) => ({ configuration, dir: '/etc/platform/admission', source: '/etc/platform/admission/image-policy.yaml' });
  const policy = (p: Record<string, unknown>) => cfg({ imagePolicy: { kubeConfigFile: 'backend.kubeconfig', ...p } });

  test('defaults, the -1 sentinel, seconds and milliseconds', () => {
    const cases: Array<[string, Record<string, unknown>, Partial<ImagePolicySettings>]> = [
      ['defaults', {}, { allowTtlMs: 300_000, denyTtlMs: 30_000, retryBackoffMs: 500, defaultAllow: false }],
      ['zero is the default', { allowTTL: 0, denyTTL: 0, retryBackoff: 0 }, { allowTtlMs: 300_000, denyTtlMs: 30_000, retryBackoffMs: 500 }],
      ['set', { allowTTL: 50, denyTTL: 10, retryBackoff: 250, defaultAllow: true }, { allowTtlMs: 50_000, denyTtlMs: 10_000, retryBackoffMs: 250, defaultAllow: true }],
      ['-1 switches off', { allowTTL: -1, denyTTL: -1, retryBackoff: -1 }, { allowTtlMs: 0, denyTtlMs: 0, retryBackoffMs: 0 }],
      ['bounds are inclusive', { allowTTL: 1800, denyTTL: 1, retryBackoff: 300_000 }, { allowTtlMs: 1_800_000, denyTtlMs: 1_000, retryBackoffMs: 300_000 }],
    ];
    for (const [name, p, want] of cases) {
      const got = parseImagePolicyConfiguration(policy(p));
      for (const [k, v] of Object.entries(want)) assert.equal(got[k as keyof ImagePolicySettings], v, `${name}: ${k}`);
    }
  });

  test("kubeConfigFile is read relative to the configuration's directory; apiVersion and kind beside imagePolicy are ignored", () => {
    assert.equal(parseImagePolicyConfiguration(policy({})).kubeConfigFile, path.resolve('/etc/platform/admission/backend.kubeconfig'));
    assert.equal(parseImagePolicyConfiguration(policy({ kubeConfigFile: '/abs/k.yaml' })).kubeConfigFile, '/abs/k.yaml');
    const withKind = cfg({ apiVersion: 'imagepolicy.config.k8s.io/v1alpha1', kind: 'ImagePolicyConfiguration', imagePolicy: { kubeConfigFile: 'k' } });
    assert.equal(parseImagePolicyConfiguration(withKind).kubeConfigFile, path.resolve('/etc/platform/admission/k'));
  });

  test("mistakes stop the start with upstream's bounds", () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['no configuration', undefined, /needs a configuration/],
      ['not an object', cfg('imagePolicy'), /must be an object/],
      ['no imagePolicy', cfg({ kubeConfigFile: 'k' }), /unknown field "kubeConfigFile"/],
      ['imagePolicy missing', cfg({}), /imagePolicy is required/],
      ['kubeConfigFile missing', cfg({ imagePolicy: {} }), /imagePolicy\.kubeConfigFile is required/],
      ['unknown field', policy({ allowTtl: 5 }), /unknown field imagePolicy\.allowTtl/],
      ['allowTTL too long', policy({ allowTTL: 2700 }), /imagePolicy\.allowTTL: valid value is between 1s and 30m0s, got 45m0s$/],
      ['denyTTL negative', policy({ denyTTL: -5 }), /imagePolicy\.denyTTL: valid value is between 1s and 30m0s, got -5s$/],
      ['retryBackoff too long', policy({ retryBackoff: 300_001 }), /imagePolicy\.retryBackoff: valid value is between 1ns and 5m0s, got 5m0.001s$/],
      ['fraction', policy({ allowTTL: 1.5 }), /imagePolicy\.allowTTL must be an integer/],
      ['string duration', policy({ denyTTL: '30s' }), /imagePolicy\.denyTTL must be an integer/],
      ['defaultAllow not boolean', policy({ defaultAllow: 'yes' }), /defaultAllow must be true or false/],
    ];
    for (const [name, c, re] of cases) {
      assert.throws(
        () => parseImagePolicyConfiguration(c as never),
        (err: Error) => err instanceof AdmissionConfigError && re.test(err.message) && err.message.includes('ImagePolicyWebhook'),
        name,
      );
    }
  });
});

test("the backend's client configuration is read at start; a bad one stops the service", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'image-policy-config-'));
  try {
    const start = async (kubeConfigFile: string) =>
      imagePolicyWebhookPlugin.create({ config: { configuration: { imagePolicy: { kubeConfigFile } }, dir, source: path.join(dir, 'admission.yaml') } } as unknown as PluginDeps);
    await assert.rejects(
      start('missing.kubeconfig'),
      (err: Error) => err instanceof AdmissionConfigError && err.message.includes(path.join(dir, 'missing.kubeconfig')) && err.message.includes('ENOENT'),
    );
    await writeFile(path.join(dir, 'http.kubeconfig'), 'clusters:\n- name: b\n  cluster:\n    server: http://127.0.0.1:9/review\n');
    await assert.rejects(start('http.kubeconfig'), (err: Error) => err instanceof AdmissionConfigError && /server must be an https URL/.test(err.message));
    await writeFile(path.join(dir, 'ok.kubeconfig'), 'clusters:\n- name: b\n  cluster:\n    server: https://127.0.0.1:9/review\n');
    const plugin = await start('ok.kubeconfig');
    assert.equal(plugin.name, 'ImagePolicyWebhook');
    await plugin.stop?.();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

// ---- requests -------------------------------------------------------------------------------

const pod = (over: { containers?: unknown[]; init?: unknown[]; ephemeral?: unknown[]; annotations?: Record<string, string> } = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'team-a', ...(over.annotations ? { annotations: over.annotations } : {}) },
  spec: {
    containers: over.containers ?? [{ name: 'app', image: 'registry.example/app:1' }],
    ...(over.init ? { initContainers: over.init } : {}),
    ...(over.ephemeral ? { ephemeralContainers: over.ephemeral } : {}),
  },
});

function podRequest(phase: 'mutating' | 'validating', object: ApiObject | null, over: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return {
    uid: 'u',
    phase,
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    name: 'web',
    namespace: 'team-a',
    operation: 'CREATE',
    userInfo: { username: 'jane', groups: ['system:authenticated'] },
    object,
    oldObject: null,
    dryRun: false,
    ...over,
  };
}

test('imageReviewSpec - containers then init containers, ephemeral ones for their subresource, forwarded annotations, namespace', () => {
  const annotations = { 'a.image-policy.platform.io/ticket': 'T-1', 'z.image-policy.platform.io/x': 'y', 'image-policy.platform.io/top': 'no', team: 'web' };
  const p = pod({ containers: [{ name: 'a', image: 'app:1' }, { name: 'b' }], init: [{ name: 'i', image: 'init:1' }], ephemeral: [{ name: 'dbg', image: 'busybox' }], annotations });
  const cases: Array<[string, AdmissionRequest, ImageReviewSpec | undefined]> = [
    [
      'pod',
      podRequest('validating', p),
      { containers: [{ image: 'app:1' }, {}, { image: 'init:1' }], annotations: { 'a.image-policy.platform.io/ticket': 'T-1', 'z.image-policy.platform.io/x': 'y' }, namespace: 'team-a' },
    ],
    [
      'ephemeralcontainers',
      podRequest('validating', p, { operation: 'UPDATE', subResource: 'ephemeralcontainers' }),
      { containers: [{ image: 'busybox' }], annotations: { 'a.image-policy.platform.io/ticket': 'T-1', 'z.image-policy.platform.io/x': 'y' }, namespace: 'team-a' },
    ],
    ['no containers, no annotations', podRequest('validating', pod({ containers: [] })), { namespace: 'team-a' }],
    ['status subresource', podRequest('validating', p, { operation: 'UPDATE', subResource: 'status' }), undefined],
    ['another resource', podRequest('validating', p, { resource: { group: '', version: 'v1', resource: 'podtemplates' } }), undefined],
    ['no object', podRequest('validating', null), undefined],
  ];
  for (const [name, r, want] of cases) assert.deepEqual(imageReviewSpec(r), want, name);
  assert.deepEqual(imageReview({ namespace: 'n' }), {
    apiVersion: 'imagepolicy.platform.io/v1alpha1',
    kind: 'ImageReview',
    metadata: { creationTimestamp: null },
    spec: { namespace: 'n' },
    status: { allowed: false },
  });
  // Annotation order does not change the review (it is also the cache key).
  const reordered = pod({ annotations: { 'z.image-policy.platform.io/x': 'y', 'a.image-policy.platform.io/ticket': 'T-1' } });
  const ordered = pod({ annotations: { 'a.image-policy.platform.io/ticket': 'T-1', 'z.image-policy.platform.io/x': 'y' } });
  assert.equal(JSON.stringify(imageReviewSpec(podRequest('validating', reordered))), JSON.stringify(imageReviewSpec(podRequest('validating', ordered))));
});

test('readImageReviewStatus - reads the answer; a missing status allows nothing', () => {
  const ok: Array<[unknown, unknown]> = [
    [{ apiVersion: 'imagepolicy.platform.io/v1alpha1', kind: 'ImageReview', status: { allowed: true } }, { allowed: true }],
    [
      { apiVersion: 'imagepolicy.k8s.io/v1alpha1', kind: 'ImageReview', status: { allowed: false, reason: 'unsigned' } },
      { allowed: false, reason: 'unsigned' },
    ],
    [{ status: { allowed: true, auditAnnotations: { 'signed-by': 'ci' } } }, { allowed: true, auditAnnotations: { 'signed-by': 'ci' } }],
    [{ kind: 'ImageReview' }, { allowed: false }],
  ];
  for (const [body, want] of ok) assert.deepEqual(readImageReviewStatus(body), want);
  const bad: unknown[] = [
    null,
    'yes',
    { kind: 'TokenReview' },
    { apiVersion: 'v1' },
    { status: 'allowed' },
    { status: { allowed: 'true' } },
    { status: { allowed: true, auditAnnotations: { a: 1 } } },
  ];
  for (const body of bad) assert.throws(() => readImageReviewStatus(body), JSON.stringify(body));
});

// ---- the plugin through the chain ---------------------------------------------------------------

type Answer = { status: number; body?: unknown } | Error;

/** A backend that answers by image: `deny-*` images are refused, `fail` answers are errors. */
function fakeBackend(answer: (spec: ImageReviewSpec) => Answer) {
  const calls: ImageReviewSpec[] = [];
  let closed = false;
  const client = {
    async postJson(body: unknown) {
      const spec = (body as { spec: ImageReviewSpec }).spec;
      calls.push(spec);
      const a = answer(spec);
      if (a instanceof Error) throw a;
      return { status: a.status, body: a.body };
    },
    close() {
      closed = true;
    },
  };
  return { client, calls, closed: () => closed };
}

const byImage = (spec: ImageReviewSpec): Answer => {
  const denied = (spec.containers ?? []).filter((c) => c.image?.startsWith('deny'));
  return {
    status: 200,
    body: {
      apiVersion: 'imagepolicy.platform.io/v1alpha1',
      kind: 'ImageReview',
      status: denied.length ? { allowed: false, reason: `${denied[0]!.image} is not signed` } : { allowed: true, auditAnnotations: { checked: 'yes' } },
    },
  };
};

const SETTINGS = { allowTtlMs: 60_000, denyTtlMs: 10_000, retryBackoffMs: 100, defaultAllow: false };

function harness(answer: (spec: ImageReviewSpec) => Answer, settings: Partial<typeof SETTINGS> = {}) {
  let clock = 1_000_000;
  const sleeps: number[] = [];
  const backend = fakeBackend(answer);
  const plugin = createImagePolicyWebhook({
    settings: { ...SETTINGS, ...settings },
    client: backend.client,
    now: () => clock,
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0,
  });
  /** Both phases, as the gateway runs them: the validating one sees the mutated pod. */
  const admit = async (object: ApiObject, over: Partial<AdmissionRequest> = {}): Promise<{ mutated: AdmissionReply; validated: AdmissionReply }> => {
    const mutated = await runAdmissionChain([plugin], podRequest('mutating', object, over), silentLogger());
    const final = mutated.object ?? object;
    const validated = mutated.allowed ? await runAdmissionChain([plugin], podRequest('validating', final, over), silentLogger()) : mutated;
    return { mutated, validated };
  };
  return { plugin, backend, sleeps, admit, advance: (ms: number) => (clock += ms) };
}

describe('ImagePolicyWebhook plugin', () => {
  test("an allowed image passes with the backend's audit annotations; a denied one is refused with its reason", async () => {
    const h = harness(byImage);
    const ok = await h.admit(pod());
    assert.equal(ok.validated.allowed, true);
    assert.deepEqual(ok.validated.auditAnnotations, { 'imagepolicywebhook.image-policy.platform.io/checked': 'yes' });

    const denied = await h.admit(pod({ containers: [{ name: 'a', image: 'deny/app:1' }] }));
    assert.equal(denied.validated.allowed, false);
    assert.equal(denied.validated.status?.code, 403);
    assert.equal(denied.validated.status?.message, 'pods "web" is forbidden: image policy webhook backend denied one or more images: deny/app:1 is not signed');
    // Without defaultAllow there is no mutating hook: one call per review.
    assert.equal(h.plugin.mutate, undefined);
    assert.equal(h.backend.calls.length, 2);
    assert.deepEqual(h.backend.calls[1], { containers: [{ image: 'deny/app:1' }], namespace: 'team-a' });
  });

  test("a denial without a reason has upstream's generic message", async () => {
    const h = harness(() => ({ status: 200, body: { kind: 'ImageReview', status: { allowed: false } } }));
    const r = await h.admit(pod());
    assert.equal(r.validated.status?.message, 'pods "web" is forbidden: one or more images rejected by webhook backend');
  });

  test('answers are cached for allowTTL and denyTTL, keyed by the review', async () => {
    const h = harness(byImage);
    const good = pod();
    const bad = pod({ containers: [{ name: 'a', image: 'deny/x' }] });
    await h.admit(good);
    await h.admit(bad);
    await h.admit(good);
    await h.admit(bad);
    assert.equal(h.backend.calls.length, 2, 'repeats are answered from the cache');
    await h.admit(pod({ annotations: { 'a.image-policy.platform.io/ticket': 'T-2' } }));
    assert.equal(h.backend.calls.length, 3, 'another review is another question');

    h.advance(10_001); // past denyTTL, within allowTTL
    await h.admit(good);
    await h.admit(bad);
    assert.equal(h.backend.calls.length, 4, 'only the denial expired');
    h.advance(60_000);
    const again = await h.admit(good);
    assert.equal(h.backend.calls.length, 5);
    assert.equal(again.validated.auditAnnotations?.['imagepolicywebhook.image-policy.platform.io/checked'], 'yes', 'cached answers annotate too');
  });

  test('-1 TTLs cache nothing', async () => {
    const h = harness(byImage, { allowTtlMs: 0, denyTtlMs: 0 });
    await h.admit(pod());
    await h.admit(pod());
    assert.equal(h.backend.calls.length, 2);
  });

  test('a failing backend refuses the pod unless defaultAllow', async () => {
    const cases: Array<[string, Answer, RegExp]> = [
      ['connection refused', new HttpJsonError('https://127.0.0.1:1/: connect ECONNREFUSED 127.0.0.1:1'), /is forbidden: https:\/\/127\.0\.0\.1:1\/: connect ECONNREFUSED/],
      ['HTTP 403', { status: 403 }, /is forbidden: Error contacting webhook: 403$/],
      ['not an ImageReview', { status: 200, body: { kind: 'Status' } }, /answer cannot be read: the answer is a "Status"/],
    ];
    for (const [name, answer, re] of cases) {
      const h = harness(() => answer);
      const r = await h.admit(pod());
      assert.equal(r.validated.allowed, false, name);
      assert.equal(r.validated.status?.code, 403, name);
      assert.match(r.validated.status!.message, re, name);
      assert.equal(h.backend.calls.length, 1, `${name}: not retried`);
    }
  });

  test('transient failures are retried with growing backoff, five attempts in all', async () => {
    const reset = new HttpJsonError('https://b/: socket hang up', { cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) });
    for (const answer of [{ status: 500 }, { status: 429 }, { status: 504 }, reset] as Answer[]) {
      const h = harness(() => answer);
      const r = await h.admit(pod());
      assert.equal(r.validated.allowed, false);
      assert.equal(h.backend.calls.length, 5);
      assert.deepEqual(h.sleeps, [100, 150, 225, 337.5]);
    }
    let n = 0;
    const h = harness((spec) => (++n < 3 ? { status: 500 } : byImage(spec)));
    assert.equal((await h.admit(pod())).validated.allowed, true, 'a retry that succeeds admits');
    assert.equal(h.backend.calls.length, 3);
  });

  test('defaultAllow: a pod admitted without the backend is marked on the object and in the audit event', async () => {
    const h = harness(() => new HttpJsonError('https://b/: connect ECONNREFUSED'), { defaultAllow: true });
    const r = await h.admit(pod({ annotations: { team: 'web' } }));
    assert.equal(r.validated.allowed, true);
    assert.deepEqual(r.mutated.object?.metadata.annotations, { team: 'web', [FAILED_OPEN_POD_ANNOTATION]: 'true' });
    assert.equal(r.mutated.auditAnnotations?.[FAILED_OPEN_AUDIT_KEY], 'true');
    assert.equal(r.validated.auditAnnotations?.[FAILED_OPEN_AUDIT_KEY], 'true');
    assert.equal(h.backend.calls.length, 1, 'the validating phase does not ask an unreachable backend again');

    h.advance(5_001);
    await h.admit(pod());
    assert.equal(h.backend.calls.length, 2, 'the failure is remembered only briefly');
  });

  test('defaultAllow: with the backend up nothing is marked and its answer decides', async () => {
    const h = harness(byImage, { defaultAllow: true });
    const ok = await h.admit(pod());
    assert.equal(ok.validated.allowed, true);
    assert.equal(ok.mutated.object?.metadata.annotations, undefined);
    assert.equal(ok.validated.auditAnnotations?.[FAILED_OPEN_AUDIT_KEY], undefined);
    const denied = await h.admit(pod({ containers: [{ name: 'a', image: 'deny/x' }] }));
    assert.equal(denied.validated.allowed, false);
    assert.equal(h.backend.calls.length, 2, "the mutating hook's answer is cached for the validating one");
  });

  test('other resources and subresources are not reviewed; stop closes the client', async () => {
    const h = harness(byImage);
    const status = await runAdmissionChain([h.plugin], podRequest('validating', pod({ containers: [{ name: 'a', image: 'deny/x' }] }), { operation: 'UPDATE', subResource: 'status' }), silentLogger());
    assert.equal(status.allowed, true);
    assert.equal(h.backend.calls.length, 0);
    await h.plugin.stop?.();
    assert.equal(h.backend.closed(), true);
  });
});
