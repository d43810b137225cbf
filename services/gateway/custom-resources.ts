// Serves the custom resources of every Established CustomResourceDefinition the gateway's watch
// cache holds: each change of a definition redefines the registry's custom types (one `define`, the
// door the built-in types came through), so every gateway serves a new type as soon as its cache
// has the definition, and stops serving a deleted one as soon as the deletion reaches it. A
// gateway that starts reads them all before it reports ready (`refresh` after the cache synced).

import type { Logger } from 'pino';
import type { WatchCache } from '../../shared/store/watch-cache.js';
import { resourceKey } from '../../shared/api/resource-key.js';
import { resourcePrefix } from '../../shared/store/key-codec.js';
import type { Registry } from '../../shared/registry/registry.js';
import type { ResourceType } from '../../shared/registry/types.js';
import type { FeatureGates } from '../../shared/config/feature-gates.js';
import { customResourceType, isEstablished } from '../../shared/registry/custom-resources/custom-resource-type.js';
import { CachedServiceResolver, ConversionWebhooks } from './conversion-webhooks.js';

/** The registry source of the types CustomResourceDefinitions define. */
export const CUSTOM_RESOURCE_TYPES = 'customresourcedefinitions';
/** Where definitions are stored: the branded group (the `*.k8s.io` spelling is an alias of it). */
export const CRD_GROUP = 'apiextensions.platform.io';
export const CRD_RESOURCE = 'customresourcedefinitions';

export interface CustomResourceFollower {
  /** Whether a changed bucket key is a definition's (then `changed` should be called). */
  isDefinitionKey(key: string): boolean;
  /** A definition changed: the types are made again once the current burst of changes is applied. */
  changed(): void;
  /** Makes the types from the cache now. */
  refresh(): void;
  /** Lets go of the conversion webhooks' connections. */
  close(): void;
}

export function followCustomResources(deps: { cache: WatchCache; registry: Registry; log: Logger; features?: FeatureGates; conversion?: ConversionWebhooks }): CustomResourceFollower {
  const { cache, registry, log } = deps;
  // Definitions with a conversion webhook: their types carry its converter (conversion-webhooks.ts).
  const conversion = deps.conversion ?? new ConversionWebhooks(new CachedServiceResolver(cache));
  const typeOptions = { validationRules: deps.features?.enabled('CustomResourceValidationExpressions') ?? false };
  const prefix = resourcePrefix(CRD_GROUP, CRD_RESOURCE);
  const cacheKey = resourceKey(CRD_GROUP, CRD_RESOURCE);
  let scheduled = false;
  /** The types last defined, by definition name and revision: unchanged definitions keep their compiled type. */
  let current = new Map<string, { revision: number; type: ResourceType }>();

  const refresh = () => {
    scheduled = false;
    const next = new Map<string, { revision: number; type: ResourceType }>();
    for (const { object, revision } of cache.current(cacheKey)) {
      // Served while being deleted too (without create): its cleanup deletes its objects through the API.
      if (!isEstablished(object)) continue;
      const name = object.metadata.name!;
      const kept = current.get(name);
      if (kept?.revision === revision) {
        next.set(name, kept);
        continue;
      }
      try {
        const type = customResourceType(object, typeOptions);
        const converter = conversion.converterOf(object);
        if (converter) type.conversion = converter;
        next.set(name, { revision, type });
      } catch (err) {
        log.warn({ err, definition: name }, 'custom resource definition cannot be served');
      }
    }
    defineAll(next);
  };

  /** Defines the set; a type the registry refuses (a schema that does not compile, a clash) is left out, the rest served. */
  const defineAll = (next: Map<string, { revision: number; type: ResourceType }>) => {
    try {
      registry.define(
        CUSTOM_RESOURCE_TYPES,
        [...next.values()].map((e) => e.type),
      );
      current = next;
      return;
    } catch {
      // Find the ones at fault: each alone over what is already served.
    }
    const good = new Map<string, { revision: number; type: ResourceType }>();
    for (const [name, entry] of next) {
      try {
        registry.define(
          CUSTOM_RESOURCE_TYPES,
          [...good.values(), entry].map((e) => e.type),
        );
        good.set(name, entry);
      } catch (err) {
        log.warn({ err, definition: name }, 'custom resource definition cannot be served');
      }
    }
    registry.define(
      CUSTOM_RESOURCE_TYPES,
      [...good.values()].map((e) => e.type),
    );
    current = good;
  };

  return {
    isDefinitionKey: (key) => key.startsWith(prefix),
    changed: () => {
      if (scheduled) return;
      scheduled = true;
      // After the cache has applied the change (and any that came with it).
      queueMicrotask(refresh);
    },
    refresh,
    close: () => conversion.close(),
  };
}
