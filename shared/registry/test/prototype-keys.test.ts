// User keys named like Object.prototype members (`constructor`, `__proto__`, `toString`, …) are
// ordinary keys: they validate by the key rules alone and survive preparation unchanged.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../api/types.js';
import { configmaps } from '../builtin/core/config-map.js';
import { secrets } from '../builtin/core/secret.js';

import { createBuiltinRegistry } from '../builtin-registry.js';
import { b64, createFlow, fields } from './builtin-helpers.js';
import { jsonEqual } from '../../patch/json-value.js';

const KEYS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

/** An object holding every key as an own property, as JSON.parse builds it. */
function ownMap(value: (k: string) => string, keys = KEYS): Record<string, string> {
  return JSON.parse(JSON.stringify(Object.fromEntries(keys.map((k) => [k, value(k)])))) as Record<string, string>;
}

describe('prototype-named keys', () => {
  it('configmap data keys - valid config keys, not duplicates of binaryData', () => {
    for (const k of KEYS) {
      const cm: ApiObject = { metadata: { name: 'c', namespace: 'default' }, data: ownMap((x) => `v-${x}`, [k]) };
      assert.deepEqual(fields(createFlow(configmaps, cm).errors), [], k);
      const bin: ApiObject = { metadata: { name: 'c', namespace: 'default' }, binaryData: ownMap((x) => b64(x), [k]) };
      assert.deepEqual(fields(createFlow(configmaps, bin).errors), [], k);
    }
    const all: ApiObject = { metadata: { name: 'c', namespace: 'default' }, data: ownMap((x) => x) };
    assert.deepEqual(fields(createFlow(configmaps, all).errors), []);
    // A real duplicate is still one.
    const dup: ApiObject = { metadata: { name: 'c', namespace: 'default' }, data: ownMap((x) => x, ['constructor']), binaryData: ownMap(() => b64('x'), ['constructor']) };
    assert.deepEqual(fields(createFlow(configmaps, dup).errors), ['data: Invalid value']);
  });

  it('secret data and stringData keys - kept, merged and validated as ordinary keys', () => {
    for (const k of KEYS) {
      const fromData = createFlow(secrets, { metadata: { name: 's', namespace: 'default' }, data: ownMap(b64, [k]) });
      assert.deepEqual(fields(fromData.errors), [], k);
      assert.deepEqual(Object.keys(fromData.obj.data as object), [k]);
      const fromString = createFlow(secrets, { metadata: { name: 's', namespace: 'default' }, stringData: ownMap((x) => `v-${x}`, [k]) });
      assert.deepEqual(fields(fromString.errors), [], k);
      const data = fromString.obj.data as Record<string, string>;
      assert.ok(Object.hasOwn(data, k), `stringData ${k} was dropped: ${JSON.stringify(data)}`);
      assert.equal(Buffer.from(data[k]!, 'base64').toString(), `v-${k}`);
      assert.equal(Object.getPrototypeOf(data), Object.prototype);
    }
  });

  it('jsonEqual - an inherited member never stands in for a missing own key', () => {
    assert.equal(
      jsonEqual(
        ownMap(() => 'x', ['toString']),
        ownMap(() => 'x', ['other']),
      ),
      false,
    );
    assert.equal(jsonEqual({ a: {} }, JSON.parse('{"__proto__":{}}')), false);
    assert.equal(
      jsonEqual(
        ownMap((k) => k),
        ownMap((k) => k),
      ),
      true,
    );
  });

  it('labels and annotations - prototype names follow the key rules only', () => {
    const registry = createBuiltinRegistry();
    const served = registry.lookup('', 'v1', 'configmaps')!;
    const meta = (m: Record<string, unknown>): ApiObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default', ...m } });
    for (const k of KEYS) {
      for (const where of ['labels', 'annotations'] as const) {
        const errs = registry.validate(served, meta({ [where]: ownMap(() => 'v', [k]) })).map((e) => `${e.field}: ${e.type}`);
        // `__proto__` starts with `_`, which no qualified name may; the others are valid names.
        assert.deepEqual(errs, k === '__proto__' ? [`metadata.${where}: Invalid value`] : [], `${where} ${k}`);
      }
    }
  });
});
