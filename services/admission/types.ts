// The contract every admission plugin implements. A plugin is one file exporting a
// PluginDefinition, listed in plugins.ts at its place in the run order; the chain (chain.ts)
// runs the built plugins.

import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from '../../shared/log.js';
import type { ApiObject } from '../../shared/api/types.js';
import type { AdmissionOperation, AdmissionRequest } from '../../shared/bus/messages.js';
import type { NamespaceCache } from './namespace-cache.js';
import type { AdmissionMatch } from '../../shared/api/admission-match.js';
import type { AuthzAttributes, AuthzReply } from '../../shared/bus/messages.js';
import type { ObjectReader } from '../../shared/bus/storage-read.js';
import type { MetricsRegistry } from '../../shared/metrics/registry.js';
import type { PluginConfiguration } from './plugin-configuration.js';
import type { ObjectCache } from './object-cache.js';
import type { ServedTypes } from './served-types.js';
import type { StorageWriter } from './storage-writer.js';
import type { AdmissionServiceOptions } from './options.js';

/** Which requests a plugin handles (the same shape the gateway receives as interest). */
export interface PluginMatch extends AdmissionMatch {
  operations?: AdmissionOperation[];
}

/** Per-request scratchpad shared by the plugins of one phase. */
export interface AdmissionContext {
  log: Logger;
  /** Sent back to the client as `Warning` headers. */
  warn(message: string): void;
  /**
   * Recorded in the request's audit event under a full key owned by the plugin
   * (`pod-security.platform.io/enforce-policy`); the first value given for a key is kept. With
   * `level` Request the annotation is recorded only when the request is audited at Request or
   * above (a webhook's patch must not reach a Metadata-level log).
   */
  annotate(key: string, value: string, level?: AnnotationLevel): void;
  /**
   * Mutating phase: which pass of the chain this is. 0 first; 1 when the chain runs again because
   * a plugin asked for it (upstream's reinvocation: a webhook changed the object, so the plugins
   * before it, and webhooks with `reinvocationPolicy: IfNeeded`, see the change).
   */
  readonly round?: number;
  /** Mutating phase: run every mutating plugin once more after this pass (at most one more pass per request). */
  requestReinvocation?(): void;
  /** This plugin's own value for the request, kept across passes (made by `init` on first use). */
  scratch?<T>(init: () => T): T;
}

/** The lowest audit level an annotation is recorded at. */
export type AnnotationLevel = 'Metadata' | 'Request';

/**
 * What running a plugin does outside the object it admits (upstream's webhook `sideEffects`):
 * `Some` or `Unknown` cannot run for a dry-run request, which then fails rather than cause them;
 * `NoneOnDryRun` promises to skip them when the request's `dryRun` is set.
 */
export type SideEffectClass = 'None' | 'NoneOnDryRun' | 'Some' | 'Unknown';

export interface AdmissionPlugin {
  readonly name: string;
  /** Read each time the gateway asks what admission wants (a getter may change it: webhooks). */
  readonly match?: PluginMatch;
  /** `None` when absent: the built-in plugins only look at the request. */
  readonly sideEffects?: SideEffectClass;
  /**
   * False for a plugin whose `mutate` hook only ever rejects (it runs in the mutating phase for
   * its ordering, as NamespaceLifecycle does): it is then handed the object without a copy.
   */
  readonly mutatesObject?: boolean;
  /**
   * Mutating phase. `req.object` is this request's own copy and may be changed in place or
   * replaced by returning a new object. Throw a StatusError to reject.
   */
  mutate?(req: AdmissionRequest, ctx: AdmissionContext): Promise<ApiObject | void> | ApiObject | void;
  /** Validating phase: sees the final object; must not change it. Throw a StatusError to reject. */
  validate?(req: AdmissionRequest, ctx: AdmissionContext): Promise<void> | void;
  stop?(): Promise<void>;
}

/** What a plugin may use to build itself. Shared resources are created on first use. */
export interface PluginDeps {
  nc: NatsConnection;
  /** The object bucket's name. */
  bucket: string;
  log: Logger;
  /** The namespace cache fed by a KV watch, started the first time a plugin asks for it. */
  namespaces(): NamespaceCache;
  /** The API's types, built-in and custom resources (webhooks' matchPolicy Equivalent), built and followed from first use. */
  servedTypes(): ServedTypes;
  /** A cache of one resource's stored objects, shared by the plugins that ask for it, started on first use. */
  objects<T extends ApiObject = ApiObject>(group: string, resource: string): ObjectCache<T>;
  /** One object read through the storage service (null: it does not exist). */
  read: ObjectReader;
  /** Writes through the storage service (ResourceQuota usage, NamespaceAutoProvision). */
  write: StorageWriter;
  /** Asks the authz service (OwnerReferencesPermissionEnforcement). */
  authorize(attrs: AuthzAttributes): Promise<AuthzReply>;
  /** This plugin's entry of `--admission-control-config-file`, when it has one. */
  config?: PluginConfiguration;
  /** The service's flags that plugins read (toleration seconds, webhook resolution). */
  options: AdmissionServiceOptions;
  /** Where a plugin registers its own metrics (the service serves it at /metrics). */
  metrics: MetricsRegistry;
}

export type PluginFactory = (deps: PluginDeps) => AdmissionPlugin | Promise<AdmissionPlugin>;

/** One admission plugin as its file exports it and plugins.ts lists it. */
export interface PluginDefinition {
  /** The name the flags and `--admission-control-config-file` use. */
  readonly name: string;
  /** On unless `--disable-admission-plugins` names it (the spec's default-enabled set). */
  readonly defaultEnabled: boolean;
  /** Builds the plugin once, at start, when it is enabled. */
  readonly create: PluginFactory;
}
