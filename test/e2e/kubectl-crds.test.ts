// CustomResourceDefinitions with upstream kubectl (skipped when kubectl is not on PATH): applying a
// real-world definition, reading it back (tables, JSON and protobuf), and the 422 a non-structural
// schema gets, worded as upstream words it. Serving the resources a definition describes is not
// tested here; only the definition as an object.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { findKubectl, kubectlOk as ok, kubectlSuite } from '../support/kubectl.js';
import { assertOk } from './helpers.js';
import { certManagerCertificate, nonStructural } from '../../shared/registry/test/crd-fixtures.js';

const bin = findKubectl();
const skip = bin ? false : 'kubectl not on PATH: skipping the kubectl CRD suite';
if (!bin) console.log(skip);

const GV = 'apiextensions.platform.io/v1';

describe('kubectl - customresourcedefinitions', { skip }, () => {
  const s = kubectlSuite(bin, 'kubectl-crds-');

  it('kubectl api-resources - lists customresourcedefinitions with their short names', async () => {
    const out = ok(await s.kubectl.run(['api-resources', '--api-group=apiextensions.platform.io']));
    assert.match(out, /^customresourcedefinitions\s+crd,crds\s+apiextensions\.platform\.io\/v1\s+false\s+CustomResourceDefinition\s*$/m);
  });

  it('kubectl apply -f - a real-world definition is created with v1 defaults, then unchanged; get and describe read it', async () => {
    const file = path.join(s.dir, 'certificates.json');
    await writeFile(file, JSON.stringify({ ...certManagerCertificate, apiVersion: GV }));
    assert.equal(ok(await s.kubectl.run(['apply', '-f', file])).trim(), 'customresourcedefinition.apiextensions.platform.io/certificates.cert-manager.io created');
    assert.equal(ok(await s.kubectl.run(['apply', '-f', file])).trim(), 'customresourcedefinition.apiextensions.platform.io/certificates.cert-manager.io unchanged');

    const got = JSON.parse(ok(await s.kubectl.run(['get', 'crd', 'certificates.cert-manager.io', '-o', 'json'])));
    assert.deepEqual(got.status.storedVersions, ['v1']);
    assert.equal(got.spec.conversion.webhook.clientConfig.service.port, 443);
    assert.equal(got.metadata.generation, 1);
    assert.match(ok(await s.kubectl.run(['get', 'crds'])), /^certificates\.cert-manager\.io\s+\d{4}-\d\d-\d\dT/m);
    // describe reads with Accept: protobuf.
    assert.match(ok(await s.kubectl.run(['describe', 'crd', 'certificates.cert-manager.io'])), /Group:\s+cert-manager\.io/);
    const stored = assertOk(await s.cluster.request('GET', `/apis/${GV}/customresourcedefinitions/certificates.cert-manager.io`));
    assert.equal(stored.spec.versions[0].deprecationWarning, (certManagerCertificate.spec as any).versions[0].deprecationWarning);
  });

  it('kubectl create -f - a non-structural schema is refused with upstream’s paths and messages', async () => {
    const file = path.join(s.dir, 'crontabs.json');
    await writeFile(file, JSON.stringify({ ...nonStructural, apiVersion: GV }));
    const bad = await s.kubectl.run(['create', '-f', file]);
    assert.notEqual(bad.code, 0, bad.stdout);
    assert.match(bad.stderr, /The CustomResourceDefinition "crontabs\.stable\.example\.com" is invalid: \n\* spec\.validation\.openAPIV3Schema/);
    assert.match(bad.stderr, /spec\.validation\.openAPIV3Schema\.type: Required value: must not be empty at the root/);
    assert.match(bad.stderr, /spec\.validation\.openAPIV3Schema\.properties\[spec\]\.type: Required value: must not be empty for specified object fields/);
    assert.equal((await s.cluster.request('GET', `/apis/${GV}/customresourcedefinitions/crontabs.stable.example.com`)).status, 404);
  });

  it('kubectl edit-style update - a version in status.storedVersions may not be removed', async () => {
    const name = 'certificates.cert-manager.io';
    const current = JSON.parse(ok(await s.kubectl.run(['get', 'crd', name, '-o', 'json'])));
    current.spec.versions = current.spec.versions.filter((v: { name: string }) => v.name !== 'v1alpha2');
    const file = path.join(s.dir, 'fewer-versions.json');
    // Storing through v1alpha2 once puts it in storedVersions: flip storage to it and back.
    const flip = structuredClone(current);
    flip.spec.versions = (certManagerCertificate.spec as any).versions.map((v: { name: string }) => ({ ...v, storage: v.name === 'v1alpha2' }));
    flip.spec.conversion = current.spec.conversion;
    await writeFile(file, JSON.stringify(flip));
    ok(await s.kubectl.run(['replace', '-f', file]));
    const after = JSON.parse(ok(await s.kubectl.run(['get', 'crd', name, '-o', 'json'])));
    assert.deepEqual(after.status.storedVersions, ['v1', 'v1alpha2']);
    current.metadata.resourceVersion = after.metadata.resourceVersion;
    await writeFile(file, JSON.stringify(current));
    const bad = await s.kubectl.run(['replace', '-f', file]);
    assert.notEqual(bad.code, 0, bad.stdout);
    assert.match(bad.stderr, /status\.storedVersions\[1\]: Invalid value: "v1alpha2": must appear in spec\.versions/);
  });
});
