// Typed query parameters of list/watch, writes and deletes (the spec's parameter table), with a
// 400 for every malformed value so handlers never see strings they must re-check. Selector
// strings are passed through raw: parseLabelSelector / parseFieldSelector validate them where
// the resource type's supported fields are known.

import { badRequest, invalid, type StatusCause } from './status.js';
import { tooLong } from './field-errors.js';

export const ResourceVersionMatch = {
  Exact: 'Exact',
  NotOlderThan: 'NotOlderThan',
} as const;
export type ResourceVersionMatch = (typeof ResourceVersionMatch)[keyof typeof ResourceVersionMatch];

export const FieldValidation = {
  Strict: 'Strict',
  Warn: 'Warn',
  Ignore: 'Ignore',
} as const;
export type FieldValidation = (typeof FieldValidation)[keyof typeof FieldValidation];

export const PropagationPolicy = {
  Orphan: 'Orphan',
  Background: 'Background',
  Foreground: 'Foreground',
} as const;
export type PropagationPolicy = (typeof PropagationPolicy)[keyof typeof PropagationPolicy];

export const DRY_RUN_ALL = 'All';
export const MAX_FIELD_MANAGER_BYTES = 128;

/** The options kind a write's parameters are validated as (upstream's CreateOptions, UpdateOptions, PatchOptions). */
const WRITE_OPTIONS_KINDS: Readonly<Record<string, string>> = { create: 'CreateOptions', update: 'UpdateOptions', patch: 'PatchOptions' };
const OPTIONS_GROUP = 'meta.platform.io';

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Decimal integer string; undefined when unset or empty. */
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  /** 0 or unset: no limit. */
  limit?: number;
  continue?: string;
  watch: boolean;
  allowWatchBookmarks: boolean;
  timeoutSeconds?: number;
  /** Undefined when absent: its absence and `false` mean different things to a watch. */
  sendInitialEvents?: boolean;
}

export interface WriteOptions {
  dryRun: boolean;
  fieldManager?: string;
  fieldValidation: FieldValidation;
  pretty: boolean;
  /** Apply only: take ownership of conflicting fields. */
  force: boolean;
}

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: PropagationPolicy;
  /** Deprecated form of propagationPolicy Orphan (true) / Background (false). */
  orphanDependents?: boolean;
  preconditions: Preconditions;
  dryRun: boolean;
}

function invalidParam(name: string, value: unknown, detail: string, type = 'Invalid value'): Error {
  const message = `${name}: ${type}: ${JSON.stringify(value)}: ${detail}`;
  const cause: StatusCause = { reason: type === 'Unsupported value' ? 'FieldValueNotSupported' : 'FieldValueInvalid', message, field: name };
  return badRequest(message, [cause]);
}

/** A query value that is set and non-empty. */
function nonEmpty(q: URLSearchParams, name: string): string | undefined {
  const v = q.get(name);
  return v === null || v === '' ? undefined : v;
}

/**
 * A boolean query parameter as upstream's parameter codec reads one (Convert_Slice_string_To_bool):
 * absent is undefined; `0` and `false` in any case are false; every other value, a bare `?name`
 * and `yes` included, is true. Never a 400.
 */
export function parseBoolParam(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  return !(v === '0' || v.toLowerCase() === 'false');
}

/** A non-negative decimal integer parameter (at most 2^53-1), or undefined when unset/empty. */
export function parseIntParam(q: URLSearchParams, name: string, opts: { allowNegative?: boolean } = {}): number | undefined {
  const v = nonEmpty(q, name);
  return v === undefined ? undefined : parseInteger(name, v, opts.allowNegative ?? false);
}

function parseInteger(name: string, v: string, allowNegative: boolean): number {
  const neg = v.charCodeAt(0) === 0x2d;
  const digits = neg ? v.slice(1) : v;
  let ok = digits.length > 0 && digits.length <= 16;
  for (let i = 0; ok && i < digits.length; i++) {
    const c = digits.charCodeAt(i);
    if (c < 0x30 || c > 0x39) ok = false;
  }
  if (!ok) throw invalidParam(name, v, allowNegative ? 'must be an integer' : 'must be a non-negative integer');
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw invalidParam(name, v, 'is too large');
  if (n < 0 && !allowNegative) throw invalidParam(name, v, 'must be a non-negative integer');
  return n === 0 ? 0 : n; // no -0
}

