// Auditing (kube-apiserver's WithAudit and WithFailedAuthenticationAudit): after authentication
// the policy decides the request's level; a request at Metadata or above gets a record
// (`req.api.audit`) that later steps annotate (authorization decision, admission, deprecation) and
// events at RequestReceived, ResponseStarted (long-running requests, when the headers go out),
// ResponseComplete, or Panic when a handler failed unexpectedly. The filter exists only when a
// policy is configured; with one, the request's path holds no serialization (see event.ts), and
// it waits on a backend only in a blocking mode the operator chose.

import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isIP } from 'node:net';
import { internalError, type Status } from '../../../shared/api/status.js';
import type { Body } from '../../../shared/codec/index.js';
import { bodyValue } from '../../../shared/codec/index.js';
import { AuditRequest, objectReference, wallClockMs } from '../../../shared/audit/event.js';
import type { Auditor } from '../../../shared/audit/backend.js';
import type { RequestAuditConfig } from '../../../shared/audit/policy.js';
import { Level, Stage, type AuditUser, type ResponseStatus } from '../../../shared/audit/types.js';
import type { ApiRequestState } from '../request.js';
import { NOBODY } from '../request.js';
import { decodeValue, mediaTypeOf } from '../handlers/decode.js';
import { isLongRunning } from './max-in-flight.js';
import type { Filter } from './filter.js';
import { apiState } from './request-info.js';

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
const PATCH_TYPES = new Set(['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml']);

export function auditFilter(auditor: Auditor): Filter {
  return {
    name: 'audit',
    onRequest(req, reply) {
      const api = apiState(req);
      const config = auditor.evaluate(api.user, api.info);
      if (config.level === Level.None) return;
      const audit = new AuditRequest(initOf(req, api, config, api.user));
      api.audit = audit;
      if (api.info.isResourceRequest && WRITE_VERBS.has(api.info.verb)) recordRequestBody(req, api, audit);
      const longRunning = isLongRunning(api.info);
      if (longRunning) watchResponseStart(reply.raw, api, audit, auditor);
      // The record always ends (upstream's deferred ResponseComplete): a stream or any other
      // response the handler wrote itself ends here; the others in onSend, which can hold them back.
      reply.raw.once('close', () => {
        if (!audit.ended && (longRunning || reply.sent)) closed(api, audit, reply.raw.statusCode, auditor);
      });
      const wait = auditor.emit(audit, Stage.RequestReceived);
      // Only a blocking backend makes the request wait; blocking-strict refuses what it could not record.
      if (wait) {
        return wait.then((ok) => {
          if (!ok) {
            auditor.rejected();
            throw internalError('failed to store audit event');
          }
        });
      }
    },
    onSend(req, reply) {
      const api = req.api;
      if (!api) return;
      const audit = api.audit;
      if (!audit) {
        if (api.user === NOBODY && reply.statusCode === 401 && api.failedAuthentication !== undefined) return auditFailedAuthentication(req, api, reply, auditor);
        return;
      }
      // A long-running request ends when its stream closes, not when its headers go.
      if (audit.ended || isLongRunning(api.info)) return;
      return complete(api, audit, reply.statusCode, auditor);
    },
  };
}

/** The status, and the response body for RequestResponse: every resource response and every Status. */
export function recordResponse(audit: AuditRequest, isResourceRequest: boolean, body: Body): void {
  const v = body.kind === 'value' ? body.value : undefined;
  if (isStatus(v) && !audit.panicked) audit.responseStatus = statusOf(v);
  if ((isResourceRequest || isStatus(v)) && audit.level === Level.RequestResponse) audit.setResponseBody(() => bodyValue(body));
}

/** A handler failed with something other than a Status: the event's last stage is Panic, as upstream's for a panic. */
export function recordPanic(audit: AuditRequest, err: unknown): void {
  audit.panicked = true;
  audit.responseStatus = { metadata: {}, status: 'Failure', message: `APIServer panic'd: ${err instanceof Error ? err.message : String(err)}`, reason: 'InternalError', code: 500 };
}

function complete(api: ApiRequestState, audit: AuditRequest, code: number, auditor: Auditor): Promise<void> | undefined {
  audit.ended = true;
  sync(api, audit);
  audit.settle();
  const rs = audit.responseStatus;
  if (!rs) audit.responseStatus = { metadata: {}, code };
  else if (rs.code !== code) audit.responseStatus = { ...rs, code };
  const wait = auditor.emit(audit, audit.panicked ? Stage.Panic : Stage.ResponseComplete);
  // Upstream ignores whether the last stage was stored; a blocking backend still holds the response until it is.
  return wait ? wait.then(() => undefined) : undefined;
}

/** What impersonation decided after RequestReceived was written. */
function sync(api: ApiRequestState, audit: AuditRequest): void {
  if (api.impersonator && !audit.impersonatedUser) audit.impersonatedUser = api.user;
}

