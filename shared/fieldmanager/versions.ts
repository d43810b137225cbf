// Managed fields across the versions of a type. Every managedFields entry records the apiVersion it
// was made in, and a field may have another path in another version (a conversion webhook renames
// it, a built-in version moves it). Before an apply or an update through one version, each entry of
// another version is read in the request's version, so ownership, conflicts and removals compare
// like with like (upstream converts through the type's conversion too); afterwards an entry the
// write changed is written back in its own version, and one it left alone is restored as it was.
// A set is converted as upstream would see it: the object's values at the set's paths, converted,
// read as a set again. Metadata is never converted, so that part of a set is carried over as it is.

import { StatusError } from '../api/status.js';
import type { ApiObject, JsonSchema } from '../api/types.js';
import { cloneJson } from '../patch/json-value.js';
import { FieldSet, type Path, type PathElement } from './fieldset.js';
import type { ManagedFieldsEntry } from './managed.js';
import { removeAt, toFieldSet } from './typed.js';

/** How a write sees the versions of its type. */
export interface VersionedFields {
  /** The request's version (`group/version`). */
  apiVersion: string;
  /** Whether an entry made in `apiVersion` must be converted (another version of the type whose fields may differ). */
  converts(apiVersion: string): boolean;
  /** The field schema of a version of the type. */
  schema(apiVersion: string): JsonSchema | undefined;
  /** `objs` (each in its own version) in `apiVersion`, in order. */
  convert(objs: ApiObject[], apiVersion: string): Promise<ApiObject[]>;
}

/** Paths outside what conversion changes: identity and metadata. */
const unconverted = (path: Path) => path.length > 0 && (path[0] === 'f:apiVersion' || path[0] === 'f:kind' || path[0] === 'f:metadata');

function metadataPart(set: FieldSet): FieldSet {
  const out = new FieldSet();
  const meta = set.children.get('f:metadata');
  if (meta) out.children.set('f:metadata', meta.clone());
  return out;
}

function convertedPart(set: FieldSet): FieldSet {
  const out = set.clone();
  out.children.delete('f:metadata');
  return out;
}

/** A key field of a keyed list item stays with the item, so the item keeps its identity through a conversion. */
function isKeyField(parent: PathElement | undefined, e: PathElement): boolean {
  if (!parent?.startsWith('k:') || !e.startsWith('f:')) return false;
  return Object.hasOwn(JSON.parse(parent.slice(2)) as object, e.slice(2));
}

/** Removes from `out` what `all` (the object's paths) has and `set` does not reach. */
function prune(out: ApiObject, all: FieldSet, set: FieldSet, path: PathElement[]): void {
  for (const [e, c] of all.children) {
    const p = [...path, e];
    const s = set.children.get(e);
    if (!s) {
      if (!isKeyField(path[path.length - 1], e)) removeAt(out, p);
      continue;
    }
    // A member with nothing below it is owned whole (an atomic value, a list item of a set).
    if (s.member && s.children.size === 0) continue;
    prune(out, c, s, p);
  }
}

/** The object with only the values at the paths of `set` (metadata kept whole: a conversion needs it). */
export function restrict(obj: ApiObject, set: FieldSet, schema: JsonSchema | undefined): ApiObject {
  const out = cloneJson(obj);
  delete out.metadata.managedFields;
  prune(out, toFieldSet(out, schema, unconverted), set, []);
  return out;
}

/** The converted part of the paths an object sets. */
export function convertedSet(obj: ApiObject, schema: JsonSchema | undefined): FieldSet {
  return toFieldSet(obj, schema, unconverted);
}

const keyOf = (e: ManagedFieldsEntry) => JSON.stringify([e.manager ?? '', e.operation ?? '', e.subresource ?? '', e.apiVersion ?? '']);

interface Foreign {
  original: ManagedFieldsEntry;
  /** The entry's set in the request's version, as FieldsV1 JSON. */
  converted: string;
}

/**
 * One write's view of managedFields in its own version: `read` an object's entries into the
 * request's version, `write` the result's entries of other versions back into theirs. `source`
 * holds the values the entries' sets are read with (the live object, in the request's version).
 */
export class ManagedFieldsInVersion {
  private readonly foreign = new Map<string, Foreign[]>();
  private readonly sourceIn = new Map<string, Promise<ApiObject | undefined>>();
  /** Entries read so far: the live object's and the request's lists usually hold the same ones. */
  private readonly reading = new Map<string, Promise<ManagedFieldsEntry>>();

  constructor(
    private readonly vf: VersionedFields,
    private readonly source: ApiObject,
  ) {}

