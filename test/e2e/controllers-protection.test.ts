// End to end: the pvc-protection and pv-protection controllers of the controllers service, run
// in-process against a cluster that authorizes with Node,RBAC, each controller acting as its own
// service account (so their bootstrap roles are proven to suffice). What is asserted is what a
// user sees after `kubectl delete`: a claim a pod uses, or a bound volume, stays Terminating until
// nothing uses it and then goes; anything unused goes at once; a finalizer taken off an object
// that is not being deleted comes back.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { issueClientCert } from '../../shared/local/pki.js';
import { writeKubeconfig } from '../../shared/local/kubeconfig.js';
import { loadClientConfig } from '../../shared/client/config.js';
import { ApiClient } from '../../shared/client/rest.js';
import { createControllersService, type ControllersService } from '../../services/controllers/service.js';
import { assertOk, createNamespace, eventually, sleep, uniq } from './helpers.js';

const USER = 'system:platform-controller-manager';
const PVC_FINALIZER = 'platform.io/pvc-protection';
const PV_FINALIZER = 'platform.io/pv-protection';
const VOLUMES = '/api/v1/persistentvolumes';

const claim = (name: string) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
});

/** A pod mounting `claimName`; `node` set means scheduled (bound to that node). */
const pod = (name: string, claimName: string, node?: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    ...(node ? { nodeName: node } : {}),
    containers: [{ name: 'app', image: 'registry.example/app:1', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
    volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }],
  },
});

