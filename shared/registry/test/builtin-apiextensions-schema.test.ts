// The schema rules of CustomResourceDefinitions (openAPIV3Schema: structural schemas, the
// x-kubernetes-* extensions, unsupported JSON-Schema features, defaults): a valid definition and
// one mutation each, asserting upstream's paths (spec.validation when all versions share the
// schema) and messages.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createErrors, ROOT, schemaOf, specProps, type Mutable } from './crd-helpers.js';

const SCHEMA_RULES: Array<[string, (o: Mutable) => void, string[]]> = [
  ['a type on every node', (o) => delete specProps(o).color.type, [`${ROOT}.properties[spec].properties[color].type: Required value: must not be empty for specified object fields`]],
  [
    'array items need a type',
    (o) => (specProps(o).tags = { type: 'array', items: {} }),
    [`${ROOT}.properties[spec].properties[tags].items.type: Required value: must not be empty for specified array items`],
  ],
  ['arrays need items', (o) => (specProps(o).tags = { type: 'array' }), [`${ROOT}.properties[spec].properties[tags].items: Required value: must be specified`]],
  [
    'the root is an object',
    (o) => (schemaOf(o).type = 'array'),
    [
      `${ROOT}.type: Invalid value: "array": only "object" is allowed as the type at the root of the schema if the status subresource is enabled`,
      `${ROOT}.items: Required value: must be specified`,
      `${ROOT}.type: Invalid value: "array": must be object at the root`,
    ],
  ],
  [
    'types are OpenAPI v3 types',
    (o) => (specProps(o).color.type = 'text'),
    [`${ROOT}.properties[spec].properties[color].type: Unsupported value: "text": supported values: "array", "boolean", "integer", "number", "object", "string"`],
  ],
  ['no $ref', (o) => (specProps(o).color.$ref = '#/definitions/color'), [`${ROOT}.properties[spec].properties[color].$ref: Forbidden: $ref is not supported`]],
  [
    'no additionalProperties beside properties',
    (o) => (schemaOf(o).properties.spec.additionalProperties = false),
    [`${ROOT}.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`],
  ],
  [
    'no additionalProperties at the root',
    (o) => ((schemaOf(o).additionalProperties = { type: 'string' }), delete schemaOf(o).properties),
    [
      `${ROOT}: Invalid value: "object": only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled`,
      `${ROOT}.additionalProperties: Forbidden: must not be used at the root`,
    ],
  ],
  [
    'no uniqueItems',
    (o) => (specProps(o).tags = { type: 'array', items: { type: 'string' }, uniqueItems: true }),
    [`${ROOT}.properties[spec].properties[tags].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`],
  ],
  [
    'none of the unsupported JSON-Schema keywords',
    (o) =>
      Object.assign(schemaOf(o).properties.spec, {
        id: 'spec',
        additionalItems: false,
        patternProperties: { '^x': { type: 'string' } },
        definitions: { d: { type: 'string' } },
        dependencies: { size: ['color'] },
      }),
    [
      `${ROOT}.properties[spec].id: Forbidden: id is not supported`,
      `${ROOT}.properties[spec].additionalItems: Forbidden: additionalItems is not supported`,
      `${ROOT}.properties[spec].patternProperties: Forbidden: patternProperties is not supported`,
      `${ROOT}.properties[spec].definitions: Forbidden: definitions is not supported`,
      `${ROOT}.properties[spec].dependencies: Forbidden: dependencies is not supported`,
    ],
  ],
  [
    '$schema makes the schema unreadable as structural',
    (o) => (specProps(o).color.$schema = 'http://json-schema.org/draft-04/schema#'),
    [`${ROOT}: Invalid value: "": OpenAPIV3Schema 'schema' is not supported`],
  ],
  ['nullable is not for the root', (o) => ((o.spec.versions[0].subresources = undefined), (schemaOf(o).nullable = true)), [`${ROOT}.nullable: Forbidden: nullable cannot be true at the root`]],
  [
    'metadata may only restrict name and generateName',
    (o) => (schemaOf(o).properties.metadata = { type: 'object', properties: { labels: { type: 'object' } } }),
    [`${ROOT}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`],
  ],
  ['metadata name rules are fine', (o) => (schemaOf(o).properties.metadata = { type: 'object', properties: { name: { type: 'string', maxLength: 20 } } }), []],
  ['kind at the root is a string', (o) => (schemaOf(o).properties.kind = { type: 'integer' }), [`${ROOT}.properties[kind].type: Invalid value: "integer": must be string`]],
  [
    'value validations may not declare types',
    (o) => (specProps(o).size.anyOf = [{ type: 'integer', minimum: 2 }]),
    [`${ROOT}.properties[spec].properties[size].anyOf[0].type: Forbidden: must be empty to be structural`],
  ],
  [
    'value validations may only name declared fields',
    (o) => (schemaOf(o).anyOf = [{ properties: { extra: { minProperties: 1 } } }]),
    [
      `${ROOT}: Invalid value: "object": only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled`,
      `${ROOT}.properties[extra]: Required value: because it is defined in ${ROOT}.anyOf[0].properties[extra]`,
    ],
  ],
  [
    'patterns compile (RE2)',
    (o) => (specProps(o).color.pattern = '^(?=red)'),
    [`${ROOT}.properties[spec].properties[color].pattern: Invalid value: "^(?=red)": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: \`(?=\``],
  ],
  ['Go-only pattern syntax is valid (inline flags, POSIX classes, \\z)', (o) => (specProps(o).color.pattern = '^(?i)(abort|warn)?$|^[[:alpha:]]+\\z'), []],
  [
    'backreferences are not RE2',
    (o) => (specProps(o).color.pattern = '(a)\\1'),
    [`${ROOT}.properties[spec].properties[color].pattern: Invalid value: "(a)\\\\1": must be a valid regular expression, but isn't: error parsing regexp: invalid escape sequence: \`\\1\``],
  ],
  ['preserve-unknown-fields stands in for a type', (o) => (specProps(o).free = { 'x-kubernetes-preserve-unknown-fields': true }), []],
  [
    'preserve-unknown-fields is true or absent',
    (o) => (specProps(o).free = { type: 'object', 'x-kubernetes-preserve-unknown-fields': false }),
    [`${ROOT}.properties[spec].properties[free].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`],
  ],
  ['int-or-string with its anyOf', (o) => (specProps(o).port = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] }), []],
  [
    'int-or-string with its allOf form',
    (o) => (specProps(o).port = { 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: '^[0-9]+$' }] }),
    [],
  ],
  [
    'int-or-string is not also preserve-unknown-fields',
    (o) => (specProps(o).port = { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true }),
    [`${ROOT}.properties[spec].properties[port].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`],
  ],
  [
    'an embedded resource is an object',
    (o) => (specProps(o).template = { 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true }),
    [`${ROOT}.properties[spec].properties[template].type: Required value: must be object if x-kubernetes-embedded-resource is true`],
  ],
  [
    'an embedded resource declares its fields or preserves them',
    (o) => (specProps(o).template = { 'x-kubernetes-embedded-resource': true, type: 'object' }),
    [`${ROOT}.properties[spec].properties[template].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`],
  ],
  [
    'list types atomic, set or map',
    (o) => (specProps(o).tags = { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'bag' }),
    [`${ROOT}.properties[spec].properties[tags].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`],
  ],
  [
    'a list type is for arrays',
    (o) => (specProps(o).color['x-kubernetes-list-type'] = 'set'),
    [`${ROOT}.properties[spec].properties[color].type: Invalid value: "string": must be array if x-kubernetes-list-type is specified`],
  ],
  [
    'set items are scalars or atomic',
    (o) => (specProps(o).tags = { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } }, 'x-kubernetes-list-type': 'set' }),
    [`${ROOT}.properties[spec].properties[tags].items.x-kubernetes-map-type: Invalid value: must be atomic as item of a list with x-kubernetes-list-type=set`],
  ],
  [
    'map lists name scalar, required-or-defaulted item properties',
    (o) =>
      (specProps(o).ports = {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['port', 'proto', 'opts', 'nope'],
        items: { type: 'object', required: ['port'], properties: { port: { type: 'integer' }, proto: { type: 'string' }, opts: { type: 'object' } } },
      }),
    [
      `${ROOT}.properties[spec].properties[ports].items.properties[opts].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`,
      `${ROOT}.properties[spec].properties[ports].x-kubernetes-list-map-keys: Invalid value: ["port","proto","opts","nope"]: entries must all be names of item properties`,
      `${ROOT}.properties[spec].properties[ports].items.properties[proto].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
      `${ROOT}.properties[spec].properties[ports].items.properties[opts].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
    ],
  ],
  [
    'map list keys need a map list',
    (o) => (specProps(o).tags = { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } }, 'x-kubernetes-list-map-keys': ['a'] }),
    [`${ROOT}.properties[spec].properties[tags].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`],
  ],
  [
    'map types granular or atomic, on objects',
    (o) => (specProps(o).color['x-kubernetes-map-type'] = 'deep'),
    [
      `${ROOT}.properties[spec].properties[color].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified`,
      `${ROOT}.properties[spec].properties[color].x-kubernetes-map-type: Unsupported value: "deep": supported values: "atomic", "granular"`,
    ],
  ],
  [
    'validation rules: a rule, a one-line message, a known reason, a field path into the schema',
    (o) => (schemaOf(o).properties.spec['x-kubernetes-validations'] = [{ rule: ' ' }, { rule: 'self.size > 0\n&& true' }, { rule: 'self.size > 0', reason: 'Bad', fieldPath: '.nope' }]),
    [
      `${ROOT}.properties[spec].x-kubernetes-validations[0].rule: Required value: rule is not specified`,
      `${ROOT}.properties[spec].x-kubernetes-validations[1].message: Required value: message must be specified if rule contains line breaks`,
      `${ROOT}.properties[spec].x-kubernetes-validations[2].reason: Unsupported value: "Bad": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
      `${ROOT}.properties[spec].x-kubernetes-validations[2].fieldPath: Invalid value: ".nope": fieldPath must be a valid path`,
    ],
  ],
  [
    'a default validates against its schema',
    (o) => (specProps(o).size.default = 'one'),
    [`${ROOT}.properties[spec].properties[size].default: Invalid value: "string": in body must be of type integer: "string"`],
  ],
  ['a default meets its bounds', (o) => (specProps(o).size.default = 0), [`${ROOT}.properties[spec].properties[size].default: Invalid value: 0: in body should be greater than or equal to 1`]],
  [
    'a default has no unknown fields',
    (o) => (schemaOf(o).properties.spec.default = { size: 2, shade: 'dark' }),
    [`${ROOT}.properties[spec].default: Invalid value: {"size":2,"shade":"dark"}: must not have unknown fields`],
  ],
  [
    'no defaults in top-level metadata',
    (o) => (schemaOf(o).properties.metadata = { type: 'object', properties: { name: { type: 'string', default: 'x' } } }),
    [`${ROOT}.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata`],
  ],
  [
    'a wrongly typed schema field is refused before any rule',
    (o) => (specProps(o).color.maxLength = '10'),
    ['spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[color].maxLength: Invalid value: "10": must be of type integer'],
  ],
];

describe('customresourcedefinitions - schema rules', () => {
  for (const [name, mutate, want] of SCHEMA_RULES) it(name, () => assert.deepEqual(createErrors(mutate), want));
});
