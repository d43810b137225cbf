// One watcher of the watch cache: what it sees of each change (its filter makes objects appear
// and vanish), how it catches up from its initial state and the change log at the pace of its
// transport, and how it ends (a slow client, 410 Expired, an ERROR event).

import type { ApiObject } from '../api/types.js';
import { gone, type Status } from '../api/status.js';
import type { WatchEncoder } from '../codec/codec.js';
import type { CachedObject, EventType } from '../codec/cached-object.js';
import { ConversionQueue, type ConvertObjects } from './watch-conversion.js';

export interface ChangeEvent {
  readonly revision: number;
  readonly type: EventType;
  /** New state; for DELETED the last state stamped with the deletion's revision. */
  readonly obj: CachedObject;
  readonly prev: CachedObject | undefined;
  readonly at: number;
  /** The event as `lineBy` encodes it, shared by every watcher that sees it unchanged. */
  line?: string | Buffer;
  lineBy?: WatchEncoder;
}

/** Where a watcher's bytes go. `write` returns false when the client is too slow; the cache then closes it. */
export interface WatchSink {
  /** `live`: a change fanned out as it happens (not the watcher catching up). */
  write(chunk: string | Buffer, live?: boolean): boolean;
  close(error?: Status): void;
  /**
   * Flow control while the watcher catches up (initial events, replayed history): whether the
   * transport takes another event now, and `onReady` calls back once when it does again. Catching
   * up produces each event only then, so a large initial state costs a watcher about one buffer,
   * never the whole state. A sink without them takes everything at once.
   */
  ready?(): boolean;
  onReady?(fn: () => void): void;
}

export interface WatchOptions {
  /** Objects outside the filter are invisible: leaving it looks like DELETED, entering like ADDED. */
  filter?: (obj: ApiObject) => boolean;
  /** Converts stored objects to the requested version/kind; null means the stored form. */
  transform?: ((obj: ApiObject) => ApiObject) | null;
  /**
   * Converts stored objects asynchronously instead (a conversion webhook): each event waits for
   * its conversion, in order (watch-conversion.ts); `transform` is then not used.
   */
  convert?: ConvertObjects;
  /** Send events with revision greater than this. */
  afterRevision: number;
  /** Initial state sent as ADDED first (already taken at `afterRevision`). */
  initial?: CachedObject[];
  /** After the initial events, a BOOKMARK annotated as their end (streaming lists). */
  initialEventsEnd?: boolean;
  bookmarks?: { apiVersion: string; kind: string } | null;
  /** Frames events for the watcher's stream format. */
  encoder: WatchEncoder;
  sink: WatchSink;
}

export interface WatchHandle {
  stop(): void;
}

/** What a watcher reads and updates of its resource's state (watch-cache-resource.ts). */
export interface WatchedResource {
  readonly watchers: Set<Watcher>;
  /** Highest revision compacted out of the resource's log. */
  readonly droppedThrough: number;
  /** Watchers closed for not keeping up. */
  terminatedWatchers: number;
  /** The first logged change after `revision`. */
  nextChange(revision: number): ChangeEvent | undefined;
}

const INITIAL_EVENTS_END_ANNOTATION = 'platform.io/initial-events-end';

export class Watcher implements WatchHandle {
  closed = false;
  /** Caught up: live changes are delivered as they happen (before, the watcher reads them from the log). */
  live = false;
  lastBookmark = 0;
  /** Initial objects still to send while catching up; null once sent (or none asked for). */
  private initial: CachedObject[] | null;
  private nextInitial = 0;
  /** Revision of the last logged change this watcher has been given (sent or filtered out). */
  private position: number;
  /** The options without the initial objects, which only `initial` holds (and drops once sent). */
  readonly opts: Omit<WatchOptions, 'initial'>;
  /** Events waiting for their conversion (only with `convert`). */
  private readonly conversion: ConversionQueue | null;
  constructor(
    readonly state: WatchedResource,
    { initial, ...opts }: WatchOptions,
  ) {
    this.opts = opts;
    this.initial = initial ?? null;
    this.position = opts.afterRevision;
    const convert = opts.convert;
    this.conversion = convert
      ? new ConversionQueue({
          convert,
          frame: (type, o) => opts.encoder.event({ type, object: o, transform: null }),
          send: (line, live) => this.send(line, live),
          fail: (status) => this.fail(status),
          closed: () => this.closed,
        })
      : null;
  }

  matches(o: CachedObject | undefined): boolean {
    if (!o) return false;
    return !this.opts.filter || this.opts.filter(o.object);
  }

