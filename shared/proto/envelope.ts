// The protobuf envelope of the spec: the 4-byte prefix `k8s\0`, then a `runtime.Unknown` carrying
// the object's TypeMeta and its own serialization in `raw`. Which message a kind is: the kind in
// its group's package (`apps/v1` Deployment → apps.v1.Deployment), else a meta kind (Status,
// DeleteOptions, PartialObjectMetadata, …). Both group spellings resolve: `rbac.authorization.platform.io`
// and `rbac.authorization.k8s.io` are the same package.

import { badRequest } from '../api/status.js';
import { decode, encode, hasMessage, normalize } from './wire.js';

/** The media types of the protobuf codec: the spec's, and upstream's name for the same bytes. */
export const PROTOBUF_MEDIA_TYPES = ['application/vnd.platform.protobuf', 'application/vnd.kubernetes.protobuf'] as const;

export const PROTOBUF_PREFIX = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

export function isProtobufMediaType(mediaType: string): boolean {
  return (PROTOBUF_MEDIA_TYPES as readonly string[]).includes(mediaType);
}

/** The message of a kind, or undefined when it has no protobuf form. */
export function messageOf(apiVersion: string, kind: string): string | undefined {
  const slash = apiVersion.lastIndexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  const pkg = group === '' ? 'core' : group.slice(0, group.includes('.') ? group.indexOf('.') : undefined);
  const own = `${pkg}.${version}.${kind}`;
  if (hasMessage(own)) return own;
  const meta = `meta.v1.${kind}`;
  return hasMessage(meta) ? meta : undefined;
}

/**
 * Puts an object of a built-in kind into the form upstream returns it in (see `normalize`); an
 * object of a kind without a message is left as it is.
 */
export function normalizeObject(apiVersion: string, kind: string, obj: Record<string, unknown>, fill = true): void {
  const type = messageOf(apiVersion, kind);
  if (type) normalize(type, obj, fill);
}

export interface TypedObject {
  apiVersion?: unknown;
  kind?: unknown;
  [field: string]: unknown;
}

/** The enveloped protobuf bytes of an API value; undefined when its kind has no protobuf form. */
export function encodeObject(value: TypedObject): Buffer | undefined {
  const apiVersion = typeof value.apiVersion === 'string' ? value.apiVersion : '';
  const kind = typeof value.kind === 'string' ? value.kind : '';
  const type = messageOf(apiVersion, kind);
  return type ? envelope(apiVersion, kind, encode(type, value)) : undefined;
}

/** The envelope around a message already encoded. */
export function envelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  return Buffer.concat([PROTOBUF_PREFIX, encode('runtime.Unknown', { apiVersion, kind, raw })]);
}

/** The object in an enveloped protobuf body, with apiVersion and kind from its TypeMeta; 400 when it is not one. */
export function decodeObject(body: Uint8Array): Record<string, unknown> {
  if (body.length < 4 || Buffer.compare(Buffer.from(body.subarray(0, 4)), PROTOBUF_PREFIX) !== 0) {
    throw badRequest('the protobuf body does not start with the expected prefix (0x6b 0x38 0x73 0x00)');
  }
  let unknown: Record<string, unknown>;
  try {
    unknown = decode('runtime.Unknown', body.subarray(4));
  } catch (err) {
    throw badRequest(`the protobuf body is not a valid envelope: ${(err as Error).message}`);
  }
  const typeMeta = unknown as { apiVersion?: string; kind?: string };
  if (unknown.contentEncoding) throw badRequest(`protobuf content encoding ${JSON.stringify(unknown.contentEncoding)} is not supported`);
  const apiVersion = typeMeta.apiVersion ?? '';
  const kind = typeMeta.kind ?? '';
  const type = messageOf(apiVersion, kind);
  if (!type) throw badRequest(`no protobuf message is known for ${apiVersion ? `${apiVersion}, ` : ''}Kind=${kind || '(none)'}`);
  const raw = typeof unknown.raw === 'string' ? Buffer.from(unknown.raw, 'base64') : Buffer.alloc(0);
  let object: Record<string, unknown>;
  try {
    object = decode(type, raw);
  } catch (err) {
    throw badRequest(`the protobuf body is not a valid ${kind}: ${(err as Error).message}`);
  }
  return { apiVersion, kind, ...object };
}
