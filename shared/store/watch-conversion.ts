// Cached objects served through a conversion that runs outside the server (a custom resource's
// conversion webhook): whole pages converted at once for lists, and for a watcher a queue that
// converts its events one at a time, in order, before they are framed. Anything the watcher
// sends while conversions are pending (a bookmark) waits its turn, so a client never sees a
// bookmark before an event of an earlier revision. A conversion that fails ends the watch with an
// ERROR event carrying the converter's Status.

import type { ApiObject } from '../api/types.js';
import { toStatus, type Status } from '../api/status.js';
import type { CachedObject, EventType } from '../codec/cached-object.js';

/** Objects → the served form, in order (Target.convertOut). */
export type ConvertObjects = (objs: readonly ApiObject[]) => Promise<ApiObject[]>;

/** `o` holding `object` instead, as the codecs take it; `o` itself (and its encodings) when conversion left it alone. */
export function withObject(o: CachedObject, object: ApiObject): CachedObject {
  return object === o.object ? o : { ref: o.ref, sortKey: o.sortKey, revision: o.revision, object };
}

/** `objs` converted with one call of `convert` (one ConversionReview for a page, as upstream sends). */
export async function convertCached(objs: readonly CachedObject[], convert: ConvertObjects): Promise<CachedObject[]> {
  if (objs.length === 0) return [];
  const out = await convert(objs.map((o) => o.object));
  return objs.map((o, i) => withObject(o, out[i]!));
}

/** While catching up, a watcher produces its next event only when fewer than this many wait. */
const CATCH_UP_QUEUE = 8;
/** A live watcher with more events than this waiting for conversion is too slow, as a client that does not read is. */
const MAX_QUEUED = 1024;

/** What the queue needs of its watcher. */
export interface ConversionOutlet {
  convert: ConvertObjects;
  /** Frames an event whose object is in the served form. */
  frame(type: EventType, o: CachedObject): string | Buffer;
  send(line: string | Buffer, live: boolean): void;
  /** Ends the watch with an ERROR event. */
  fail(status: Status): void;
  /** Whether the watcher has ended (nothing more is sent). */
  closed(): boolean;
}

type Queued = { event: true; type: EventType; object: CachedObject; live: boolean } | { event: false; line: string | Buffer; live: boolean };

export class ConversionQueue {
  private readonly queue: Queued[] = [];
  private running = false;
  private waiting: (() => void) | null = null;

  constructor(private readonly outlet: ConversionOutlet) {}

  /** Queues an event; false when too many wait already (the caller ends the watch). */
  event(type: EventType, object: CachedObject, live: boolean): boolean {
    if (this.queue.length >= MAX_QUEUED) return false;
    this.queue.push({ event: true, type, object, live });
    if (!this.running) void this.drain();
    return true;
  }

  /** Sends a line already framed after every event queued before it. */
  line(line: string | Buffer, live = false): void {
    if (!this.running && this.queue.length === 0) {
      this.outlet.send(line, live);
      return;
    }
    this.queue.push({ event: false, line, live });
  }

  /** Whether a catching-up watcher may produce another event now. */
  ready(): boolean {
    return this.queue.length < CATCH_UP_QUEUE;
  }

  /** Calls `fn` once, when `ready` is true again. */
  onReady(fn: () => void): void {
    this.waiting = fn;
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.queue.length > 0 && !this.outlet.closed()) {
      const item = this.queue.shift()!;
      if (!item.event) {
        this.outlet.send(item.line, item.live);
        continue;
      }
      let converted: ApiObject;
      try {
        [converted] = (await this.outlet.convert([item.object.object])) as [ApiObject];
      } catch (err) {
        this.queue.length = 0;
        this.running = false;
        if (!this.outlet.closed()) this.outlet.fail(toStatus(err));
        return;
      }
      if (this.outlet.closed()) break;
      this.outlet.send(this.outlet.frame(item.type, withObject(item.object, converted)), item.live);
      this.wake();
    }
    this.running = false;
    this.wake();
  }

  private wake(): void {
    if (!this.waiting || !this.ready() || this.outlet.closed()) return;
    const fn = this.waiting;
    this.waiting = null;
    fn();
  }
}
