import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import { createServiceAccountPlugin, tokenVolume, TOKEN_MOUNT_PATH } from '../plugins/pods/service-account.js';
import { admitted, cacheOf, pod, request, run, type Outcome, type RequestInit } from './defaulting-fixtures.js';

const account = (name: string, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name, namespace: 'ns1', ...meta },
  ...extra,
});

const MOUNT = { name: 'platform-api-access-x7k2q', readOnly: true, mountPath: TOKEN_MOUNT_PATH };
const VOLUME = {
  name: 'platform-api-access-x7k2q',
  projected: {
    defaultMode: 420,
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'platform-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
  },
};
const MIRROR = { annotations: { 'platform.io/config.mirror': 'hash' } };
const ENFORCE = { annotations: { 'platform.io/enforce-mountable-secrets': 'true' } };

const accounts = [
  account('default'),
  account('builder', { imagePullSecrets: [{ name: 'registry' }] }),
  account('quiet', { automountServiceAccountToken: false }),
  account('strict', { secrets: [{ name: 'allowed' }], imagePullSecrets: [{ name: 'pull' }] }, ENFORCE),
];

function setup(cached: ApiObject[] = accounts, live: ApiObject[] = []) {
  const cache = cacheOf('', 'serviceaccounts', cached, live);
  const plugin = createServiceAccountPlugin(cache, { defaultAccountAttempts: 3, retryDelayMs: () => 0, generateName: (p) => `${p}x7k2q` });
  return { cache, plugin, run: (init: RequestInit) => run(plugin, request({ namespace: 'ns1', ...init })) };
}

const forbidden = (message: string): Outcome => ({ code: 403, message: `pods "web" is forbidden: ${message}` });

test("ServiceAccount - the token volume is exactly upstream's projection, renamed", () => {
  assert.deepEqual(tokenVolume('platform-api-access-x7k2q'), VOLUME);
});

test('ServiceAccount - mutating: default account, token volume and mounts, pull secrets', async (t) => {
  const cases: Array<{ name: string; pod: ApiObject; want: (spec: any) => void }> = [
    {
      name: 'a pod naming no account runs as default, with the credentials in every container',
      pod: pod({ initContainers: [{ name: 'init', image: 'i' }] }),
      want: (spec) => {
        assert.equal(spec.serviceAccountName, 'default');
        assert.equal(spec.serviceAccount, 'default');
        assert.deepEqual(spec.volumes, [VOLUME]);
        assert.deepEqual(spec.containers[0].volumeMounts, [MOUNT]);
        assert.deepEqual(spec.initContainers[0].volumeMounts, [MOUNT]);
        assert.equal(spec.imagePullSecrets, undefined);
      },
    },
    {
      name: 'a container with its own mount at the path keeps it; the others get the volume',
      pod: pod({
        containers: [
          { name: 'a', image: 'i', volumeMounts: [{ name: 'mine', mountPath: TOKEN_MOUNT_PATH }] },
          { name: 'b', image: 'i' },
        ],
      }),
      want: (spec) => {
        assert.deepEqual(spec.containers[0].volumeMounts, [{ name: 'mine', mountPath: TOKEN_MOUNT_PATH }]);
        assert.deepEqual(spec.containers[1].volumeMounts, [MOUNT]);
        assert.deepEqual(spec.volumes, [VOLUME]);
      },
    },
    {
      name: 'no container needs the credentials: no volume',
      pod: pod({ containers: [{ name: 'a', image: 'i', volumeMounts: [{ name: 'mine', mountPath: TOKEN_MOUNT_PATH }] }] }),
      want: (spec) => assert.equal(spec.volumes, undefined),
    },
    {
      name: 'a pod that already has an access volume keeps it and mounts it',
      pod: pod({ volumes: [{ name: 'platform-api-access-abcde', emptyDir: {} }] }),
      want: (spec) => {
        assert.deepEqual(spec.volumes, [{ name: 'platform-api-access-abcde', emptyDir: {} }]);
        assert.deepEqual(spec.containers[0].volumeMounts, [{ ...MOUNT, name: 'platform-api-access-abcde' }]);
      },
    },
    {
      name: 'automountServiceAccountToken: false on the pod',
      pod: pod({ automountServiceAccountToken: false }),
      want: (spec) => {
        assert.equal(spec.serviceAccountName, 'default');
        assert.equal(spec.volumes, undefined);
        assert.equal(spec.containers[0].volumeMounts, undefined);
      },
    },
    {
      name: 'automountServiceAccountToken: false on the account',
      pod: pod({ serviceAccountName: 'quiet' }),
      want: (spec) => assert.equal(spec.volumes, undefined),
    },
    {
      name: "the pod's true overrides the account's false",
      pod: pod({ serviceAccountName: 'quiet', automountServiceAccountToken: true }),
      want: (spec) => assert.deepEqual(spec.volumes, [VOLUME]),
    },
    {
      name: "the account's image pull secrets when the pod has none",
      pod: pod({ serviceAccountName: 'builder' }),
      want: (spec) => assert.deepEqual(spec.imagePullSecrets, [{ name: 'registry' }]),
    },
    {
      name: "the pod's own image pull secrets are kept",
      pod: pod({ serviceAccountName: 'builder', imagePullSecrets: [{ name: 'own' }] }),
      want: (spec) => assert.deepEqual(spec.imagePullSecrets, [{ name: 'own' }]),
    },
    {
      name: 'a mirror pod is not changed',
      pod: pod({}, MIRROR),
      want: (spec) => assert.deepEqual(spec, pod().spec),
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const out = admitted(await setup().run({ object: c.pod }));
      c.want(out.spec);
    });
  }
});

