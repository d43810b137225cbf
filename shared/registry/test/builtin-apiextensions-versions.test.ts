// CustomResourceDefinitions whose versions differ in subresources, printer columns and schema, as
// apiextensions v1 validates them: differences are allowed, each version's parts are checked at
// spec.versions[i], and parts every version shares are checked once at the hoisted spec.* path
// (upstream validates the internal form, where identical per-version parts move to the top).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../api/types.js';
import { createErrors, sample, type Mutable } from './crd-helpers.js';

const SCALE = { specReplicasPath: '.spec.size', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' };

/** The sample with two versions: v1 without subresources and column Size, v2 (storage) with status and scale and column Color. */
function twoVersions(): ApiObject {
  const o = structuredClone(sample) as Mutable;
  const v1 = o.spec.versions[0];
  const v2 = { ...structuredClone(v1), name: 'v2' };
  v1.storage = false;
  delete v1.subresources;
  v2.subresources = { status: {}, scale: SCALE };
  v2.additionalPrinterColumns = [{ name: 'Color', type: 'string', jsonPath: '.spec.color' }];
  o.spec.versions.push(v2);
  return o as ApiObject;
}

const RULES: Array<[string, (o: Mutable) => void, string[]]> = [
  ['versions may differ in subresources and columns', () => {}, []],
  [
    'one version’s scale paths are checked at its own path',
    (o) => (o.spec.versions[1].subresources.scale = { specReplicasPath: '.status.size', statusReplicasPath: 'status.replicas', labelSelectorPath: '.metadata.labels' }),
    [
      'spec.versions[1].subresources.scale.specReplicasPath: Invalid value: ".status.size": should be a json path under .spec',
      'spec.versions[1].subresources.scale.statusReplicasPath: Invalid value: "status.replicas": must be a simple json path starting with .',
      'spec.versions[1].subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status',
    ],
  ],
  [
    'one version’s column JSONPaths are checked at its own path',
    (o) =>
      (o.spec.versions[0].additionalPrinterColumns = [
        { name: 'Size', type: 'integer', jsonPath: 'spec.size' },
        { name: 'Empty', type: 'string' },
      ]),
    [
      'spec.versions[0].additionalPrinterColumns[0].JSONPath: Invalid value: "spec.size": must be a simple json path starting with .',
      'spec.versions[0].additionalPrinterColumns[1].JSONPath: Required value',
    ],
  ],
  [
    'identical subresources are checked once, hoisted',
    (o) => (o.spec.versions[0].subresources = o.spec.versions[1].subresources = { status: {}, scale: { ...SCALE, specReplicasPath: '.size' } }),
    ['spec.subresources.scale.specReplicasPath: Invalid value: ".size": should be a json path under .spec'],
  ],
  [
    'identical columns are checked once, hoisted',
    (o) => (o.spec.versions[0].additionalPrinterColumns = o.spec.versions[1].additionalPrinterColumns = [{ name: 'Size', type: 'int', jsonPath: '.spec.size' }]),
    ['spec.additionalPrinterColumns[0].type: Invalid value: "int": must be one of boolean,date,integer,number,string'],
  ],
  [
    'the status-root rule binds only the schema of a version with a status subresource',
    (o) => {
      for (const v of o.spec.versions) v.schema.openAPIV3Schema.maxProperties = 5;
      // Schemas that differ are checked per version, each with its own subresources.
      o.spec.versions[1].schema.openAPIV3Schema.properties.spec.properties.shape = { type: 'string' };
    },
    [
      'spec.versions[1].schema.openAPIV3Schema: Invalid value: "object": only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled',
    ],
  ],
  [
    'a schema every version shares is held to the rule when any version has status',
    (o) => {
      for (const v of o.spec.versions) v.schema.openAPIV3Schema.maxProperties = 5;
    },
    [
      'spec.validation.openAPIV3Schema: Invalid value: "object": only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled',
    ],
  ],
];

describe('customresourcedefinitions - per-version subresources and columns', () => {
  for (const [name, mutate, want] of RULES) it(name, () => assert.deepEqual(createErrors(mutate, twoVersions()), want));
});
