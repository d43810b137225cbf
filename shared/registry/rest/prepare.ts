// The generic parts of the create/update/delete strategies: metadata the server owns, status
// handling for types with a status subresource, generation, and the deletion state machine of
// the spec (deletionTimestamp + finalizers). Pure: time and randomness come in as arguments.

import { formatTime } from '../../api/time.js';
import { randomInt, randomUUID } from 'node:crypto';
import type { ApiObject, ObjectMeta } from '../../api/types.js';
import type { FieldError } from '../../api/status.js';
import type { ResourceType, StrategyContext, VersionDef } from '../types.js';
import { subresourceStrategy } from '../subresources.js';
import { hasStatusSubresource } from '../version-parts.js';
import { jsonEqual } from '../../patch/json-value.js';
import { forbidden } from '../../api/field-errors.js';

// Same alphabet as upstream's name generator: no vowels (no words), no confusable characters.
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const MAX_GENERATE_NAME_PREFIX = 253 - 5;

export function generateName(prefix: string): string {
  const p = prefix.length > MAX_GENERATE_NAME_PREFIX ? prefix.slice(0, MAX_GENERATE_NAME_PREFIX) : prefix;
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
  return p + suffix;
}

/**
 * Server-owned metadata and status handling for a create (before validation). `version` is the
 * request's: whether it has a status subresource decides whether the status sent is kept.
 */
export function prepareForCreate(type: ResourceType, obj: ApiObject, ctx: StrategyContext, version?: VersionDef): void {
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
  if (hasStatusSubresource(type, version) && !type.strategy?.keepStatusOnCreate) delete obj.status;
  type.strategy?.prepareForCreate?.(obj, ctx);
}

const SERVER_OWNED_META = ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const;

/** What a generation counts: everything but metadata, and but status where a status subresource writes it. */
function specPart(o: ApiObject, withStatus: boolean): Record<string, unknown> {
  const { metadata: _m, status, apiVersion: _a, kind: _k, ...rest } = o;
  return withStatus && status !== undefined ? { ...rest, status } : rest;
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
 * Update of the main resource: server-owned metadata comes from `old`; through a version with a
 * status subresource the status is kept from `old`; generation increments when the spec changed.
 * Through a version without one the main resource writes the status too, and a status change
 * counts for the generation as any other (upstream's custom resource strategy, by request version).
 */
export function prepareForUpdate(type: ResourceType, obj: ApiObject, old: ApiObject, ctx: StrategyContext, version?: VersionDef): void {
  const m = (obj.metadata ??= {});
  for (const k of SERVER_OWNED_META) {
    if (old.metadata[k] !== undefined) (m as Record<string, unknown>)[k] = old.metadata[k];
    else delete m[k];
  }
  const statusSubresource = hasStatusSubresource(type, version);
  if (statusSubresource) {
    if (old.status !== undefined) obj.status = old.status;
    else delete obj.status;
  }
  if (type.generation !== false && !jsonEqual(specPart(obj, !statusSubresource), specPart(old, !statusSubresource))) m.generation = (old.metadata.generation ?? 1) + 1;
  type.strategy?.prepareForUpdate?.(obj, old, ctx);
}

/**
 * Update through `/status`: only status changes; everything else is kept from `old`. The type's
 * status strategy may then narrow what of the status a status writer owns.
 */
export function prepareForStatusUpdate(type: ResourceType, obj: ApiObject, old: ApiObject, ctx: StrategyContext): ApiObject {
  const next: ApiObject = { ...old, metadata: { ...old.metadata, resourceVersion: obj.metadata?.resourceVersion } };
  // The request's managedFields stay: a status apply has recorded its manager in them already (as upstream's status strategies keep them).
  if (obj.metadata?.managedFields !== undefined) next.metadata.managedFields = obj.metadata.managedFields;
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
    if (added.length) errs.push(forbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`));
  }
  return errs;
}

/** Whether an object in deletion may now be removed from storage. */
export function readyForRemoval(type: ResourceType, obj: ApiObject): boolean {
  return Boolean(obj.metadata.deletionTimestamp) && pendingFinalizers(type, obj) === 0;
}

/** Finalizers still to run: metadata's, plus those the type keeps elsewhere (a namespace's spec). */
function pendingFinalizers(type: ResourceType, obj: ApiObject): number {
  return (obj.metadata.finalizers?.length ?? 0) + (type.strategy?.deletion?.pendingFinalizers?.(obj) ?? 0);
}

export const DeleteOutcome = { Remove: 'Remove', MarkTerminating: 'MarkTerminating', AlreadyTerminating: 'AlreadyTerminating' } as const;
export type DeleteOutcome = (typeof DeleteOutcome)[keyof typeof DeleteOutcome];

/**
 * First step of the deletion table: an object without finalizers is removed; one with
 * finalizers gets deletionTimestamp and stays until the last finalizer is removed.
 */
export function planDelete(type: ResourceType, obj: ApiObject): DeleteOutcome {
  if (pendingFinalizers(type, obj) === 0) return DeleteOutcome.Remove;
  return obj.metadata.deletionTimestamp ? DeleteOutcome.AlreadyTerminating : DeleteOutcome.MarkTerminating;
}

/**
 * A graceful deletion (pods on a node): the object stays with deletionTimestamp = now + grace and
 * deletionGracePeriodSeconds = grace until its node agent (or a grace of 0) removes it; a second
 * deletion may only shorten the wait. `now` is the clock in milliseconds. Undefined: not graceful,
 * the deletion table applies as usual.
 */
export function gracefulDeletion(type: ResourceType, obj: ApiObject, requested: number | undefined, now: number): { next: ApiObject | null } | undefined {
  const grace = type.strategy?.deletion?.gracePeriodSeconds?.(obj, requested);
  if (grace === undefined || grace <= 0) return undefined;
  const current = obj.metadata.deletionGracePeriodSeconds;
  const deadline = now + grace * 1000;
  if (obj.metadata.deletionTimestamp) {
    // Terminating for finalizers only (no grace under way): the deletion table decides.
    if (!current) return undefined;
    if (deadline >= Date.parse(obj.metadata.deletionTimestamp)) return { next: null };
  }
  return { next: { ...obj, metadata: { ...obj.metadata, deletionTimestamp: formatTime(new Date(deadline)), deletionGracePeriodSeconds: grace } } };
}

export function markTerminating(type: ResourceType, obj: ApiObject, now: string): ApiObject {
  const meta: ObjectMeta = { ...obj.metadata, deletionTimestamp: now, deletionGracePeriodSeconds: 0 };
  const next: ApiObject = { ...obj, metadata: meta };
  type.strategy?.deletion?.markTerminating?.(next);
  return next;
}
