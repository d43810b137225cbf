// The resource table every service consults: which group/version/resource is served (after
// `--runtime-config`), how each is named and stored, and its compiled schema (validation,
// unknown-field detection, pruning, defaults). All schema work happens in the constructor so a
// request only runs precompiled code.

import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FieldError } from '../api/status.js';
import { goRegExpEngine } from '../api/go-regexp.js';
import type { ApiObject, JsonSchema } from '../api/types.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../api/validation.js';
import { objectSchemaFor } from './object-meta.js';
import { resolvePatchSchema } from '../patch/patch-schema.js';
import { RuntimeConfig, parseRuntimeConfig } from './runtime-config.js';
import { AjvSchemaBuilder, ShapeCompiler, applySchemaDefaults, dedupeFieldErrors, findUnknownFields, hasUnsetNulls, mapAjvErrors, pruneUnknownFields, type ShapeNode } from './schema-tools.js';
import type { ResourceType, ServedResource, VersionDef } from './types.js';
import { subresourceStrategy, subresourceStrategyProblems } from './subresources.js';
import { hubForm, storageVersionOf } from './conversion.js';
import { brandSpelling, exactGroupNames, type CanonicalGroup } from '../api/groups.js';
import { wellKnownNames, type WellKnownNames } from '../api/well-known-names.js';
import { buildIndex, gvKey, type ApiGroupInfo, type RegistryIndex } from './registry-index.js';
import { cloneJson } from '../patch/json-value.js';

export { compareVersions } from './versions.js';
export type { ApiGroupInfo } from './registry-index.js';
export { parseRuntimeConfig, RuntimeConfig } from './runtime-config.js';
export type { RuntimeConfigEntry, RuntimeConfigTarget } from './runtime-config.js';

export interface RegistryOptions {
  runtimeConfig?: string;
  /**
   * `--upstream-group-aliases`: every served branded group (`*.platform.io`) is also served under
   * upstream's spelling (`*.k8s.io`), listed after every canonical group.
   */
  upstreamGroupAliases?: boolean;
}

interface Compiled extends CompiledBody {
  schema: JsonSchema;
}

interface CompiledBody {
  shape: ShapeNode;
  validator: ValidateFunction;
}

const addFormats = addFormatsModule.default;

// Go durations (`30s`, `1h2m`) are what the API's duration strings hold; ajv-formats' `duration`
// is ISO 8601, which is also accepted.
const GO_DURATION = /^[-+]?(0|(\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))*$/;
const ISO_DURATION = /^P(?!$)((\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?|(\d+W)?)$/;

/** `goPatterns`: `pattern`s are Go's (RE2), as in the schemas of types added at run time (CustomResourceDefinitions). */
function createAjv(goPatterns = false): Ajv {
  // Non-strict: schemas carry x-kubernetes-* and OpenAPI-only keywords ajv should ignore.
  // inlineRefs off: shared schemas stay one function each (see AjvSchemaBuilder). Code
  // optimisation off: it doubles compile time, and validating a Deployment stays ~0.2 ms without it.
  const code = goPatterns ? { optimize: false, regExp: goRegExpEngine } : { optimize: false };
  // No check of a schema against ajv's meta-schema: a definition's schema was validated as
  // upstream validates it when it was written, and the meta-schema's `uniqueItems` on `enum` is
  // quadratic (an enum of 100,000 values held the event loop for 70 s at every compile).
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false, validateFormats: true, validateSchema: false, inlineRefs: false, code });
  addFormats(ajv, [
    'date',
    'time',
    'date-time',
    'uri',
    'uri-reference',
    'url',
    'email',
    'hostname',
    'ipv4',
    'ipv6',
    'regex',
    'uuid',
    'byte',
    'int32',
    'int64',
    'float',
    'double',
    'password',
    'binary',
  ]);
  ajv.addFormat('duration', (s: string) => GO_DURATION.test(s) || ISO_DURATION.test(s));
  // ajv-formats takes any integer for int64; a JS number past 2^53 has already lost digits, and
  // refusing it is the only way not to store a value the client did not send.
  // A fraction is the `type: integer` check's to report, once.
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => !Number.isInteger(n) || Number.isSafeInteger(n) });
  // Markers used by OpenAPI documents whose checks live in the schema's own anyOf/pattern.
  ajv.addFormat('int-or-string', true);
  ajv.addFormat('quantity', true);
  return ajv;
}

// Validators and shapes depend only on a version's schema object, never on runtime-config, so
// they are kept per process: every Registry built from the same type entries (one per service,
// many in tests) reuses them instead of generating the same code again.
const ajv = createAjv();
const ajvSchemas = new AjvSchemaBuilder();
const shapes = new ShapeCompiler();
const compiledBodies = new WeakMap<JsonSchema, CompiledBody>();

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The source of the types compiled into the server; types added while it runs come from others. */
export const BUILTIN_TYPES = 'builtin';

