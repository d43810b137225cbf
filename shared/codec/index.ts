// Content negotiation: the encoder of a response from its Accept header. Errors must always be
// readable, so an Accept nothing satisfies falls back to JSON for them.

import { negotiate, type Offer } from '../api/negotiate.js';
import type { Encoder, WatchEncoder } from './codec.js';
import { jsonEncoder, jsonWatchEncoder } from './json.js';
import { yamlEncoder } from './yaml.js';

export type { Body, Encoder, Transform, WatchEncoder, WatchEvent } from './codec.js';
export { bodyValue, value } from './codec.js';
export { jsonEncoder } from './json.js';

const ENCODERS: readonly Encoder[] = [jsonEncoder, yamlEncoder];
const OFFERS: Offer[] = ENCODERS.map((e) => ({ mediaType: e.mediaType }));

/** The encoder for a response; throws 406 NotAcceptable when none satisfies `accept`. */
export function responseEncoder(accept: string | undefined): Encoder {
  const offer = negotiate(accept, OFFERS);
  return ENCODERS.find((e) => e.mediaType === offer.mediaType) ?? jsonEncoder;
}

/** The encoder for an error: the negotiated one when there is one, JSON otherwise. */
export function errorEncoder(accept: string | undefined): Encoder {
  try {
    return responseEncoder(accept);
  } catch {
    return jsonEncoder;
  }
}

/** Watch streams are JSON until a streaming codec (protobuf) is added. */
export function watchEncoder(_accept: string | undefined): WatchEncoder {
  return jsonWatchEncoder;
}
