// What the CustomResourceDefinition tests share: the type as registered, the valid sample, and a
// create flow that returns the messages a client would read.

import assert from 'node:assert/strict';
import { fieldErrorMessage, type FieldError } from '../../api/status.js';
import type { ApiObject } from '../../api/types.js';
import { builtinTypes } from '../builtin-types.js';
import { createFlow } from './builtin-helpers.js';
import { samples } from './builtin-samples.js';

export const crd = builtinTypes.find((t) => t.kind === 'CustomResourceDefinition')!;
export const sample = samples['apiextensions.platform.io/customresourcedefinitions']!;
export const ROOT = 'spec.validation.openAPIV3Schema';
export const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

export type Mutable = Record<string, any>;

export function messages(errs: FieldError[]): string[] {
  return errs.map(fieldErrorMessage);
}

/** Errors of creating the sample after `mutate` (defaults, create preparation, then the type's rules). */
export function createErrors(mutate: (o: Mutable) => void, base: ApiObject = sample): string[] {
  const o = structuredClone(base) as Mutable;
  mutate(o);
  const r = createFlow(crd, o as ApiObject);
  assert.deepEqual(r.schema, [], 'schema errors');
  return messages(r.errors);
}

/** The sample's v1 schema, for mutations of it. */
export const schemaOf = (o: Mutable) => o.spec.versions[0].schema.openAPIV3Schema as Mutable;
export const specProps = (o: Mutable) => schemaOf(o).properties.spec.properties as Mutable;

export function created(o: ApiObject = sample): ApiObject {
  const r = createFlow(crd, o);
  assert.deepEqual(r.errors, []);
  return r.obj;
}
