// JSON merge patch (RFC 7386), `application/merge-patch+json`: objects merge member by member,
// `null` removes a member, anything else (arrays included) replaces the target value.

import { cloneJson, getOwn, hasOwn, isJsonObject, jsonEqual, setOwn, type JsonObject } from './json-value.js';

/** Applies `patch` to `target` and returns a new value; neither input is changed. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return cloneJson(patch);
  const base = isJsonObject(target) ? target : undefined;
  const out: JsonObject = {};
  if (base) {
    // Members keep the target's order; patched members stay where they were.
    for (const k of Object.keys(base)) {
      if (!hasOwn(patch, k)) setOwn(out, k, cloneJson(base[k]));
      else if (patch[k] !== null) setOwn(out, k, applyMergePatch(base[k], patch[k]));
    }
  }
  for (const k of Object.keys(patch)) {
    if (base && hasOwn(base, k)) continue;
    // A new member's nested nulls are dropped too: RFC 7386 merges into an empty object.
    if (patch[k] !== null) setOwn(out, k, applyMergePatch(undefined, patch[k]));
  }
  return out;
}

/**
 * The merge patch that turns `original` into `modified`: removed members become `null`, changed
 * ones are carried (objects recursively, everything else whole). A `null` inside `modified`
 * cannot be expressed by RFC 7386 (it would read as a removal) and is emitted as such.
 */
export function createMergePatch(original: unknown, modified: unknown): unknown {
  if (!isJsonObject(original) || !isJsonObject(modified)) return cloneJson(modified);
  const patch: JsonObject = {};
  for (const k of Object.keys(original)) {
    if (!hasOwn(modified, k)) setOwn(patch, k, null);
  }
  for (const k of Object.keys(modified)) {
    const next = modified[k];
    if (!hasOwn(original, k)) {
      setOwn(patch, k, cloneJson(next));
      continue;
    }
    const prev = getOwn(original, k);
    if (jsonEqual(prev, next)) continue;
    setOwn(patch, k, isJsonObject(prev) && isJsonObject(next) ? createMergePatch(prev, next) : cloneJson(next));
  }
  return patch;
}
