// Content negotiation: the encoder of a response from its Accept header — a serializer (JSON,
// YAML, protobuf under either media type name), possibly wrapped in a conversion the client asked for with `as=` (Table,
// PartialObjectMetadata). Errors must always be readable, so an Accept nothing satisfies falls
// back to JSON for them.

import { negotiate, type Offer } from '../api/negotiate.js';
import type { Encoder, WatchEncoder } from './codec.js';
import { As, convertingEncoder, convertingWatchEncoder, META_GROUPS, META_VERSIONS, type Conversion, type ConversionSource } from './convert.js';
import { jsonEncoder, jsonWatchEncoder } from './json.js';
import { yamlEncoder } from './yaml.js';
import { protobufEncoders, protobufWatchEncoders } from './protobuf.js';
import { isProtobufMediaType } from '../proto/envelope.js';

export type { Body, Encoder, Transform, WatchEncoder, WatchEvent } from './codec.js';
export { bodyValue, value } from './codec.js';
export { jsonEncoder } from './json.js';
export { parseIncludeObject, type ConversionSource, type IncludeObject } from './convert.js';

const SERIALIZERS: readonly Encoder[] = [jsonEncoder, yamlEncoder, ...protobufEncoders];
const MEDIA_TYPES = SERIALIZERS.map((e) => e.mediaType);
const PLAIN: Offer[] = MEDIA_TYPES.map((mediaType) => ({ mediaType }));
/** Tables are JSON and YAML only (their cells are untyped), as upstream. */
const TABLE_MEDIA_TYPES = [jsonEncoder.mediaType, yamlEncoder.mediaType];
const WATCH_ENCODERS: readonly WatchEncoder[] = [jsonWatchEncoder, ...protobufWatchEncoders];
const WATCH_MEDIA_TYPES = WATCH_ENCODERS.map((e) => e.mediaType);

/** What a resource endpoint can be converted to. */
export interface Convertible extends ConversionSource {
  /** The response is a list (PartialObjectMetadataList rather than PartialObjectMetadata). */
  list: boolean;
}

function conversionOffers(as: As, mediaTypes: readonly string[]): Offer[] {
  const out: Offer[] = [];
  for (const group of META_GROUPS) for (const version of META_VERSIONS) for (const mediaType of mediaTypes) out.push({ mediaType, as, group, version });
  return out;
}

const OFFERS = new Map<string, Offer[]>();
/** Plain serializers first (no Accept means plain JSON), then the conversions this endpoint can make. */
function offersFor(c: Convertible | undefined, mediaTypes: readonly string[]): Offer[] {
  if (!c) return PLAIN;
  const key = `${c.list}:${c.columns !== null}:${c.noProtobuf === true}:${mediaTypes.join()}`;
  let offers = OFFERS.get(key);
  if (!offers) {
    if (c.noProtobuf) mediaTypes = mediaTypes.filter((t) => !isProtobufMediaType(t));
    offers = [...mediaTypes.map((mediaType) => ({ mediaType }))];
    if (c.columns !== null)
      offers.push(
        ...conversionOffers(
          As.Table,
          mediaTypes.filter((t) => TABLE_MEDIA_TYPES.includes(t)),
        ),
      );
    offers.push(...conversionOffers(c.list ? As.PartialObjectMetadataList : As.PartialObjectMetadata, mediaTypes));
    OFFERS.set(key, offers);
  }
  return offers;
}

function conversionOf(offer: Offer): Conversion | null {
  return offer.as ? { as: offer.as as As, group: offer.group!, version: offer.version! } : null;
}

/** The encoder for a response; throws 406 NotAcceptable when none satisfies `accept`. */
export function responseEncoder(accept: string | undefined, convertible?: Convertible): Encoder {
  const offer = negotiate(accept, offersFor(convertible, MEDIA_TYPES));
  const serializer = SERIALIZERS.find((e) => e.mediaType === offer.mediaType) ?? jsonEncoder;
  const conv = conversionOf(offer);
  return conv && convertible ? convertingEncoder(serializer, conv, convertible) : serializer;
}

/** The encoder for an error: the negotiated one when there is one, JSON otherwise. */
export function errorEncoder(accept: string | undefined): Encoder {
  try {
    return responseEncoder(accept);
  } catch {
    return jsonEncoder;
  }
}

/** Watch streams frame JSON lines or length-prefixed protobuf (YAML and unknown types fall back to JSON, as upstream), converted when asked. */
export function watchEncoder(accept: string | undefined, source?: ConversionSource): WatchEncoder {
  let offer: Offer;
  try {
    offer = negotiate(accept, source ? offersFor({ ...source, list: false }, WATCH_MEDIA_TYPES) : WATCH_MEDIA_TYPES.map((mediaType) => ({ mediaType })));
  } catch {
    return jsonWatchEncoder;
  }
  const conv = conversionOf(offer);
  const framing = WATCH_ENCODERS.find((e) => e.mediaType === offer.mediaType) ?? jsonWatchEncoder;
  if (!conv || !source) return framing;
  return convertingWatchEncoder(conv, source, framing);
}
