// Conversions asked for with `as=`: which Accept headers select them, and the Table and
// PartialObjectMetadata values they make of objects, lists and watch events.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../api/status.js';
import type { TableColumn } from '../../api/table-column.js';
import type { CachedObject } from '../cached-object.js';
import { parseIncludeObject, responseEncoder, watchEncoder, type Body, type Convertible } from '../index.js';

const cached = (name: string, revision: number, replicas: number): CachedObject => ({
  ref: { group: 'apps', resource: 'deployments', namespace: 'ns', name },
  sortKey: `ns/${name}`,
  revision,
  object: {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'ns', resourceVersion: String(revision), creationTimestamp: '2026-01-02T03:04:05Z', labels: { app: name } },
    spec: { replicas },
  },
});

const replicasColumn: TableColumn = { name: 'Replicas', type: 'integer', cell: (o) => (o.spec as { replicas: number }).replicas };
const wideColumn: TableColumn = { name: 'Wide', type: 'string', priority: 1, description: 'only with -o wide', cell: () => 'w' };
const deployments: Convertible = { list: false, columns: [replicasColumn, wideColumn], includeObject: 'Metadata' };
const listOf = (c: Convertible): Convertible => ({ ...c, list: true });

const stored: Body = { kind: 'stored', object: cached('a', 7, 3), transform: null };
const page: Body = {
  kind: 'list',
  apiVersion: 'apps/v1',
  listKind: 'DeploymentList',
  metadata: { resourceVersion: '9', continue: 'tok', remainingItemCount: 4 },
  items: [cached('a', 7, 3), cached('b', 8, 1)],
  transform: null,
};

const TABLE_K8S = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

function decode(enc: { encode(b: Body, p: boolean): string | Buffer }, body: Body): any {
  return JSON.parse(String(enc.encode(body, false)));
}

