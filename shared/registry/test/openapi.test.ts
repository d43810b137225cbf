import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convertSchema, definitionName, openApiV2, openApiV3, openApiV3GroupVersion, openApiV3Root } from '../openapi.js';
import type { OpenApiSource } from '../openapi.js';
import { Registry } from '../registry.js';
import type { ResourceType } from '../types.js';
import { fixtureSource } from './fixture-source.js';
import { createBuiltinRegistry } from '../builtin-registry.js';
import type { JsonSchema } from '../../api/types.js';

const deploymentSchema: JsonSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', format: 'int32' },
        strategy: {
          type: 'object',
          properties: { maxSurge: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } },
        },
        mode: { const: 'Fixed' },
        template: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
      additionalProperties: false,
    },
    status: { type: 'object', properties: { replicas: { type: 'integer' } } },
  },
};

const pods: ResourceType = {
  group: '',
  versions: [{ name: 'v1', schema: { type: 'object', properties: { spec: { type: 'object' } } } }],
  kind: 'Pod',
  plural: 'pods',
  singular: 'pod',
  scope: 'Namespaced',
  subresources: {
    status: true,
    others: [
      { name: 'log', kind: 'Pod', verbs: ['get'] },
      { name: 'exec', kind: 'PodExecOptions', verbs: ['create', 'get'] },
    ],
  },
};
const configmaps: ResourceType = {
  group: '',
  versions: [{ name: 'v1', schema: { type: 'object', properties: { data: { type: 'object', additionalProperties: { type: 'string' } } } } }],
  kind: 'ConfigMap',
  plural: 'configmaps',
  singular: 'configmap',
  scope: 'Namespaced',
};
const deployments: ResourceType = {
  group: 'apps',
  versions: [{ name: 'v1', schema: deploymentSchema }],
  kind: 'Deployment',
  plural: 'deployments',
  singular: 'deployment',
  scope: 'Namespaced',
  subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
};
const clusterroles: ResourceType = {
  group: 'rbac.authorization.platform.io',
  versions: [{ name: 'v1', schema: { type: 'object', properties: { rules: { type: 'array', items: { type: 'object' } } } } }],
  kind: 'ClusterRole',
  plural: 'clusterroles',
  singular: 'clusterrole',
  scope: 'Cluster',
};
const sar: ResourceType = {
  group: 'authorization.platform.io',
  versions: [{ name: 'v1', schema: { type: 'object', properties: { spec: { type: 'object' } } } }],
  kind: 'SubjectAccessReview',
  plural: 'subjectaccessreviews',
  singular: 'subjectaccessreview',
  scope: 'Cluster',
  virtual: true,
};

const source = fixtureSource;

const all = [pods, configmaps, deployments, clusterroles, sar];
const src = source(all);

type Json = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function operations(doc: Json): Array<{ path: string; method: string; op: Json }> {
  const out = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of METHODS) if (item[method]) out.push({ path, method, op: item[method] });
  }
  return out;
}

function refsIn(node: unknown, into: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refsIn(n, into));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref') into.push(v as string);
      else refsIn(v, into);
    }
  }
  return into;
}

test('openapi - definition names follow the upstream package layout', () => {
  assert.equal(definitionName('', 'v1', 'ConfigMap'), 'io.platform.api.core.v1.ConfigMap');
  assert.equal(definitionName('apps', 'v1', 'Deployment'), 'io.platform.api.apps.v1.Deployment');
  assert.equal(definitionName('rbac.authorization.platform.io', 'v1', 'Role'), 'io.platform.api.rbac.v1.Role');
  assert.equal(definitionName('stable.example.com', 'v1', 'CronTab'), 'com.example.stable.v1.CronTab');
});

