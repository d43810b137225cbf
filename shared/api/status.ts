// Status objects: the only error shape that crosses an HTTP or NATS boundary.
// Named constructors mirror the upstream API machinery's so clients see familiar reasons/messages.

export const StatusReason = {
  BadRequest: 'BadRequest',
  Unauthorized: 'Unauthorized',
  Forbidden: 'Forbidden',
  NotFound: 'NotFound',
  AlreadyExists: 'AlreadyExists',
  Conflict: 'Conflict',
  Gone: 'Gone',
  Expired: 'Expired',
  Invalid: 'Invalid',
  MethodNotAllowed: 'MethodNotAllowed',
  NotAcceptable: 'NotAcceptable',
  UnsupportedMediaType: 'UnsupportedMediaType',
  RequestEntityTooLarge: 'RequestEntityTooLarge',
  TooManyRequests: 'TooManyRequests',
  Timeout: 'Timeout',
  ServiceUnavailable: 'ServiceUnavailable',
  InternalError: 'InternalError',
} as const;
export type StatusReason = (typeof StatusReason)[keyof typeof StatusReason];

export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  /** ListMeta: only an expired-continue 410 carries a (fresh, inconsistent) `continue` token. */
  metadata: { continue?: string; resourceVersion?: string };
  status: 'Failure' | 'Success';
  message: string;
  reason: StatusReason | string;
  details?: StatusDetails;
  code: number;
}

/** A group+resource pair as used in error messages (`deployments.apps`, `configmaps`). */
export interface GroupResource {
  group: string;
  resource: string;
}

export class StatusError extends Error {
  readonly status: Status;
  constructor(status: Status, options?: { cause?: unknown }) {
    super(status.message, options);
    this.name = 'StatusError';
    this.status = status;
  }
  get code(): number {
    return this.status.code;
  }
}

export function isStatus(v: unknown): v is Status {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'Status' && typeof (v as { code?: unknown }).code === 'number';
}

export function failure(code: number, reason: string, message: string, details?: StatusDetails): StatusError {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details) status.details = details;
  return new StatusError(status);
}

/** A success Status as upstream's store answers a delete: no code (the HTTP status says 200), so none is written. */
export function successStatus(details?: StatusDetails): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', message: '', reason: '', code: 0 };
  if (details) s.details = details;
  delete (s as Partial<Status>).message;
  delete (s as Partial<Status>).reason;
  return s;
}

export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

export function notFound(gr: GroupResource, name: string): StatusError {
  return failure(404, StatusReason.NotFound, `${qualifiedResource(gr)} "${name}" not found`, { name, group: gr.group, kind: gr.resource });
}

export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return failure(409, StatusReason.AlreadyExists, `${qualifiedResource(gr)} "${name}" already exists`, { name, group: gr.group, kind: gr.resource });
}

