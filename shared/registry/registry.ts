// The resource table every service consults: which group/version/resource is served (after
// `--runtime-config`), how each is named and stored, and its compiled schema (validation,
// unknown-field detection, pruning, defaults). All schema work happens in the constructor so a
// request only runs precompiled code.

import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FieldError } from '../api/status.js';
import type { ApiObject, JsonSchema } from '../api/types.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../api/validation.js';
import { objectSchemaFor } from './object-meta.js';
import { resolvePatchSchema } from '../patch/patch-schema.js';
import { RuntimeConfig, parseRuntimeConfig } from './runtime-config.js';
import { AjvSchemaBuilder, ShapeCompiler, applySchemaDefaults, dedupeFieldErrors, findUnknownFields, hasUnsetNulls, mapAjvErrors, pruneUnknownFields, type ShapeNode } from './schema-tools.js';
import type { ResourceType, ServedResource, VersionDef } from './types.js';
import { subresourceStrategy, subresourceStrategyProblems } from './subresources.js';
import { compareVersions } from './versions.js';
import { hubForm, storageVersionOf } from './conversion.js';
import { canonicalGroupNames, upstreamSpelling, type CanonicalGroup } from '../api/groups.js';
import { cloneJson } from '../patch/json-value.js';

export { compareVersions } from './versions.js';
export { parseRuntimeConfig, RuntimeConfig } from './runtime-config.js';
export type { RuntimeConfigEntry, RuntimeConfigTarget } from './runtime-config.js';

export interface ApiGroupInfo {
  name: string;
  /** Served versions, preferred first. */
  versions: string[];
  preferredVersion: string;
}

export interface RegistryOptions {
  runtimeConfig?: string;
  /**
   * `--upstream-group-aliases`: every served branded group (`*.platform.io`) is also served under
   * upstream's spelling (`*.k8s.io`), listed after every canonical group.
   */
  upstreamGroupAliases?: boolean;
}

interface Compiled {
  schema: JsonSchema;
  shape: ShapeNode;
  validator: ValidateFunction;
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

function createAjv(): Ajv {
  // Non-strict: schemas carry x-kubernetes-* and OpenAPI-only keywords ajv should ignore.
  // inlineRefs off: shared schemas stay one function each (see AjvSchemaBuilder). Code
  // optimisation off: it doubles compile time, and validating a Deployment stays ~0.2 ms without it.
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false, validateFormats: true, inlineRefs: false, code: { optimize: false } });
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

