// Turns request bodies into objects of the addressed type: media type, size/nesting limits,
// apiVersion/kind checks, and field validation (unknown and duplicate fields under
// Strict/Warn/Ignore), pruning what the schema does not know so it is never stored.

import type { ApiObject } from '../../../shared/api/types.js';
import { badRequest, requestEntityTooLarge, unsupportedMediaType } from '../../../shared/api/status.js';
import { decodeBody, MAX_BODY_BYTES, parseMediaType, type DecodedValue } from '../../../shared/api/decode.js';
import { decodeObject as decodeProtobuf, isProtobufMediaType, PROTOBUF_MEDIA_TYPES } from '../../../shared/proto/envelope.js';
import type { Registry } from '../../../shared/registry/registry.js';
import type { Target } from '../../../shared/registry/types.js';

const OBJECT_MEDIA_TYPES = new Set(['application/json', 'application/yaml', ...PROTOBUF_MEDIA_TYPES]);
const PATCH_MEDIA_TYPES = new Set(['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml']);

export function mediaTypeOf(contentType: string | undefined): string {
  return parseMediaType(contentType ?? 'application/json').mediaType;
}

/** A body in any media type the API takes: JSON, YAML, or an enveloped protobuf object. */
export function decodeValue(body: Buffer, contentType: string): DecodedValue {
  if (!isProtobufMediaType(mediaTypeOf(contentType))) return decodeBody(body, contentType);
  if (body.length > MAX_BODY_BYTES) throw requestEntityTooLarge(`the request body is larger than ${MAX_BODY_BYTES} bytes`);
  return { value: decodeProtobuf(body), duplicateFields: [] };
}

/** `predecoded` is the body already decoded off the event loop (large YAML, see decode-pool.ts). */
export function decodeObject(registry: Registry, t: Target, body: Buffer, contentType: string, fieldValidation: string, warnings: string[], predecoded?: DecodedValue): ApiObject {
  const mt = mediaTypeOf(contentType);
  if (!OBJECT_MEDIA_TYPES.has(mt)) throw unsupportedMediaType(contentType);
  if (t.type.unstructured && isProtobufMediaType(mt)) throw unsupportedMediaType(contentType, ['application/json', 'application/yaml']);
  const { value, duplicateFields } = predecoded ?? decodeValue(body, contentType);
  return objectFromValue(registry, t, value, fieldValidation, warnings, duplicateFields);
}

export function objectFromValue(registry: Registry, t: Target, value: unknown, fieldValidation: string, warnings: string[], duplicateFields: string[] = []): ApiObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest(`the body of the request is not a ${t.kind} object`);
  }
  const obj = value as ApiObject;
  if (obj.apiVersion === undefined || obj.apiVersion === '' || (t.otherSpelling && obj.apiVersion === t.otherSpelling)) obj.apiVersion = t.apiVersion;
  else if (obj.apiVersion !== t.apiVersion) {
    throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${t.apiVersion})`);
  }
  if (obj.kind === undefined || obj.kind === '') obj.kind = t.kind;
  else if (obj.kind !== t.kind) throw badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${t.kind})`);
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  else if (typeof obj.metadata !== 'object' || Array.isArray(obj.metadata)) throw badRequest('metadata must be an object');

  if (fieldValidation !== 'Ignore') {
    const problems = [...registry.unknownFields(t.served, obj).map((p) => `unknown field "${p.replace(/^\./, '')}"`), ...duplicateFields.map((p) => `duplicate field "${p.replace(/^\./, '')}"`)];
    if (problems.length) {
      if (fieldValidation === 'Strict') throw badRequest(`strict decoding error: ${problems.join(', ')}`);
      warnings.push(...problems);
    }
  }
  registry.prune(t.served, obj);
  return obj;
}

export function decodePatchBody(body: Buffer, contentType: string, predecoded?: DecodedValue): unknown {
  const mt = mediaTypeOf(contentType);
  if (!PATCH_MEDIA_TYPES.has(mt)) throw unsupportedMediaType(contentType);
  return (predecoded ?? decodeBody(body, contentType)).value;
}

export function decodeDeleteOptions(body: Buffer, contentType: string | undefined, predecoded?: DecodedValue): Record<string, unknown> {
  const { value } = predecoded ?? decodeValue(body, contentType ?? 'application/json');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('the body of a delete request must be a DeleteOptions object');
  return value as Record<string, unknown>;
}
