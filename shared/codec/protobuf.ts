// Protobuf: enveloped objects (the spec's `k8s\0` + Unknown) for responses, and watch streams as
// upstream frames them — each event a 4-byte big-endian length, then a WatchEvent whose object is
// the enveloped object. One encoder per media type name; the bytes are the same.

import { notAcceptable } from '../api/status.js';
import type { ApiObject } from '../api/types.js';
import { encodeObject, envelope, messageOf, PROTOBUF_MEDIA_TYPES } from '../proto/envelope.js';
import { encode, withRepeated } from '../proto/wire.js';
import type { CachedObject } from './cached-object.js';
import { bodyValue, served, type Body, type Encoder, type Transform, type WatchEncoder, type WatchEvent } from './codec.js';

function enveloped(value: unknown): Buffer {
  const bytes = encodeObject((value ?? {}) as { apiVersion?: unknown; kind?: unknown });
  if (!bytes) {
    const v = value as { apiVersion?: unknown; kind?: unknown } | null;
    throw notAcceptable('protobuf', [`${String(v?.apiVersion ?? '')}, Kind=${String(v?.kind ?? '')} has no protobuf form; ask for application/json`]);
  }
  return bytes;
}

/** A cached object's message bytes, encoded once per object like its JSON (unless served in another form). */
function storedBytes(o: CachedObject, transform: Transform, type: string): Uint8Array {
  return transform ? encode(type, transform(o.object)) : (o.protobuf ??= encode(type, o.object));
}

function encodeBody(body: Body): Buffer {
  switch (body.kind) {
    case 'stored': {
      const value = served(body.object, body.transform) as ApiObject;
      const [apiVersion, kind] = [String(value.apiVersion ?? ''), String(value.kind ?? '')];
      const type = messageOf(apiVersion, kind);
      return type ? envelope(apiVersion, kind, storedBytes(body.object, body.transform, type)) : enveloped({ apiVersion, kind });
    }
    case 'list': {
      const listType = messageOf(body.apiVersion, body.listKind);
      const itemType = messageOf(body.apiVersion, body.listKind.replace(/List$/, ''));
      if (!listType || !itemType) return enveloped({ apiVersion: body.apiVersion, kind: body.listKind });
      const head = encode(listType, { metadata: body.metadata });
      // ListMeta is field 1 and items field 2 of every List message.
      return envelope(
        body.apiVersion,
        body.listKind,
        withRepeated(
          head,
          2,
          body.items.map((o) => storedBytes(o, body.transform, itemType)),
        ),
      );
    }
    default:
      return enveloped(bodyValue(body));
  }
}

function protobufEncoder(mediaType: string): Encoder {
  return { mediaType, encode: encodeBody };
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
          return frame(ev.type, encodeBody({ kind: 'stored', object: ev.object, transform: ev.transform }));
      }
    },
  };
  return framing;
}

export const protobufWatchEncoders: readonly WatchEncoder[] = PROTOBUF_MEDIA_TYPES.map(protobufWatchEncoder);
