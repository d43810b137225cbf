// The vocabulary of the OpenAPI documents' operations, dialect-neutral: operations, parameters,
// response codes and upstream's naming of operationIds and tags, and the discovery documents' own
// paths. A resource's paths are in openapi-resource-paths; openapi-render renders them.

import type { GroupVersionKindRef, ServedResource } from './discovery.js';
import { API_RESOURCE_LIST_DEF, BRAND_SUFFIX } from './openapi-definitions.js';

export type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';

export interface Param {
  name: string;
  in: 'path' | 'query';
  type: 'string' | 'integer' | 'boolean';
  description: string;
  required?: boolean;
}

export interface Operation {
  method: Method;
  operationId: string;
  description: string;
  tag: string;
  action?: string;
  gvk?: GroupVersionKindRef;
  params: Param[];
  body?: { kind: 'object' | 'patch' | 'delete'; def?: string };
  responses: Array<{ code: number; description: string; def?: string; text?: boolean }>;
  produces: 'object' | 'stream' | 'text';
}

export interface PathSpec {
  path: string;
  params: Param[];
  ops: Operation[];
}

export interface GroupVersion {
  group: string;
  version: string;
}

const q = (name: string, type: Param['type'], description: string): Param => ({ name, in: 'query', type, description });

export const PRETTY = q('pretty', 'string', "If 'true', the output is pretty printed.");
export const NAMESPACE: Param = { name: 'namespace', in: 'path', type: 'string', required: true, description: 'object name and auth scope, such as for teams and projects' };
export const nameParam = (kind: string): Param => ({ name: 'name', in: 'path', type: 'string', required: true, description: `name of the ${kind}` });
export const DRY_RUN = q('dryRun', 'string', 'When present, modifications are not persisted. The only valid value is All.');
export const FIELD_MANAGER = q('fieldManager', 'string', 'Name of the actor making the change; required for apply patches.');
export const FIELD_VALIDATION = q(
  'fieldValidation',
  'string',
  'How to treat unknown or duplicate fields in the body: Ignore drops them, Warn (the default) drops them with a warning header, Strict fails the request.',
);
export const FORCE = q('force', 'boolean', 'Apply only: take ownership of conflicting fields from other managers.');
export const GRACE_PERIOD = q('gracePeriodSeconds', 'integer', 'Seconds before the object is deleted; 0 means immediately.');
export const ORPHAN = q('orphanDependents', 'boolean', 'Deprecated: use propagationPolicy.');
export const PROPAGATION = q('propagationPolicy', 'string', 'Garbage collection of dependents: Orphan, Background or Foreground.');
export const LIST_PARAMS: Param[] = [
  q('allowWatchBookmarks', 'boolean', 'Ask for BOOKMARK watch events.'),
  q('continue', 'string', 'Token of the next chunk, from the previous list response.'),
  q('fieldSelector', 'string', 'Restrict returned objects by their fields.'),
  q('labelSelector', 'string', 'Restrict returned objects by their labels.'),
  q('limit', 'integer', 'Maximum number of items per chunk.'),
  q('resourceVersion', 'string', 'Consistency requirement of the read.'),
  q('resourceVersionMatch', 'string', 'How resourceVersion applies: Exact or NotOlderThan.'),
  q('sendInitialEvents', 'boolean', 'Watch only: start with synthetic events for the current state.'),
  q('timeoutSeconds', 'integer', 'Timeout of the list or watch call.'),
  q('watch', 'boolean', 'Watch for changes instead of listing.'),
];
export const DELETE_COLLECTION_PARAMS: Param[] = [...LIST_PARAMS.filter((p) => p.name !== 'watch' && p.name !== 'allowWatchBookmarks'), DRY_RUN, GRACE_PERIOD, ORPHAN, PROPAGATION];
export const LOG_PARAMS: Param[] = [
  q('container', 'string', 'The container to stream logs of.'),
  q('follow', 'boolean', 'Stream the log.'),
  q('limitBytes', 'integer', 'Bytes to read before stopping.'),
  q('previous', 'boolean', 'Logs of the previous, terminated container.'),
  q('sinceSeconds', 'integer', 'Relative time in seconds to show logs from.'),
  q('tailLines', 'integer', 'Lines from the end of the log to show.'),
  q('timestamps', 'boolean', 'Prefix every line with its RFC 3339 timestamp.'),
];
// Subresources that upgrade the connection (x-kubernetes-action `connect`).
export const CONNECT_SUBRESOURCES = new Set(['attach', 'exec', 'portforward', 'proxy']);

export const OK_CODES = {
  read: [200],
  create: [200, 201, 202],
  replace: [200, 201],
  patch: [200, 201],
  delete: [200, 202],
} as const;
const CODE_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted' };

export function responses(codes: readonly number[], def: string | undefined, text = false): Operation['responses'] {
  return codes.map((code) => ({ code, description: CODE_TEXT[code] ?? String(code), def, text }));
}

export function capitalize(s: string): string {
  return s ? s[0]!.toUpperCase() + s.slice(1) : s;
}

/** `rbac.authorization.platform.io` → `RbacAuthorization`, '' → `Core` (upstream's operationId parts). */
export function groupCamel(group: string): string {
  if (!group) return 'Core';
  const bare = group.endsWith(BRAND_SUFFIX) ? group.slice(0, -BRAND_SUFFIX.length) : group;
  return bare.split(/[.-]/).map(capitalize).join('');
}

export function tagOf(group: string, version?: string): string {
  const g = group ? groupCamel(group).replace(/^./, (c) => c.toLowerCase()) : 'core';
  return version ? `${g}_${version}` : g;
}

export function gvKey(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

export function gvkKey(gvk: GroupVersionKindRef): string {
  return `${gvk.group}/${gvk.version}/${gvk.kind}`;
}

export function listKindOf(served: ServedResource): string {
  return served.type.listKind ?? `${served.type.kind}List`;
}

export function discoveryOp(operationId: string, tag: string, def: string, description: string): Operation {
  return { method: 'get', operationId, description, tag, params: [], responses: responses([200], def), produces: 'object' };
}

export function discoveryResourcesPath(gv: GroupVersion): PathSpec {
  const prefix = gv.group ? `/apis/${gv.group}/${gv.version}/` : `/api/${gv.version}/`;
  const id = `get${groupCamel(gv.group)}${capitalize(gv.version)}APIResources`;
  return { path: prefix, params: [], ops: [discoveryOp(id, tagOf(gv.group, gv.version), API_RESOURCE_LIST_DEF, 'get available resources')] };
}
