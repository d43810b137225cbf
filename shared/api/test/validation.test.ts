import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorMessage } from '../status.js';
import type { FieldError } from '../status.js';
import type { ObjectMeta } from '../types.js';
import { isDNS1123Label, isDNS1123Subdomain, isPathSegmentName, isQualifiedName, isValidLabelValue, validateObjectMeta, validateObjectMetaUpdate } from '../validation.js';

const long = (n: number, c = 'a') => c.repeat(n);

test('validation - name validators accept and reject like the upstream API', () => {
  const cases: Array<[string, (v: string) => FieldError[], string, boolean]> = [
    ['subdomain simple', isDNS1123Subdomain, 'my-app', true],
    ['subdomain dotted', isDNS1123Subdomain, 'my.config.v1', true],
    ['subdomain 253', isDNS1123Subdomain, `${long(63)}.${long(63)}.${long(63)}.${long(61)}`, true],
    ['subdomain 254', isDNS1123Subdomain, `${long(63)}.${long(63)}.${long(63)}.${long(62)}`, false],
    ['subdomain upper', isDNS1123Subdomain, 'MyApp', false],
    ['subdomain underscore', isDNS1123Subdomain, 'my_app', false],
    ['subdomain trailing dash', isDNS1123Subdomain, 'app-', false],
    ['subdomain leading dot', isDNS1123Subdomain, '.app', false],
    ['subdomain empty', isDNS1123Subdomain, '', false],
    ['label simple', isDNS1123Label, 'kube-system', true],
    ['label digits first', isDNS1123Label, '123-abc', true],
    ['label 63', isDNS1123Label, long(63), true],
    ['label 64', isDNS1123Label, long(64), false],
    ['label dot', isDNS1123Label, 'a.b', false],
    ['path segment colon', isPathSegmentName, 'system:node:n1', true],
    ['path segment upper', isPathSegmentName, 'Admin Role', true],
    ['path segment dot', isPathSegmentName, '.', false],
    ['path segment dotdot', isPathSegmentName, '..', false],
    ['path segment slash', isPathSegmentName, 'a/b', false],
    ['path segment percent', isPathSegmentName, 'a%2f', false],
    ['qualified plain', isQualifiedName, 'app', true],
    ['qualified prefixed', isQualifiedName, 'app.platform.io/name', true],
    ['qualified mixed case name', isQualifiedName, 'example.com/MyName_1.x', true],
    ['qualified name 64', isQualifiedName, long(64), false],
    ['qualified empty prefix', isQualifiedName, '/name', false],
    ['qualified empty name', isQualifiedName, 'example.com/', false],
    ['qualified upper prefix', isQualifiedName, 'Example.com/name', false],
    ['qualified two slashes', isQualifiedName, 'a/b/c', false],
    ['qualified bad start', isQualifiedName, '-name', false],
    ['label value empty', isValidLabelValue, '', true],
    ['label value mixed', isValidLabelValue, 'My_Value-1.0', true],
    ['label value 63', isValidLabelValue, long(63), true],
    ['label value 64', isValidLabelValue, long(64), false],
    ['label value space', isValidLabelValue, 'a b', false],
    ['label value trailing dot', isValidLabelValue, 'v1.', false],
  ];
  for (const [name, fn, value, ok] of cases) {
    const errs = fn(value);
    assert.equal(errs.length === 0, ok, `${name}: ${JSON.stringify(value)} -> ${JSON.stringify(errs)}`);
    for (const e of errs) assert.equal(e.type, 'Invalid value', name);
  }
});