  serialize(type: EventType, o: CachedObject): string | Buffer {
    return this.opts.encoder.event({ type, object: o, transform: this.opts.transform ?? null });
  }

  /** Decides what this watcher sees of one change and sends it. */
  deliver(ev: ChangeEvent): void {
    if (ev.revision <= this.position) return;
    this.position = ev.revision;
    const was = this.matches(ev.prev);
    const is = ev.type !== 'DELETED' && this.matches(ev.obj);
    let type: EventType;
    if (ev.type === 'DELETED') {
      if (!was) return;
      type = 'DELETED';
    } else if (was && is) type = 'MODIFIED';
    else if (is) type = 'ADDED';
    else if (was) type = 'DELETED';
    else return;
    if (this.conversion) {
      this.queueConversion(type, ev.obj, this.live);
      return;
    }
    // Watchers that see the event exactly as it happened, in the same format, share one encoding.
    let line: string | Buffer;
    if (!this.opts.transform && type === ev.type) {
      if (ev.lineBy !== this.opts.encoder || ev.line === undefined) {
        ev.line = this.serialize(type, ev.obj);
        ev.lineBy = this.opts.encoder;
      }
      line = ev.line;
    } else line = this.serialize(type, ev.obj);
    this.send(line, this.live);
  }

  send(line: string | Buffer, live = false): void {
    if (this.closed) return;
    if (!this.opts.sink.write(line, live)) {
      this.state.terminatedWatchers++;
      this.stop();
      this.opts.sink.close();
    }
  }

  /** An event whose object the converter must convert first; a watcher too far behind its conversions is closed, as a slow one. */
  private queueConversion(type: EventType, o: CachedObject, live: boolean): void {
    if (this.closed || this.conversion!.event(type, o, live)) return;
    this.state.terminatedWatchers++;
    this.stop();
    this.opts.sink.close();
  }

  bookmark(revision: number, annotations?: Record<string, string>): void {
    const b = this.opts.bookmarks;
    if (!b || this.closed) return;
    this.lastBookmark = revision;
    const meta: Record<string, unknown> = { resourceVersion: String(revision) };
    if (annotations) meta.annotations = annotations;
    const line = this.opts.encoder.event({ type: 'BOOKMARK', apiVersion: b.apiVersion, kind: b.kind, metadata: meta });
    // Behind the events still being converted: a bookmark promises everything before it was sent.
    if (this.conversion) this.conversion.line(line);
    else this.send(line);
  }

  /**
   * Catches up: the initial objects, the end-of-initial-events bookmark, then the logged changes
   * after `position`, each produced only when the sink is ready; then joins the live fan-out.
   * Changes that arrive meanwhile are read from the log, so nothing is queued per watcher.
   */
  pump = (): void => {
    const sink = this.opts.sink;
    while (!this.closed) {
      if (sink.ready && sink.onReady && !sink.ready()) {
        sink.onReady(this.pump);
        return;
      }
      if (this.conversion && !this.conversion.ready()) {
        this.conversion.onReady(this.pump);
        return;
      }
      if (this.initial) {
        const o = this.initial[this.nextInitial++];
        if (o) {
          if (!this.matches(o)) continue;
          if (this.conversion) this.queueConversion('ADDED', o, false);
          else this.send(this.serialize('ADDED', o));
          continue;
        }
        this.initial = null;
        if (this.opts.initialEventsEnd) this.bookmark(this.opts.afterRevision, { [INITIAL_EVENTS_END_ANNOTATION]: 'true' });
        continue;
      }
      // The window moved past changes this watcher has not seen: it must start over.
      if (this.state.droppedThrough > this.position) {
        this.expire(this.state.droppedThrough);
        return;
      }
      const ev = this.state.nextChange(this.position);
      if (!ev) {
        this.live = true;
        return;
      }
      this.deliver(ev);
    }
  };

  /** Ends the watch with an ERROR event carrying 410 Expired. */
  expire(compacted: number): void {
    const status = gone(`too old resource version: ${this.position} (${compacted})`).status;
    status.reason = 'Expired';
    this.fail(status);
  }

  /** Ends the watch with an ERROR event carrying `status`. */
  fail(status: Status): void {
    this.opts.sink.write(this.opts.encoder.event({ type: 'ERROR', status }));
    this.stop();
    this.opts.sink.close();
  }

  stop(): void {
    if (this.closed) return;
    this.closed = true;
    // Let go of the snapshot at once: a stopped watcher may stay referenced by its transport.
    this.initial = null;
    this.state.watchers.delete(this);
  }
}