test('openapi v2 - every served kind and list kind has a definition with its group-version-kind', () => {
  const doc = openApiV2(src, { title: 'Platform', version: 'v1.32.0' }) as Json;
  assert.equal(doc.swagger, '2.0');
  const expected = [
    ['', 'v1', 'Pod'],
    ['', 'v1', 'PodList'],
    ['', 'v1', 'ConfigMap'],
    ['', 'v1', 'ConfigMapList'],
    ['apps', 'v1', 'Deployment'],
    ['apps', 'v1', 'DeploymentList'],
    ['rbac.authorization.platform.io', 'v1', 'ClusterRole'],
    ['rbac.authorization.platform.io', 'v1', 'ClusterRoleList'],
    ['authorization.platform.io', 'v1', 'SubjectAccessReview'],
    ['autoscaling', 'v1', 'Scale'],
    ['', 'v1', 'Status'],
  ];
  for (const [group, version, kind] of expected) {
    const name = kind === 'Status' ? 'io.platform.apimachinery.pkg.apis.meta.v1.Status' : definitionName(group!, version!, kind!);
    const def = doc.definitions[name];
    assert.ok(def, name);
    assert.deepEqual(def['x-kubernetes-group-version-kind'], [{ group, version, kind }], name);
  }
  assert.equal(doc.definitions['io.platform.api.authorization.v1.SubjectAccessReviewList'], undefined);
  for (const meta of ['ObjectMeta', 'ListMeta', 'Status', 'DeleteOptions', 'WatchEvent']) {
    assert.ok(doc.definitions[`io.platform.apimachinery.pkg.apis.meta.v1.${meta}`], meta);
  }
  const deploy = doc.definitions['io.platform.api.apps.v1.Deployment'];
  assert.deepEqual(deploy.properties.metadata, { $ref: '#/definitions/io.platform.apimachinery.pkg.apis.meta.v1.ObjectMeta', description: 'Standard object metadata.' });
  assert.deepEqual(doc.definitions['io.platform.api.apps.v1.DeploymentList'].properties.items.items, { $ref: '#/definitions/io.platform.api.apps.v1.Deployment' });
  // Every reference resolves inside the document.
  for (const ref of refsIn(doc)) assert.ok(doc.definitions[ref.replace('#/definitions/', '')], ref);
});

test('openapi v2 - schemas are converted: int-or-string, const, $schema, boolean additionalProperties', () => {
  const doc = openApiV2(src) as Json;
  const deploy = doc.definitions['io.platform.api.apps.v1.Deployment'];
  const spec = deploy.properties.spec;
  assert.equal(deploy.$schema, undefined);
  assert.deepEqual(spec.properties.strategy.properties.maxSurge, { 'x-kubernetes-int-or-string': true, type: 'string', format: 'int-or-string' });
  assert.deepEqual(spec.properties.mode, { enum: ['Fixed'] });
  assert.equal(spec.additionalProperties, undefined);
  assert.equal(spec.properties.template['x-kubernetes-preserve-unknown-fields'], true);
  const meta = doc.definitions['io.platform.apimachinery.pkg.apis.meta.v1.ObjectMeta'];
  assert.equal(meta.properties.ownerReferences['x-kubernetes-patch-merge-key'], 'uid');
  assert.equal(meta.properties.creationTimestamp.nullable, undefined);
  assert.deepEqual(doc.definitions['io.platform.api.core.v1.ConfigMap'].properties.data, { type: 'object', additionalProperties: { type: 'string' } });
});

