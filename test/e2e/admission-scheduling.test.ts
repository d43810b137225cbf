// End to end: the scheduling and small restriction admission plugins as a user meets them. The
// two on by default (DefaultTolerationSeconds, TaintNodesByCondition) change every new pod and
// node; the others are enabled here with their configurations read from
// --admission-control-config-file (PodNodeSelector's by `path` in upstream's legacy format,
// PodTolerationRestriction's inline). NamespaceLifecycle is disabled so that NamespaceExists'
// own 404 is the one seen.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { assertOk, assertStatus, uniq, writeAdmissionConfig } from './helpers.js';

const NODE_SELECTOR = 'scheduler.alpha.platform.io/node-selector';
const WHITELIST = 'scheduler.alpha.platform.io/tolerationsWhitelist';
const NOT_READY = { key: 'node.platform.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
const UNREACHABLE = { key: 'node.platform.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };

const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'registry.example/app:1', imagePullPolicy: 'IfNotPresent' }], ...spec },
});
const namespace = (name: string, annotations: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, annotations } });
const pods = (ns: string) => `/api/v1/namespaces/${ns}/pods`;

describe('admission: scheduling and restriction plugins', () => {
  let c: TestCluster;
  let dir: string;
  const create = async (p: string, body: unknown) => assertOk(await c.request('POST', p, { body }), 201);
  const forbidden = async (p: string, body: unknown, method = 'POST') => assertStatus(await c.request(method, p, { body }), 403, 'Forbidden').message as string;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'admission-scheduling-'));
    await writeFile(path.join(dir, 'node-selector.yaml'), YAML.stringify({ podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'pool=general', 'sel-team': 'env=prod,tier=web' } }));
    const configFile = await writeAdmissionConfig(dir, [
      { name: 'PodNodeSelector', path: 'node-selector.yaml' },
      { name: 'PodTolerationRestriction', configuration: { apiVersion: 'podtolerationrestriction.admission.k8s.io/v1alpha1', kind: 'Configuration', default: [], whitelist: [] } },
    ]);
    c = await startTestCluster({
      admission: {
        enable: [
          'PodNodeSelector',
          'PodTolerationRestriction',
          'ExtendedResourceToleration',
          'LimitPodHardAntiAffinityTopology',
          'AlwaysPullImages',
          'SecurityContextDeny',
          'DenyServiceExternalIPs',
          'DenyEscalatingExec',
          'NamespaceAutoProvision',
          'NamespaceExists',
        ],
        disable: ['ServiceAccount', 'NamespaceLifecycle'],
        configFile,
      },
    });
    await create('/api/v1/namespaces', namespace('sel-team', { [NODE_SELECTOR]: 'env=prod' }));
    await create(
      '/api/v1/namespaces',
      namespace('tol-team', {
        [WHITELIST]: JSON.stringify([
          { operator: 'Exists', effect: 'NoExecute' },
          { key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' },
        ]),
      }),
    );
  });

  after(async () => {
    await c?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a new pod gets the default tolerations, Always pull policy and the cluster default node selector', async () => {
    const created = await create(pods('default'), pod(uniq('web'), { initContainers: [{ name: 'i', image: 'registry.example/init:1' }] }));
    assert.deepEqual(created.spec.tolerations, [NOT_READY, UNREACHABLE]);
    assert.equal(created.spec.containers[0].imagePullPolicy, 'Always');
    assert.equal(created.spec.initContainers[0].imagePullPolicy, 'Always');
    assert.deepEqual(created.spec.nodeSelector, { pool: 'general' });
    // What was stored, not only what was answered.
    const stored = assertOk(await c.request('GET', `${pods('default')}/${created.metadata.name}`));
    assert.deepEqual(stored.spec, created.spec);
  });

  it('a pod requesting an extended resource tolerates its taint', async () => {
    const created = await create(
      pods('default'),
      pod(uniq('gpu'), { containers: [{ name: 'c', image: 'registry.example/cuda:1', resources: { requests: { 'example.com/gpu': '1' }, limits: { 'example.com/gpu': '1' } } }] }),
    );
    assert.deepEqual(created.spec.tolerations, [NOT_READY, UNREACHABLE, { key: 'example.com/gpu', operator: 'Exists', effect: 'NoSchedule' }]);
  });

  it('a new node gets the not-ready NoSchedule taint after its own', async () => {
    const name = uniq('node');
    const created = await create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] } });
    assert.deepEqual(created.spec.taints, [
      { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
      { key: 'node.platform.io/not-ready', effect: 'NoSchedule' },
    ]);
  });

  it('PodNodeSelector merges the namespace selector and refuses conflicts and selectors outside the whitelist', async () => {
    const created = await create(pods('sel-team'), pod(uniq('web'), { nodeSelector: { tier: 'web' } }));
    assert.deepEqual(created.spec.nodeSelector, { env: 'prod', tier: 'web' });
    assert.equal(
      await forbidden(pods('sel-team'), pod('conflicting', { nodeSelector: { env: 'dev' } })),
      'pods "conflicting" is forbidden: pod node label selector conflicts with its namespace node label selector',
    );
    assert.equal(
      await forbidden(pods('sel-team'), pod('elsewhere', { nodeSelector: { tier: 'db' } })),
      'pods "elsewhere" is forbidden: pod node label selector labels conflict with its namespace whitelist',
    );
  });

  it('PodTolerationRestriction refuses tolerations outside the namespace whitelist', async () => {
    const allowed = await create(pods('tol-team'), pod(uniq('web'), { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }] }));
    assert.equal(allowed.spec.tolerations.length, 3);
    assert.equal(
      await forbidden(pods('tol-team'), pod('db', { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' }] })),
      'pods "db" is forbidden: pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist',
    );
  });

  it('hard anti-affinity beyond the host and chosen user ids are refused', async () => {
    const antiAffinity = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'topology.platform.io/zone' }] } };
    assert.equal(
      await forbidden(pods('default'), pod('spread', { affinity: antiAffinity })),
      'pods "spread" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey topology.platform.io/zone but only key platform.io/hostname is allowed',
    );
    assert.equal(await forbidden(pods('default'), pod('root', { securityContext: { runAsUser: 0 } })), 'pods "root" is forbidden: pod.Spec.SecurityContext.RunAsUser is forbidden');
  });

  it('DenyServiceExternalIPs refuses new external IPs on create and update', async () => {
    const services = '/api/v1/namespaces/default/services';
    const svc = (name: string, externalIPs?: string[]) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }], ...(externalIPs ? { externalIPs } : {}) } });
    const denied = 'is forbidden: Use of external IPs is denied by admission control';
    assert.equal(await forbidden(services, svc('with-ips', ['192.0.2.10'])), `services "with-ips" ${denied}`);
    const created = await create(services, svc(uniq('plain')));
    const name = created.metadata.name;
    assert.equal(await forbidden(`${services}/${name}`, { ...created, spec: { ...created.spec, externalIPs: ['192.0.2.10'] } }, 'PUT'), `services "${name}" ${denied}`);
    const unchanged = assertOk(await c.request('PUT', `${services}/${name}`, { body: { ...created, metadata: { ...created.metadata, labels: { a: 'b' } } } }));
    assert.equal(unchanged.spec.externalIPs, undefined);
  });

  it('DenyEscalatingExec refuses exec into a pod on the host network before anything else', async () => {
    const host = await create(pods('default'), pod(uniq('host'), { hostNetwork: true }));
    const plain = await create(pods('default'), pod(uniq('plain')));
    const exec = (name: string) => c.request('POST', `${pods('default')}/${name}/exec?command=sh&stdin=true&stdout=true`);
    assert.equal(assertStatus(await exec(host.metadata.name), 403, 'Forbidden').message, `pods "${host.metadata.name}" is forbidden: cannot exec into or attach to a container using host network`);
    // Admitted: the pod itself then has no node to run the command on.
    assert.equal(assertStatus(await exec(plain.metadata.name), 400, 'BadRequest').message, `pod ${plain.metadata.name} does not have a host assigned`);
  });

  it('NamespaceAutoProvision creates the missing namespace as the API would, except on a dry run', async () => {
    const ns = uniq('auto');
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: '1' } };
    // A dry run creates nothing (NamespaceExists then refuses it).
    assertStatus(await c.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, { body: cm }), 404, 'NotFound');
    assertStatus(await c.request('GET', `/api/v1/namespaces/${ns}`), 404, 'NotFound');

    await create(`/api/v1/namespaces/${ns}/configmaps`, cm);
    const got = assertOk(await c.request('GET', `/api/v1/namespaces/${ns}`));
    const byApi = assertOk(await c.request('GET', '/api/v1/namespaces/sel-team'));
    assert.equal(got.status.phase, 'Active');
    assert.deepEqual(got.spec, byApi.spec);
    assert.deepEqual(got.metadata.labels, { 'platform.io/metadata.name': ns });
    const metaKeys = (m: Record<string, unknown>) =>
      Object.keys(m)
        .filter((k) => !['managedFields', 'annotations'].includes(k))
        .sort();
    assert.deepEqual(metaKeys(got.metadata), metaKeys(byApi.metadata));
    assertOk(await c.request('GET', `/api/v1/namespaces/${ns}/configmaps/settings`));
    // A second object in it finds the namespace there.
    await create(`/api/v1/namespaces/${ns}/configmaps`, { ...cm, metadata: { name: 'more' } });
  });

  it('NamespaceExists refuses a write in a namespace that does not exist', async () => {
    const ns = uniq('nowhere');
    // A dry run, so that NamespaceAutoProvision does not create it first.
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' } };
    const res = await c.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, { body: cm });
    assert.equal(assertStatus(res, 404, 'NotFound').message, `namespaces "${ns}" not found`);
  });
});