const volume = (name: string) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/data/${name}` } },
});

describe('pvc-protection and pv-protection (in-process, as their own service accounts under RBAC)', { timeout: 60_000 }, () => {
  let c: TestCluster;
  let dir: string;
  let controllers: ControllersService;
  const logged: string[] = [];

  before(async () => {
    c = await startTestCluster({ authorizationModes: ['Node', 'RBAC'], fullAuthn: true });
    await eventually(
      'the default policy is written',
      async () => {
        for (const role of ['pvc-protection-controller', 'pv-protection-controller'])
          assertOk(await c.request('GET', `/apis/rbac.authorization.platform.io/v1/clusterrolebindings/system:controller:${role}`));
      },
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    dir = await mkdtemp(path.join(os.tmpdir(), 'platform-protection-e2e-'));
    const cert = await issueClientCert(c.ca, { commonName: USER });
    const kubeconfig = path.join(dir, 'controllers.kubeconfig');
    await writeKubeconfig(kubeconfig, { server: c.url, caPem: c.caPem, clientCertPem: cert.certPem, clientKeyPem: cert.keyPem, certUserName: USER });
    const client = new ApiClient(await loadClientConfig({ env: { PLATFORMCONFIG: kubeconfig } }));
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (logged.push(chunk.toString('utf8')), done()) });
    controllers = createControllersService({ client, log: pino({ level: 'info' }, sink), config: { controllers: ['pvc-protection', 'pv-protection'], useServiceAccountCredentials: true } });
    await controllers.leading;
  });
  after(async () => {
    await controllers?.stop();
    await c?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
    assert.doesNotMatch(logged.join(''), /forbidden/, 'no controller was refused by RBAC');
  });

  const claims = (ns: string, name?: string) => `/api/v1/namespaces/${ns}/persistentvolumeclaims${name ? `/${name}` : ''}`;
  const pods = (ns: string, name?: string) => `/api/v1/namespaces/${ns}/pods${name ? `/${name}` : ''}`;

  async function create(p: string, body: unknown): Promise<any> {
    return assertOk(await c.request('POST', p, { body }), 201);
  }
  async function gone(what: string, p: string): Promise<void> {
    await eventually(
      `${what} is gone`,
      async () => {
        const r = await c.request('GET', p);
        assert.equal(r.status, 404, `${r.status} ${r.text.slice(0, 300)}`);
      },
      { timeoutMs: 5_000, intervalMs: 50 },
    );
  }
  /** Still there, marked deleted, held by `finalizer` alone. */
  async function terminating(p: string, finalizer: string): Promise<void> {
    const o = assertOk(await c.request('GET', p));
    assert.ok(o.metadata.deletionTimestamp, 'marked deleted');
    assert.deepEqual(o.metadata.finalizers, [finalizer]);
  }
  async function setPhase(p: string, phase: string): Promise<void> {
    const o = assertOk(await c.request('GET', p));
    assertOk(await c.request('PUT', `${p}/status`, { body: { ...o, status: { ...o.status, phase } } }));
  }

  it('a claim a scheduled pod uses stays Terminating until the pod is deleted; claims no scheduled pod uses go at once', async () => {
    const ns = uniq('pvc-protect');
    await createNamespace(c, ns);
    for (const name of ['used', 'unused', 'unscheduled']) await create(claims(ns), claim(name));
    await create(pods(ns), pod('web', 'used', 'node-a'));
    await create(pods(ns), pod('waiting', 'unscheduled'));

    const deleted = assertOk(await c.request('DELETE', claims(ns, 'used')));
    assert.ok(deleted.metadata.deletionTimestamp, 'the delete only marks a protected claim');
    assertOk(await c.request('DELETE', claims(ns, 'unused')));
    assertOk(await c.request('DELETE', claims(ns, 'unscheduled')));
    await gone('the unused claim', claims(ns, 'unused'));
    await gone('the claim only an unscheduled pod names', claims(ns, 'unscheduled'));
    // One queue in order: the used claim was looked at before those two went.
    await terminating(claims(ns, 'used'), PVC_FINALIZER);

    assertOk(await c.request('DELETE', `${pods(ns, 'web')}?gracePeriodSeconds=0`));
    await gone('the claim once its pod is deleted', claims(ns, 'used'));
  });

  it('a claim stays while its pod runs and goes once the pod has finished', async () => {
    const ns = uniq('pvc-finish');
    await createNamespace(c, ns);
    await create(claims(ns), claim('results'));
    await create(pods(ns), pod('job', 'results', 'node-a'));
    await setPhase(pods(ns, 'job'), 'Running');
    assertOk(await c.request('DELETE', claims(ns, 'results')));
    await sleep(500);
    await terminating(claims(ns, 'results'), PVC_FINALIZER);
    await setPhase(pods(ns, 'job'), 'Succeeded');
    await gone('the claim of the finished pod', claims(ns, 'results'));
    assertOk(await c.request('GET', pods(ns, 'job')), 200);
  });

  it('a bound volume stays Terminating until its phase is Released; an unbound one goes at once', async () => {
    const bound = uniq('pv-bound');
    const free = uniq('pv-free');
    for (const name of [bound, free]) assert.deepEqual((await create(VOLUMES, volume(name))).metadata.finalizers, [PV_FINALIZER]);
    await setPhase(`${VOLUMES}/${bound}`, 'Bound');
    assertOk(await c.request('DELETE', `${VOLUMES}/${bound}`));
    assertOk(await c.request('DELETE', `${VOLUMES}/${free}`));
    await gone('the unbound volume', `${VOLUMES}/${free}`);
    await terminating(`${VOLUMES}/${bound}`, PV_FINALIZER);
    await setPhase(`${VOLUMES}/${bound}`, 'Released');
    await gone('the released volume', `${VOLUMES}/${bound}`);
  });

  it('a protection finalizer taken off a claim or a volume that is not being deleted is put back', async () => {
    const ns = uniq('pvc-readd');
    await createNamespace(c, ns);
    await create(claims(ns), claim('data'));
    const pvName = uniq('pv-readd');
    await create(VOLUMES, volume(pvName));
    for (const p of [claims(ns, 'data'), `${VOLUMES}/${pvName}`]) {
      const o = assertOk(await c.request('GET', p));
      assert.deepEqual(assertOk(await c.request('PUT', p, { body: { ...o, metadata: { ...o.metadata, finalizers: [] } } })).metadata.finalizers ?? [], []);
    }
    await eventually(
      'the finalizers are back',
      async () => {
        assert.deepEqual(assertOk(await c.request('GET', claims(ns, 'data'))).metadata.finalizers, [PVC_FINALIZER]);
        assert.deepEqual(assertOk(await c.request('GET', `${VOLUMES}/${pvName}`)).metadata.finalizers, [PV_FINALIZER]);
      },
      { timeoutMs: 5_000, intervalMs: 50 },
    );
    assertOk(await c.request('DELETE', `${VOLUMES}/${pvName}`));
    await gone('the volume', `${VOLUMES}/${pvName}`);
  });
});