test('openapi v2 - a path and operation for each verb of a namespaced resource with subresources', () => {
  const doc = openApiV2(src) as Json;
  const p = doc.paths;
  const col = p['/apis/apps/v1/namespaces/{namespace}/deployments'];
  const item = p['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'];
  assert.deepEqual(
    Object.keys(col)
      .filter((k) => METHODS.includes(k))
      .sort(),
    ['delete', 'get', 'post'],
  );
  assert.deepEqual(
    Object.keys(item)
      .filter((k) => METHODS.includes(k))
      .sort(),
    ['delete', 'get', 'patch', 'put'],
  );
  assert.equal(col.get.operationId, 'listAppsV1NamespacedDeployment');
  assert.equal(col.get['x-kubernetes-action'], 'list');
  assert.equal(col.post['x-kubernetes-action'], 'post');
  assert.equal(col.delete['x-kubernetes-action'], 'deletecollection');
  assert.equal(item.put.operationId, 'replaceAppsV1NamespacedDeployment');
  assert.equal(item.patch['x-kubernetes-action'], 'patch');
  assert.deepEqual(item.patch['x-kubernetes-group-version-kind'], { group: 'apps', version: 'v1', kind: 'Deployment' });
  assert.ok(item.patch.consumes.includes('application/apply-patch+yaml'));
  assert.ok(item.patch.consumes.includes('application/strategic-merge-patch+json'));
  const names = (op: Json) => op.parameters.map((x: Json) => x.name);
  assert.deepEqual(names(item.patch).sort(), ['body', 'dryRun', 'fieldManager', 'fieldValidation', 'force']);
  assert.ok(names(col.get).includes('labelSelector') && names(col.get).includes('watch') && names(col.get).includes('limit'));
  assert.deepEqual(
    item.parameters.map((x: Json) => x.name),
    ['name', 'namespace', 'pretty'],
  );
  assert.deepEqual(col.post.responses['201'].schema, { $ref: '#/definitions/io.platform.api.apps.v1.Deployment' });
  assert.deepEqual(col.get.responses['200'].schema, { $ref: '#/definitions/io.platform.api.apps.v1.DeploymentList' });
  assert.ok(col.get.produces.includes('application/json;stream=watch'));

  assert.equal(p['/apis/apps/v1/deployments'].get.operationId, 'listAppsV1DeploymentForAllNamespaces');
  assert.equal(p['/apis/apps/v1/watch/namespaces/{namespace}/deployments'].get['x-kubernetes-action'], 'watchlist');
  assert.equal(p['/apis/apps/v1/watch/namespaces/{namespace}/deployments/{name}'].get['x-kubernetes-action'], 'watch');
  const scale = p['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'];
  assert.deepEqual(scale.put['x-kubernetes-group-version-kind'], { group: 'autoscaling', version: 'v1', kind: 'Scale' });
  assert.deepEqual(scale.get.responses['200'].schema, { $ref: '#/definitions/io.platform.api.autoscaling.v1.Scale' });
  const status = p['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/status'];
  assert.deepEqual(
    Object.keys(status)
      .filter((k) => METHODS.includes(k))
      .sort(),
    ['get', 'patch', 'put'],
  );
  assert.equal(status.patch.operationId, 'patchAppsV1NamespacedDeploymentStatus');

  const exec = p['/api/v1/namespaces/{namespace}/pods/{name}/exec'];
  assert.equal(exec.post['x-kubernetes-action'], 'connect');
  assert.equal(exec.get.operationId, 'connectGetCoreV1NamespacedPodExec');
  assert.deepEqual(p['/api/v1/namespaces/{namespace}/pods/{name}/log'].get.responses['200'].schema, { type: 'string' });
});

test('openapi v2 - cluster-scoped and virtual resources get the right paths', () => {
  const doc = openApiV2(src) as Json;
  assert.equal(doc.paths['/apis/rbac.authorization.platform.io/v1/clusterroles'].get.operationId, 'listRbacAuthorizationV1ClusterRole');
  assert.ok(doc.paths['/apis/rbac.authorization.platform.io/v1/clusterroles/{name}'].delete);
  assert.equal(doc.paths['/apis/rbac.authorization.platform.io/v1/namespaces/{namespace}/clusterroles'], undefined);
  const sarPaths = Object.keys(doc.paths).filter((k) => k.includes('subjectaccessreviews'));
  assert.deepEqual(sarPaths, ['/apis/authorization.platform.io/v1/subjectaccessreviews']);
  const sarItem = doc.paths[sarPaths[0]!];
  assert.deepEqual(
    Object.keys(sarItem).filter((k) => METHODS.includes(k)),
    ['post'],
  );
  assert.equal(sarItem.post.operationId, 'createAuthorizationV1SubjectAccessReview');
  assert.ok(doc.paths['/apis/'].get && doc.paths['/api/'].get && doc.paths['/version/'].get && doc.paths['/apis/apps/v1/'].get);
});

