// Writing a reply: Warning headers, ETag/If-None-Match, the encoder negotiated from Accept,
// `?pretty`, and Status errors (always readable: JSON when nothing else was acceptable). An audited
// request's record keeps the body (encoded for the audit log only if its level asks for it).

import type { FastifyReply, FastifyRequest } from 'fastify';
import { internalError, type Status } from '../../shared/api/status.js';
import { errorEncoder, jsonEncoder, responseEncoder, value, type Body, type Encoder } from '../../shared/codec/index.js';
import { warningHeaders } from './handlers/context.js';
import { recordResponse } from './filters/audit.js';

export interface Response {
  code: number;
  body: Body;
  /** Overrides the negotiated media type (aggregated discovery); the body is sent as JSON. */
  contentType?: string;
  /** Strong validator of a static document; a matching If-None-Match gets 304. */
  etag?: string;
  /** Bytes already in the form `contentType` names (OpenAPI v2 in protobuf), sent as they are; `body` is then what they encode. */
  raw?: Buffer;
  /** Further headers (`Vary` of a document served in several encodings). */
  headers?: Readonly<Record<string, string>>;
}

export function send(req: FastifyRequest, reply: FastifyReply, r: Response, warnings: readonly string[], encoder?: Encoder): FastifyReply {
  const audit = req.api?.audit;
  if (audit) recordResponse(audit, req.api!.info.isResourceRequest, r.body);
  if (warnings.length) for (const [k, v] of Object.entries(warningHeaders([...warnings]))) reply.header(k, v);
  if (r.headers) for (const [k, v] of Object.entries(r.headers)) reply.header(k, v);
  if (r.etag) {
    reply.header('etag', r.etag);
    if (req.headers['if-none-match'] === r.etag) return reply.code(304).send();
  }
  if (r.raw) return setCode(reply, r.code).type(r.contentType!).send(r.raw);
  const query = req.api?.query;
  const pretty = query !== undefined && query.has('pretty') && query.get('pretty') !== 'false' && query.get('pretty') !== '0';
  const enc = encoder ?? (r.contentType ? jsonEncoder : responseEncoder(req.headers.accept));
  const type = r.contentType ?? enc.mediaType;
  // Bytes, not a string: fastify leaves the Content-Type of a byte payload as it was set (upstream's
  // media types, parameters unquoted, no charset added), where it rewrites a JSON string's.
  const encoded = enc.encode(r.body, pretty);
  return setCode(reply, r.code)
    .type(type)
    .send(typeof encoded === 'string' ? Buffer.from(encoded) : encoded);
}

/** Whether an HTTP status line can carry `code`: three digits. */
const carriable = (code: number): boolean => Number.isInteger(code) && code >= 100 && code <= 999;

/**
 * Fastify sets only 100–599, but upstream answers with any three-digit code a Status holds (an
 * admission webhook's refusal keeps the webhook's code, 700 too), and so does Node's response.
 */
function setCode(reply: FastifyReply, code: number): FastifyReply {
  if (code <= 599 || !carriable(code)) return reply.code(code);
  reply.raw.statusCode = code;
  return reply;
}

export function sendStatus(req: FastifyRequest, reply: FastifyReply, given: Status): FastifyReply {
  // A code no status line carries (a webhook's 1000) fails the request, as it fails upstream's writer.
  const status = carriable(given.code) ? given : internalError(given.message).status;
  if (status.details?.retryAfterSeconds) reply.header('retry-after', String(status.details.retryAfterSeconds));
  if (reply.raw.headersSent) {
    reply.raw.end();
    return reply;
  }
  return send(req, reply, { code: status.code, body: value(status) }, req.api?.warnings ?? [], errorEncoder(req.headers.accept));
}