describe('conversions - negotiation', () => {
  const cases: Array<[string, string, Convertible, string]> = [
    ['kubectl get (upstream meta group)', TABLE_K8S, deployments, 'application/json;as=Table;g=meta.k8s.io;v=v1'],
    ['the platform meta group', 'application/json;as=Table;g=meta.platform.io;v=v1', deployments, 'application/json;as=Table;g=meta.platform.io;v=v1'],
    ['v1beta1 tables', 'application/json;as=Table;g=meta.k8s.io;v=v1beta1', deployments, 'application/json;as=Table;g=meta.k8s.io;v=v1beta1'],
    ['YAML tables', 'application/yaml;as=Table;g=meta.k8s.io;v=v1', deployments, 'application/yaml;as=Table;g=meta.k8s.io;v=v1'],
    [
      'protobuf first falls through to JSON',
      'application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1,application/json;as=Table;g=meta.k8s.io;v=v1',
      deployments,
      'application/json;as=Table;g=meta.k8s.io;v=v1',
    ],
    ['a type without a table falls back to plain JSON', TABLE_K8S, { ...deployments, columns: null }, 'application/json'],
    ['metadata of one object', 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json', deployments, 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1'],
    [
      'metadata of a list',
      'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
      listOf(deployments),
      'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
    ],
    ['a list asked for single-object metadata gets plain JSON', 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json', listOf(deployments), 'application/json'],
    ['another brand of meta group is not ours to convert to', 'application/json;as=Table;g=meta.example.com;v=v1,application/yaml', deployments, 'application/yaml'],
  ];
  for (const [what, accept, c, mediaType] of cases) {
    it(`${what} → ${mediaType}`, () => assert.equal(responseEncoder(accept, c).mediaType, mediaType));
  }

  it('406 when only a conversion the endpoint cannot make is acceptable (a review kind asked for a Table)', () => {
    assert.throws(
      () => responseEncoder('application/json;as=Table;g=meta.k8s.io;v=v1', { ...deployments, columns: null }),
      (e: StatusError) => e.code === 406,
    );
    assert.throws(
      () => responseEncoder('application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1', deployments),
      (e: StatusError) => e.code === 406,
    );
  });

  it('includeObject: None, Metadata, Object, default Metadata; anything else is 400', () => {
    assert.equal(parseIncludeObject(new URLSearchParams()), 'Metadata');
    for (const v of ['None', 'Metadata', 'Object'] as const) assert.equal(parseIncludeObject(new URLSearchParams({ includeObject: v })), v);
    assert.throws(
      () => parseIncludeObject(new URLSearchParams({ includeObject: 'all' })),
      (e: StatusError) => e.code === 400,
    );
  });
});

describe('conversions - Table', () => {
  it('one object: Name first, the type columns with their priorities, resourceVersion, metadata rows', () => {
    const t = decode(responseEncoder(TABLE_K8S, deployments), stored);
    assert.equal(t.kind, 'Table');
    assert.equal(t.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(t.metadata, { resourceVersion: '7' });
    assert.deepEqual(
      t.columnDefinitions.map((c: any) => [c.name, c.type, c.format, c.priority]),
      [
        ['Name', 'string', 'name', 0],
        ['Replicas', 'integer', '', 0],
        ['Wide', 'string', '', 1],
      ],
    );
    assert.deepEqual(t.rows, [{ cells: ['a', 3, 'w'], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: cached('a', 7, 3).object.metadata } }]);
  });

  it('a list page keeps continue and remainingItemCount, one row per item', () => {
    const t = decode(responseEncoder(TABLE_K8S, listOf(deployments)), page);
    assert.deepEqual(t.metadata, { resourceVersion: '9', continue: 'tok', remainingItemCount: 4 });
    assert.deepEqual(
      t.rows.map((r: any) => r.cells),
      [
        ['a', 3, 'w'],
        ['b', 1, 'w'],
      ],
    );
  });

  it('includeObject=None drops the object, Object carries it whole', () => {
    assert.equal(decode(responseEncoder(TABLE_K8S, { ...deployments, includeObject: 'None' }), stored).rows[0].object, undefined);
    assert.deepEqual(decode(responseEncoder(TABLE_K8S, { ...deployments, includeObject: 'Object' }), stored).rows[0].object, cached('a', 7, 3).object);
  });

  it('a type without columns gets Name and Created At', () => {
    const t = decode(responseEncoder(TABLE_K8S, { ...deployments, columns: undefined }), stored);
    assert.deepEqual(
      t.columnDefinitions.map((c: any) => [c.name, c.type]),
      [
        ['Name', 'string'],
        ['Created At', 'date'],
      ],
    );
    assert.deepEqual(t.rows[0].cells, ['a', '2026-01-02T03:04:05Z']);
  });
});

describe('conversions - PartialObjectMetadata', () => {
  it('one object and a list, in the group and version asked for', () => {
    const one = decode(responseEncoder('application/json;as=PartialObjectMetadata;g=meta.platform.io;v=v1beta1', deployments), stored);
    assert.deepEqual(one, { kind: 'PartialObjectMetadata', apiVersion: 'meta.platform.io/v1beta1', metadata: cached('a', 7, 3).object.metadata });
    const list = decode(responseEncoder('application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1', listOf(deployments)), page);
    assert.equal(list.kind, 'PartialObjectMetadataList');
    assert.deepEqual(list.metadata, { resourceVersion: '9', continue: 'tok', remainingItemCount: 4 });
    assert.deepEqual(
      list.items.map((i: any) => [i.kind, i.metadata.name, i.spec]),
      [
        ['PartialObjectMetadata', 'a', undefined],
        ['PartialObjectMetadata', 'b', undefined],
      ],
    );
  });
});

describe('conversions - watch events', () => {
  const lines = (enc: ReturnType<typeof watchEncoder>) => [
    JSON.parse(String(enc.event({ type: 'MODIFIED', object: cached('a', 7, 3), transform: null }))),
    JSON.parse(String(enc.event({ type: 'BOOKMARK', apiVersion: 'apps/v1', kind: 'Deployment', metadata: { resourceVersion: '12' } }))),
    JSON.parse(String(enc.event({ type: 'ERROR', status: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'gone', reason: 'Expired', code: 410 } }))),
  ];

  it('kubectl get -w: each change is a one-row Table; bookmarks are empty tables; errors stay Status', () => {
    const [change, bookmark, error] = lines(watchEncoder(TABLE_K8S, deployments));
    assert.equal(change.type, 'MODIFIED');
    assert.equal(change.object.kind, 'Table');
    assert.deepEqual(change.object.rows[0].cells, ['a', 3, 'w']);
    assert.deepEqual(bookmark, { type: 'BOOKMARK', object: { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '12' }, columnDefinitions: [], rows: [] } });
    assert.equal(error.object.kind, 'Status');
  });

  it('a metadata informer watches PartialObjectMetadata', () => {
    const [change, bookmark] = lines(watchEncoder('application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json', deployments));
    assert.deepEqual(change.object, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: cached('a', 7, 3).object.metadata });
    assert.equal(bookmark.object.metadata.resourceVersion, '12');
  });

  it('no conversion asked: plain JSON lines', () => {
    const [change] = lines(watchEncoder('application/json', deployments));
    assert.equal(change.object.kind, 'Deployment');
  });
});