test('openapi v3 - root lists every group version and discovery document with its content hash', () => {
  const set = openApiV3(src);
  const keys = Object.keys(set.root.paths);
  for (const k of ['api', 'api/v1', 'apis', 'apis/apps', 'apis/apps/v1', 'apis/rbac.authorization.platform.io/v1', 'apis/authorization.platform.io/v1', 'version']) {
    assert.ok(keys.includes(k), k);
  }
  for (const [key, { serverRelativeURL }] of Object.entries(set.root.paths)) {
    const doc = set.documents.get(key)!;
    assert.equal(serverRelativeURL, `/openapi/v3/${key}?hash=${doc.serialized.hash}`);
    assert.match(doc.serialized.hash, /^[0-9A-F]{128}$/);
    assert.equal(doc.serialized.body, JSON.stringify(doc.document));
  }
  assert.deepEqual(openApiV3Root(src), set.root);
});

test('openapi v3 - a hash changes only when its document changes', () => {
  const before = openApiV3Root(src).paths;
  const changed: ResourceType = {
    ...deployments,
    versions: [{ name: 'v1', schema: { ...deploymentSchema, properties: { ...(deploymentSchema.properties as object), extra: { type: 'string' } } } }],
  };
  const after = openApiV3Root(source([pods, configmaps, changed, clusterroles, sar])).paths;
  assert.notEqual(after['apis/apps/v1']!.serverRelativeURL, before['apis/apps/v1']!.serverRelativeURL);
  assert.equal(after['api/v1']!.serverRelativeURL, before['api/v1']!.serverRelativeURL);
  assert.equal(after['apis/rbac.authorization.platform.io/v1']!.serverRelativeURL, before['apis/rbac.authorization.platform.io/v1']!.serverRelativeURL);
  assert.deepEqual(openApiV3Root(src).paths, before);
});

test('openapi v3 - every PATCH operation carries the fieldValidation query parameter (kubectl server-side validation probe)', () => {
  for (const [group, version] of [
    ['', 'v1'],
    ['apps', 'v1'],
    ['rbac.authorization.platform.io', 'v1'],
  ] as const) {
    const doc = openApiV3GroupVersion(src, group, version) as Json;
    assert.equal(doc.openapi, '3.0.0');
    const ops = operations(doc);
    const mutating = ops.filter(({ op }) => ['post', 'put', 'patch'].includes(op['x-kubernetes-action']));
    assert.ok(mutating.length > 0);
    for (const { path, op } of mutating) {
      const fv = op.parameters.find((x: Json) => x.name === 'fieldValidation');
      assert.ok(fv, `${path} ${op.operationId}`);
      assert.equal(fv.in, 'query');
      assert.deepEqual(fv.schema.type, 'string');
    }
    // kubectl looks up the first PATCH operation whose single-object GVK matches the kind.
    for (const s of src.resources(group, version)) {
      if (s.type.virtual) continue;
      const patch = ops.find(({ method, op }) => method === 'patch' && op['x-kubernetes-group-version-kind']?.kind === s.type.kind && op['x-kubernetes-group-version-kind']?.group === group);
      assert.ok(patch, s.type.kind);
      assert.ok(patch.op.parameters.some((x: Json) => x.name === 'fieldValidation' && x.in === 'query'));
    }
  }
});

