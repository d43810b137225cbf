// The smaller parts of a CustomResourceDefinition and their rules, as upstream states them:
// printer columns, the scale subresource, deprecation warnings, conversion, stored versions and the
// API-approval annotation of community groups.

import type { FieldError } from '../../../api/status.js';
import { forbidden, invalidValue, required, unsupported } from '../../../api/field-errors.js';
import { validateService, validateURL } from '../admissionregistration/webhook.js';
import { dns1035Problems } from './crd-names.js';

type Json = Record<string, unknown>;

export function asJson(v: unknown): Json | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

function simpleJSONPath(s: string, path: string): FieldError[] {
  if (s.length === 0) return [invalidValue(path, s, 'must not be empty')];
  if (!s.startsWith('.')) return [invalidValue(path, s, 'must be a simple json path starting with .')];
  return [];
}

/** One additional printer column (its JSON path is reported at `JSONPath`, upstream's internal name). */
export function validateColumn(col: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(col.name)) errs.push(required(`${path}.name`));
  const type = str(col.type);
  if (!type) errs.push(required(`${path}.type`, `must be one of ${COLUMN_TYPES.join(',')}`));
  else if (!COLUMN_TYPES.includes(type)) errs.push(invalidValue(`${path}.type`, type, `must be one of ${COLUMN_TYPES.join(',')}`));
  const format = str(col.format);
  if (format && !COLUMN_FORMATS.includes(format)) errs.push(invalidValue(`${path}.format`, format, `must be one of ${COLUMN_FORMATS.join(',')}`));
  const jsonPath = str(col.jsonPath);
  if (!jsonPath) errs.push(required(`${path}.JSONPath`));
  else errs.push(...simpleJSONPath(jsonPath, `${path}.JSONPath`));
  return errs;
}

function scalePath(value: string, path: string, under: string[], why: string): FieldError[] {
  const errs = simpleJSONPath(value, path);
  if (errs.length) return errs;
  return under.some((prefix) => value.startsWith(prefix)) ? [] : [invalidValue(path, value, why)];
}

/** A subresources block: `status` is an empty object; `scale` points at replicas under .spec and .status. */
export function validateSubresources(sub: unknown, path: string): FieldError[] {
  const scale = asJson(asJson(sub)?.scale);
  if (!scale) return [];
  const errs: FieldError[] = [];
  const spec = str(scale.specReplicasPath);
  if (!spec) errs.push(required(`${path}.scale.specReplicasPath`));
  else errs.push(...scalePath(spec, `${path}.scale.specReplicasPath`, ['.spec.'], 'should be a json path under .spec'));
  const status = str(scale.statusReplicasPath);
  if (!status) errs.push(required(`${path}.scale.statusReplicasPath`));
  else errs.push(...scalePath(status, `${path}.scale.statusReplicasPath`, ['.status.'], 'should be a json path under .status'));
  const selector = str(scale.labelSelectorPath);
  if (selector) errs.push(...scalePath(selector, `${path}.scale.labelSelectorPath`, ['.spec.', '.status.'], 'should be a json path under either .spec or .status'));
  return errs;
}

function utf8Index(s: string, charIndex: number): number {
  return Buffer.byteLength(s.slice(0, charIndex));
}

/** A version's `deprecationWarning`: only on deprecated versions, 1–256 bytes of printable text. */
export function validateDeprecationWarning(version: Json, path: string): FieldError[] {
  const warning = version.deprecationWarning;
  if (typeof warning !== 'string') return [];
  if (version.deprecated !== true) return [invalidValue(path, warning, 'can only be set for deprecated versions')];
  const problems: string[] = [];
  if (Buffer.byteLength(warning) > 256) problems.push('must be <= 256 characters long');
  if (warning.length === 0) problems.push('must not be an empty string');
  const chars = [...warning];
  let offset = 0;
  for (const ch of chars) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) {
      problems.push(`must only contain printable UTF-8 characters; non-printable character found at index ${utf8Index(warning, offset)}`);
      break;
    }
    offset += ch.length;
  }
  return problems.map((p) => invalidValue(path, warning, p));
}

export const CONVERSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];

/** Whether a list of ConversionReview versions names one the server speaks, or is empty. */
export function hasRecognizedReviewVersionOrEmpty(versions: unknown[]): boolean {
  return versions.length === 0 || versions.some((v) => CONVERSION_REVIEW_VERSIONS.includes(str(v)));
}

