// The HTTP(S) server: fastify with TLS (client certificates asked for, verified by the authn
// service), raw request bodies up to the API's limit, and every error answered as a Status.

import type { TLSSocket } from 'node:tls';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { failure, pathNotFound, requestEntityTooLarge, StatusError, StatusReason, toStatus, unsupportedMediaType, type Status } from '../../shared/api/status.js';
import { MAX_BODY_BYTES } from '../../shared/api/decode.js';
import { sendStatus } from './respond.js';
import { recordPanic } from './filters/audit.js';

export interface TlsConfig {
  cert: string;
  key: string;
  clientCA?: string;
}

export function createServer(tls: TlsConfig | undefined, log: Logger): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: MAX_BODY_BYTES,
    // While closing, requests on open connections are served (or refused with Retry-After by the
    // shutdown filter), never answered fastify's bare 503.
    return503OnClosing: false,
    ...(tls ? { https: { cert: tls.cert, key: tls.key, ...(tls.clientCA ? { ca: tls.clientCA, requestCert: true, rejectUnauthorized: false } : {}) } } : {}),
  }) as unknown as FastifyInstance;
  // No renegotiation, as Go's TLS servers (and so upstream's) have none: a connection's client
  // certificate is the one of its handshake, which the authentication filter reads once per connection.
  if (tls) {
    app.server.on('secureConnection', (socket: TLSSocket) => {
      socket.disableRenegotiation();
      socket.on('error', (err: Error & { code?: string }) => {
        if (err.code === 'ERR_TLS_RENEGOTIATION_DISABLED') socket.destroy();
      });
    });
  }
  app.decorateRequest('api', null);
  // Bodies stay bytes: the handlers decode them by media type (JSON, YAML, patches) with their own limits.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES }, (_req, body, done) => done(null, body));
  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    let status: Status;
    if (err instanceof StatusError) status = err.status;
    else if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') status = requestEntityTooLarge(`the request body is larger than ${MAX_BODY_BYTES} bytes`).status;
    else if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') status = unsupportedMediaType(String(req.headers['content-type'] ?? '')).status;
    else if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) status = failure(err.statusCode, StatusReason.BadRequest, err.message).status;
    else {
      log.error({ err, url: req.raw.url }, 'request failed');
      if (req.api?.audit) recordPanic(req.api.audit, err);
      status = toStatus(err);
    }
    return sendStatus(req, reply, status);
  });
  app.setNotFoundHandler((req, reply) => sendStatus(req, reply, pathNotFound().status));
  return app;
}