export function conflict(gr: GroupResource, name: string, why: string): StatusError {
  return failure(409, StatusReason.Conflict, `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${why}`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

export const CONFLICT_MODIFIED = 'the object has been modified; please apply your changes to the latest version and try again';

export interface FieldError {
  /** `Invalid value`, `Required value`, `Unsupported value`, `Forbidden`, `Too long`, `Duplicate value`, `Not found` */
  type: string;
  field: string;
  value?: unknown;
  detail?: string;
}

const causeReasons: Record<string, string> = {
  'Invalid value': 'FieldValueInvalid',
  'Required value': 'FieldValueRequired',
  'Unsupported value': 'FieldValueNotSupported',
  Forbidden: 'FieldValueForbidden',
  'Too long': 'FieldValueTooLong',
  'Too many': 'FieldValueTooMany',
  'Duplicate value': 'FieldValueDuplicate',
  'Not found': 'FieldValueNotFound',
};

export function fieldErrorMessage(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/** The error without its field (upstream `ErrorBody`): what a cause, which names the field beside it, says. */
export function fieldErrorBody(e: FieldError): string {
  let msg: string = e.type;
  if (e.type === 'Invalid value' || e.type === 'Unsupported value' || e.type === 'Duplicate value' || e.type === 'Not found') {
    if (e.value !== undefined) msg += `: ${JSON.stringify(e.value)}`;
  }
  if (e.detail) msg += `: ${e.detail}`;
  return msg;
}

/** 422 Invalid, with one cause per field error (upstream `NewInvalid`). */
export function invalid(kind: string, group: string, name: string, errors: FieldError[]): StatusError {
  const causes = errors.map((e) => ({ reason: causeReasons[e.type] ?? 'FieldValueInvalid', message: fieldErrorBody(e), field: e.field }));
  const summary = errors.length === 1 ? fieldErrorMessage(errors[0]!) : `[${errors.map(fieldErrorMessage).join(', ')}]`;
  return failure(422, StatusReason.Invalid, `${kind} "${name}" is invalid: ${summary}`, { name, group, kind, causes });
}

export function badRequest(message: string, causes?: StatusCause[]): StatusError {
  return failure(400, StatusReason.BadRequest, message, causes ? { causes } : undefined);
}

export function unauthorized(message = 'Unauthorized'): StatusError {
  return failure(401, StatusReason.Unauthorized, message);
}

export function forbidden(gr: GroupResource | null, name: string, reason: string): StatusError {
  const subject = gr ? (name ? `${qualifiedResource(gr)} "${name}"` : qualifiedResource(gr)) : 'the request';
  return failure(403, StatusReason.Forbidden, `${subject} is forbidden: ${reason}`, gr ? { name: name || undefined, group: gr.group, kind: gr.resource } : undefined);
}

/** 403 whose message is already whole (upstream's non-resource denial: `forbidden: User "x" cannot get path "/y"`). */
export function forbiddenMessage(message: string): StatusError {
  return failure(403, StatusReason.Forbidden, message);
}

export function methodNotSupported(gr: GroupResource, verb: string): StatusError {
  return failure(405, StatusReason.MethodNotAllowed, `${verb} is not supported on resources of kind "${qualifiedResource(gr)}"`, { group: gr.group, kind: gr.resource });
}

/** 404 for a path that names nothing served (upstream's plain "could not find the requested resource"). */
export function pathNotFound(): StatusError {
  return failure(404, StatusReason.NotFound, 'the server could not find the requested resource', {});
}

/** 405 for a method a path does not take. */
export function methodNotAllowed(message = 'the server does not allow this method on the requested resource', details?: StatusDetails): StatusError {
  return failure(405, StatusReason.MethodNotAllowed, message, details);
}

/** 405 of upstream's router for a method none of a path's routes takes (a PUT or PATCH of a collection): empty details, as it writes them. */
export function routeMethodNotAllowed(): StatusError {
  return methodNotAllowed(undefined, {});
}

export function notAcceptable(accept: string, supported: string[]): StatusError {
  return failure(
    406,
    StatusReason.NotAcceptable,
    `the server was unable to respond with a content type that the client supports (requested ${JSON.stringify(accept)}, supported: ${supported.join(', ')})`,
  );
}

const OBJECT_MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.platform.protobuf', 'application/vnd.kubernetes.protobuf'];

/** 415 naming what the endpoint takes (by default any object media type). */
export function unsupportedMediaType(contentType: string, accepted: readonly string[] = OBJECT_MEDIA_TYPES): StatusError {
  return failure(
    415,
    StatusReason.UnsupportedMediaType,
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')} (got ${JSON.stringify(contentType)})`,
  );
}

/** 415 as upstream's content negotiation words it: the accepted media types and nothing else (a PATCH of an unknown patch type). */
export function unsupportedMediaTypeOf(accepted: readonly string[]): StatusError {
  return failure(415, StatusReason.UnsupportedMediaType, `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
}

/** 504 of a request that outlived its deadline (`timeoutSeconds`), worded as upstream's request timeout. */
export function requestTimedOut(): StatusError {
  return failure(504, StatusReason.Timeout, 'Timeout: request did not complete within requested timeout - context deadline exceeded', {});
}

export function requestEntityTooLarge(message = 'the request body is too large'): StatusError {
  return failure(413, StatusReason.RequestEntityTooLarge, message);
}

/** 410 Gone for watches from a compacted version ("too old resource version"). */
export function gone(message: string): StatusError {
  return failure(410, StatusReason.Gone, message);
}

/** 410 Expired for continue tokens and exact versions outside the window. */
export function resourceExpired(message: string): StatusError {
  return failure(410, StatusReason.Expired, message);
}

export function timeout(message: string, retryAfterSeconds?: number): StatusError {
  return failure(504, StatusReason.Timeout, message, retryAfterSeconds !== undefined ? { retryAfterSeconds } : undefined);
}

export function tooLargeResourceVersion(requested: number, current: number, retryAfterSeconds = 1): StatusError {
  return failure(504, StatusReason.Timeout, `Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version', field: '' }],
    retryAfterSeconds,
  });
}

export function serviceUnavailable(message: string): StatusError {
  return failure(503, StatusReason.ServiceUnavailable, message);
}

export function tooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return failure(429, StatusReason.TooManyRequests, message, { retryAfterSeconds });
}

export function internalError(message: string): StatusError {
  return failure(500, StatusReason.InternalError, `Internal error occurred: ${message}`);
}

/**
 * The one place that turns anything thrown into a Status. Unknown errors become a 500 whose
 * message does not leak internals; callers log the original.
 */
export function toStatus(err: unknown): Status {
  if (err instanceof StatusError) return err.status;
  if (isStatus(err)) return err;
  return internalError(err instanceof Error ? err.message : String(err)).status;
}
