// The custom resource types of the Established CustomResourceDefinitions, put into a registry
// through its one door (`define`, source CUSTOM_RESOURCE_TYPES): the gateway does it from its watch
// cache to serve them, the admission service from its own cache to match and convert them for
// webhooks. A definition unchanged since the last call (same name and revision) keeps its compiled
// type; one the registry refuses (a schema that does not compile, a clash) is left out and the
// rest are served.

import type { ApiObject } from '../../api/types.js';
import type { Registry } from '../registry.js';
import type { ObjectConverter, ResourceType } from '../types.js';
import { customResourceType, isEstablished, type CustomResourceOptions } from './custom-resource-type.js';

/** The registry source of the types CustomResourceDefinitions define. */
export const CUSTOM_RESOURCE_TYPES = 'customresourcedefinitions';
/** Where definitions are stored: the branded group (the `*.k8s.io` spelling is an alias of it). */
export const CRD_GROUP = 'apiextensions.platform.io';
export const CRD_RESOURCE = 'customresourcedefinitions';

/** A stored definition and the revision it was read at. */
export interface StoredDefinition {
  object: ApiObject;
  revision: number;
}

export interface DefinitionTypesOptions extends CustomResourceOptions {
  /** The converter of a definition converted by a webhook (undefined for strategy None). */
  converterOf?(crd: ApiObject): ObjectConverter | undefined;
  /** Told of a definition that cannot be served (pino's signature). */
  warn(obj: { err: unknown; definition: string }, msg: string): void;
}

interface Entry {
  revision: number;
  type: ResourceType;
}

export class DefinitionTypes {
  /** The types last defined, by definition name. */
  private current = new Map<string, Entry>();

  constructor(
    private readonly registry: Registry,
    private readonly opts: DefinitionTypesOptions,
  ) {}

  /** Makes the registry's custom resource types those of `definitions` (all of them: the rest are removed). */
  define(definitions: Iterable<StoredDefinition>): void {
    const next = new Map<string, Entry>();
    for (const { object, revision } of definitions) {
      // Served while being deleted too (without create): its cleanup deletes its objects through the API.
      if (!isEstablished(object)) continue;
      const name = object.metadata.name!;
      const kept = this.current.get(name);
      if (kept?.revision === revision) {
        next.set(name, kept);
        continue;
      }
      try {
        next.set(name, { revision, type: this.typeOf(object) });
      } catch (err) {
        this.opts.warn({ err, definition: name }, 'custom resource definition cannot be served');
      }
    }
    this.defineAll(next);
  }

  private typeOf(crd: ApiObject): ResourceType {
    const type = customResourceType(crd, this.opts.validationRules ? { validationRules: true } : {});
    const converter = this.opts.converterOf?.(crd);
    if (converter) type.conversion = converter;
    return type;
  }

  /** Defines the set; a type the registry refuses is left out, the rest served. */
  private defineAll(next: Map<string, Entry>): void {
    const types = (m: Map<string, Entry>) => [...m.values()].map((e) => e.type);
    try {
      this.registry.define(CUSTOM_RESOURCE_TYPES, types(next));
      this.current = next;
      return;
    } catch {
      // Find the ones at fault: each alone over what is already served.
    }
    const good = new Map<string, Entry>();
    for (const [name, entry] of next) {
      try {
        this.registry.define(CUSTOM_RESOURCE_TYPES, [...types(good), entry.type]);
        good.set(name, entry);
      } catch (err) {
        this.opts.warn({ err, definition: name }, 'custom resource definition cannot be served');
      }
    }
    this.registry.define(CUSTOM_RESOURCE_TYPES, types(good));
    this.current = good;
  }
}
