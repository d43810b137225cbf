// Between an object as a request serves it and as storage keeps it: the storage reference, the
// namespace a request gives it, and the normalisation upstream's decoding does.

import { badRequest } from '../../api/status.js';
import type { ApiObject, ObjectRef } from '../../api/types.js';
import { normalizeObject } from '../../proto/envelope.js';
import type { Target } from '../types.js';

/** A namespaced object takes the request's namespace; one that names another is refused. */
export function setNamespace(t: Target, obj: ApiObject, namespace: string | undefined): void {
  if (!t.namespaced) return;
  const ns = namespace ?? '';
  if (obj.metadata.namespace && obj.metadata.namespace !== ns) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  obj.metadata.namespace = ns;
}

/** Where storage keeps the object: the target's storage identity, and the namespace only for a namespaced type. */
export function storageRef(t: Target, namespace: string | undefined, name: string): ObjectRef {
  const r: ObjectRef = { group: t.storage.group, resource: t.storage.resource, name };
  if (namespace && t.namespaced) r.namespace = namespace;
  return r;
}

/**
 * The object as upstream's decoding would leave it: empty `omitempty` maps and zero scalars gone
 * on the way in (before defaults and field management) and after mutating admission and the
 * strategy; once validated, what Go writes for absent values (`{}` structs, zero scalars) filled
 * in, so a value a client never sent cannot fail validation or change its error message.
 */
export function normalize(t: Target, o: ApiObject, fill: boolean): void {
  normalizeObject(t.apiVersion, t.kind, o as unknown as Record<string, unknown>, fill);
}

/** A stored object in the target's served form; for a target with `convertOut` use `servedAsync`. */
export function served(t: Target, o: ApiObject): ApiObject {
  return t.fromStored ? t.fromStored(o) : o;
}

/**
 * A stored object in the target's served form through its conversion webhook, else as `served`.
 * Callers on a hot path test `t.convertOut` first, so in-process conversions await nothing.
 */
export async function servedAsync(t: Target, o: ApiObject): Promise<ApiObject> {
  return t.convertOut ? (await t.convertOut([o]))[0]! : served(t, o);
}

/** An object of the target's served form as storage keeps it, through its conversion webhook when it has one. */
export async function storedAsync(t: Target, o: ApiObject): Promise<ApiObject> {
  return t.convertIn ? (await t.convertIn([o]))[0]! : t.toStored(o);
}
