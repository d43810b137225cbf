// End to end: ImagePolicyWebhook against a real HTTPS ImageReview backend on loopback (its own
// CA, a client certificate and token from a kubeconfig-format file named relative to the
// admission configuration). The backend refuses images under registry.example/untrusted/ and
// counts its calls, so the answer cache is seen from outside; it is stopped at the end to show
// defaultAllow failing open.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { createCA, issueClientCert, issueServingCert } from '../../shared/local/pki.js';
import { sendJson, startHttpsServer, type TestHttpsServer } from '../../shared/webhook/test/https-server.js';
import { assertOk, assertStatus, uniq } from './helpers.js';

const PODS = '/api/v1/namespaces/default/pods';
const UNTRUSTED = 'registry.example/untrusted/';
const CREDENTIAL = 'apiserver-to-image-policy';

interface Review {
  apiVersion: string;
  kind: string;
  spec: { containers?: Array<{ image?: string }>; annotations?: Record<string, string>; namespace?: string };
}

const pod = (name: string, images: string[], annotations?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) },
});

describe('ImagePolicyWebhook', () => {
  let c: TestCluster;
  let backend: TestHttpsServer;
  let dir: string;
  const reviews: Review[] = [];
  const authorizations: Array<string | undefined> = [];

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'image-policy-e2e-'));
    const ca = await createCA('image-policy-test-ca');
    const [serving, client] = await Promise.all([issueServingCert(ca, { ipAddresses: ['127.0.0.1'] }), issueClientCert(ca, { commonName: 'platform-apiserver' })]);
    backend = await startHttpsServer(
      serving,
      (req, res) => {
        const review = JSON.parse(req.body) as Review;
        reviews.push(review);
        authorizations.push(req.headers.authorization);
        const refused = (review.spec.containers ?? []).map((x) => x.image ?? '').filter((image) => image.startsWith(UNTRUSTED));
        const status = refused.length ? { allowed: false, reason: `${refused.join(', ')} not signed` } : { allowed: true, auditAnnotations: { 'signature-checked': 'true' } };
        sendJson(res, 200, { apiVersion: review.apiVersion, kind: 'ImageReview', status });
      },
      { clientCAPem: ca.certPem },
    );
    await writeFile(path.join(dir, 'ca.crt'), ca.certPem);
    await writeFile(path.join(dir, 'client.crt'), client.certPem);
    await writeFile(path.join(dir, 'client.key'), client.keyPem);
    const kubeconfig = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'image-policy', cluster: { server: `${backend.url}/review`, 'certificate-authority': 'ca.crt' } }],
      users: [{ name: 'apiserver', user: { 'client-certificate': 'client.crt', 'client-key': 'client.key', token: CREDENTIAL } }],
      contexts: [{ name: 'default', context: { cluster: 'image-policy', user: 'apiserver' } }],
      'current-context': 'default',
    };
    await writeFile(path.join(dir, 'image-policy.kubeconfig'), YAML.stringify(kubeconfig));
    const admissionConfig = {
      apiVersion: 'apiserver.config.platform.io/v1',
      kind: 'AdmissionConfiguration',
      plugins: [{ name: 'ImagePolicyWebhook', path: 'image-policy.yaml' }],
    };
    await writeFile(
      path.join(dir, 'image-policy.yaml'),
      YAML.stringify({ imagePolicy: { kubeConfigFile: 'image-policy.kubeconfig', allowTTL: 50, denyTTL: 50, retryBackoff: 10, defaultAllow: true } }),
    );
    const configFile = path.join(dir, 'admission.yaml');
    await writeFile(configFile, YAML.stringify(admissionConfig));
    c = await startTestCluster({ admission: { enable: ['ImagePolicyWebhook'], configFile } });
  });

  after(async () => {
    await c?.stop();
    await backend?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('pods - an allowed image is admitted after an ImageReview naming its images, forwarded annotations and namespace', async () => {
    const name = uniq('trusted');
    const annotations = { 'ticket.image-policy.platform.io/id': 'T-42', team: 'web' };
    const created = assertOk(await c.request('POST', PODS, { body: pod(name, ['registry.example/app:1', 'registry.example/sidecar:2'], annotations) }), 201);
    assert.equal(created.metadata.annotations['alpha.image-policy.platform.io/failed-open'], undefined);
    const review = reviews.at(-1)!;
    assert.equal(review.apiVersion, 'imagepolicy.platform.io/v1alpha1');
    assert.equal(review.kind, 'ImageReview');
    assert.deepEqual(review.spec, {
      containers: [{ image: 'registry.example/app:1' }, { image: 'registry.example/sidecar:2' }],
      annotations: { 'ticket.image-policy.platform.io/id': 'T-42' },
      namespace: 'default',
    });
    assert.equal(authorizations.at(-1), `Bearer ${CREDENTIAL}`, "the kubeconfig's credentials are presented");
  });

  it('pods - an image the backend refuses is forbidden with its reason, on create and on update', async () => {
    const name = uniq('untrusted');
    const refused = assertStatus(await c.request('POST', PODS, { body: pod(name, [`${UNTRUSTED}miner:1`]) }), 403, 'Forbidden');
    assert.equal(refused.message, `pods "${name}" is forbidden: image policy webhook backend denied one or more images: ${UNTRUSTED}miner:1 not signed`);
    assertStatus(await c.request('GET', `${PODS}/${name}`), 404);

    const ok = uniq('switch');
    const created = assertOk(await c.request('POST', PODS, { body: pod(ok, ['registry.example/app:1']) }), 201);
    created.spec.containers[0].image = `${UNTRUSTED}app:1`;
    const update = assertStatus(await c.request('PUT', `${PODS}/${ok}`, { body: created }), 403, 'Forbidden');
    assert.match(update.message, /image policy webhook backend denied one or more images/);
  });

  it('pods - answers are cached by review: the same images and annotations do not ask again', async () => {
    const images = ['registry.example/cached:1'];
    const before = reviews.length;
    assertOk(await c.request('POST', PODS, { body: pod(uniq('cache'), images) }), 201);
    assert.equal(reviews.length, before + 1);
    assertOk(await c.request('POST', PODS, { body: pod(uniq('cache'), images) }), 201);
    assertStatus(await c.request('POST', PODS, { body: pod(uniq('cache'), [`${UNTRUSTED}cached:1`]) }), 403);
    assertStatus(await c.request('POST', PODS, { body: pod(uniq('cache'), [`${UNTRUSTED}cached:1`]) }), 403);
    assert.equal(reviews.length, before + 2, 'one question per distinct review');
    assertOk(await c.request('POST', PODS, { body: pod(uniq('cache'), images, { 'x.image-policy.platform.io/why': 'new' }) }), 201);
    assert.equal(reviews.length, before + 3, 'a forwarded annotation makes another review');
  });

  it('pods - with the backend down defaultAllow admits and marks the pod; cached denials still stand', async () => {
    await backend.close();
    const name = uniq('open');
    const created = assertOk(await c.request('POST', PODS, { body: pod(name, ['registry.example/never-seen:1']) }), 201);
    assert.equal(created.metadata.annotations['alpha.image-policy.platform.io/failed-open'], 'true');
    assert.equal(assertOk(await c.request('GET', `${PODS}/${name}`)).metadata.annotations['alpha.image-policy.platform.io/failed-open'], 'true');
    assertStatus(await c.request('POST', PODS, { body: pod(uniq('cache'), [`${UNTRUSTED}cached:1`]) }), 403);
  });
});
