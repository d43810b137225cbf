// Renders the dialect-neutral operations (openapi-operations) as swagger 2.0 or OpenAPI v3.0
// path items: media types, body and response schemas, parameters and vendor extensions.

import type { JsonSchema } from '../api/types.js';
import { DELETE_OPTIONS_DEF, PATCH_DEF, refTo } from './openapi-definitions.js';
import type { Operation, Param, PathSpec } from './openapi-operations.js';
import type { OpenApiDialect } from './openapi-schema.js';

const PROTOBUF = 'application/vnd.platform.protobuf';
const OBJECT_MEDIA = ['application/json', 'application/yaml', PROTOBUF];
const STREAM_MEDIA = [...OBJECT_MEDIA, 'application/json;stream=watch', `${PROTOBUF};stream=watch`];
const PATCH_MEDIA = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];

function mediaOf(produces: Operation['produces']): string[] {
  return produces === 'text' ? ['text/plain', '*/*'] : produces === 'stream' ? STREAM_MEDIA : OBJECT_MEDIA;
}

function opExtensions(op: Operation): JsonSchema {
  const ext: JsonSchema = {};
  if (op.action) ext['x-kubernetes-action'] = op.action;
  // Operations carry one GVK object (definitions carry a list); kubectl's query-param verifier
  // decodes it as a single object.
  if (op.gvk) ext['x-kubernetes-group-version-kind'] = { group: op.gvk.group, version: op.gvk.version, kind: op.gvk.kind };
  return ext;
}

function v2Param(p: Param): JsonSchema {
  const out: JsonSchema = { name: p.name, in: p.in, description: p.description, type: p.type, uniqueItems: true };
  if (p.required) out.required = true;
  return out;
}

function v2Operation(op: Operation): JsonSchema {
  const parameters = op.params.map(v2Param);
  if (op.body) {
    const def = op.body.kind === 'patch' ? PATCH_DEF : op.body.kind === 'delete' ? DELETE_OPTIONS_DEF : op.body.def;
    parameters.unshift({ name: 'body', in: 'body', required: op.body.kind !== 'delete', schema: def ? refTo(def) : { type: 'object' } });
  }
  const resp: JsonSchema = {};
  for (const r of op.responses) {
    resp[String(r.code)] = r.text ? { description: r.description, schema: { type: 'string' } } : r.def ? { description: r.description, schema: refTo(r.def) } : { description: r.description };
  }
  resp['401'] = { description: 'Unauthorized' };
  return {
    description: op.description,
    consumes: op.body?.kind === 'patch' ? PATCH_MEDIA : ['*/*'],
    produces: mediaOf(op.produces),
    schemes: ['https'],
    tags: [op.tag],
    operationId: op.operationId,
    parameters,
    responses: resp,
    ...opExtensions(op),
  };
}

function v3Param(p: Param): JsonSchema {
  const out: JsonSchema = { name: p.name, in: p.in, description: p.description, schema: { type: p.type, uniqueItems: true } };
  if (p.required) out.required = true;
  return out;
}

function v3Ref(def: string): JsonSchema {
  return { $ref: `#/components/schemas/${def}` };
}

function v3Content(media: string[], schema: JsonSchema): JsonSchema {
  return Object.fromEntries(media.map((m) => [m, { schema }]));
}

function v3Operation(op: Operation): JsonSchema {
  const out: JsonSchema = { tags: [op.tag], description: op.description, operationId: op.operationId };
  if (op.params.length) out.parameters = op.params.map(v3Param);
  if (op.body) {
    if (op.body.kind === 'patch') out.requestBody = { content: v3Content(PATCH_MEDIA, v3Ref(PATCH_DEF)), required: true };
    else if (op.body.kind === 'delete') out.requestBody = { content: v3Content(['application/json', 'application/yaml'], v3Ref(DELETE_OPTIONS_DEF)) };
    else out.requestBody = { content: v3Content(OBJECT_MEDIA, op.body.def ? v3Ref(op.body.def) : { type: 'object' }), required: true };
  }
  const resp: JsonSchema = {};
  for (const r of op.responses) {
    if (r.text) resp[String(r.code)] = { description: r.description, content: v3Content(mediaOf('text'), { type: 'string' }) };
    else if (r.def) resp[String(r.code)] = { description: r.description, content: v3Content(mediaOf(op.produces), v3Ref(r.def)) };
    else resp[String(r.code)] = { description: r.description };
  }
  resp['401'] = { description: 'Unauthorized' };
  out.responses = resp;
  return { ...out, ...opExtensions(op) };
}

export function renderPaths(specs: PathSpec[], dialect: OpenApiDialect): Record<string, JsonSchema> {
  const paths: Record<string, JsonSchema> = {};
  for (const spec of specs) {
    const item: JsonSchema = paths[spec.path] ?? {};
    for (const op of spec.ops) item[op.method] = dialect === 'v2' ? v2Operation(op) : v3Operation(op);
    if (spec.params.length) item.parameters = spec.params.map(dialect === 'v2' ? v2Param : v3Param);
    paths[spec.path] = item;
  }
  return sortKeys(paths);
}

export function sortKeys<T>(rec: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(rec).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
