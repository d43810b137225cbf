// The shape of a registered resource type. One entry describes everything the generic machinery
// needs: routes, discovery, OpenAPI, authorization attributes, validation and table output.

import type { FieldError } from '../api/status.js';
import type { ApiObject, JsonSchema, NameRule, UserInfo } from '../api/types.js';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { GroupResource } from '../api/status.js';
import type { AdmissionOperation, AdmissionPhase } from '../contracts/admission.js';
import type { AuthnPort } from '../contracts/authn.js';
import type { AuthzPort } from '../contracts/authz.js';
import type { TableColumn } from '../api/table-column.js';
import type { WellKnownNames } from '../api/well-known-names.js';

export type Scope = 'Namespaced' | 'Cluster';

export interface VersionDeprecation {
  /** Release that deprecated it (`1.21`). */
  since: string;
  /** Release that no longer serves it (`1.25`). */
  removedIn?: string;
  /** The version of the same type to use instead (`v1`); absent when there is none. */
  replacement?: string;
  /** The whole warning, in place of the one made from the fields above (a CustomResourceDefinition's `deprecationWarning`). */
  warning?: string;
}

export interface VersionDef {
  name: string;
  /**
   * False for a version that is defined but not served (a CustomResourceDefinition's
   * `served: false`): objects may still be stored in it, no URL reaches it.
   */
  served?: boolean;
  /** Schema of the whole object except apiVersion/kind/metadata (those are added by the registry). */
  schema: JsonSchema;
  /**
   * A deprecated version (spec, Versioning): requests to it get a `Warning` header naming the
   * replacement and the release that removes it, and set `apiserver_requested_deprecated_apis`.
   */
  deprecation?: VersionDeprecation;
  /** Version-specific defaults applied to objects written through this version. */
  defaults?(obj: ApiObject): void;
  /**
   * Conversion to the type's storage version (the hub every version converts through), for a
   * version whose shape or meaning differs from it; identity (apart from apiVersion) when absent.
   * Must not change its argument; must keep everything the hub can hold (spec, rule 2), putting
   * what it cannot into annotations as upstream does.
   */
  toHub?(obj: ApiObject): ApiObject;
  /** The inverse of `toHub`: a stored object as this version shows it. */
  fromHub?(obj: ApiObject): ApiObject;
  /**
   * Create rules of requests through this version in place of the type's, for an object in this
   * version's shape (upstream validates some kinds by request version, e.g. a v1beta1 Event leniently).
   */
  validate?(obj: ApiObject): FieldError[];
  /**
   * Subresources of requests through this version in place of the type's (a CustomResourceDefinition's
   * versions may differ: one without /status, another with /status and /scale); the type's when absent.
   * Read through `versionSubresources` (version-parts.ts).
   */
  subresources?: Subresources;
  /** Table columns of this version in place of the type's (a definition's per-version additionalPrinterColumns); the type's when absent. */
  columns?: TableColumn[];
  /**
   * Field selectors of requests through this version in place of the type's (a definition's
   * per-version selectableFields, in the order declared); the type's when absent. Read through
   * `versionFieldSelectors` (version-parts.ts).
   */
  fieldSelectors?: Record<string, (obj: ApiObject) => string | undefined>;
}

/** What a strategy may know of the request besides the objects (upstream passes a context). */
export interface StrategyContext {
  /** The user the request runs as (after impersonation). */
  user: UserInfo;
  /** The request's time (RFC 3339, second precision), for timestamps a strategy fills in. */
  now: string;
  /** The well-known names the server takes (upstream's too with `--upstream-group-aliases`); the spec's only when absent. */
  names?: WellKnownNames;
}

/**
 * An update through a subresource (upstream's per-subresource strategies). `prepareForUpdate`
 * builds the object to store from the client's object and the stored one, taking from the
 * client only what the subresource owns. For `status` it refines the generic status handling
 * (spec and metadata are already kept from `old`); for any other name it is the whole story.
 */