test('ServiceAccount - refusals', async (t) => {
  const secretVolume = { volumes: [{ name: 's', secret: { secretName: 'other' } }] };
  const cases: Array<{ name: string; init: RequestInit; want: Outcome }> = [
    { name: 'a missing account', init: { object: pod({ serviceAccountName: 'ghost' }) }, want: forbidden('error looking up service account ns1/ghost: serviceaccount "ghost" not found') },
    { name: 'a mirror pod naming an account', init: { object: pod({ serviceAccountName: 'default' }, MIRROR) }, want: forbidden('a mirror pod may not reference service accounts') },
    { name: 'a mirror pod with a secret volume', init: { object: pod(secretVolume, MIRROR) }, want: forbidden('a mirror pod may not reference secrets') },
    { name: 'a mirror pod with an image pull secret', init: { object: pod({ imagePullSecrets: [{ name: 'pull' }] }, MIRROR) }, want: forbidden('a mirror pod may not reference secrets') },
    {
      name: 'a mirror pod projecting a token',
      init: { object: pod({ volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }] }, MIRROR) },
      want: forbidden('a mirror pod may not use ServiceAccountToken volume projections'),
    },
    {
      name: 'enforced mountable secrets: a volume of a secret the account does not list',
      init: { object: pod({ serviceAccountName: 'strict', imagePullSecrets: [{ name: 'pull' }], ...secretVolume }) },
      want: forbidden('volume with secret.secretName="other" is not allowed because service account strict does not reference that secret'),
    },
    {
      name: 'enforced mountable secrets: an env var from an unlisted secret',
      init: {
        object: pod({
          serviceAccountName: 'strict',
          imagePullSecrets: [{ name: 'pull' }],
          containers: [{ name: 'app', image: 'i', env: [{ name: 'PW', valueFrom: { secretKeyRef: { name: 'other', key: 'k' } } }] }],
        }),
      },
      want: forbidden('container app with envVar PW referencing secret.secretName="other" is not allowed because service account strict does not reference that secret'),
    },
    {
      name: 'enforced mountable secrets: envFrom an unlisted secret in an init container',
      init: { object: pod({ serviceAccountName: 'strict', imagePullSecrets: [{ name: 'pull' }], initContainers: [{ name: 'setup', image: 'i', envFrom: [{ secretRef: { name: 'other' } }] }] }) },
      want: forbidden('init container setup with envFrom referencing secret.secretName="other" is not allowed because service account strict does not reference that secret'),
    },
    {
      name: 'enforced mountable secrets: an unlisted image pull secret',
      init: { object: pod({ serviceAccountName: 'strict', imagePullSecrets: [{ name: 'elsewhere' }] }) },
      want: forbidden('imagePullSecrets[0].name="elsewhere" is not allowed because service account strict does not reference that imagePullSecret'),
    },
    {
      name: 'validating: a pod that lost its account',
      init: { phase: 'validating', object: pod() },
      want: forbidden('no service account specified for pod ns1/web'),
    },
    {
      name: 'validating: a pod whose account went away',
      init: { phase: 'validating', object: pod({ serviceAccountName: 'ghost' }) },
      want: forbidden('error looking up service account ns1/ghost: serviceaccount "ghost" not found'),
    },
    {
      name: 'ephemeral containers may not reach a secret the enforcing account withholds',
      init: {
        phase: 'validating',
        operation: 'UPDATE',
        sub: 'ephemeralcontainers',
        object: pod({ serviceAccountName: 'strict', ephemeralContainers: [{ name: 'debug', image: 'i', envFrom: [{ secretRef: { name: 'other' } }] }] }),
      },
      want: forbidden('ephemeral container debug with envFrom referencing secret.secretName="other" is not allowed because service account strict does not reference that secret'),
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => assert.deepEqual(await setup().run(c.init), c.want));
  }
});