/**
 * The registry's types come from sources: the built-in types, and while the server runs, the
 * types a stored definition adds (CustomResourceDefinitions). Each source's set is replaced whole
 * by `define`, through the same door for both, and every lookup then sees the new set.
 */
export class Registry {
  private readonly sources = new Map<string, readonly ResourceType[]>();
  private index!: RegistryIndex;
  private readonly runtime: RuntimeConfig;
  private readonly aliases: boolean;
  private readonly builtinGroups = new Set<string>();
  /** One ServedResource per type, version and group name, so that rebuilding the index keeps their identity (callers key caches by them). */
  private readonly servedObjects = new WeakMap<ResourceType, Map<string, ServedResource>>();
  private readonly fieldSchemas = new WeakMap<ServedResource, JsonSchema>();
  private readonly compiled = new WeakMap<ResourceType, Map<string, Compiled>>();
  private readonly wrapped = new WeakMap<ResourceType, Map<string, JsonSchema>>();
  private readonly listeners = new Set<() => void>();
  private changes = 0;
  /** The group a name in a URL means (an upstream alias → its branded group when aliases are served). */
  readonly canonicalGroup: CanonicalGroup;
  /** The well-known names the types' rules take: upstream's spellings too with `--upstream-group-aliases`. */
  readonly names: WellKnownNames;

  constructor(types: ResourceType[], opts: RegistryOptions = {}) {
    const entries = parseRuntimeConfig(opts.runtimeConfig ?? '');
    this.runtime = new RuntimeConfig(entries);
    this.aliases = opts.upstreamGroupAliases ?? false;
    this.names = wellKnownNames(this.aliases);
    for (const t of types) this.builtinGroups.add(t.group);
    // Only the built-in groups served under both spellings: a third-party `*.k8s.io` group (an
    // aggregated server's `metrics.k8s.io`) keeps its own name in requests, messages and audit.
    this.canonicalGroup = this.aliases
      ? (g) => {
          const brand = brandSpelling(g);
          return brand !== undefined && this.builtinGroups.has(brand) ? brand : g;
        }
      : exactGroupNames;
    // Wrap every built-in version (served or not) up front so sub-schemas shared between types
    // are recognised and compiled once. Types added later are compiled on their own: they come
    // and go, and must not leave shared definitions behind in the process-wide ajv.
    for (const type of types) this.wrap(type);
    for (const def of ajvSchemas.share(types.flatMap((t) => [...this.wrapped.get(t)!.values()]))) ajv.addSchema(def);
    this.define(BUILTIN_TYPES, types);
    this.checkRuntimeConfigKeys(entries, types);
  }

  /**
   * Replaces the types of one source (all of them; `[]` removes the source) and rebuilds every
   * lookup. Throws, changing nothing, when a type is malformed, its schema does not compile, or it
   * claims a URL or kind another type serves. Listeners hear of the change after it took effect.
   */
  define(source: string, types: readonly ResourceType[]): void {
    const previous = this.sources.get(source) ?? [];
    const next = new Map(this.sources);
    if (types.length) next.set(source, [...types]);
    else next.delete(source);
    const all = [...next.values()].flat();
    checkTypes(all);
    const index = buildIndex({ types: all, runtime: this.runtime, aliased: (g) => this.aliases && this.builtinGroups.has(g), servedAs: (t, g, v) => this.servedAs(t, g, v) });
    // Compiled before anything changes: a schema that does not compile leaves the old set served.
    const added = new Set(types);
    for (const served of index.served) if (added.has(served.type)) this.compile(served.type, served.version, source);
    this.sources.clear();
    for (const [k, v] of next) this.sources.set(k, v);
    this.index = index;
    for (const gone of previous) if (!added.has(gone)) this.release(gone);
    this.changes++;
    for (const listener of [...this.listeners]) listener();
  }

  /** The types one source defined (`BUILTIN_TYPES` for the built-in ones). */
  definedBy(source: string): readonly ResourceType[] {
    return this.sources.get(source) ?? [];
  }

  /** Counts the changes `define` made: caches derived from the registry compare it to know they are stale. */
  get generation(): number {
    return this.changes;
  }

  /** Called after every change of the served types; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private servedAs(type: ResourceType, group: string, version: VersionDef): ServedResource {
    let perType = this.servedObjects.get(type);
    if (!perType) this.servedObjects.set(type, (perType = new Map()));
    const key = `${group}/${version.name}`;
    let served = perType.get(key);
    if (!served || served.version !== version) perType.set(key, (served = { type, group, version }));
    return served;
  }

  /** A served group/version/resource (plural), or undefined when unknown or disabled. */
  lookup(group: string, version: string, plural: string): ServedResource | undefined {
    return this.index.byResource.get(`${gvKey(group, version)}/${plural}`);
  }