function parseResourceVersionParam(name: string, v: string | undefined): string | undefined {
  if (v === undefined || v === '') return undefined;
  let ok = v.length <= 20;
  for (let i = 0; ok && i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 0x30 || c > 0x39) ok = false;
  }
  if (!ok) throw invalidParam(name, v, 'must be a decimal integer (resource versions of this server are revision numbers)');
  return v;
}

/** list, watch and deletecollection parameters. */
export function parseListOptions(q: URLSearchParams): ListOptions {
  const out: ListOptions = {
    watch: parseBoolParam(q, 'watch') ?? false,
    allowWatchBookmarks: parseBoolParam(q, 'allowWatchBookmarks') ?? false,
  };
  const ls = nonEmpty(q, 'labelSelector');
  if (ls !== undefined) out.labelSelector = ls;
  const fs = nonEmpty(q, 'fieldSelector');
  if (fs !== undefined) out.fieldSelector = fs;
  const rv = parseResourceVersionParam('resourceVersion', q.get('resourceVersion') ?? undefined);
  if (rv !== undefined) out.resourceVersion = rv;
  const match = nonEmpty(q, 'resourceVersionMatch');
  if (match !== undefined) {
    if (match !== ResourceVersionMatch.Exact && match !== ResourceVersionMatch.NotOlderThan) {
      throw invalidParam('resourceVersionMatch', match, 'supported values: "Exact", "NotOlderThan"', 'Unsupported value');
    }
    out.resourceVersionMatch = match;
  }
  // A negative limit is no limit, as upstream's storage ignores any limit below 1.
  const limit = parseIntParam(q, 'limit', { allowNegative: true });
  if (limit !== undefined && limit >= 0) out.limit = limit;
  const cont = nonEmpty(q, 'continue');
  if (cont !== undefined) out.continue = cont;
  const timeout = parseIntParam(q, 'timeoutSeconds');
  if (timeout !== undefined) out.timeoutSeconds = timeout;
  const sie = parseBoolParam(q, 'sendInitialEvents');
  if (sie !== undefined) out.sendInitialEvents = sie;
  return out;
}

/**
 * dryRun values: every value must be `All`; a bare `?dryRun` (empty value) means no dry run,
 * as the spec states. Upstream's wording for anything else.
 */
function parseDryRunValues(values: readonly unknown[]): boolean {
  let dry = false;
  for (const v of values) {
    if (v === '') continue;
    if (v !== DRY_RUN_ALL) throw invalidParam('dryRun', values, `supported values: "${DRY_RUN_ALL}"`, 'Unsupported value');
    dry = true;
  }
  return dry;
}

// Unicode's printable set (Go's unicode.IsPrint): graphic characters plus the ASCII space.
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]*$/u;

/**
 * create / update / patch parameters (`verb` names the options kind a 422 speaks of).
 * fieldValidation defaults to Warn (kube-apiserver 1.23+).
 */
export function parseWriteOptions(q: URLSearchParams, verb = 'create'): WriteOptions {
  const out: WriteOptions = {
    dryRun: parseDryRunValues(q.getAll('dryRun')),
    fieldValidation: FieldValidation.Warn,
    pretty: prettyParam(q),
    force: parseBoolParam(q, 'force') ?? false,
  };
  const fm = q.get('fieldManager');
  if (fm !== null && fm !== '') {
    // Upstream validates the length with the options object (ValidateFieldManager): 422, not 400.
    if (Buffer.byteLength(fm) > MAX_FIELD_MANAGER_BYTES) {
      throw invalid(WRITE_OPTIONS_KINDS[verb] ?? 'CreateOptions', OPTIONS_GROUP, '', [tooLong('fieldManager', MAX_FIELD_MANAGER_BYTES)]);
    }
    if (!PRINTABLE.test(fm)) throw invalidParam('fieldManager', fm, 'must only contain printable characters');
    out.fieldManager = fm;
  }
  const fv = nonEmpty(q, 'fieldValidation');
  if (fv !== undefined) {
    if (fv !== FieldValidation.Strict && fv !== FieldValidation.Warn && fv !== FieldValidation.Ignore) {
      throw invalidParam('fieldValidation', fv, 'supported values: "Ignore", "Strict", "Warn"', 'Unsupported value');
    }
    out.fieldValidation = fv;
  }
  return out;
}

