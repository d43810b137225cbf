// The codec seam: what a response body is before it has bytes, and the encoders that give it
// bytes. Handlers and the watch cache hand out bodies and events; the encoder negotiated for the
// request turns them into JSON, YAML or protobuf, converted to a Table or metadata when asked. Stored objects travel
// as the cache holds them, so the JSON encoder can reuse each object's one serialization for
// every get, list page and watcher that sends it unchanged.

import type { Status } from '../api/status.js';
import type { ApiObject } from '../api/types.js';
import type { CachedObject, EventType } from './cached-object.js';

/** Stored form → served form (another version or kind); null when they are the same. */
export type Transform = ((obj: ApiObject) => ApiObject) | null;

/** A response body before encoding. */
export type Body =
  /** Any API value built for this response (a Status, an object just written, a review). */
  | { readonly kind: 'value'; readonly value: unknown }
  /** A document already serialized as JSON (discovery, OpenAPI). */
  | { readonly kind: 'json'; readonly text: string }
  /** An object as the cache holds it, served through `transform`. */
  | { readonly kind: 'stored'; readonly object: CachedObject; readonly transform: Transform }
  /** A list of cached objects (`items` already filtered and paged). */
  | {
      readonly kind: 'list';
      readonly apiVersion: string;
      readonly listKind: string;
      readonly metadata: Record<string, unknown>;
      readonly items: readonly CachedObject[];
      readonly transform: Transform;
    };

export function value(v: unknown): Body {
  return { kind: 'value', value: v };
}

/** One chunk of a watch stream. */
export type WatchEvent =
  | { readonly type: EventType; readonly object: CachedObject; readonly transform: Transform }
  | { readonly type: 'BOOKMARK'; readonly apiVersion: string; readonly kind: string; readonly metadata: Record<string, unknown> }
  | { readonly type: 'ERROR'; readonly status: Status };

export interface Encoder {
  /** The Content-Type of what it writes. */
  readonly mediaType: string;
  encode(body: Body, pretty: boolean): string | Buffer;
}

/** Frames watch events for one stream format. */
export interface WatchEncoder {
  readonly mediaType: string;
  event(ev: WatchEvent): string | Buffer;
  /** One event whose object is a value built for this stream (a converted object, a Status). */
  frame(type: string, object: unknown): string | Buffer;
}

/** The served value of a stored object (shared with the cache: never change it). */
export function served(o: CachedObject, transform: Transform): unknown {
  return transform ? transform(o.object) : o.object;
}

/** A list body as a plain value, for encoders without a streaming fast path. */
export function listValue(body: Extract<Body, { kind: 'list' }>): unknown {
  return { kind: body.listKind, apiVersion: body.apiVersion, metadata: body.metadata, items: body.items.map((o) => served(o, body.transform)) };
}

/** Any body as a plain value. */
export function bodyValue(body: Body): unknown {
  switch (body.kind) {
    case 'value':
      return body.value;
    case 'json':
      return JSON.parse(body.text);
    case 'stored':
      return served(body.object, body.transform);
    case 'list':
      return listValue(body);
  }
}
