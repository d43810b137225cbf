// JSON: the default codec. Cached objects are serialized once (CachedObject.json) and lists are
// assembled from those texts, so a list or a watch fan-out costs string joins, not re-encoding.

import type { CachedObject } from './cached-object.js';
import { bodyValue, type Body, type Encoder, type Transform, type WatchEncoder, type WatchEvent } from './codec.js';

/** A cached object's JSON, serialized on first use and kept with it. */
export function objectJson(o: CachedObject): string {
  return (o.json ??= JSON.stringify(o.object));
}

function storedJson(o: CachedObject, transform: Transform): string {
  return transform ? JSON.stringify(transform(o.object)) : objectJson(o);
}

export const jsonEncoder: Encoder = {
  mediaType: 'application/json',
  encode(body: Body, pretty: boolean): string {
    if (pretty) return JSON.stringify(bodyValue(body), null, 2) + '\n';
    switch (body.kind) {
      case 'value':
        return JSON.stringify(body.value);
      case 'json':
        return body.text;
      case 'stored':
        return storedJson(body.object, body.transform);
      case 'list': {
        let items = '';
        for (let i = 0; i < body.items.length; i++) items += (i ? ',' : '') + storedJson(body.items[i]!, body.transform);
        return `{"kind":${JSON.stringify(body.listKind)},"apiVersion":${JSON.stringify(body.apiVersion)},"metadata":${JSON.stringify(body.metadata)},"items":[${items}]}`;
      }
    }
  },
};

/** Newline-delimited `{"type":…,"object":…}` lines (upstream's JSON watch framing). */
export const jsonWatchEncoder: WatchEncoder = {
  mediaType: 'application/json',
  frame: (type, object) => JSON.stringify({ type, object }) + '\n',
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
