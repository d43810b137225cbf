// Protobuf: enveloped objects (the spec's `k8s\0` + Unknown) for responses, and watch streams as
// upstream frames them — each event a 4-byte big-endian length, then a WatchEvent whose object is
// the enveloped object. One encoder per media type name; the bytes are the same.

import { notAcceptable } from '../api/status.js';
import { encodeObject, PROTOBUF_MEDIA_TYPES } from '../proto/envelope.js';
import { encode } from '../proto/wire.js';
import { bodyValue, served, type Body, type Encoder, type WatchEncoder, type WatchEvent } from './codec.js';

function enveloped(value: unknown): Buffer {
  const bytes = encodeObject((value ?? {}) as { apiVersion?: unknown; kind?: unknown });
  if (!bytes) {
    const v = value as { apiVersion?: unknown; kind?: unknown } | null;
    throw notAcceptable('protobuf', [`${String(v?.apiVersion ?? '')}, Kind=${String(v?.kind ?? '')} has no protobuf form; ask for application/json`]);
  }
  return bytes;
}

function protobufEncoder(mediaType: string): Encoder {
  return { mediaType, encode: (body: Body) => enveloped(bodyValue(body)) };
}

export const protobufEncoders: readonly Encoder[] = PROTOBUF_MEDIA_TYPES.map(protobufEncoder);

/** A length-prefixed WatchEvent frame; its object (a RawExtension) carries the enveloped object's bytes. */
function frame(type: string, object: Uint8Array): Buffer {
  const event = encode('meta.v1.WatchEvent', { type, object });
  const len = Buffer.alloc(4);
  len.writeUInt32BE(event.length);
  return Buffer.concat([len, event]);
}

function protobufWatchEncoder(mediaType: string): WatchEncoder {
  const framing: WatchEncoder = {
    mediaType,
    frame: (type, object) => frame(type, enveloped(object)),
    event(ev: WatchEvent): Buffer {
      switch (ev.type) {
        case 'ERROR':
          return frame('ERROR', enveloped(ev.status));
        case 'BOOKMARK':
          return frame('BOOKMARK', enveloped({ kind: ev.kind, apiVersion: ev.apiVersion, metadata: ev.metadata }));
        default:
          return frame(ev.type, enveloped(served(ev.object, ev.transform)));
      }
    },
  };
  return framing;
}

export const protobufWatchEncoders: readonly WatchEncoder[] = PROTOBUF_MEDIA_TYPES.map(protobufWatchEncoder);
