// One request's audit record and the events written from it. The gateway fills the record as the
// request goes (who, what, the decision, annotations, the response's status); each stage takes a
// snapshot of it. Everything costly — formatting timestamps, decoding the request body, copying
// objects without their managedFields, JSON — happens when a backend serializes the event, off
// the request's path; decoded objects are kept so several backends pay for them once.

import { AuditAnnotation, levelAtLeast, Level, stageBit, type AuditUser, type EventJson, type ObjectReference, type ResponseStatus, type Stage } from './types.js';
import type { RequestAuditConfig } from './policy.js';

/** Where code that is not the audit filter records annotations (authorization, admission, deprecation). */
export interface AuditAnnotator {
  /** The first value given for a key is kept, as upstream. */
  annotate(key: string, value: string): void;
  /** The request's audit level, when known: some annotations are recorded only from Request up. */
  readonly level?: Level;
}

export interface AuditRequestInit {
  readonly config: RequestAuditConfig;
  readonly auditID: string;
  readonly requestURI: string;
  readonly verb: string;
  /** The authenticated user; an empty object when authentication failed. */
  readonly user: AuditUser;
  readonly sourceIPs: readonly string[];
  readonly userAgent: string | undefined;
  readonly objectRef: ObjectReference | undefined;
  /** Wall-clock milliseconds (with a fraction: events carry microseconds). */
  readonly receivedAt: number;
}

/** How a request body becomes the event's requestObject; called at most once, when serialized. */
export interface RequestBodySource {
  decode(): unknown;
  /** An object (create, update) rather than a patch or options: its metadata completes objectRef. */
  readonly isObject: boolean;
}

const NOT_YET = Symbol('not decoded');
const USER_AGENT_LIMIT = 1024;

export class AuditRequest implements AuditAnnotator {
  readonly level: Level;
  readonly init: AuditRequestInit;
  impersonatedUser: AuditUser | undefined = undefined;
  /** Set once; a new object when it changes (events already taken keep theirs). */
  responseStatus: ResponseStatus | undefined = undefined;
  /** The last stage was written: nothing more is. */
  ended = false;
  /** The handler failed unexpectedly: the last stage is Panic. */
  panicked = false;
  private annotations: Map<string, string> | null = null;
  private requestBody: RequestBodySource | null = null;
  private responseBody: (() => unknown) | null = null;
  private requestValue: unknown = NOT_YET;
  private settledRef: ObjectReference | undefined = undefined;
  private responseValue: unknown = NOT_YET;

  constructor(init: AuditRequestInit) {
    this.init = init;
    this.level = init.config.level;
  }

  get auditID(): string {
    return this.init.auditID;
  }

  annotate(key: string, value: string): void {
    const a = (this.annotations ??= new Map());
    if (!a.has(key)) a.set(key, value);
  }

  /** Recorded at Metadata and above (the request body is decoded only at Request and above). */
  setRequestBody(source: RequestBodySource): void {
    this.requestBody = source;
  }

  /** The response body, read only when an event at RequestResponse is serialized. */
  setResponseBody(read: () => unknown): void {
    this.responseBody = read;
  }

  omits(stage: Stage): boolean {
    return (this.init.config.omitStages & stageBit(stage)) !== 0;
  }

  /** A snapshot for `stage`, or null when the policy omits it. */
  event(stage: Stage, at: number): AuditEvent | null {
    if (this.omits(stage)) return null;
    const ended = stage === 'ResponseComplete' || stage === 'Panic';
    return new AuditEvent(
      this,
      stage,
      stage === 'RequestReceived' ? this.init.receivedAt : at,
      this.annotations?.size ? new Map(this.annotations) : null,
      this.responseStatus,
      this.impersonatedUser,
      ended,
    );
  }

  /** The decoded request body (managedFields dropped when asked), once. */
  decodedRequest(): unknown {
    if (this.requestValue === NOT_YET) {
      let v: unknown;
      try {
        v = this.requestBody?.decode();
      } catch {
        v = undefined; // the request itself failed on it with a 4xx
      }
      this.requestValue = this.init.config.omitManagedFields ? withoutManagedFields(v) : v;
    }
    return this.requestValue;
  }

  decodedResponse(): unknown {
    if (this.responseValue === NOT_YET) {
      const v = this.responseBody?.();
      this.responseValue = this.init.config.omitManagedFields ? withoutManagedFields(v) : v;
    }
    return this.responseValue;
  }

