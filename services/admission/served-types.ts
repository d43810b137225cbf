// The API's types as the admission service knows them, for the webhook plugins' matchPolicy
// Equivalent (which resources hold the same objects, and converting an object between them):
// every built-in version (the service has no `--runtime-config`), and the custom resources of the
// Established CustomResourceDefinitions, followed from a cache of the stored definitions as the
// gateway follows its own (shared/registry/custom-resources/definition-types.ts). A definition
// converted by a webhook carries its converter here too, so a webhook matched in another version
// sees the object as that version's conversion webhook makes it.

import type { ServiceAddressResolver } from '../../shared/webhook/webhook-caller.js';
import { ConversionWebhooks } from '../../shared/webhook/conversion-webhooks.js';
import { createBuiltinRegistry } from '../../shared/registry/builtin-registry.js';
import { CRD_GROUP, CRD_RESOURCE, DefinitionTypes } from '../../shared/registry/custom-resources/definition-types.js';
import type { Registry } from '../../shared/registry/registry.js';
import type { Logger } from '../../shared/log.js';
import type { ObjectCache } from './object-cache.js';

export interface ServedTypesDeps {
  /** A cache of one resource's stored objects (the definitions'). */
  objects(group: string, resource: string): ObjectCache;
  /** Where a conversion webhook named by a Service is dialled. */
  resolver: ServiceAddressResolver;
  log: Logger;
}

export class ServedTypes {
  readonly registry: Registry;
  private readonly definitions: ObjectCache;
  private readonly conversion: ConversionWebhooks;
  private readonly types: DefinitionTypes;
  private readonly off: () => void;
  private scheduled = false;
  private loaded = false;
  private stopped = false;

  constructor(deps: ServedTypesDeps) {
    // Compiling every built-in schema takes the better part of a second: this is made on first use.
    this.registry = createBuiltinRegistry();
    this.conversion = new ConversionWebhooks(deps.resolver);
    this.types = new DefinitionTypes(this.registry, { converterOf: (crd) => this.conversion.converterOf(crd), warn: (obj, msg) => deps.log.warn(obj, msg) });
    this.definitions = deps.objects(CRD_GROUP, CRD_RESOURCE);
    // Events come in bursts (a watch's first sync): the types are made once per burst.
    this.off = this.definitions.onChange(() => this.schedule());
    void this.definitions.whenSynced().then(() => this.load());
  }

  /** Resolves once the stored definitions are known (a 503 StatusError if they do not load in time). */
  async ready(): Promise<void> {
    if (this.loaded) return;
    await this.definitions.ready();
    this.load();
  }

  stop(): void {
    this.stopped = true;
    this.off();
    this.conversion.close();
  }

  private schedule(): void {
    // Before the first sync the whole set is made once it is known (load).
    if (this.scheduled || !this.loaded) return;
    this.scheduled = true;
    queueMicrotask(() => this.refresh());
  }

  /** The definitions first known in full (once). */
  private load(): void {
    if (this.loaded) return;
    this.loaded = true;
    this.refresh();
  }

  private refresh(): void {
    this.scheduled = false;
    if (this.stopped) return;
    this.types.define(this.definitions.list().map((object) => ({ object, revision: Number(object.metadata.resourceVersion) })));
  }
}
