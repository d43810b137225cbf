// ConversionReview, the body of every call to a CustomResourceDefinition's conversion webhook, in
// `apiextensions.platform.io/v1` or `v1beta1` (the first of the definition's
// conversionReviewVersions the server speaks), and the checks an answer must pass before its
// objects are believed, after upstream's webhook converter: a v1 answer names ConversionReview in
// v1 (either spelling of the group: webhook libraries answer in upstream's) and echoes the uid;
// the result is Success; as many objects come back as were sent, each in the desired version, of
// the same kind, name, namespace and uid. Of the metadata a webhook returns only labels and
// annotations are kept (checked as the API checks them); the rest is the original's, so a
// webhook cannot change what the server manages (resourceVersion, managedFields, finalizers).
// Pure: the webhook call is conversion-webhook.ts.

import type { ApiObject } from '../api/types.js';
import { fieldErrorMessage, type FieldError } from '../api/status.js';
import { validateAnnotations, validateLabels } from '../api/validation.js';

export const CONVERSION_REVIEW_GROUP = 'apiextensions.platform.io';
/** Upstream's spelling, accepted in answers. */
const UPSTREAM_CONVERSION_REVIEW_GROUP = 'apiextensions.k8s.io';

/** The ConversionReview versions this server sends, in the order it prefers them. */
export const CONVERSION_REVIEW_VERSIONS = ['v1', 'v1beta1'] as const;
export type ConversionReviewVersion = (typeof CONVERSION_REVIEW_VERSIONS)[number];

/** The first of a definition's conversionReviewVersions this server speaks; null when none is. */
export function pickReviewVersion(versions: readonly string[]): ConversionReviewVersion | null {
  return (versions.find((v) => (CONVERSION_REVIEW_VERSIONS as readonly string[]).includes(v)) as ConversionReviewVersion | undefined) ?? null;
}

export function conversionReview(version: ConversionReviewVersion, uid: string, desiredAPIVersion: string, objects: readonly ApiObject[]): Record<string, unknown> {
  return { apiVersion: `${CONVERSION_REVIEW_GROUP}/${version}`, kind: 'ConversionReview', request: { uid, desiredAPIVersion, objects } };
}

/**
 * An answer that cannot be believed. The message follows "conversion webhook for <gvk> " in what
 * the client is told, in upstream's words: `failed: <why>`, `returned N objects, expected M`, or
 * `returned invalid … at index i: <why>`.
 */
export class ConversionResponseError extends Error {
  override name = 'ConversionResponseError';
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const quoted = (v: unknown) => JSON.stringify(typeof v === 'string' ? v : '');
const typeName = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** The response of a ConversionReview answer, its envelope and result checked. */
function successfulResponse(version: ConversionReviewVersion, uid: string, body: unknown): Obj {
  const failed = (why: string) => new ConversionResponseError(`failed: ${why}`);
  if (!isObj(body)) throw failed('the response is not a ConversionReview object');
  // v1beta1 answers were never checked for their kind or uid; upstream keeps it so.
  if (version === 'v1') {
    const apiVersions = [`${CONVERSION_REVIEW_GROUP}/v1`, `${UPSTREAM_CONVERSION_REVIEW_GROUP}/v1`];
    if (!apiVersions.includes(String(body.apiVersion)) || body.kind !== 'ConversionReview') {
      throw failed(`expected webhook response of ${CONVERSION_REVIEW_GROUP}/v1, Kind=ConversionReview, got ${String(body.apiVersion ?? '')}, Kind=${String(body.kind ?? '')}`);
    }
  }
  const response = body.response;
  if (!isObj(response)) throw failed('no response provided');
  if (version === 'v1' && response.uid !== uid) throw failed(`expected response.uid=${JSON.stringify(uid)}, got ${quoted(response.uid)}`);
  const result = isObj(response.result) ? response.result : {};
  if (result.status !== 'Success') {
    if (typeof result.message === 'string' && result.message) throw failed(result.message);
    throw failed(`response.result.status was '${typeof result.status === 'string' ? result.status : ''}', not 'Success'`);
  }
  return response;
}

/**
 * The objects of a successful answer, each checked against the original at its position and
 * given the original's metadata but for labels and annotations; throws ConversionResponseError.
 */
export function convertedObjects(version: ConversionReviewVersion, uid: string, body: unknown, originals: readonly ApiObject[], desiredAPIVersion: string): ApiObject[] {
  const response = successfulResponse(version, uid, body);
  const converted = Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
  if (converted.length !== originals.length) throw new ConversionResponseError(`returned ${converted.length} objects, expected ${originals.length}`);
  return converted.map((c, i) => {
    const invalid = (why: string) => new ConversionResponseError(`returned invalid converted object at index ${i}: ${why}`);
    if (!isObj(c)) throw invalid(`not an object but ${typeName(c)}`);
    const original = originals[i]!;
    if (c.apiVersion !== desiredAPIVersion) throw invalid(`invalid groupVersion (expected ${desiredAPIVersion}, received ${String(c.apiVersion ?? '')})`);
    const problem = identityProblem(original, c);
    if (problem) throw invalid(problem);
    const metadata = restoredMetadata(original, c);
    if (typeof metadata === 'string') throw new ConversionResponseError(`returned invalid metadata in object at index ${i}: ${metadata}`);
    return { ...c, metadata } as unknown as ApiObject;
  });
}

/** What upstream's validateConvertedObject refuses: another kind, name, namespace or uid. */
function identityProblem(original: ApiObject, converted: Obj): string | undefined {
  const meta = isObj(converted.metadata) ? converted.metadata : {};
  const pairs: Array<[string, unknown, unknown]> = [
    ['kind', original.kind ?? '', converted.kind ?? ''],
    ['name', original.metadata.name ?? '', meta.name ?? ''],
    ['namespace', original.metadata.namespace ?? '', meta.namespace ?? ''],
    ['UID', original.metadata.uid ?? '', meta.uid ?? ''],
  ];
  for (const [what, want, got] of pairs) if (want !== got) return `must have the same ${what}: ${String(want)} != ${String(got)}`;
  return undefined;
}

/**
 * The original's metadata with the converted object's labels and annotations (absent there:
 * absent); a string saying why when the converted metadata or those maps are malformed.
 */
function restoredMetadata(original: ApiObject, converted: Obj): Obj | string {
  const given = converted.metadata;
  if (given === undefined) return 'missing metadata in converted object';
  if (!isObj(given)) return `invalid metadata of type ${typeName(given)} in converted object`;
  const out: Obj = structuredClone(original.metadata) as Obj;
  for (const field of ['labels', 'annotations'] as const) {
    const value = given[field];
    if (value === undefined || value === null) {
      delete out[field];
      continue;
    }
    if (!isObj(value)) return `invalid metadata.${field} of type ${typeName(value)} in converted object`;
    for (const [k, v] of Object.entries(value)) if (typeof v !== 'string') return `metadata.${field}[${k}] must be a string, but is ${typeName(v)} in converted object`;
    if (!sameStrings(out[field], value)) {
      const errs: FieldError[] = field === 'labels' ? validateLabels(value, 'metadata.labels') : validateAnnotations(value, 'metadata.annotations');
      if (errs.length) return errs.map(fieldErrorMessage).join(', ');
    }
    out[field] = value;
  }
  return out;
}

function sameStrings(a: unknown, b: Obj): boolean {
  if (!isObj(a)) return Object.keys(b).length === 0;
  const keys = Object.keys(b);
  return keys.length === Object.keys(a).length && keys.every((k) => a[k] === b[k]);
}