function validateReviewVersions(versions: unknown[], requireRecognized: boolean, path: string): FieldError[] {
  if (versions.length === 0) return [required(path)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((raw, i) => {
    const v = str(raw);
    if (seen.has(v)) {
      errs.push(invalidValue(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const p of dns1035Problems(v)) errs.push(invalidValue(`${path}[${i}]`, v, p));
  });
  if (requireRecognized && !hasRecognizedReviewVersionOrEmpty(versions)) errs.push(invalidValue(path, versions, `must include at least one of ${CONVERSION_REVIEW_VERSIONS.join(', ')}`));
  return errs;
}

/**
 * spec.conversion. Paths are upstream's internal ones, which clients see: `webhookClientConfig`
 * for v1's `webhook.clientConfig`, `conversionReviewVersions` for `webhook.conversionReviewVersions`.
 */
export function validateConversion(conversion: unknown, requireRecognized: boolean): FieldError[] {
  const c = asJson(conversion);
  if (!c) return [];
  const path = 'spec.conversion';
  const errs: FieldError[] = [];
  const strategy = str(c.strategy);
  if (!strategy) errs.push(required(`${path}.strategy`));
  else if (strategy !== 'None' && strategy !== 'Webhook') errs.push(unsupported(`${path}.strategy`, strategy, ['None', 'Webhook']));
  const webhook = asJson(c.webhook);
  const cc = asJson(webhook?.clientConfig);
  const reviewVersions = Array.isArray(webhook?.conversionReviewVersions) ? (webhook.conversionReviewVersions as unknown[]) : [];
  if (strategy !== 'Webhook') {
    const why = 'should not be set when strategy is not set to Webhook';
    if (cc) errs.push(forbidden(`${path}.webhookClientConfig`, why));
    if (reviewVersions.length) errs.push(forbidden(`${path}.conversionReviewVersions`, why));
    return errs;
  }
  if (!cc) errs.push(required(`${path}.webhookClientConfig`, 'required when strategy is set to Webhook'));
  else {
    const hasURL = typeof cc.url === 'string';
    const svc = asJson(cc.service);
    if (hasURL === Boolean(svc)) errs.push(required(`${path}.webhookClientConfig`, 'exactly one of url or service is required'));
    else if (hasURL) errs.push(...validateURL(cc.url as string, `${path}.webhookClientConfig.url`));
    else if (svc) errs.push(...validateService(svc, `${path}.webhookClientConfig.service`));
  }
  errs.push(...validateReviewVersions(reviewVersions, requireRecognized, `${path}.conversionReviewVersions`));
  return errs;
}

/** status.storedVersions: never empty, holding the storage version, naming only versions spec.versions still has. */
export function validateStoredVersions(stored: unknown[], versions: Json[]): FieldError[] {
  const path = 'status.storedVersions';
  if (stored.length === 0) return [invalidValue(path, stored, 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map<string, number>();
  stored.forEach((v, i) => remaining.set(str(v), i));
  for (const v of versions) {
    const name = str(v.name);
    if (v.storage === true && !remaining.has(name)) errs.push(invalidValue(path, stored, `must have the storage version ${name}`));
    remaining.delete(name);
  }
  for (const [v, i] of remaining) errs.push(invalidValue(`${path}[${i}]`, v, 'must appear in spec.versions'));
  return errs;
}

export const API_APPROVAL_ANNOTATION = 'api-approved.kubernetes.io';

/** Upstream's community groups, whose definitions need an API review (`k8s.io`, `kubernetes.io` and their subdomains). */
export function isProtectedCommunityGroup(group: string): boolean {
  return ['k8s.io', 'kubernetes.io'].some((d) => group === d || group.endsWith(`.${d}`));
}

type ApprovalState = 'missing' | 'bypassed' | 'approved' | 'invalid';

function approvalState(annotations: Record<string, unknown> | undefined): ApprovalState {
  const value = str(annotations?.[API_APPROVAL_ANNOTATION]);
  if (!value) return 'missing';
  if (value.startsWith('unapproved')) return 'bypassed';
  try {
    const u = new URL(value);
    if (u.protocol && u.host) return 'approved';
  } catch {
    // Neither a URL nor a reason: invalid below.
  }
  return 'invalid';
}

const APPROVAL_MISSING = `protected groups must have approval annotation "${API_APPROVAL_ANNOTATION}", see https://github.com/kubernetes/enhancements/pull/1111`;
const APPROVAL_INVALID = `protected groups must have approval annotation "${API_APPROVAL_ANNOTATION}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`;

/** The approval annotation of a definition in a community group; an update that leaves its state alone is never refused. */
export function validateApproval(group: string, annotations: Record<string, unknown> | undefined, oldAnnotations?: Record<string, unknown>): FieldError[] {
  if (!isProtectedCommunityGroup(group)) return [];
  const state = approvalState(annotations);
  if (oldAnnotations !== undefined && approvalState(oldAnnotations) === state) return [];
  const path = `metadata.annotations[${API_APPROVAL_ANNOTATION}]`;
  if (state === 'missing') return [required(path, APPROVAL_MISSING)];
  if (state === 'invalid') return [invalidValue(path, annotations?.[API_APPROVAL_ANNOTATION], APPROVAL_INVALID)];
  return [];
}