  /**
   * The request is done. At Metadata the body matters only for objectRef: it is read now (upstream
   * reads it on the request's path at every level) and let go, so an event waiting in a backend's
   * buffer never holds a request body its level does not record.
   */
  settle(): void {
    if (this.level !== Level.Metadata || !this.requestBody) return;
    this.settledRef = this.objectRef(true);
    this.requestBody = null;
    this.requestValue = NOT_YET;
  }

  /** objectRef completed from the request object's metadata, as upstream does for creates. */
  objectRef(withBody: boolean): ObjectReference | undefined {
    const ref = this.init.objectRef;
    if (withBody && this.settledRef) return this.settledRef;
    if (!ref || !withBody || !this.requestBody?.isObject) return ref;
    const meta = (this.decodedRequest() as { metadata?: Record<string, unknown> } | undefined)?.metadata;
    if (!meta || typeof meta !== 'object') return ref;
    const out = { ...ref };
    const fill = (k: 'namespace' | 'name' | 'uid' | 'resourceVersion') => {
      if (!out[k] && typeof meta[k] === 'string' && meta[k]) out[k] = meta[k] as string;
    };
    fill('namespace');
    fill('name');
    fill('uid');
    fill('resourceVersion');
    return orderedRef(out);
  }
}

/** One stage of one request, as handed to the backends. */
export class AuditEvent {
  private lines: Map<string, string> | null = null;

  constructor(
    readonly request: AuditRequest,
    readonly stage: Stage,
    /** Wall-clock milliseconds of the stage. */
    readonly at: number,
    readonly annotations: ReadonlyMap<string, string> | null,
    readonly responseStatus: ResponseStatus | undefined,
    readonly impersonatedUser: AuditUser | undefined,
    /** The last event of the request: the one that carries request and response objects. */
    readonly final: boolean,
  ) {}

  get level(): Level {
    return this.request.level;
  }

  get auditID(): string {
    return this.request.auditID;
  }

  /** The event in upstream's field order; `truncated` drops the objects and says so. */
  toJson(apiVersion: string, truncated = false): EventJson {
    const r = this.request;
    const init = r.init;
    const withObjects = this.final && !truncated;
    // Built key by key so the JSON keeps upstream's field order.
    const ev: Record<string, unknown> = {
      kind: 'Event',
      apiVersion,
      level: r.level,
      auditID: init.auditID,
      stage: this.stage,
      requestURI: init.requestURI,
      verb: init.verb,
      user: init.user,
    };
    if (this.impersonatedUser) ev.impersonatedUser = this.impersonatedUser;
    if (init.sourceIPs.length) ev.sourceIPs = [...init.sourceIPs];
    if (init.userAgent) ev.userAgent = init.userAgent.length > USER_AGENT_LIMIT ? `${init.userAgent.slice(0, USER_AGENT_LIMIT)}...TRUNCATED` : init.userAgent;
    const ref = r.objectRef(this.final);
    if (ref) ev.objectRef = ref;
    if (this.responseStatus) ev.responseStatus = this.responseStatus;
    if (withObjects && levelAtLeast(r.level, Level.Request)) {
      const req = r.decodedRequest();
      if (req !== undefined) ev.requestObject = req;
    }
    if (withObjects && r.level === Level.RequestResponse) {
      const res = r.decodedResponse();
      if (res !== undefined) ev.responseObject = res;
    }
    ev.requestReceivedTimestamp = formatMicroTime(init.receivedAt);
    ev.stageTimestamp = formatMicroTime(this.at);
    if (this.annotations || truncated) {
      const a: Record<string, string> = this.annotations ? Object.fromEntries(this.annotations) : {};
      if (truncated) a[AuditAnnotation.Truncated] = 'true';
      ev.annotations = a;
    }
    return ev as unknown as EventJson;
  }

  /** The event as one JSON text, kept per apiVersion (the log and webhook backends share it). */
  json(apiVersion: string): string {
    let line = this.lines?.get(apiVersion);
    if (line === undefined) {
      line = JSON.stringify(this.toJson(apiVersion));
      (this.lines ??= new Map()).set(apiVersion, line);
    }
    return line;
  }

  /** Whether dropping the objects could make it smaller (upstream truncates Request and up only). */
  get truncatable(): boolean {
    return this.final && levelAtLeast(this.level, Level.Request);
  }
}