/** A response the gateway did not send through fastify (a stream, a hijack) ended. */
function closed(api: ApiRequestState, audit: AuditRequest, code: number, auditor: Auditor): void {
  // A stream that closed before any header (the client left) still ends its record, as upstream's "Connection closed early".
  if (!audit.responseStatus && isLongRunning(api.info)) {
    audit.responseStatus = { metadata: {}, status: 'Success', message: 'Connection closed early', code: 200 };
    void auditor.emit(audit, Stage.ResponseStarted);
  }
  void complete(api, audit, audit.responseStatus?.code ?? code, auditor);
}

/** ResponseStarted of a long-running request: when its headers are written (by the watch handler, or an early error). */
function watchResponseStart(res: ServerResponse, api: ApiRequestState, audit: AuditRequest, auditor: Auditor): void {
  const writeHead = res.writeHead;
  const started = (code: number) => {
    sync(api, audit);
    audit.responseStatus ??= { metadata: {}, code };
    void auditor.emit(audit, Stage.ResponseStarted);
  };
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    res.writeHead = writeHead;
    started(Number(args[0]) || res.statusCode);
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['writeHead'];
}

/** Upstream records a request that failed authentication at ResponseStarted only, with no user. */
function auditFailedAuthentication(req: FastifyRequest, api: ApiRequestState, reply: FastifyReply, auditor: Auditor): Promise<void> | undefined {
  const config = auditor.evaluate(undefined, api.info);
  if (config.level === Level.None) return;
  const audit = new AuditRequest(initOf(req, api, config, {}));
  audit.ended = true;
  audit.responseStatus = { metadata: {}, message: api.failedAuthentication!, code: reply.statusCode };
  const wait = auditor.emit(audit, Stage.ResponseStarted);
  return wait ? wait.then(() => undefined) : undefined;
}

function initOf(req: FastifyRequest, api: ApiRequestState, config: RequestAuditConfig, user: AuditUser) {
  const info = api.info;
  return {
    config,
    auditID: api.auditId,
    requestURI: req.raw.url ?? '/',
    verb: info.verb,
    user,
    sourceIPs: sourceIPs(req.headers['x-forwarded-for'], req.headers['x-real-ip'], req.raw.socket.remoteAddress),
    userAgent: req.headers['user-agent'],
    objectRef: info.isResourceRequest ? objectReference(info) : undefined,
    receivedAt: wallClockMs(api.startedAt),
  };
}

/** Read only when an event is serialized: fastify has not parsed the body yet when the filter runs. */
function recordRequestBody(req: FastifyRequest, api: ApiRequestState, audit: AuditRequest): void {
  const contentType = req.headers['content-type'] ?? 'application/json';
  const isObject = (api.info.verb === 'create' || api.info.verb === 'update') && !PATCH_TYPES.has(mediaTypeOf(contentType));
  audit.setRequestBody({
    isObject,
    decode() {
      const body = req.body;
      if (!Buffer.isBuffer(body) || body.length === 0) return undefined;
      const value = decodeValue(body, contentType).value;
      // The served kind, as upstream logs the decoded object, when the body left it out.
      const t = api.target;
      if (isObject && t && !api.info.subresource && value && typeof value === 'object' && !Array.isArray(value)) {
        const o = value as Record<string, unknown>;
        if (!o.kind || !o.apiVersion) return { ...o, kind: o.kind || t.kind, apiVersion: o.apiVersion || t.apiVersion };
      }
      return value;
    },
  });
}

function isStatus(v: unknown): v is Status {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'Status' && typeof (v as { code?: unknown }).code === 'number';
}

/** The bounded fields of a Status, in its field order. */
function statusOf(s: Status): ResponseStatus {
  const out = { metadata: {} } as ResponseStatus;
  if (s.status) out.status = s.status;
  if (s.message) out.message = s.message;
  if (s.reason) out.reason = s.reason;
  if (s.details) out.details = s.details;
  out.code = s.code;
  return out;
}

/**
 * Upstream's source IPs: the X-Forwarded-For chain, then X-Real-Ip unless already in it, then the
 * peer's address unless it is the chain's last (it cannot be spoofed, so it is always there).
 */
export function sourceIPs(forwardedFor: string | string[] | undefined, realIp: string | string[] | undefined, remote: string | undefined): string[] {
  const out: string[] = [];
  const xff = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
  if (xff) {
    for (const part of xff.split(',')) {
      const ip = normalizeIP(part.trim());
      if (ip) out.push(ip);
    }
  }
  const real = normalizeIP((Array.isArray(realIp) ? realIp[0] : realIp)?.trim());
  if (real && !out.includes(real)) out.push(real);
  const peer = normalizeIP(remote);
  if (peer && out[out.length - 1] !== peer) out.push(peer);
  return out;
}

function normalizeIP(s: string | undefined): string | undefined {
  if (!s) return undefined;
  // An IPv4 peer of a dual-stack socket shows as ::ffff:a.b.c.d; upstream prints the IPv4 form.
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(s);
  if (v4) return v4[1];
  return isIP(s) ? s.toLowerCase() : undefined;
}