test('ServiceAccount - passes what it does not judge', async (t) => {
  const cases: Array<{ name: string; init: RequestInit }> = [
    {
      name: 'enforced account, listed secrets only',
      init: { object: pod({ serviceAccountName: 'strict', imagePullSecrets: [{ name: 'pull' }], volumes: [{ name: 's', secret: { secretName: 'allowed' } }] }) },
    },
    { name: 'an unenforced account, any secret', init: { object: pod({ serviceAccountName: 'builder', volumes: [{ name: 's', secret: { secretName: 'other' } }] }) } },
    { name: 'a status update', init: { operation: 'UPDATE', sub: 'status', object: pod({ serviceAccountName: 'ghost' }) } },
    { name: 'a binding', init: { sub: 'binding', object: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web' } } } },
    { name: 'a pod update', init: { operation: 'UPDATE', object: pod({ serviceAccountName: 'ghost' }) } },
    { name: 'validating: a pod update', init: { phase: 'validating', operation: 'UPDATE', object: pod({ serviceAccountName: 'ghost' }) } },
    {
      name: 'validating: ephemeral containers under an unenforced account',
      init: {
        phase: 'validating',
        operation: 'UPDATE',
        sub: 'ephemeralcontainers',
        object: pod({ serviceAccountName: 'default', ephemeralContainers: [{ name: 'd', envFrom: [{ secretRef: { name: 'x' } }] }] }),
      },
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      admitted(await setup().run(c.init));
    });
  }
});

test('ServiceAccount - an account the cache has not seen yet is read from the store', async () => {
  const s = setup([], [account('fresh')]);
  const out = admitted(await s.run({ object: pod({ serviceAccountName: 'fresh' }) }));
  assert.equal((out.spec as any).serviceAccountName, 'fresh');
  assert.deepEqual(s.cache.reads, ['ns1/fresh']);
});

test('ServiceAccount - a missing default account is read again before the pod is refused; another account once', async () => {
  const s = setup([]);
  assert.deepEqual(await s.run({ object: pod() }), forbidden('error looking up service account ns1/default: serviceaccount "default" not found'));
  assert.deepEqual(s.cache.reads, ['ns1/default', 'ns1/default', 'ns1/default']);
  s.cache.reads.length = 0;
  await s.run({ object: pod({ serviceAccountName: 'ghost' }) });
  assert.deepEqual(s.cache.reads, ['ns1/ghost']);
});

test('ServiceAccount - match: pod creates and updates only', () => {
  const { plugin } = setup();
  assert.deepEqual(plugin.match, { operations: ['CREATE', 'UPDATE'], resources: [{ group: '', resource: 'pods' }] });
});