export interface SubresourceStrategy {
  /** Returns the object to store; must not change `old` (it is also admission's oldObject). */
  prepareForUpdate(obj: ApiObject, old: ApiObject, ctx: StrategyContext): ApiObject;
  /** Replaces the type's `validateUpdate` for writes through this subresource. */
  validateUpdate?(obj: ApiObject, old: ApiObject, names?: WellKnownNames): FieldError[];
}

/** Hooks of the generic store, after kube-apiserver's RESTCreateStrategy/RESTUpdateStrategy. */
export interface Strategy {
  /** Fill defaults in place (after decoding, before validation). `names`: the well-known names the server takes (the spec's only when absent). */
  defaults?(obj: ApiObject, names?: WellKnownNames): void;
  /**
   * A create keeps the status its writer sends (a node agent registers its Node with the status it
   * observed); otherwise the status of a type with a status subresource is cleared on create.
   */
  keepStatusOnCreate?: boolean;
  /** Normalise on create, e.g. clear `status` for types with a status subresource. */
  prepareForCreate?(obj: ApiObject, ctx: StrategyContext): void;
  /** Normalise on update of the main resource, e.g. keep `status` from `old`. */
  prepareForUpdate?(obj: ApiObject, old: ApiObject, ctx: StrategyContext): void;
  /** Type-specific validation beyond the JSON schema (metadata is validated generically). */
  validate?(obj: ApiObject, names?: WellKnownNames): FieldError[];
  validateUpdate?(obj: ApiObject, old: ApiObject, names?: WellKnownNames): FieldError[];
  /**
   * Updates through subresources. `status` here refines the generic `/status` handling; any other
   * name (`approval`, `finalize`) must also be listed in `subresources.others`, whose verbs
   * (among get, patch, update) are the ones served. The registry refuses a type where the two disagree.
   */
  subresources?: Record<string, SubresourceStrategy>;
  /** Deletion beyond metadata.finalizers (upstream's namespace REST): finalizers kept elsewhere, and what a terminating object shows. */
  deletion?: {
    /** Finalizers the object still waits for outside metadata.finalizers. */
    pendingFinalizers?(obj: ApiObject): number;
    /**
     * Graceful deletion (upstream's CheckGracefulDelete): the seconds the object is given before it
     * goes, for a deletion asking for `requested` (DeleteOptions.gracePeriodSeconds); 0 removes at once.
     */
    gracePeriodSeconds?(obj: ApiObject, requested: number | undefined): number;
    /** Marks a copy that is about to get its deletionTimestamp (e.g. status.phase Terminating). */
    markTerminating?(obj: ApiObject): void;
  };
}

export interface Subresources {
  /** `/status`: updates only `status`; the main resource ignores `status` changes. */
  status?: boolean;
  /** `/scale` (autoscaling/v1 Scale). */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  /** Other subresources (`log`, `exec`, `approval`, `finalize`, `token`, `eviction`, `binding`,
   *  `proxy`, ...): listed in discovery with their verbs. Those with a `strategy.subresources`
   *  entry are served for get/patch/update by the generic handlers; the rest are discovery only
   *  until a handler serves them. */
  others?: Array<{ name: string; kind: string; verbs: string[] }>;
}