  lookupKind(group: string, version: string, kind: string): ServedResource | undefined {
    return this.index.byKind.get(`${gvKey(group, version)}/${kind}`);
  }

  /** Every served type with that short name, each at its preferred served version. */
  lookupShortName(name: string): ServedResource[] {
    return [...(this.index.byShortName.get(name) ?? [])];
  }

  /** Named groups with at least one served resource, in the order types were registered. */
  groups(): ApiGroupInfo[] {
    return [...this.index.groupInfos.values()].filter((g) => g.name !== '').map((g) => ({ ...g, versions: [...g.versions] }));
  }

  /** One group's discovery entry; `''` is the core group. */
  group(name: string): ApiGroupInfo | undefined {
    const g = this.index.groupInfos.get(name);
    return g ? { ...g, versions: [...g.versions] } : undefined;
  }

  resources(group: string, version: string): ServedResource[] {
    return [...(this.index.byGroupVersion.get(gvKey(group, version)) ?? [])];
  }

  /** Every served resource: types in registration order, each type's versions preferred-first. */
  all(): ServedResource[] {
    return [...this.index.served];
  }

  /** Served versions of one type, preferred first. */
  servedVersions(type: ResourceType): ServedResource[] {
    return [...(this.index.servedByType.get(type)?.values() ?? [])];
  }

  /** Where objects of the type are kept in the store (another resource's place for `storedAs`). */
  storageRef(type: ResourceType): { group: string; resource: string } {
    return type.storedAs ? { group: type.storedAs.group, resource: type.storedAs.resource } : { group: type.group, resource: type.plural };
  }

  /** The version objects are written in: the declared one, else the first listed (served or not, as upstream's storage version does not follow `--runtime-config`). */
  storageVersion(type: ResourceType): string {
    return storageVersionOf(type);
  }

  /** The full object schema (apiVersion, kind, metadata and the type's fields). Do not mutate. */
  /** The object schema with ObjectMeta's markers filled in: what field management and strategic merge walk. */
  fieldSchema(served: ServedResource): JsonSchema {
    let s = this.fieldSchemas.get(served);
    if (!s) {
      s = resolvePatchSchema(this.objectSchema(served))!;
      this.fieldSchemas.set(served, s);
    }
    return s;
  }

  objectSchema(served: ServedResource): JsonSchema {
    return this.compiledFor(served).schema;
  }

  /**
   * All problems of an object about to be written: schema (types, required, enums, formats),
   * generic metadata rules, then the type's own rules. `old` makes it an update; `subresource`
   * one through that subresource, checked by its own rules when its strategy has them.
   */
  validate(served: ServedResource, obj: ApiObject, old?: ApiObject, subresource?: string): FieldError[] {
    const { validator, shape } = this.compiledFor(served);
    const type = served.type;
    const meta = isPlainObject(obj.metadata) ? obj.metadata : {};
    const metaOpts = { namespaced: type.scope === 'Namespaced', nameRule: type.nameRule ?? 'dns-subdomain', requireName: !type.virtual, requireNamespace: !type.virtual };
    const errs: FieldError[] = old ? validateObjectMetaUpdate(meta, isPlainObject(old.metadata) ? old.metadata : {}, metaOpts) : validateObjectMeta(meta, { ...metaOpts, isCreate: true });

    // Go decoding reads a null as "unset"; validate what would be stored, not the raw nulls.
    let subject = obj;
    if (hasUnsetNulls(shape, obj)) {
      subject = cloneJson(obj);
      pruneUnknownFields(shape, subject);
    }
    const ok = validator(subject);
    const schemaErrors = ok ? [] : (validator.errors ?? []);
    errs.push(...mapAjvErrors(schemaErrors, shape, subject));

    // Type rules assume the JSON types the schema promises; with a type mismatch they could only
    // add confusing follow-on errors (upstream would have failed decoding already).
    const shapeBroken = schemaErrors.some((e) => e.keyword === 'type');
    // The type's rules are written against the hub (storage) version.
    const strategy = type.strategy;
    if (!shapeBroken && !old && served.version.validate) errs.push(...served.version.validate(subject));
    else if (!shapeBroken && strategy) {
      const validateUpdate = (subresource && subresourceStrategy(type, subresource)?.validateUpdate) || strategy.validateUpdate;
      const hub = hubForm(served.version, subject);
      if (old && validateUpdate) errs.push(...validateUpdate(hub, hubForm(served.version, old), this.names));
      else if (strategy.validate) errs.push(...strategy.validate(hub, this.names));
    }
    return dedupeFieldErrors(errs);
  }