/** `pretty` is advisory: unparseable values mean "not pretty" rather than a failed request. */
function prettyParam(q: URLSearchParams): boolean {
  const v = q.get('pretty');
  if (v === null) return false;
  const l = v.toLowerCase();
  return l === '' || l === 'true' || l === '1' || l === 't';
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * delete / deletecollection options from the query and an optional DeleteOptions body.
 * Upstream reads the body alone when one is sent; here the query fills whatever the body leaves
 * unset, so a client that sends `?dryRun=All` with a body still gets a dry run; where both set a
 * field, the body wins (as upstream, which ignores the query then). dryRun is the union: a request
 * that asks for a dry run either way is never executed for real.
 */
export function parseDeleteOptions(q: URLSearchParams, body?: Record<string, unknown>): DeleteOptions {
  const out: DeleteOptions = { preconditions: {}, dryRun: parseDryRunValues(q.getAll('dryRun')) };

  const grace = parseIntParam(q, 'gracePeriodSeconds', { allowNegative: true });
  if (grace !== undefined) out.gracePeriodSeconds = grace;
  const policy = nonEmpty(q, 'propagationPolicy');
  if (policy !== undefined) out.propagationPolicy = checkPolicy(policy);
  const orphan = parseBoolParam(q, 'orphanDependents');
  if (orphan !== undefined) out.orphanDependents = orphan;

  if (body !== undefined) {
    if (!isPlainObject(body)) throw badRequest('the body of a delete request must be a DeleteOptions object');
    if (body.kind !== undefined && body.kind !== 'DeleteOptions') {
      throw badRequest(`the body of a delete request must be a DeleteOptions object, not ${JSON.stringify(body.kind)}`);
    }
    const g = body.gracePeriodSeconds;
    if (g !== undefined && g !== null) {
      if (typeof g !== 'number' || !Number.isSafeInteger(g)) throw invalidParam('gracePeriodSeconds', g, 'must be an integer');
      out.gracePeriodSeconds = g;
    }
    const p = body.propagationPolicy;
    const o = body.orphanDependents;
    // The two spell one setting: a body that states it replaces whatever the query said.
    if ((p !== undefined && p !== null) || (o !== undefined && o !== null)) {
      delete out.propagationPolicy;
      delete out.orphanDependents;
    }
    if (p !== undefined && p !== null) {
      if (typeof p !== 'string') throw invalidParam('propagationPolicy', p, 'must be a string');
      out.propagationPolicy = checkPolicy(p);
    }
    if (o !== undefined && o !== null) {
      if (typeof o !== 'boolean') throw invalidParam('orphanDependents', o, 'must be a boolean');
      out.orphanDependents = o;
    }
    const d = body.dryRun;
    if (d !== undefined && d !== null) {
      if (!Array.isArray(d)) throw invalidParam('dryRun', d, 'must be a list of strings');
      if (parseDryRunValues(d)) out.dryRun = true;
    }
    const pre = body.preconditions;
    if (pre !== undefined && pre !== null) {
      if (!isPlainObject(pre)) throw invalidParam('preconditions', pre, 'must be an object');
      for (const k of ['uid', 'resourceVersion'] as const) {
        const v = pre[k];
        if (v === undefined || v === null) continue;
        if (typeof v !== 'string') throw invalidParam(`preconditions.${k}`, v, 'must be a string');
        if (v !== '') out.preconditions[k] = v;
      }
    }
  }
  if (out.orphanDependents !== undefined && out.propagationPolicy !== undefined) {
    throw badRequest('orphanDependents: Invalid value: orphanDependents and deletionPropagation cannot be both set', [
      { reason: 'FieldValueInvalid', message: 'orphanDependents and deletionPropagation cannot be both set', field: 'orphanDependents' },
    ]);
  }
  return out;
}

function checkPolicy(p: string): PropagationPolicy {
  if (p === PropagationPolicy.Orphan || p === PropagationPolicy.Background || p === PropagationPolicy.Foreground) return p;
  throw invalidParam('propagationPolicy', p, 'supported values: "Foreground", "Background", "Orphan", "nil"', 'Unsupported value');
}