export interface ResourceType {
  group: string;
  versions: VersionDef[];
  /** Version objects are stored in, and the one the others convert through (the first listed when absent). Fixed: disabling it with `--runtime-config` stops serving it, not storing in it. */
  storageVersion?: string;
  kind: string;
  listKind?: string;
  plural: string;
  singular: string;
  scope: Scope;
  shortNames?: string[];
  categories?: string[];
  /** Verbs served; default for stored types: create delete deletecollection get list patch update watch.
   *  Virtual types (reviews) use ['create']. */
  verbs?: string[];
  /** Not stored: a POSTed object is processed and answered, never persisted. */
  virtual?: boolean;
  /**
   * A type without a compiled form (custom resources): served as JSON and YAML only (protobuf is
   * 406 asked for, 415 sent) and without strategic merge patch (415), as upstream serves them.
   */
  unstructured?: boolean;
  /** Served versions whose deletions orphan dependents unless asked otherwise (upstream's default for core/v1 ReplicationControllers). */
  orphanDependentsByDefault?: readonly string[];
  /** A PUT of a missing object creates it, answered 201 (upstream's strategy `AllowCreateOnUpdate() == true`). */
  createOnUpdate?: boolean;
  /** A delete done at once answers the deleted object instead of a success Status (upstream's store `ReturnDeletedObject`). */
  returnDeletedObject?: boolean;
  /**
   * Fields holding an API group name (`roleRef.apiGroup`, `subjects[].apiGroup`): read through an
   * upstream alias they show the alias's spelling of the canonical group, and are stored canonical.
   */
  groupNameFields?: readonly string[];
  nameRule?: NameRule;
  subresources?: Subresources;
  /** Extra table columns after `Name` (the default table is Name + Created At). */
  columns?: TableColumn[];
  /** Field selectors beyond metadata.name/metadata.namespace, e.g. `spec.nodeName` for pods. */
  fieldSelectors?: Record<string, (obj: ApiObject) => string | undefined>;
  /** Whether updates to anything but metadata/status bump metadata.generation (default true). */
  generation?: boolean;
  strategy?: Strategy;
  /** Behaviour beyond the generic store: create-style and connect subresources, virtual kinds, write rules. */
  rest?: RestHooks;
  /** Objects live in another resource's storage (e.g. events.platform.io Events in core events),
   *  converted on the way in and out. */
  storedAs?: {
    group: string;
    resource: string;
    toStored(obj: ApiObject): ApiObject;
    fromStored(obj: ApiObject): ApiObject;
  };
  /**
   * Versions converted by a party outside the server (a CustomResourceDefinition's conversion
   * webhook, attached by the gateway, which does the I/O) instead of `toHub`/`fromHub`: the
   * type's targets then convert asynchronously (`Target.convertIn`/`convertOut`).
   */
  conversion?: ObjectConverter;
}

/** Converts objects between the versions of one type, asynchronously and a batch at a time (a conversion webhook). */
export interface ObjectConverter {
  /**
   * `objects` as `desiredAPIVersion` shows them, in order; those already in it are returned as
   * they are. Rejects with a StatusError naming the converter when conversion fails.
   */
  convert(objects: readonly ApiObject[], desiredAPIVersion: string): Promise<ApiObject[]>;
}

export const DEFAULT_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;

export interface ServedResource {
  type: ResourceType;
  /** The group as served: the type's own, or its upstream alias (then `type.group` is the canonical name). */
  group: string;
  version: VersionDef;
}

export interface Target {
  served: ServedResource;
  type: ResourceType;
  /** `v1` or `<group>/<version>` of the served version. */
  apiVersion: string;
  /**
   * The same group/version in the group's other spelling, when both are served (upstream
   * aliases): a body may name it, and is read as naming `apiVersion`.
   */
  otherSpelling?: string;
  kind: string;
  listKind: string;
  /** For error messages: the served group and plural. */
  gr: GroupResource;
  /** The storage identity (group/resource) and its watch-cache key. */
  storage: { group: string; resource: string };
  cacheKey: string;
  namespaced: boolean;
  /** Stored form → served form; null when they are the same. Not to be called when `convertOut` is present. */
  fromStored: ((obj: ApiObject) => ApiObject) | null;
  /** Served form → stored form. Not to be called when `convertIn` is present. */
  toStored(obj: ApiObject): ApiObject;
  /**
   * Stored objects → served form through the type's ObjectConverter (a conversion webhook), in
   * order; present on every version of such a type (a stored object may be in an earlier storage
   * version), absent for every other type, whose conversion is `fromStored`. Callers test for it,
   * so types converted in-process pay for no promise.
   */
  convertOut?: (objs: readonly ApiObject[]) => Promise<ApiObject[]>;
  /** Served objects → stored form through the type's ObjectConverter; present only on its versions other than the storage version. */
  convertIn?: (objs: readonly ApiObject[]) => Promise<ApiObject[]>;
}

// ---- Per-type REST hooks (the behaviour; rest/hooks.ts has the functions that go with them) ----

