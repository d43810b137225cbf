// The pure halves of aggregated OpenAPI and of the published authentication information: what
// the backends' documents add to the gateway's, and the ConfigMap's data from the gateway's flags.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCA, issueClientCert } from '../../../shared/local/pki.js';
import { serializeDocument } from '../../../shared/registry/discovery.js';
import { v2Part } from '../aggregation/remote-openapi.js';
import { authenticationInfoData } from '../authentication-info.js';
import { mergeOpenApiV2, mergeOpenApiV3 } from '../routes/openapi-merge.js';

const GVK = [{ group: 'metrics.k8s.io', version: 'v1beta1', kind: 'NodeMetrics' }];
const backendV2 = {
  paths: {
    '/apis/metrics.k8s.io/v1beta1/nodes': { get: { responses: { '200': { schema: { $ref: '#/definitions/NodeMetricsList' } } } } },
    '/apis/metrics.k8s.io/v1beta2/nodes': {},
    '/apis/other.io/v1/things': {},
    '/api/v1/pods': { get: { description: "the backend's copy" } },
  },
  definitions: {
    NodeMetricsList: { properties: { items: { items: { $ref: '#/definitions/NodeMetrics' } } } },
    NodeMetrics: { properties: { metadata: { $ref: '#/definitions/ObjectMeta' } }, 'x-kubernetes-group-version-kind': GVK },
    ObjectMeta: { description: "the backend's ObjectMeta" },
    Unreferenced: {},
  },
};

test('aggregation openapi - v2: only the paths of the group/version, and the definitions they reach (its kinds included); the gateway keeps its own', () => {
  const part = v2Part(backendV2, 'metrics.k8s.io', 'v1beta1')!;
  assert.deepEqual(Object.keys(part.paths), ['/apis/metrics.k8s.io/v1beta1/nodes']);
  assert.equal(v2Part({ swagger: '2.0' }, 'metrics.k8s.io', 'v1beta1'), undefined);
  const own = { swagger: '2.0', paths: { '/api/v1/pods': { get: { description: 'ours' } } }, definitions: { ObjectMeta: { description: 'ours' } } };
  const merged = mergeOpenApiV2(own, [{ group: 'metrics.k8s.io', version: 'v1beta1', v2: { ...part, paths: { ...part.paths, '/api/v1/pods': backendV2.paths['/api/v1/pods'] } } }]);
  assert.deepEqual(Object.keys(merged.paths as object), ['/api/v1/pods', '/apis/metrics.k8s.io/v1beta1/nodes']);
  assert.deepEqual((merged.paths as any)['/api/v1/pods'], { get: { description: 'ours' } });
  assert.deepEqual(Object.keys(merged.definitions as object), ['NodeMetrics', 'NodeMetricsList', 'ObjectMeta']);
  assert.equal((merged.definitions as any).ObjectMeta.description, 'ours');
  assert.equal(mergeOpenApiV2(own, []), own, 'no backend: the same document');
});

test('aggregation openapi - v3: the backend document under apis/<g>/<v>, listed in the root with its hash; a key the gateway serves stays its own', () => {
  const ours = { openapi: '3.0.0', paths: {} };
  const own = { root: { paths: { 'api/v1': { serverRelativeURL: '/openapi/v3/api/v1?hash=A' } } }, documents: new Map([['api/v1', { document: ours, serialized: serializeDocument(ours) }]]) };
  const theirs = { openapi: '3.0.0', paths: { '/apis/metrics.k8s.io/v1beta1/nodes': {} } };
  const merged = mergeOpenApiV3(own, [
    { group: 'metrics.k8s.io', version: 'v1beta1', v3: theirs },
    { group: 'x.io', version: 'v1' },
  ]);
  assert.deepEqual(Object.keys(merged.root.paths), ['api/v1', 'apis/metrics.k8s.io/v1beta1']);
  assert.equal(merged.root.paths['apis/metrics.k8s.io/v1beta1']!.serverRelativeURL, `/openapi/v3/apis/metrics.k8s.io/v1beta1?hash=${serializeDocument(theirs).hash}`);
  assert.equal(merged.documents.get('apis/metrics.k8s.io/v1beta1')!.document, theirs);
  const shadow = mergeOpenApiV3(own, [
    { group: '', version: 'v1', v3: theirs },
    { group: 'a', version: 'v1', v3: theirs },
  ]);
  assert.equal(shadow.documents.get('api/v1')!.document, ours);
});

test('authentication info - the ConfigMap data as upstream writes it, from the flags given', async () => {
  const ca = await createCA('front-proxy-ca');
  const client = await issueClientCert(ca, { commonName: 'front-proxy-client' });
  const cases: Array<[string, Parameters<typeof authenticationInfoData>[0], Record<string, string> | undefined]> = [
    ['nothing configured: nothing published', {}, undefined],
    ['client CA only', { clientCA: 'CLIENT' }, { 'client-ca-file': 'CLIENT' }],
    [
      'front proxy: its CA, the headers the proxy fills in, its certificate name',
      { clientCA: 'CLIENT', requestHeaderCA: ca.certPem, proxyClientCert: client.certPem },
      {
        'client-ca-file': 'CLIENT',
        'requestheader-client-ca-file': ca.certPem,
        'requestheader-username-headers': '["X-Remote-User"]',
        'requestheader-group-headers': '["X-Remote-Group"]',
        'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
        'requestheader-allowed-names': '["front-proxy-client"]',
      },
    ],
    [
      'a requestheader CA without a proxy certificate: any name',
      { requestHeaderCA: 'CA' },
      {
        'requestheader-client-ca-file': 'CA',
        'requestheader-username-headers': '["X-Remote-User"]',
        'requestheader-group-headers': '["X-Remote-Group"]',
        'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
        'requestheader-allowed-names': '[]',
      },
    ],
  ];
  for (const [name, info, want] of cases) assert.deepEqual(authenticationInfoData(info), want, name);
});