test('validation - messages read like the upstream ones', () => {
  const [sub] = isDNS1123Subdomain('Foo');
  assert.equal(
    fieldErrorMessage(sub!),
    `metadata.name: Invalid value: "Foo": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
  );
  const [label] = isDNS1123Label('a.b', 'metadata.namespace');
  assert.match(label!.detail!, /^a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'/);
  assert.equal(label!.field, 'metadata.namespace');
  assert.deepEqual(
    isDNS1123Label(long(64)).map((e) => e.detail),
    ['must be no more than 63 characters'],
  );
  assert.deepEqual(
    isPathSegmentName('..').map((e) => e.detail),
    ["may not be '..'"],
  );
  assert.deepEqual(
    isQualifiedName('/x').map((e) => e.detail),
    ['prefix part must be non-empty'],
  );
});

const ns = { namespaced: true, nameRule: 'dns-subdomain' as const, isCreate: true };
const cluster = { namespaced: false, nameRule: 'dns-subdomain' as const, isCreate: true };

function summary(errs: FieldError[]): string[] {
  return errs.map((e) => `${e.field}: ${e.type}`);
}

test('validation - object metadata on create', () => {
  const cases: Array<[string, ObjectMeta, typeof ns, string[]]> = [
    ['valid namespaced', { name: 'web', namespace: 'default', labels: { app: 'web' } }, ns, []],
    ['name missing', { namespace: 'default' }, ns, ['metadata.name: Required value']],
    ['generateName instead of name', { generateName: 'web-', namespace: 'default' }, ns, []],
    ['generateName with bad prefix', { generateName: 'Web-', namespace: 'default' }, ns, ['metadata.generateName: Invalid value']],
    ['namespace missing', { name: 'web' }, ns, ['metadata.namespace: Required value']],
    ['namespace not a label', { name: 'web', namespace: 'my.ns' }, ns, ['metadata.namespace: Invalid value']],
    ['namespace on cluster type', { name: 'n1', namespace: 'default' }, cluster, ['metadata.namespace: Forbidden']],
    ['bad name', { name: 'Web', namespace: 'default' }, ns, ['metadata.name: Invalid value']],
    ['bad label key', { name: 'w', namespace: 'd', labels: { 'a b': 'x' } }, ns, ['metadata.labels: Invalid value']],
    ['bad label value', { name: 'w', namespace: 'd', labels: { a: 'x y' } }, ns, ['metadata.labels: Invalid value']],
    ['bad annotation key', { name: 'w', namespace: 'd', annotations: { 'a/b/c': 'x' } }, ns, ['metadata.annotations: Invalid value']],
    ['annotation values are free', { name: 'w', namespace: 'd', annotations: { 'platform.io/x': 'any thing!' } }, ns, []],
    ['finalizer invalid', { name: 'w', namespace: 'd', finalizers: ['bad finalizer'] }, ns, ['metadata.finalizers[0]: Invalid value']],
    ['finalizer duplicate', { name: 'w', namespace: 'd', finalizers: ['platform.io/x', 'platform.io/x'] }, ns, ['metadata.finalizers: Duplicate value']],
    ['negative generation', { name: 'w', namespace: 'd', generation: -1 }, ns, ['metadata.generation: Invalid value']],
    [
      'owner reference without uid',
      { name: 'w', namespace: 'd', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: '' }] },
      ns,
      ['metadata.ownerReferences[0].uid: Required value'],
    ],
    [
      'two controllers',
      {
        name: 'w',
        namespace: 'd',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'A', name: 'a', uid: '1', controller: true },
          { apiVersion: 'v1', kind: 'B', name: 'b', uid: '2', controller: true },
        ],
      },
      ns,
      ['metadata.ownerReferences: Invalid value'],
    ],
  ];
  for (const [name, meta, opts, want] of cases) {
    assert.deepEqual(summary(validateObjectMeta(meta, opts)), want, name);
  }
});

test('validation - name rules per type', () => {
  assert.deepEqual(validateObjectMeta({ name: 'system:controller:x' }, { ...cluster, nameRule: 'path-segment' }), []);
  assert.equal(validateObjectMeta({ name: 'a.b' }, { ...cluster, nameRule: 'dns-label' }).length, 1);
  // A trailing dash is fine in a prefix: a random suffix will follow it.
  assert.deepEqual(validateObjectMeta({ generateName: 'job-' }, { ...cluster, nameRule: 'dns-label' }), []);
  assert.deepEqual(validateObjectMeta({ generateName: '..' }, { ...cluster, nameRule: 'path-segment' }), []);
});

test('validation - namespace on a cluster-scoped type is forbidden with the upstream text', () => {
  const [e] = validateObjectMeta({ name: 'n1', namespace: 'default' }, cluster);
  assert.equal(fieldErrorMessage(e!), 'metadata.namespace: Forbidden: not allowed on this type');
});

test('validation - annotations are limited to 256 KiB in total', () => {
  const big = { name: 'w', namespace: 'd', annotations: { a: long(128 * 1024), b: long(128 * 1024) } };
  const errs = validateObjectMeta(big, ns);
  assert.equal(errs.length, 1);
  assert.equal(fieldErrorMessage(errs[0]!), 'metadata.annotations: Too long: must have at most 262144 bytes');
  const fits = { name: 'w', namespace: 'd', annotations: { a: long(128 * 1024 - 2) } };
  assert.deepEqual(validateObjectMeta(fits, ns), []);
});

test('validation - object metadata on update', () => {
  const old: ObjectMeta = {
    name: 'web',
    namespace: 'default',
    uid: 'u1',
    creationTimestamp: '2024-01-01T00:00:00Z',
    resourceVersion: '5',
  };
  const opts = { namespaced: true, nameRule: 'dns-subdomain' as const };
  const cases: Array<[string, ObjectMeta, string[]]> = [
    ['unchanged', { ...old, labels: { a: 'b' } }, []],
    ['rename', { ...old, name: 'other' }, ['metadata.name: Invalid value']],
    ['move namespace', { ...old, namespace: 'other' }, ['metadata.namespace: Invalid value']],
    ['new uid', { ...old, uid: 'u2' }, ['metadata.uid: Invalid value']],
    ['uid and creation time left out', { name: 'web', namespace: 'default' }, []],
    ['new creation time', { ...old, creationTimestamp: '2025-01-01T00:00:00Z' }, ['metadata.creationTimestamp: Invalid value']],
    ['same creation time, other spelling', { ...old, creationTimestamp: '2024-01-01T00:00:00.000Z' }, []],
    ['bad label still caught', { ...old, labels: { a: '-' } }, ['metadata.labels: Invalid value']],
  ];
  for (const [name, meta, want] of cases) {
    assert.deepEqual(summary(validateObjectMetaUpdate(meta, old, opts)), want, name);
  }
  const [imm] = validateObjectMetaUpdate({ ...old, name: 'other' }, old, opts);
  assert.equal(fieldErrorMessage(imm!), 'metadata.name: Invalid value: "other": field is immutable');
});

test('validation - a started deletion cannot be undone by an update', () => {
  const old: ObjectMeta = { name: 'web', namespace: 'd', deletionTimestamp: '2024-01-01T00:00:00Z', finalizers: ['platform.io/x'] };
  assert.deepEqual(summary(validateObjectMetaUpdate({ ...old, deletionTimestamp: undefined }, old)), ['metadata.deletionTimestamp: Invalid value']);
  // Removing finalizers is how a deletion completes: allowed.
  assert.deepEqual(validateObjectMetaUpdate({ ...old, finalizers: [] }, old), []);
});
