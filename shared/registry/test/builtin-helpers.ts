// Test helpers for the built-in types: ajv compiled straight from a type's version schema, and
// the defaults → prepare → validate sequence the gateway runs on a create.

import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { FieldError } from '../../api/status.js';
import type { ApiObject } from '../../api/types.js';
import type { ResourceType, StrategyContext } from '../types.js';

const ajv = new Ajv.default({ strict: false, allErrors: true });
addFormats.default(ajv);
const cache = new WeakMap<object, ReturnType<typeof ajv.compile>>();

/** Schema errors of the object's body (apiVersion/kind/metadata are the registry's part). */
export function schemaErrors(type: ResourceType, obj: ApiObject, version = type.versions[0]!.name): string[] {
  const v = type.versions.find((x) => x.name === version);
  if (!v) throw new Error(`no version ${version}`);
  let validate = cache.get(v.schema);
  if (!validate) {
    validate = ajv.compile(v.schema);
    cache.set(v.schema, validate);
  }
  const { apiVersion: _a, kind: _k, metadata: _m, ...body } = obj;
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}

/** The request a helper's create or update runs as. */
export const testStrategyContext: StrategyContext = { user: { username: 'jane', uid: 'jane-uid', groups: ['developers', 'system:authenticated'] }, now: '2026-01-02T03:04:05Z' };

/** Version defaults, type defaults, create preparation, then type validation. */
export function createFlow(
  type: ResourceType,
  obj: ApiObject,
  version = type.versions[0]!.name,
  ctx: StrategyContext = testStrategyContext,
): { obj: ApiObject; errors: FieldError[]; schema: string[] } {
  const o = structuredClone(obj);
  o.apiVersion ??= type.group ? `${type.group}/${version}` : version;
  o.kind ??= type.kind;
  type.versions.find((x) => x.name === version)?.defaults?.(o);
  type.strategy?.defaults?.(o);
  o.metadata.uid ??= '5f0c7a7e-0000-4000-8000-000000000001';
  if (type.subresources?.status) delete o.status;
  type.strategy?.prepareForCreate?.(o, ctx);
  return { obj: o, errors: type.strategy?.validate?.(o) ?? [], schema: schemaErrors(type, o, version) };
}

export function fields(errs: FieldError[]): string[] {
  return errs.map((e) => `${e.field}: ${e.type}`);
}

export function b64(s: string): string {
  return Buffer.from(s, 'utf8').toString('base64');
}