/** `json` with the requestObject and responseObject dropped when it is larger than `maxBytes`; null when even that is too large. */
export function boundedJson(ev: AuditEvent, apiVersion: string, maxBytes: number): { text: string; truncated: boolean } | null {
  const text = ev.json(apiVersion);
  if (Buffer.byteLength(text) <= maxBytes) return { text, truncated: false };
  if (!ev.truncatable) return null;
  const smaller = JSON.stringify(ev.toJson(apiVersion, true));
  return Buffer.byteLength(smaller) <= maxBytes ? { text: smaller, truncated: true } : null;
}

/** Upstream's `legacy` log format: one line of key="value" pairs. */
export function legacyLine(ev: AuditEvent): string {
  const init = ev.request.init;
  const q = (s: string) => JSON.stringify(s);
  const list = (l: readonly string[]) => l.map(q).join(',');
  const username = init.user.username || '<none>';
  const groups = init.user.username && init.user.groups?.length ? list(init.user.groups) : '<none>';
  const as = ev.impersonatedUser?.username ?? '<self>';
  const asGroups = ev.impersonatedUser?.groups ? list(ev.impersonatedUser.groups) : '<lookup>';
  const namespace = init.objectRef?.namespace || '<none>';
  const response = ev.responseStatus ? String(ev.responseStatus.code) : '<deferred>';
  const ip = init.sourceIPs[0] ?? '<unknown>';
  return `${new Date(init.receivedAt).toISOString()} AUDIT: id=${q(init.auditID)} stage=${q(ev.stage)} ip=${q(ip)} method=${q(init.verb)} user=${q(username)} groups=${q(groups)} as=${q(as)} asgroups=${q(asGroups)} user-agent=${q(init.userAgent ?? '')} namespace=${q(namespace)} uri=${q(init.requestURI)} response="${response}"`;
}

/** RFC 3339 with microseconds, as upstream's MicroTime: `2024-05-01T10:00:00.123456Z`. */
export function formatMicroTime(ms: number): string {
  // Rounded: at today's epoch a double holds milliseconds to about a quarter microsecond.
  const micros = Math.round(ms * 1000);
  const whole = Math.floor(micros / 1000);
  const iso = new Date(whole).toISOString(); // ...:SS.mmmZ
  return `${iso.slice(0, -1)}${String(micros - whole * 1000).padStart(3, '0')}Z`;
}

let clockOffset = Date.now() - performance.now();
let clockSyncedAt = performance.now();

/** Wall-clock milliseconds with the monotonic clock's sub-millisecond part (re-synced every second). */
export function wallClockMs(perfNow = performance.now()): number {
  if (perfNow - clockSyncedAt > 1000 || perfNow < clockSyncedAt) {
    clockOffset = Date.now() - performance.now();
    clockSyncedAt = perfNow;
  }
  return perfNow + clockOffset;
}

/**
 * A copy of an object (or of a list and its items) without `metadata.managedFields`; the input is
 * never changed (response objects are the watch cache's own).
 */
export function withoutManagedFields(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const o = v as Record<string, unknown>;
  let out = o;
  const meta = o.metadata as Record<string, unknown> | undefined;
  if (meta && typeof meta === 'object' && 'managedFields' in meta) {
    const { managedFields: _dropped, ...rest } = meta;
    out = { ...o, metadata: rest };
  }
  if (Array.isArray(o.items)) {
    const items = o.items.map(withoutManagedFields);
    if (items.some((it, i) => it !== (o.items as unknown[])[i])) out = { ...out, items };
  }
  return out;
}

function orderedRef(r: ObjectReference): ObjectReference {
  const out: ObjectReference = {};
  for (const k of REF_ORDER) if (r[k]) out[k] = r[k];
  return out;
}
const REF_ORDER = ['resource', 'namespace', 'name', 'uid', 'apiGroup', 'apiVersion', 'resourceVersion', 'subresource'] as const;

/** The objectRef of a resource request, in upstream's field order (empty fields left out). */
export function objectReference(a: { resource: string; namespace: string; name: string; apiGroup: string; apiVersion: string; subresource: string }): ObjectReference {
  const ref: ObjectReference = {};
  if (a.resource) ref.resource = a.resource;
  if (a.namespace) ref.namespace = a.namespace;
  if (a.name) ref.name = a.name;
  if (a.apiGroup) ref.apiGroup = a.apiGroup;
  if (a.apiVersion) ref.apiVersion = a.apiVersion;
  if (a.subresource) ref.subresource = a.subresource;
  return ref;
}
