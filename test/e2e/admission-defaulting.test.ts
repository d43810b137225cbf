// End to end: the default-enabled admission plugins that fill in and guard what a workload
// leaves to the cluster, all running (ServiceAccount too: the test makes each namespace's
// accounts itself, since no controllers run here). ServiceAccount (default account, projected
// API credentials, missing accounts, automount off), Priority (classes, the system classes the
// gateway creates, unknown classes), RuntimeClass (overhead), DefaultStorageClass and
// DefaultIngressClass, StorageObjectInUseProtection's finalizers and PersistentVolumeClaimResize.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { assertOk, assertStatus, createNamespace, eventually, uniq } from './helpers.js';

const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };
const MOUNT_PATH = '/var/run/secrets/platform.io/serviceaccount';

const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }], ...spec },
});

const claim = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});

const storageClass = (name: string, extra: Record<string, unknown> = {}, annotations?: Record<string, string>) => ({
  apiVersion: 'storage.platform.io/v1',
  kind: 'StorageClass',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  provisioner: 'example.com/disk',
  ...extra,
});

describe('admission: defaulting plugins (ServiceAccount, Priority, RuntimeClass, storage, ingress)', () => {
  let c: TestCluster;
  const ns = uniq('defaulting');
  const pods = `/api/v1/namespaces/${ns}/pods`;
  const claims = `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
  const create = async (path: string, body: unknown) => assertOk(await c.request('POST', path, { body }), 201);
  const get = async (path: string) => assertOk(await c.request('GET', path));

  before(async () => {
    // `disable: []` keeps every default plugin on, ServiceAccount included.
    c = await startTestCluster({ admission: { disable: [] } });
    await createNamespace(c, ns);
    await create(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
    await create(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'quiet' }, automountServiceAccountToken: false });
  });
  after(async () => c?.stop());

  it('ServiceAccount - a pod gets the default account and its API credentials, mounted read-only in every container', async () => {
    const made = await create(pods, pod('web', { initContainers: [{ name: 'setup', image: 'registry.example/setup:1' }] }));
    const stored = await get(`${pods}/web`);
    assert.deepEqual(stored.spec, made.spec);
    const spec = stored.spec;
    assert.equal(spec.serviceAccountName, 'default');
    assert.equal(spec.volumes.length, 1);
    const volume = spec.volumes[0];
    assert.match(volume.name, /^platform-api-access-[a-z0-9]{5}$/);
    assert.deepEqual(volume, {
      name: volume.name,
      projected: {
        defaultMode: 420,
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
          { configMap: { name: 'platform-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
        ],
      },
    });
    const mount = { name: volume.name, readOnly: true, mountPath: MOUNT_PATH };
    assert.deepEqual(spec.containers[0].volumeMounts, [mount]);
    assert.deepEqual(spec.initContainers[0].volumeMounts, [mount]);
  });

  it('ServiceAccount - a pod naming an account that does not exist is refused', async () => {
    const st = assertStatus(await c.request('POST', pods, { body: pod('ghostly', { serviceAccountName: 'ghost' }) }), 403, 'Forbidden');
    assert.equal(st.message, `pods "ghostly" is forbidden: error looking up service account ${ns}/ghost: serviceaccount "ghost" not found`);
    assertStatus(await c.request('GET', `${pods}/ghostly`), 404, 'NotFound');
  });

  it('ServiceAccount - automountServiceAccountToken: false, on the pod or on its account, mounts nothing', async () => {
    for (const [name, spec] of [
      ['no-token', { automountServiceAccountToken: false }],
      ['quiet-account', { serviceAccountName: 'quiet' }],
    ] as const) {
      const made = await create(pods, pod(name, spec));
      assert.equal(made.spec.volumes, undefined, name);
      assert.equal(made.spec.containers[0].volumeMounts, undefined, name);
    }
  });

  it('Priority - a class resolves to its value, the system classes exist, an unknown class is refused', async () => {
    await create('/apis/scheduling.platform.io/v1/priorityclasses', {
      apiVersion: 'scheduling.platform.io/v1',
      kind: 'PriorityClass',
      metadata: { name: `${ns}-high` },
      value: 1000,
      preemptionPolicy: 'Never',
    });
    const high = await create(pods, pod('important', { priorityClassName: `${ns}-high` }));
    assert.deepEqual([high.spec.priority, high.spec.preemptionPolicy], [1000, 'Never']);
    assert.equal((await create(pods, pod('ordinary'))).spec.priority, 0);
    // Created by the gateway at start, as upstream's apiserver does.
    const critical = await create(pods, pod('critical', { priorityClassName: 'system-cluster-critical' }));
    assert.equal(critical.spec.priority, 2_000_000_000);
    assert.equal((await get('/apis/scheduling.platform.io/v1/priorityclasses/system-node-critical')).value, 2_000_001_000);

    const st = assertStatus(await c.request('POST', pods, { body: pod('lost', { priorityClassName: 'nope' }) }), 403, 'Forbidden');
    assert.equal(st.message, 'pods "lost" is forbidden: no PriorityClass with name nope was found');
    const stated = assertStatus(await c.request('POST', pods, { body: pod('stated', { priority: 5 }) }), 403, 'Forbidden');
    assert.match(stated.message, /the integer value of priority \(5\) must not be provided in pod spec; priority admission controller computed 0/);
  });

  it("RuntimeClass - a pod gets its class's overhead and node selector; an unknown class is refused", async () => {
    const rc = `${ns}-sandbox`;
    await create('/apis/node.platform.io/v1/runtimeclasses', {
      apiVersion: 'node.platform.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: rc },
      handler: 'sandbox',
      overhead: { podFixed: { cpu: '250m' } },
      scheduling: { nodeSelector: { sandbox: 'yes' } },
    });
    const made = await create(pods, pod('sandboxed', { runtimeClassName: rc }));
    assert.deepEqual([made.spec.overhead, made.spec.nodeSelector], [{ cpu: '250m' }, { sandbox: 'yes' }]);
    const st = assertStatus(await c.request('POST', pods, { body: pod('unknown-runtime', { runtimeClassName: 'nope' }) }), 403, 'Forbidden');
    assert.equal(st.message, 'pods "unknown-runtime" is forbidden: pod rejected: RuntimeClass "nope" not found');
  });

  it('DefaultStorageClass and StorageObjectInUseProtection - a claim naming no class gets the default and the protection finalizer', async () => {
    const def = `${ns}-standard`;
    await create('/apis/storage.platform.io/v1/storageclasses', storageClass(def, {}, { 'storageclass.platform.io/is-default-class': 'true' }));
    // The plugin decides from its cache of classes: wait (without storing anything) until it has the new one.
    await eventually('the default class is applied', async () => {
      const dry = assertOk(await c.request('POST', `${claims}?dryRun=All`, { body: claim('probe') }), 201);
      assert.equal(dry.spec.storageClassName, def);
    });
    const made = await create(claims, claim('data'));
    assert.equal(made.spec.storageClassName, def);
    assert.deepEqual(made.metadata.finalizers, ['platform.io/pvc-protection']);
    // An empty class name asks for no class at all and stays.
    assert.equal((await create(claims, claim('classless', { storageClassName: '' }))).spec.storageClassName, '');

    const pv = await create('/api/v1/persistentvolumes', {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: `${ns}-pv` },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } },
    });
    assert.deepEqual(pv.metadata.finalizers, ['platform.io/pv-protection']);
  });

  it('DefaultIngressClass - an ingress naming no class gets the default one', async () => {
    const def = `${ns}-edge`;
    await create('/apis/networking.platform.io/v1/ingressclasses', {
      apiVersion: 'networking.platform.io/v1',
      kind: 'IngressClass',
      metadata: { name: def, annotations: { 'ingressclass.platform.io/is-default-class': 'true' } },
      spec: { controller: 'example.com/ingress' },
    });
    const ingresses = `/apis/networking.platform.io/v1/namespaces/${ns}/ingresses`;
    const ingress = (name: string) => ({ apiVersion: 'networking.platform.io/v1', kind: 'Ingress', metadata: { name }, spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } } });
    await eventually('the default ingress class is applied', async () => {
      assert.equal(assertOk(await c.request('POST', `${ingresses}?dryRun=All`, { body: ingress('probe') }), 201).spec.ingressClassName, def);
    });
    assert.equal((await create(ingresses, ingress('web'))).spec.ingressClassName, def);
  });

  it('PersistentVolumeClaimResize - a bound claim grows only when its class allows expansion', async () => {
    await create('/apis/storage.platform.io/v1/storageclasses', storageClass(`${ns}-fixed`));
    await create('/apis/storage.platform.io/v1/storageclasses', storageClass(`${ns}-elastic`, { allowVolumeExpansion: true }));
    const grow = (name: string) => c.request('PATCH', `${claims}/${name}`, { headers: MERGE_PATCH, body: { spec: { resources: { requests: { storage: '2Gi' } } } } });
    for (const cls of ['fixed', 'elastic']) {
      await create(claims, claim(cls, { storageClassName: `${ns}-${cls}` }));
    }
    const pending = assertStatus(await grow('fixed'), 403, 'Forbidden');
    assert.equal(pending.message, 'persistentvolumeclaims "fixed" is forbidden: Only bound persistent volume claims can be expanded');
    for (const cls of ['fixed', 'elastic']) {
      assertOk(await c.request('PATCH', `${claims}/${cls}/status`, { headers: MERGE_PATCH, body: { status: { phase: 'Bound', capacity: { storage: '1Gi' } } } }));
    }
    const refused = assertStatus(await grow('fixed'), 403, 'Forbidden');
    assert.equal(refused.message, 'persistentvolumeclaims "fixed" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
    assert.equal(assertOk(await grow('elastic')).spec.resources.requests.storage, '2Gi');
  });
});