  /** Paths (`.spec.foo`, `.spec.containers[0].bogus`) of fields the schema does not model. */
  unknownFields(served: ServedResource, obj: unknown): string[] {
    return findUnknownFields(this.compiledFor(served).shape, obj);
  }

  /** Drops unknown fields (and nulls standing for "unset") in place. */
  prune(served: ServedResource, obj: ApiObject): void {
    pruneUnknownFields(this.compiledFor(served).shape, obj);
  }

  /** Schema `default`s, then the version's defaults, then the type's. */
  defaults(served: ServedResource, obj: ApiObject): void {
    applySchemaDefaults(this.compiledFor(served).shape, obj);
    served.version.defaults?.(obj);
    served.type.strategy?.defaults?.(obj, this.names);
  }

  private compiledFor(served: ServedResource): Compiled {
    return this.compiled.get(served.type)?.get(served.version.name) ?? this.compile(served.type, served.version, BUILTIN_TYPES);
  }

  private wrap(type: ResourceType): Map<string, JsonSchema> {
    let perType = this.wrapped.get(type);
    if (!perType) {
      perType = new Map(type.versions.map((v) => [v.name, objectSchemaFor(v.schema, { group: type.group, version: v.name, kind: type.kind })]));
      this.wrapped.set(type, perType);
    }
    return perType;
  }

  private compile(type: ResourceType, version: VersionDef, source: string): Compiled {
    const existing = this.compiled.get(type)?.get(version.name);
    if (existing) return existing;
    const schema = this.wrap(type).get(version.name)!;
    // Built-in bodies are shared by every Registry in the process (one per service, many in
    // tests). A type added at run time gets an ajv of its own, dropped with the type: one ajv
    // keeps something of every schema it ever compiled (about 5 KiB each, removeSchema or not),
    // which types that come and go would pile up.
    const shared = source === BUILTIN_TYPES;
    let body = shared ? compiledBodies.get(version.schema) : undefined;
    if (!body) {
      let validator: ValidateFunction;
      try {
        validator = shared ? ajv.compile(ajvSchemas.build(schema)) : createAjv(true).compile(new AjvSchemaBuilder().build(schema));
      } catch (err) {
        const gv = type.group ? `${type.group}/${version.name}` : version.name;
        throw new Error(`registry: schema of ${type.kind} (${gv}) does not compile: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
      body = { shape: shapes.compile(schema), validator };
      if (shared) compiledBodies.set(version.schema, body);
    }
    const entry: Compiled = { schema, ...body };
    const perType = this.compiled.get(type) ?? new Map<string, Compiled>();
    perType.set(version.name, entry);
    this.compiled.set(type, perType);
    return entry;
  }

  /** Forgets a type no source defines any more. */
  private release(type: ResourceType): void {
    this.compiled.delete(type);
    this.wrapped.delete(type);
    this.servedObjects.delete(type);
  }

  // A key naming nothing we know is almost always a typo; failing at boot beats serving the
  // wrong API surface.
  private checkRuntimeConfigKeys(entries: ReturnType<typeof parseRuntimeConfig>, types: readonly ResourceType[]): void {
    const gvs = new Set<string>();
    const resources = new Set<string>();
    for (const t of types) {
      for (const v of t.versions) {
        gvs.add(gvKey(t.group, v.name));
        resources.add(`${gvKey(t.group, v.name)}/${t.plural}`);
      }
    }
    for (const e of entries) {
      const t = e.target;
      if (t.scope === 'groupVersion' && !gvs.has(gvKey(t.group, t.version))) {
        throw new Error(`invalid --runtime-config: key "${e.key}" names unknown API group version ${t.group ? `${t.group}/${t.version}` : t.version}`);
      }
      if (t.scope === 'resource' && !resources.has(`${gvKey(t.group, t.version)}/${t.resource}`)) {
        const gv = t.group ? `${t.group}/${t.version}` : t.version;
        throw new Error(`invalid --runtime-config: key "${e.key}" names unknown resource ${t.resource} in ${gv}`);
      }
    }
  }
}

// Two entries claiming one URL or one kind would make lookups depend on registration order.
function checkTypes(types: readonly ResourceType[]): void {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const t of types) {
    if (t.versions.length === 0) throw new Error(`registry: ${t.kind} has no versions`);
    const problems = subresourceStrategyProblems(t);
    if (problems.length) throw new Error(`registry: ${problems.join('; ')}`);
    for (const v of t.versions) {
      const r = `${gvKey(t.group, v.name)}/${t.plural}`;
      const k = `${gvKey(t.group, v.name)}/${t.kind}`;
      if (resources.has(r)) throw new Error(`registry: resource ${r} is registered twice`);
      if (kinds.has(k)) throw new Error(`registry: kind ${k} is registered twice`);
      resources.add(r);
      kinds.add(k);
    }
  }
}
