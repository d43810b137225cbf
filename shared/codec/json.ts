// JSON: the default codec. Cached objects are serialized once (CachedObject.json) and lists are
// assembled from those texts, so a list or a watch fan-out costs string joins, not re-encoding.
// Bodies end as upstream's serializer ends them (Go's json.Encoder writes a newline after each
// value; `?pretty` is MarshalIndent, which does not); a Status is written in upstream's byte layout
// (status-json.ts). Pre-serialized documents (discovery, OpenAPI) are sent as they were made.

import type { CachedObject } from './cached-object.js';
import { bodyValue, type Body, type Encoder, type Transform, type WatchEncoder, type WatchEvent } from './codec.js';
import { isStatusValue, statusJson } from './status-json.js';

/**
 * A cached object's JSON as a response body, newline included: serialized on first use and kept
 * with it, so a get sends the cached text as it is.
 */
export function objectJson(o: CachedObject): string {
  return (o.json ??= JSON.stringify(o.object) + '\n');
}

/** The object's JSON inside a list or a watch event: the cached text without its newline (a slice, not a copy). */
function storedJson(o: CachedObject, transform: Transform): string {
  return transform ? JSON.stringify(transform(o.object)) : objectJson(o).slice(0, -1);
}

/** A value's JSON: a Status in upstream's layout, anything else as it is. */
function valueJson(v: unknown, indent?: number): string {
  return isStatusValue(v) ? statusJson(v, indent) : JSON.stringify(v, null, indent);
}

export const jsonEncoder: Encoder = {
  mediaType: 'application/json',
  encode(body: Body, pretty: boolean): string {
    if (pretty) return valueJson(bodyValue(body), 2);
    switch (body.kind) {
      case 'value':
        return valueJson(body.value) + '\n';
      case 'json':
        return body.text;
      case 'stored':
        return body.transform ? JSON.stringify(body.transform(body.object.object)) + '\n' : objectJson(body.object);
      case 'list': {
        let items = '';
        for (let i = 0; i < body.items.length; i++) items += (i ? ',' : '') + storedJson(body.items[i]!, body.transform);
        return `{"kind":${JSON.stringify(body.listKind)},"apiVersion":${JSON.stringify(body.apiVersion)},"metadata":${JSON.stringify(body.metadata)},"items":[${items}]}\n`;
      }
    }
  },
};

/** Newline-delimited `{"type":…,"object":…}` lines (upstream's JSON watch framing). */
export const jsonWatchEncoder: WatchEncoder = {
  mediaType: 'application/json',
  frame: (type, object) => (isStatusValue(object) ? `{"type":${JSON.stringify(type)},"object":${statusJson(object)}}\n` : JSON.stringify({ type, object }) + '\n'),
  event(ev: WatchEvent): string {
    switch (ev.type) {
      case 'BOOKMARK':
        return jsonWatchEncoder.frame('BOOKMARK', { kind: ev.kind, apiVersion: ev.apiVersion, metadata: ev.metadata }) as string;
      case 'ERROR':
        return jsonWatchEncoder.frame('ERROR', ev.status) as string;
      default:
        return `{"type":"${ev.type}","object":${storedJson(ev.object, ev.transform)}}\n`;
    }
  },
};