/** The request a hook serves, already authenticated and authorized. */
export interface RestRequest {
  target: Target;
  user: UserInfo;
  /** RBAC verb (`get`, `create`, …) and HTTP method. */
  verb: string;
  method: string;
  /** '' for cluster-scoped types. */
  namespace: string;
  name: string;
  subresource: string;
  /** The path below the subresource (`services/<name>/proxy/<subpath>`), '' when none. */
  subpath: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer | undefined;
  contentType: string | undefined;
  /** The body decoded from JSON or YAML; undefined when empty. Throws 400/415 for bad bodies. */
  decodedBody(): unknown;
  /** The body as an object of the target's kind: decoded, field-checked, defaulted and validated (400/415/422). */
  object(): ApiObject;
  /** `dryRun=All` was asked for. */
  dryRun: boolean;
  /** Accumulates `Warning` headers. */
  warnings: string[];
}

/** The other services a hook or write rule may ask, as typed ports (shared/contracts/; over NATS: shared/bus/service-clients.ts). */
export interface ServicePorts {
  authn: AuthnPort;
  authz: AuthzPort;
}

/** What a write rule knows of the write. */
export interface WriteRuleContext {
  user: UserInfo;
  /** '' for cluster-scoped types. */
  namespace: string;
  target: Target;
}

/** What a hook answers: an object to encode with the negotiated codec, or a response it wrote itself. */
export type RestResult = { code: number; body: unknown } | { streamed: true };

/** The whole of a write a hook asks the generic store for. */
export interface ClusterWrite {
  group: string;
  resource: string;
  namespace?: string;
  name: string;
  subresource?: string;
  /** False when the request that leads to this write was admitted already (binding, eviction). */
  admit?: boolean;
  dryRun?: boolean;
}

/** The cluster as a hook sees it: reads after the latest write, writes through the generic store as the request's user, the other services. */
export interface RestCluster extends ServicePorts {
  /** A stored object in its preferred served version; undefined when absent. */
  get(group: string, resource: string, namespace: string | undefined, name: string): Promise<ApiObject | undefined>;
  /** Every object of a type (in one namespace when given), preferred served version. */
  list(group: string, resource: string, namespace?: string): Promise<ApiObject[]>;
  /** Read-modify-write with compare-and-swap; `expectedResourceVersion` makes a lost race a 409. */
  update(write: ClusterWrite, compute: (current: ApiObject) => ApiObject, expectedResourceVersion?: string): Promise<ApiObject>;
  /** Deletion by the deletion rules (finalizers); preconditions as DeleteOptions carries them. */
  delete(write: ClusterWrite, preconditions?: { uid?: string; resourceVersion?: string }): Promise<ApiObject>;
  /** One admission phase for the request's own operation, as the generic store runs it. */
  admit(
    phase: AdmissionPhase,
    operation: AdmissionOperation,
    object: ApiObject | null,
    oldObject: ApiObject | null,
    kind?: { group: string; version: string; kind: string },
  ): Promise<ApiObject | null>;
  /** Whether a group is served under this name (an upstream alias only with `--upstream-group-aliases`). */
  servesGroup(group: string): boolean;
  /** The raw response, for hooks that stream (proxy, log): takes it over from the gateway. */
  hijack(): ServerResponse;
}

/** A create-style or connect subresource. */
export interface RestAction {
  /** RBAC verbs served (as RequestInfo derives them from the HTTP method). */
  verbs: readonly string[];
  handle(req: RestRequest, cluster: RestCluster): Promise<RestResult>;
}

export interface RestHooks {
  /** Subresources served by the hook rather than by the generic handlers, by name. */
  actions?: Readonly<Record<string, RestAction>>;
  /** A virtual kind: POSTing one is answered and never stored. */
  create?(req: RestRequest, cluster: RestCluster): Promise<RestResult>;
  /** A rule every write of the type must pass (requests and internal writers alike), after validation and before validating admission. */
  guardWrite?(write: WriteRuleContext, object: ApiObject, services: ServicePorts): Promise<void>;
}