test('openapi v3 - request bodies and responses carry JSON, YAML and the patch media types', () => {
  const doc = openApiV3GroupVersion(src, 'apps', 'v1') as Json;
  const item = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'];
  assert.deepEqual(Object.keys(item.patch.requestBody.content), [
    'application/json-patch+json',
    'application/merge-patch+json',
    'application/strategic-merge-patch+json',
    'application/apply-patch+yaml',
  ]);
  const put = item.put;
  assert.ok(put.requestBody.content['application/json']);
  assert.ok(put.requestBody.content['application/yaml']);
  assert.deepEqual(put.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/io.platform.api.apps.v1.Deployment' });
  assert.deepEqual(item.get.responses['200'].content['application/yaml'].schema, { $ref: '#/components/schemas/io.platform.api.apps.v1.Deployment' });
  assert.equal(item.delete.requestBody.content['application/json'].schema.$ref, '#/components/schemas/io.platform.apimachinery.pkg.apis.meta.v1.DeleteOptions');
});

test('openapi v3 - components hold the group version kinds with GVKs and every referenced schema', () => {
  const doc = openApiV3GroupVersion(src, 'apps', 'v1') as Json;
  const schemas = doc.components.schemas;
  assert.deepEqual(schemas['io.platform.api.apps.v1.Deployment']['x-kubernetes-group-version-kind'], [{ group: 'apps', version: 'v1', kind: 'Deployment' }]);
  assert.deepEqual(schemas['io.platform.api.apps.v1.DeploymentList']['x-kubernetes-group-version-kind'], [{ group: 'apps', version: 'v1', kind: 'DeploymentList' }]);
  assert.ok(schemas['io.platform.api.autoscaling.v1.Scale']);
  assert.equal(schemas['io.platform.api.core.v1.Pod'], undefined, 'other group versions stay out');
  for (const ref of refsIn(doc)) assert.ok(schemas[ref.replace('#/components/schemas/', '')], ref);
  const deploy = schemas['io.platform.api.apps.v1.Deployment'];
  assert.deepEqual(deploy.properties.metadata, { description: 'Standard object metadata.', allOf: [{ $ref: '#/components/schemas/io.platform.apimachinery.pkg.apis.meta.v1.ObjectMeta' }] });
  assert.deepEqual(deploy.properties.spec.properties.strategy.properties.maxSurge, { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });
  assert.equal(schemas['io.platform.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties.creationTimestamp.nullable, true);
  assert.equal(openApiV3GroupVersion(src, 'apps', 'v9'), undefined);
});

test('openapi - schema conversion handles draft-07 forms OpenAPI lacks', () => {
  assert.deepEqual(convertSchema({ type: ['string', 'null'] }, 'v3'), { type: 'string', nullable: true });
  assert.deepEqual(convertSchema({ type: ['string', 'null'] }, 'v2'), { type: 'string' });
  assert.deepEqual(convertSchema({ type: 'integer', exclusiveMinimum: 0 }, 'v3'), { type: 'integer', minimum: 0, exclusiveMinimum: true });
  assert.deepEqual(convertSchema({ anyOf: [{ type: 'string' }], oneOf: [{ type: 'string' }], not: {} }, 'v2'), {});
  assert.deepEqual(convertSchema({ type: 'object', required: [], patternProperties: { x: {} } }, 'v3'), { type: 'object' });
  // Quantities are int-or-string too; v3 normalises them to the integer/string anyOf.
  assert.deepEqual(convertSchema({ 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'number' }, { type: 'string' }] }, 'v3'), {
    'x-kubernetes-int-or-string': true,
    anyOf: [{ type: 'integer' }, { type: 'string' }],
  });
});

test('openapi - the registry itself is a source: documents build from its compiled object schemas', () => {
  const registry: OpenApiSource = new Registry(all);
  const v2 = openApiV2(registry) as Json;
  assert.deepEqual(v2.definitions['io.platform.api.apps.v1.Deployment']['x-kubernetes-group-version-kind'], [{ group: 'apps', version: 'v1', kind: 'Deployment' }]);
  const set = openApiV3(registry);
  const apps = set.documents.get('apis/apps/v1')!.document as Json;
  const patch = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
  assert.ok(patch.parameters.some((x: Json) => x.name === 'fieldValidation'));
  for (const ref of refsIn(apps)) assert.ok(apps.components.schemas[ref.replace('#/components/schemas/', '')], ref);
});

test('openapi v2 - a delete answers the deleted object where upstream returns it (pods, namespaces, ...), a Status elsewhere', () => {
  const p = (openApiV2(createBuiltinRegistry()) as Json).paths;
  const schemas = (path: string) => ['200', '202'].map((code) => p[path].delete.responses[code].schema.$ref);
  assert.deepEqual(schemas('/api/v1/namespaces/{namespace}/pods/{name}'), ['#/definitions/io.platform.api.core.v1.Pod', '#/definitions/io.platform.api.core.v1.Pod']);
  assert.deepEqual(schemas('/api/v1/namespaces/{name}'), ['#/definitions/io.platform.api.core.v1.Namespace', '#/definitions/io.platform.api.core.v1.Namespace']);
  const status = '#/definitions/io.platform.apimachinery.pkg.apis.meta.v1.Status';
  assert.deepEqual(schemas('/api/v1/namespaces/{namespace}/configmaps/{name}'), [status, status]);
});
