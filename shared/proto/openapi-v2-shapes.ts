// How the JSON of an OpenAPI v2 document lines up with the messages of openapi-v2-schema.ts, for
// both directions of openapi-v2.ts: key spellings, which messages are name → value maps, which
// hold a choice (and how the JSON tells which), and where JSON mixes entries with extensions.

import type protobuf from 'protobufjs';

export type JsonObject = Record<string, unknown>;

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `x-*` keys are vendor extensions wherever they appear. */
export const isExtension = (key: string): boolean => key.startsWith('x-');

const FIELD_NAMES = new Map<string, string>();

/** The proto field a JSON key is carried in (`$ref` → `_ref`, `operationId` → `operation_id`). */
export function fieldNameOf(key: string): string {
  let name = FIELD_NAMES.get(key);
  if (name === undefined) {
    name = key === '$ref' ? '_ref' : key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    // The keys of a document are few (the schema's own); property names are never looked up here.
    if (FIELD_NAMES.size < 1000) FIELD_NAMES.set(key, name);
  }
  return name;
}

/** The JSON key of a proto field, the inverse of fieldNameOf. */
export function jsonKeyOf(field: string): string {
  return field === '_ref' ? '$ref' : field.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

export const VENDOR_EXTENSION = 'vendor_extension';
export const MAP_FIELD = 'additional_properties';

/** A message standing for a JSON object of arbitrary names: its one repeated field of Named* pairs. */
export function mapEntryType(type: protobuf.Type): protobuf.Type | null {
  const fields = type.fieldsArray;
  return fields.length === 1 && fields[0]!.name === MAP_FIELD ? (fields[0]!.resolvedType as protobuf.Type) : null;
}

/** Messages whose JSON holds named entries and `x-*` extensions side by side: the entries' field. */
export const MIXED_ENTRIES: Readonly<Record<string, string>> = { Paths: 'path', Responses: 'response_code' };

const NON_BODY_IN: Readonly<Record<string, string>> = {
  header: 'header_parameter_sub_schema',
  formData: 'form_data_parameter_sub_schema',
  query: 'query_parameter_sub_schema',
  path: 'path_parameter_sub_schema',
};

const OAUTH2_FLOW: Readonly<Record<string, string>> = {
  implicit: 'oauth2_implicit_security',
  password: 'oauth2_password_security',
  application: 'oauth2_application_security',
  accessCode: 'oauth2_access_code_security',
};

function securityScheme(v: JsonObject): string | undefined {
  if (v.type === 'basic') return 'basic_authentication_security';
  if (v.type === 'apiKey') return 'api_key_security';
  return v.type === 'oauth2' && typeof v.flow === 'string' ? OAUTH2_FLOW[v.flow] : undefined;
}

/**
 * For each message with a `oneof`: which member a JSON object is, or undefined when it is none
 * (the value is then left out, as a document the schema cannot say).
 */
export const ONEOF_MEMBER: Readonly<Record<string, (v: JsonObject) => string | undefined>> = {
  ParametersItem: (v) => ('$ref' in v ? 'json_reference' : 'parameter'),
  Parameter: (v) => (v.in === 'body' ? 'body_parameter' : 'non_body_parameter'),
  NonBodyParameter: (v) => (typeof v.in === 'string' ? NON_BODY_IN[v.in] : undefined),
  ResponseValue: (v) => ('$ref' in v ? 'json_reference' : 'response'),
  SchemaItem: (v) => (v.type === 'file' ? 'file_schema' : 'schema'),
  SecurityDefinitionsItem: securityScheme,
};

/** The member of `type`'s oneof that `m` has set, if any. */
export function setMember(m: JsonObject, type: protobuf.Type): string | undefined {
  const oneof = type.oneofsArray[0];
  return oneof?.oneof.find((name) => m[name] !== undefined && m[name] !== null);
}