function gvKey(group: string, version: string): string {
  return `${group}/${version}`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export class Registry {
  private readonly types: readonly ResourceType[];
  private readonly runtime: RuntimeConfig;
  private readonly servedList: ServedResource[] = [];
  private readonly byResource = new Map<string, ServedResource>();
  private readonly byKind = new Map<string, ServedResource>();
  private readonly byGroupVersion = new Map<string, ServedResource[]>();
  private readonly byShortName = new Map<string, ServedResource[]>();
  private readonly servedByType = new Map<ResourceType, Map<string, ServedResource>>();
  private readonly groupInfos = new Map<string, ApiGroupInfo>();
  private readonly fieldSchemas = new Map<ServedResource, JsonSchema>();
  private readonly compiled = new Map<ResourceType, Map<string, Compiled>>();
  private readonly wrapped = new Map<ResourceType, Map<string, JsonSchema>>();
  /** The group a name in a URL means (an upstream alias → its branded group when aliases are served). */
  readonly canonicalGroup: CanonicalGroup;

  constructor(types: ResourceType[], opts: RegistryOptions = {}) {
    this.types = [...types];
    this.checkTypes();
    const entries = parseRuntimeConfig(opts.runtimeConfig ?? '');
    this.checkRuntimeConfigKeys(entries);
    this.runtime = new RuntimeConfig(entries);

    // Wrap every version (served or not) up front so sub-schemas shared between types are
    // recognised and compiled once.
    for (const type of this.types) {
      const perType = new Map<string, JsonSchema>();
      for (const v of type.versions) perType.set(v.name, objectSchemaFor(v.schema, { group: type.group, version: v.name, kind: type.kind }));
      this.wrapped.set(type, perType);
    }
    for (const def of ajvSchemas.share([...this.wrapped.values()].flatMap((m) => [...m.values()]))) ajv.addSchema(def);

    const versionsByGroup = new Map<string, Set<string>>();
    for (const type of this.types) {
      const sorted = [...type.versions].sort((a, b) => compareVersions(a.name, b.name));
      for (const version of sorted) {
        if (!this.runtime.resourceEnabled(type.group, version.name, type.plural)) continue;
        const served: ServedResource = { type, group: type.group, version };
        this.servedList.push(served);
        this.byResource.set(`${gvKey(type.group, version.name)}/${type.plural}`, served);
        this.byKind.set(`${gvKey(type.group, version.name)}/${type.kind}`, served);
        const gv = gvKey(type.group, version.name);
        const list = this.byGroupVersion.get(gv) ?? [];
        list.push(served);
        this.byGroupVersion.set(gv, list);
        const perType = this.servedByType.get(type) ?? new Map<string, ServedResource>();
        perType.set(version.name, served);
        this.servedByType.set(type, perType);
        const set = versionsByGroup.get(type.group) ?? new Set<string>();
        set.add(version.name);
        versionsByGroup.set(type.group, set);
        this.compile(type, version);
      }
      const preferred = this.servedByType.get(type)?.values().next().value;
      if (preferred) {
        for (const short of type.shortNames ?? []) {
          const list = this.byShortName.get(short) ?? [];
          list.push(preferred);
          this.byShortName.set(short, list);
        }
      }
    }
    for (const [name, set] of versionsByGroup) {
      const versions = [...set].sort(compareVersions);
      this.groupInfos.set(name, { name, versions, preferredVersion: versions[0]! });
    }
    this.canonicalGroup = canonicalGroupNames(opts.upstreamGroupAliases ?? false);
    if (opts.upstreamGroupAliases) this.serveAliases();
  }

  /**
   * The upstream spelling of each branded group, after every canonical group so that clients
   * resolving a plural or short name to the first group serving it land on the canonical one.
   * Alias entries serve the same types: they are found by URL, kind and group/version, never in
   * `all()` or `servedVersions()`, which name each type once.
   */
  private serveAliases(): void {
    for (const info of [...this.groupInfos.values()]) {
      const alias = upstreamSpelling(info.name);
      if (!alias || this.groupInfos.has(alias)) continue;
      for (const v of info.versions) {
        for (const s of this.byGroupVersion.get(gvKey(info.name, v)) ?? []) {
          const served: ServedResource = { type: s.type, group: alias, version: s.version };
          this.byResource.set(`${gvKey(alias, v)}/${s.type.plural}`, served);
          this.byKind.set(`${gvKey(alias, v)}/${s.type.kind}`, served);
          const list = this.byGroupVersion.get(gvKey(alias, v)) ?? [];
          list.push(served);
          this.byGroupVersion.set(gvKey(alias, v), list);
        }
      }
      this.groupInfos.set(alias, { name: alias, versions: [...info.versions], preferredVersion: info.preferredVersion });
    }
  }

  /** A served group/version/resource (plural), or undefined when unknown or disabled. */
  lookup(group: string, version: string, plural: string): ServedResource | undefined {
    return this.byResource.get(`${gvKey(group, version)}/${plural}`);
  }

  lookupKind(group: string, version: string, kind: string): ServedResource | undefined {
    return this.byKind.get(`${gvKey(group, version)}/${kind}`);
  }

  /** Every served type with that short name, each at its preferred served version. */
  lookupShortName(name: string): ServedResource[] {
    return [...(this.byShortName.get(name) ?? [])];
  }

  /** Named groups with at least one served resource, in the order types were registered. */
  groups(): ApiGroupInfo[] {
    return [...this.groupInfos.values()].filter((g) => g.name !== '').map((g) => ({ ...g, versions: [...g.versions] }));
  }

  /** One group's discovery entry; `''` is the core group. */
  group(name: string): ApiGroupInfo | undefined {
    const g = this.groupInfos.get(name);
    return g ? { ...g, versions: [...g.versions] } : undefined;
  }

  resources(group: string, version: string): ServedResource[] {
    return [...(this.byGroupVersion.get(gvKey(group, version)) ?? [])];
  }

  /** Every served resource: types in registration order, each type's versions preferred-first. */
  all(): ServedResource[] {
    return [...this.servedList];
  }

  /** Served versions of one type, preferred first. */
  servedVersions(type: ResourceType): ServedResource[] {
    return [...(this.servedByType.get(type)?.values() ?? [])];
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
      if (old && validateUpdate) errs.push(...validateUpdate(hub, hubForm(served.version, old)));
      else if (strategy.validate) errs.push(...strategy.validate(hub));
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
    served.type.strategy?.defaults?.(obj);
  }

  private compiledFor(served: ServedResource): Compiled {
    return this.compiled.get(served.type)?.get(served.version.name) ?? this.compile(served.type, served.version);
  }

  private compile(type: ResourceType, version: VersionDef): Compiled {
    const existing = this.compiled.get(type)?.get(version.name);
    if (existing) return existing;
    const schema = this.wrapped.get(type)?.get(version.name) ?? objectSchemaFor(version.schema, { group: type.group, version: version.name, kind: type.kind });
    let body = compiledBodies.get(version.schema);
    if (!body) {
      let validator: ValidateFunction;
      try {
        validator = ajv.compile(ajvSchemas.build(schema));
      } catch (err) {
        const gv = type.group ? `${type.group}/${version.name}` : version.name;
        throw new Error(`registry: schema of ${type.kind} (${gv}) does not compile: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
      body = { shape: shapes.compile(schema), validator };
      compiledBodies.set(version.schema, body);
    }
    const entry: Compiled = { schema, ...body };
    const perType = this.compiled.get(type) ?? new Map<string, Compiled>();
    perType.set(version.name, entry);
    this.compiled.set(type, perType);
    return entry;
  }

  // Two entries claiming one URL or one kind would make lookups depend on registration order.
  private checkTypes(): void {
    const resources = new Set<string>();
    const kinds = new Set<string>();
    for (const t of this.types) {
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

  // A key naming nothing we know is almost always a typo; failing at boot beats serving the
  // wrong API surface.
  private checkRuntimeConfigKeys(entries: ReturnType<typeof parseRuntimeConfig>): void {
    const gvs = new Set<string>();
    const resources = new Set<string>();
    for (const t of this.types) {
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
