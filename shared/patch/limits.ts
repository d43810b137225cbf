// Bounds on the work one patch may do. A patch body is small, but what it names can cost far more
// than its size: `copy` duplicates whatever it points at (forty copies of a value into itself
// double it forty times), an insert at the front of a long array moves every element, and list
// items repeating one merge key make a strategic merge redo the same merge. The algorithms charge
// what they do to a meter and stop with a Status error while the cost is still small.

import { MAX_BODY_BYTES } from '../api/decode.js';
import type { StatusError } from '../api/status.js';

/**
 * Total size a JSON patch's `copy` operations may add. Upstream sets evanphx/json-patch's
 * `AccumulatedCopySizeLimit` to the largest request body, so copying cannot build more than a
 * body could have carried.
 */
export const MAX_JSON_PATCH_COPY_BYTES = MAX_BODY_BYTES;

/**
 * Largest patched object, as the storage service's MAX_OBJECT_BYTES (shared/store/kv-bucket.ts,
 * not imported: that module pulls in the NATS client). Checked before validation, admission and
 * the storage round trip, which would all be wasted on an object storage must refuse.
 */
export const MAX_PATCH_RESULT_BYTES = 1_572_864;

/**
 * Array elements JSON patch inserts and removals may shift, in total. An element move is a
 * memmove of one slot (well under a nanosecond), so this is tens of milliseconds; 10,000 inserts
 * at the front of a long array are hundreds of times more.
 */
export const MAX_JSON_PATCH_ARRAY_SHIFTS = 64 * 1024 * 1024;

/**
 * A strategic merge may do this many times the work of walking its inputs once (see `jsonWork`).
 * An honest merge visits each node of the object and the patch a few times; only a patch that
 * makes the merge repeat itself needs more.
 */
export const STRATEGIC_MERGE_WORK_FACTOR = 10;
/** Headroom so that small objects never meet the factor. */
export const STRATEGIC_MERGE_WORK_FLOOR = 100_000;

/** Counts work in some unit and throws the Status `exceeded` builds once it passes `limit`. */
export class WorkMeter {
  private used = 0;
  constructor(
    readonly limit: number,
    private readonly exceeded: (used: number, limit: number) => StatusError,
  ) {}

  charge(units: number): void {
    this.used += units;
    if (this.used > this.limit) throw this.exceeded(this.used, this.limit);
  }

  get remaining(): number {
    return this.limit - this.used;
  }
}

/**
 * The size of `v` encoded as JSON, or some number above `limit` once it is known to be larger:
 * the walk stops there, so measuring a huge value costs no more than the limit. It is a lower
 * bound (escapes and multi-byte UTF-8 are not counted), so a value it finds too large really is.
 * Iterative, so a deeply nested value cannot overflow the stack.
 */
export function encodedSize(v: unknown, limit: number): number {
  let size = 0;
  const pending: unknown[] = [v];
  while (pending.length > 0) {
    const x = pending.pop();
    if (typeof x === 'string') size += x.length + 2;
    else if (typeof x === 'number') size += String(x).length;
    else if (typeof x === 'boolean') size += x ? 4 : 5;
    else if (Array.isArray(x)) {
      size += 1 + Math.max(x.length, 1);
      if (size > limit) return size;
      for (let i = x.length - 1; i >= 0; i--) pending.push(x[i]);
    } else if (typeof x === 'object' && x !== null) {
      const keys = Object.keys(x);
      size += 1 + Math.max(keys.length, 1);
      for (const k of keys) {
        size += k.length + 3;
        pending.push((x as Record<string, unknown>)[k]);
      }
    } else size += 4; // null
    if (size > limit) return size;
  }
  return size;
}

/**
 * The work of walking `v` once: one unit per node, and strings one more per 64 characters (what
 * hashing or encoding them costs relative to visiting a node). Iterative, like `encodedSize`.
 */
export function jsonWork(v: unknown): number {
  let work = 0;
  const pending: unknown[] = [v];
  while (pending.length > 0) {
    const x = pending.pop();
    work += 1;
    if (typeof x === 'string') work += x.length >> 6;
    else if (Array.isArray(x)) for (const item of x) pending.push(item);
    else if (typeof x === 'object' && x !== null) for (const k of Object.keys(x)) pending.push((x as Record<string, unknown>)[k]);
  }
  return work;
}