  /** `obj` with its entries of other versions in the request's version (itself when it has none). */
  async read(obj: ApiObject): Promise<ApiObject> {
    const list = obj.metadata.managedFields as ManagedFieldsEntry[] | undefined;
    if (!Array.isArray(list) || !list.some((e) => this.convertible(e))) return obj;
    const out = await Promise.all(list.map((e) => (this.convertible(e) ? this.readOnce(e) : Promise.resolve(e))));
    return { ...obj, metadata: { ...obj.metadata, managedFields: out } };
  }

  /** The managedFields of `obj` (the write's result) with entries of other versions back in their own version; in place. */
  async write(obj: ApiObject): Promise<ApiObject> {
    const list = obj.metadata.managedFields as ManagedFieldsEntry[] | undefined;
    if (!this.foreign.size || !Array.isArray(list)) return obj;
    const out = await Promise.all(list.map((e) => this.writeEntry(e)));
    const kept = out.filter((e): e is ManagedFieldsEntry => e !== undefined);
    if (kept.length) obj.metadata.managedFields = kept;
    else delete obj.metadata.managedFields;
    return obj;
  }

  private convertible(e: ManagedFieldsEntry): boolean {
    return !!e && typeof e === 'object' && typeof e.apiVersion === 'string' && e.apiVersion !== this.vf.apiVersion && this.vf.converts(e.apiVersion);
  }

  /** The live object in `apiVersion`, once per version; undefined when it cannot be converted in-process. */
  private sourceInVersion(apiVersion: string): Promise<ApiObject | undefined> {
    let o = this.sourceIn.get(apiVersion);
    if (!o) {
      o = this.convertOne(this.source, apiVersion);
      this.sourceIn.set(apiVersion, o);
    }
    return o;
  }

  /** A conversion; a failure of an in-process conversion (a partial object it cannot take) leaves the set as it is, a webhook's fails the write. */
  private async convertOne(obj: ApiObject, apiVersion: string): Promise<ApiObject | undefined> {
    try {
      return (await this.vf.convert([obj], apiVersion))[0];
    } catch (err) {
      if (err instanceof StatusError) throw err;
      return undefined;
    }
  }

  private readOnce(e: ManagedFieldsEntry): Promise<ManagedFieldsEntry> {
    const key = keyOf(e) + JSON.stringify(e.fieldsV1 ?? null);
    let r = this.reading.get(key);
    if (!r) {
      r = this.readEntry(e);
      this.reading.set(key, r);
    }
    return r;
  }

  private async readEntry(e: ManagedFieldsEntry): Promise<ManagedFieldsEntry> {
    const version = e.apiVersion!;
    const set = FieldSet.fromFieldsV1(e.fieldsV1);
    const part = convertedPart(set);
    let inRequest = set;
    if (!part.isEmpty()) {
      const live = await this.sourceInVersion(version);
      const partial = live && (await this.convertOne(restrict(live, part, this.vf.schema(version)), this.vf.apiVersion));
      if (!partial) return e;
      const schema = this.vf.schema(this.vf.apiVersion);
      inRequest = convertedSet(partial, schema).intersection(convertedSet(this.source, schema)).union(metadataPart(set));
    }
    const converted: ManagedFieldsEntry = { ...e, fieldsV1: inRequest.toFieldsV1() };
    const records = this.foreign.get(keyOf(e)) ?? [];
    records.push({ original: e, converted: JSON.stringify(converted.fieldsV1) });
    this.foreign.set(keyOf(e), records);
    return converted;
  }

  /**
   * An entry of the result: one the write left alone as it was; one of another version that lost
   * fields loses, in its own version, every field the lost ones convert to (as upstream, which
   * compares in the entry's version, finds a field changed when any part of it changed).
   */
  private async writeEntry(e: ManagedFieldsEntry): Promise<ManagedFieldsEntry | undefined> {
    const records = e && typeof e === 'object' ? this.foreign.get(keyOf(e)) : undefined;
    if (!records) return e;
    const json = JSON.stringify(e.fieldsV1);
    const same = records.find((r) => r.converted === json);
    if (same) return { ...e, fieldsV1: same.original.fieldsV1 };
    const [record] = records;
    const now = FieldSet.fromFieldsV1(e.fieldsV1);
    const lost = convertedPart(FieldSet.fromFieldsV1(JSON.parse(record!.converted))).difference(now);
    let own = convertedPart(FieldSet.fromFieldsV1(record!.original.fieldsV1));
    if (!lost.isEmpty()) {
      const version = e.apiVersion!;
      const back = await this.convertOne(restrict(this.source, lost, this.vf.schema(this.vf.apiVersion)), version);
      if (!back) return e;
      own = own.difference(convertedSet(back, this.vf.schema(version)));
    }
    own = own.union(metadataPart(now));
    return own.isEmpty() ? undefined : { ...e, fieldsV1: own.toFieldsV1() };
  }
}
