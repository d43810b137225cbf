// The generic parts of the create/update/delete strategies: metadata the server owns, status
// handling for types with a status subresource, generation, and the deletion state machine of
// the spec (deletionTimestamp + finalizers). Pure: time and randomness come in as arguments.

import { randomInt, randomUUID } from 'node:crypto';
import type { ApiObject, ObjectMeta } from '../../shared/api/types.js';
import type { FieldError } from '../../shared/api/status.js';
import type { ResourceType, StrategyContext } from '../../shared/registry/types.js';
import { subresourceStrategy } from '../../shared/registry/subresources.js';
import { jsonEqual } from '../../shared/patch/json-value.js';

/** RFC 3339 with second precision, as the API serializes metav1.Time. */
export function nowTimestamp(now?: Date): string {
  if (now) return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  // Every write asks for the current time; at second precision it changes once a second.
  const second = Math.floor(Date.now() / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastTimestamp = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return lastTimestamp;
}

let lastSecond = NaN;
let lastTimestamp = '';

// Same alphabet as upstream's name generator: no vowels (no words), no confusable characters.
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const MAX_GENERATE_NAME_PREFIX = 253 - 5;

export function generateName(prefix: string): string {
  const p = prefix.length > MAX_GENERATE_NAME_PREFIX ? prefix.slice(0, MAX_GENERATE_NAME_PREFIX) : prefix;
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
  return p + suffix;
}

function hasStatus(type: ResourceType): boolean {
  return Boolean(type.subresources?.status);
}

/** Server-owned metadata and status handling for a create (before validation). */
export function prepareForCreate(type: ResourceType, obj: ApiObject, ctx: StrategyContext): void {
  const m = (obj.metadata ??= {});
  if (!m.name && m.generateName) m.name = generateName(m.generateName);
  m.uid = randomUUID();
  m.creationTimestamp = ctx.now;
  if (type.generation !== false) m.generation = 1;
  else delete m.generation;
  delete m.resourceVersion;
  delete m.deletionTimestamp;
  delete m.deletionGracePeriodSeconds;
  delete m.selfLink;
  if (hasStatus(type)) delete obj.status;
  type.strategy?.prepareForCreate?.(obj, ctx);
}

const SERVER_OWNED_META = ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const;

function specPart(o: ApiObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
  return rest;
}

/**
 * Whether writing `next` would store exactly what `stored` already holds: such a write is a no-op
 * that must keep the resourceVersion and emit no event. resourceVersion is not part of the value.
 */
export function sameStoredValue(next: ApiObject, stored: ApiObject): boolean {
  const { resourceVersion: _a, ...nextMeta } = next.metadata ?? {};
  const { resourceVersion: _b, ...storedMeta } = stored.metadata ?? {};
  return jsonEqual({ ...next, metadata: nextMeta }, { ...stored, metadata: storedMeta });
}

/**
 * Update of the main resource: server-owned metadata comes from `old`; for types with a status
 * subresource the status is kept from `old`; generation increments when the spec changed.
 */
export function prepareForUpdate(type: ResourceType, obj: ApiObject, old: ApiObject, ctx: StrategyContext): void {
  const m = (obj.metadata ??= {});
  for (const k of SERVER_OWNED_META) {
    if (old.metadata[k] !== undefined) (m as Record<string, unknown>)[k] = old.metadata[k];
    else delete m[k];
  }
  if (hasStatus(type)) {
    if (old.status !== undefined) obj.status = old.status;
    else delete obj.status;
  }
  if (type.generation !== false && !jsonEqual(specPart(obj), specPart(old))) m.generation = (old.metadata.generation ?? 1) + 1;
  type.strategy?.prepareForUpdate?.(obj, old, ctx);
}

/**
 * Update through `/status`: only status changes; everything else is kept from `old`. The type's
 * status strategy may then narrow what of the status a status writer owns.
 */
export function prepareForStatusUpdate(type: ResourceType, obj: ApiObject, old: ApiObject, ctx: StrategyContext): ApiObject {
  const next: ApiObject = { ...old, metadata: { ...old.metadata, resourceVersion: obj.metadata?.resourceVersion } };
  if (obj.status !== undefined) next.status = obj.status;
  else delete next.status;
  return subresourceStrategy(type, 'status')?.prepareForUpdate(next, old, ctx) ?? next;
}

/** Update through another subresource (`approval`, `finalize`): the type's strategy for it builds
 *  the object; undefined when the type has none. */
export function prepareForSubresourceUpdate(type: ResourceType, subresource: string, obj: ApiObject, old: ApiObject, ctx: StrategyContext): ApiObject | undefined {
  return subresourceStrategy(type, subresource)?.prepareForUpdate(obj, old, ctx);
}

/** Metadata rules of updates that concern lifecycle rather than shape. */
export function validateLifecycleUpdate(obj: ApiObject, old: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  if (old.metadata.deletionTimestamp) {
    const before = new Set(old.metadata.finalizers ?? []);
    const added = (obj.metadata.finalizers ?? []).filter((f) => !before.has(f));
    if (added.length) errs.push({ type: 'Forbidden', field: 'metadata.finalizers', detail: `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}` });
  }
  return errs;
}

/** Whether an object in deletion may now be removed from storage. */
export function readyForRemoval(obj: ApiObject): boolean {
  return Boolean(obj.metadata.deletionTimestamp) && (obj.metadata.finalizers?.length ?? 0) === 0 && pendingSpecFinalizers(obj) === 0;
}

// Namespaces carry their own finalizer list in spec (emptied through /finalize).
function pendingSpecFinalizers(obj: ApiObject): number {
  if (obj.kind !== 'Namespace') return 0;
  return ((obj.spec as { finalizers?: unknown[] } | undefined)?.finalizers?.length ?? 0);
}

export const DeleteOutcome = { Remove: 'Remove', MarkTerminating: 'MarkTerminating', AlreadyTerminating: 'AlreadyTerminating' } as const;
export type DeleteOutcome = (typeof DeleteOutcome)[keyof typeof DeleteOutcome];

/**
 * First step of the deletion table: an object without finalizers is removed; one with
 * finalizers gets deletionTimestamp and stays until the last finalizer is removed.
 */
export function planDelete(obj: ApiObject): DeleteOutcome {
  const pending = (obj.metadata.finalizers?.length ?? 0) + pendingSpecFinalizers(obj);
  if (pending === 0) return DeleteOutcome.Remove;
  return obj.metadata.deletionTimestamp ? DeleteOutcome.AlreadyTerminating : DeleteOutcome.MarkTerminating;
}

export function markTerminating(obj: ApiObject, now: string): ApiObject {
  const meta: ObjectMeta = { ...obj.metadata, deletionTimestamp: now, deletionGracePeriodSeconds: 0 };
  const next: ApiObject = { ...obj, metadata: meta };
  if (obj.kind === 'Namespace') next.status = { ...((obj.status as object) ?? {}), phase: 'Terminating' };
  return next;
}
