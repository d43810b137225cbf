// /openapi/v2 in protobuf (gnostic's openapi.v2.Document), end to end with upstream kubectl (skipped
// when kubectl is not on PATH): the document served on request with the JSON's ETag, `kubectl
// explain --output=plaintext-openapiv2` reading it, and `kubectl create -f` of review kinds
// validated client-side against it. The cluster serves the upstream group names too (as `npm
// start` does): kubectl's validation of a kind with no PATCH operation lists CRDs at
// apiextensions.k8s.io before it falls back to the OpenAPI schema.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { findKubectl, kubectlOk as ok, kubectlSuite } from '../support/kubectl.js';
import { decodeOpenApiV2 } from '../../shared/proto/openapi-v2.js';

const bin = findKubectl();
const skip = bin ? false : 'kubectl not on PATH: skipping the kubectl OpenAPI v2 suite';
if (!bin) console.log(skip);

const PB_AT = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const PB_DOT = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const OPENAPI_V2_FETCHED = /GET https:\/\/\S+\/openapi\/v2\S* 200 OK/;

describe('kubectl openapi v2', { skip }, () => {
  const s = kubectlSuite(bin, 'kubectl-openapi-v2-', { upstreamGroupAliases: true });

  it('openapi v2 - protobuf on request: the JSON document, its ETag (304 on If-None-Match), Vary: Accept', async () => {
    const json = await s.cluster.request('GET', '/openapi/v2');
    assert.equal(json.status, 200);
    for (const accept of [PB_AT, PB_DOT]) {
      const pb = await s.cluster.request('GET', '/openapi/v2', { headers: { accept } });
      assert.equal(pb.status, 200);
      assert.equal(pb.headers.get('content-type'), PB_DOT);
      assert.match(pb.headers.get('vary') ?? '', /\bAccept\b/);
      assert.equal(pb.headers.get('etag'), json.headers.get('etag'));
      const doc = decodeOpenApiV2(pb.bytes);
      assert.deepStrictEqual(doc.definitions, json.json.definitions);
      assert.deepStrictEqual(Object.keys(doc.paths as object), Object.keys(json.json.paths));
    }
    const cached = await s.cluster.request('GET', '/openapi/v2', { headers: { accept: PB_AT, 'if-none-match': json.headers.get('etag')! } });
    assert.equal(cached.status, 304);
    assert.equal(cached.bytes.length, 0);
  });

  it('kubectl explain pods --output=plaintext-openapiv2 - prints the pod fields read from the protobuf document', async () => {
    const r = await s.kubectl.run(['explain', 'pods', '--output=plaintext-openapiv2', '-v=6']);
    const out = ok(r);
    assert.match(r.stderr, OPENAPI_V2_FETCHED);
    assert.match(out, /^KIND:\s+Pod$/m);
    assert.match(out, /^VERSION:\s+v1$/m);
    for (const field of ['apiVersion', 'kind', 'metadata', 'spec', 'status']) assert.match(out, new RegExp(`^\\s+${field}\\t<`, 'm'), `${field} listed`);
    const containers = ok(await s.kubectl.run(['explain', 'pods.spec.containers', '--output=plaintext-openapiv2']));
    assert.match(containers, /^RESOURCE:\s+containers <\[\]Object>$/m);
    assert.match(containers, /^\s+image\t<string>$/m);
  });

  it('kubectl create -f <review kind> - validated against OpenAPI v2 in protobuf, without --validate=false', async () => {
    const ssar = path.join(s.dir, 'ssar.yaml');
    await writeFile(ssar, 'apiVersion: authorization.platform.io/v1\nkind: SelfSubjectAccessReview\nspec:\n  resourceAttributes:\n    verb: get\n    resource: pods\n    namespace: default\n');
    const r = await s.kubectl.run(['create', '-f', ssar, '-o', 'json', '-v=6']);
    // kubectl 1.32 looks in /openapi/v3 first; a kind with no PATCH operation sends it to v2.
    assert.match(r.stderr, OPENAPI_V2_FETCHED);
    assert.equal(JSON.parse(ok(r)).status.allowed, true);

    const tokenReview = path.join(s.dir, 'token-review.yaml');
    await writeFile(tokenReview, 'apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec:\n  token: not-a-token\n');
    const review = JSON.parse(ok(await s.kubectl.run(['create', '-f', tokenReview, '-o', 'json'])));
    assert.equal(review.kind, 'TokenReview');
    assert.equal(review.status.authenticated ?? false, false);

    // The schema came from the protobuf document: kubectl's own validator names the unknown field.
    const bad = path.join(s.dir, 'bad-ssar.yaml');
    await writeFile(bad, 'apiVersion: authorization.platform.io/v1\nkind: SelfSubjectAccessReview\nspec:\n  bogus: 1\n  resourceAttributes:\n    verb: get\n    resource: pods\n');
    const refused = await s.kubectl.run(['create', '-f', bad]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /error validating data: ValidationError\(SelfSubjectAccessReview\.spec\): unknown field "bogus"/);
  });
});
