// Ephemeral containers (upstream's `pods/<name>/ephemeralcontainers` subresource): debugging
// containers added to a running pod. A pod is never created with them; the main resource may not
// change them; through the subresource a writer may only add new ones, and nothing else of the pod
// changes. They get no ports, resources, probes or lifecycle: a pod's workload must not rely on them.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { SubresourceStrategy } from '../../types.js';
import { asArray, asObject, type Json } from '../common/field-errors.js';
import { defaultPodSpec } from '../common/pod-spec.js';
import { duplicate, forbidden, invalidValue, notFoundValue, required } from '../../../api/field-errors.js';
import { dnsLabelError, validDnsLabel } from '../../../api/validation.js';
import { cloneJson, jsonEqual } from '../../../patch/json-value.js';

const FIELD = 'spec.ephemeralContainers';
const NOT_FOR_EPHEMERAL = 'cannot be set for an Ephemeral Container';

// Container fields an ephemeral container may not set, in the order of upstream's struct (its
// allow-list leaves them out). A field counts as set when it differs from Go's zero value.
const DISALLOWED = ['ports', 'resources', 'resizePolicy', 'restartPolicy', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'] as const;

/** Go's zero value: absent or null; `resources` is a struct, zero while its lists are. */
function isGoZero(field: string, v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (field === 'resources') return Object.values(asObject(v) ?? {}).every((x) => x === undefined || x === null);
  return false;
}

function names(spec: Json, list: 'containers' | 'initContainers'): string[] {
  return asArray(spec[list]).map((c) => String(asObject(c)?.name ?? ''));
}

function validateName(c: Json, f: string, seen: Set<string>): FieldError[] {
  const name = typeof c.name === 'string' ? c.name : '';
  if (!name) return [required(`${f}.name`)];
  const errs: FieldError[] = [];
  if (!validDnsLabel(name)) errs.push(dnsLabelError(`${f}.name`, name));
  if (seen.has(name)) errs.push(duplicate(`${f}.name`, name));
  seen.add(name);
  return errs;
}

function validateImage(c: Json, f: string): FieldError[] {
  const image = typeof c.image === 'string' ? c.image : '';
  if (!image) return [required(`${f}.image`)];
  if (image.trim() !== image) return [invalidValue(`${f}.image`, image, 'must not have leading or trailing whitespace')];
  return [];
}

function validateMounts(c: Json, f: string, volumes: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  asArray(c.volumeMounts).forEach((m, j) => {
    const mount = asObject(m) ?? {};
    const mf = `${f}.volumeMounts[${j}]`;
    if (typeof mount.name === 'string' && !volumes.has(mount.name)) errs.push(notFoundValue(`${mf}.name`, mount.name));
    // A subpath is a bind mount that outlives the container: workload use, not debugging.
    if (mount.subPath) errs.push(forbidden(`${mf}.subPath`, NOT_FOR_EPHEMERAL));
    if (mount.subPathExpr) errs.push(forbidden(`${mf}.subPathExpr`, NOT_FOR_EPHEMERAL));
  });
  return errs;
}

/**
 * Upstream's validateEphemeralContainers: names unique across every kind of container, a target
 * that names a container or init container, none of the disallowed fields, no subpath mounts.
 */
export function validateEphemeralContainers(specValue: unknown, field = FIELD): FieldError[] {
  const spec = asObject(specValue) ?? {};
  const list = asArray(spec.ephemeralContainers);
  if (!list.length) return [];
  const others = new Set([...names(spec, 'containers'), ...names(spec, 'initContainers')]);
  const seen = new Set(others);
  const volumes = new Set(asArray(spec.volumes).map((v) => String(asObject(v)?.name ?? '')));
  const errs: FieldError[] = [];
  list.forEach((item, i) => {
    const c = asObject(item) ?? {};
    const f = `${field}[${i}]`;
    errs.push(...validateName(c, f, seen), ...validateImage(c, f), ...validateMounts(c, f, volumes));
    const target = c.targetContainerName;
    if (typeof target === 'string' && target && !others.has(target)) errs.push(notFoundValue(`${f}.targetContainerName`, target));
    for (const k of DISALLOWED) if (!isGoZero(k, c[k])) errs.push(forbidden(`${f}.${k}`, NOT_FOR_EPHEMERAL));
  });
  return errs;
}

/** Pods are created without ephemeral containers; they come through the subresource only. */
export function validateNoEphemeralContainersOnCreate(pod: ApiObject): FieldError[] {
  return asArray(asObject(pod.spec)?.ephemeralContainers).length ? [forbidden(FIELD, 'cannot be set on create')] : [];
}

/** A container as upstream compares it: null, absent and empty lists are the same. */
function comparable(c: Json): Json {
  return Object.fromEntries(Object.entries(c).filter(([, v]) => v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0)));
}

/** What changed in a container, one `-`/`+` line pair per field (upstream prints a struct diff). */
function describeChange(before: Json, after: Json): string {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const lines: string[] = [];
  for (const k of keys) {
    if (jsonEqual(before[k], after[k])) continue;
    if (before[k] !== undefined) lines.push(`- ${k}: ${JSON.stringify(before[k])}`);
    if (after[k] !== undefined) lines.push(`+ ${k}: ${JSON.stringify(after[k])}`);
  }
  return lines.join('\n');
}

/** Existing ephemeral containers stay as they are (patches do not keep order: matched by name). */
export function validateExistingEphemeralContainers(pod: ApiObject, old: ApiObject): FieldError[] {
  const byName = new Map<string, Json>();
  for (const c of asArray(asObject(pod.spec)?.ephemeralContainers)) {
    const co = asObject(c);
    if (co) byName.set(String(co.name ?? ''), co);
  }
  const errs: FieldError[] = [];
  for (const c of asArray(asObject(old.spec)?.ephemeralContainers)) {
    const before = comparable(asObject(c) ?? {});
    const name = String(before.name ?? '');
    const now = byName.get(name);
    if (!now) errs.push(forbidden(FIELD, `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
    else if (!jsonEqual(before, comparable(now))) errs.push(forbidden(FIELD, `existing ephemeral containers ${JSON.stringify(name)} may not be changed\n${describeChange(before, comparable(now))}`));
  }
  return errs;
}

/**
 * The object an ephemeralcontainers write stores: the stored pod with the request's list of
 * ephemeral containers (defaulted as a decoded pod would be), its resourceVersion precondition, and
 * its managedFields (the field manager records the write's manager there).
 */
export function prepareEphemeralContainersUpdate(obj: ApiObject, old: ApiObject): ApiObject {
  const next = cloneJson(old);
  next.metadata.resourceVersion = obj.metadata?.resourceVersion;
  if (obj.metadata?.managedFields !== undefined) next.metadata.managedFields = obj.metadata.managedFields;
  const spec = asObject(next.spec) ?? {};
  const requested = asObject(obj.spec)?.ephemeralContainers;
  if (requested === undefined || requested === null) delete spec.ephemeralContainers;
  else spec.ephemeralContainers = cloneJson(requested);
  defaultPodSpec(spec);
  next.spec = spec;
  return next;
}

/** The strategy of `pods/<name>/ephemeralcontainers`; `validatePod` holds the pod's own rules. */
export function ephemeralContainersStrategy(validatePod: (pod: ApiObject) => FieldError[]): SubresourceStrategy {
  return {
    prepareForUpdate: (obj, old) => prepareEphemeralContainersUpdate(obj, old),
    validateUpdate: (obj, old) => [...validatePod(obj), ...validateExistingEphemeralContainers(obj, old)],
  };
}
