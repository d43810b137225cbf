// Types added and removed while the server runs (what CustomResourceDefinitions need): they enter
// through `define`, the same door as the built-in types, and every lookup follows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ApiObject, JsonSchema } from '../../api/types.js';
import { BUILTIN_TYPES, Registry } from '../registry.js';
import type { ResourceType } from '../types.js';
import { builtinTypes } from '../builtin-types.js';
import { apiGroupList, apiResourceList } from '../discovery.js';

const spec: JsonSchema = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', minimum: 1 } }, additionalProperties: false } } };

function crontab(extra: Partial<ResourceType> = {}): ResourceType {
  return {
    group: 'stable.example.com',
    kind: 'CronTab',
    listKind: 'CronTabList',
    plural: 'crontabs',
    singular: 'crontab',
    scope: 'Namespaced',
    shortNames: ['ct'],
    versions: [{ name: 'v1', schema: spec }],
    ...extra,
  } as ResourceType;
}

const object = (size: unknown): ApiObject => ({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'a', namespace: 'default' }, spec: { size } }) as ApiObject;

test('runtime types - a defined type is looked up, listed, discovered and validated like a built-in one', () => {
  const r = new Registry([...builtinTypes]);
  const changes: number[] = [];
  r.onChange(() => changes.push(r.generation));
  assert.equal(r.lookup('stable.example.com', 'v1', 'crontabs'), undefined);
  r.define('crd', [crontab()]);
  const served = r.lookup('stable.example.com', 'v1', 'crontabs');
  assert.ok(served);
  assert.equal(r.lookupKind('stable.example.com', 'v1', 'CronTab'), served);
  assert.deepEqual(r.lookupShortName('ct'), [served]);
  assert.equal(r.group('stable.example.com')?.preferredVersion, 'v1');
  assert.ok(r.all().includes(served));
  // Discovery lists it after every built-in group, as upstream lists custom groups.
  const groups = apiGroupList(r).groups.map((g) => g.name);
  assert.equal(groups.at(-1), 'stable.example.com');
  assert.deepEqual(
    apiResourceList(r, 'stable.example.com', 'v1')?.resources.map((x) => x.name),
    ['crontabs'],
  );
  assert.deepEqual(r.validate(served, object(3)), []);
  assert.match(JSON.stringify(r.validate(served, object(0))), /spec\.size/);
  assert.deepEqual(changes, [2]);
});

test('runtime types - redefining replaces the set whole; an empty set removes the type', () => {
  const r = new Registry([...builtinTypes]);
  r.define('crd', [crontab()]);
  const v1 = r.lookup('stable.example.com', 'v1', 'crontabs')!;
  // A second version, v1 no longer served: the URL of v1 goes, the object stays storable through v2.
  r.define('crd', [
    crontab({
      versions: [
        { name: 'v1', served: false, schema: spec },
        { name: 'v2', schema: spec },
      ],
    }),
  ]);
  assert.equal(r.lookup('stable.example.com', 'v1', 'crontabs'), undefined);
  assert.ok(r.lookup('stable.example.com', 'v2', 'crontabs'));
  assert.deepEqual(r.group('stable.example.com')?.versions, ['v2']);
  assert.notEqual(r.lookup('stable.example.com', 'v2', 'crontabs'), v1);
  r.define('crd', []);
  assert.equal(r.lookup('stable.example.com', 'v2', 'crontabs'), undefined);
  assert.equal(r.group('stable.example.com'), undefined);
  assert.deepEqual(r.lookupShortName('ct'), []);
  assert.deepEqual(r.definedBy('crd'), []);
});

test('runtime types - a type that clashes or does not compile changes nothing', () => {
  const r = new Registry([...builtinTypes]);
  r.define('crd', [crontab()]);
  const generation = r.generation;
  // Another source claiming a built-in URL, and one claiming the custom one.
  assert.throws(() => r.define('other', [crontab({ group: '', plural: 'pods', kind: 'Pod', listKind: 'PodList' })]), /registered twice/);
  assert.throws(() => r.define('other', [crontab({ kind: 'Other', listKind: 'OtherList' })]), /crontabs is registered twice/);
  // A schema ajv refuses: the old definition stays served.
  const broken: JsonSchema = { type: 'object', properties: { spec: { type: 'object', properties: { x: { type: 'string', pattern: '(' } } } } };
  assert.throws(() => r.define('crd', [crontab({ versions: [{ name: 'v1', schema: broken }] })]), /does not compile/);
  assert.equal(r.generation, generation);
  assert.deepEqual(r.validate(r.lookup('stable.example.com', 'v1', 'crontabs')!, object(2)), []);
});

test('runtime types - built-in types keep their lookups (and their objects) across changes of other sources', () => {
  const r = new Registry([...builtinTypes], { upstreamGroupAliases: true });
  const pods = r.lookup('', 'v1', 'pods');
  const roles = r.lookup('rbac.authorization.k8s.io', 'v1', 'roles');
  r.define('crd', [crontab({ group: 'widgets.platform.io' })]);
  assert.equal(r.lookup('', 'v1', 'pods'), pods);
  assert.equal(r.lookup('rbac.authorization.k8s.io', 'v1', 'roles'), roles);
  assert.equal(r.definedBy(BUILTIN_TYPES).length, builtinTypes.length);
  // Aliases are the built-in groups' only: a custom group is served under its own name alone.
  assert.ok(r.lookup('widgets.platform.io', 'v1', 'crontabs'));
  assert.equal(r.lookup('widgets.k8s.io', 'v1', 'crontabs'), undefined);
});

test('runtime types - a removed type leaves nothing compiled behind', async () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const r = new Registry([...builtinTypes]);
  r.define('crd', [crontab({ versions: [{ name: 'v1', schema: structuredClone(spec) }] })]);
  // The compiled validator is private; reached into here to see whether anything still holds it.
  const compiledFor = (r as unknown as { compiledFor(s: unknown): { validator: object } }).compiledFor.bind(r);
  const validator = new WeakRef(compiledFor(r.lookup('stable.example.com', 'v1', 'crontabs')).validator);
  r.define('crd', []);
  await new Promise((resolve) => setTimeout(resolve, 10));
  gc();
  // One process-wide ajv would keep it (and about 5 KiB more of every schema it ever compiled,
  // removeSchema or not): types that come and go would pile up.
  assert.equal(validator.deref(), undefined);
});
