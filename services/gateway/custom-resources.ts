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
import type { FeatureGates } from '../../shared/config/feature-gates.js';
import { CRD_GROUP, CRD_RESOURCE, DefinitionTypes } from '../../shared/registry/custom-resources/definition-types.js';
import { CachedServiceResolver, ConversionWebhooks } from './conversion-webhooks.js';

export { CRD_GROUP, CRD_RESOURCE, CUSTOM_RESOURCE_TYPES } from '../../shared/registry/custom-resources/definition-types.js';

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
  const types = new DefinitionTypes(registry, {
    validationRules: deps.features?.enabled('CustomResourceValidationExpressions') ?? false,
    converterOf: (crd) => conversion.converterOf(crd),
    warn: (obj, msg) => log.warn(obj, msg),
  });
  const prefix = resourcePrefix(CRD_GROUP, CRD_RESOURCE);
  const cacheKey = resourceKey(CRD_GROUP, CRD_RESOURCE);
  let scheduled = false;

  const refresh = () => {
    scheduled = false;
    types.define(cache.current(cacheKey));
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
