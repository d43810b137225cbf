// The conversion webhooks of the custom resources this gateway serves (the converters are
// shared/webhook/conversion-webhooks.ts, which the admission service uses too). A webhook named by
// a Service is reached at a ready address of the Service's Endpoints, read from the watch cache
// under the shared rule (shared/api/service-endpoints.ts) that never dials the host's own
// addresses; its certificate is checked for `<svc>.<ns>.svc`.

import { resourceKey } from '../../shared/api/resource-key.js';
import { pickAddress, resolveServiceEndpoints, type ServiceAddress } from '../../shared/api/service-endpoints.js';
import type { WatchCache } from '../../shared/store/watch-cache.js';
import { ConversionWebhooks } from '../../shared/webhook/conversion-webhooks.js';
import type { ServiceAddressResolver, ServiceReference } from '../../shared/webhook/webhook-caller.js';

/** Where a Service reference is dialled, from the Services and Endpoints the watch cache holds. */
export class CachedServiceResolver implements ServiceAddressResolver {
  constructor(private readonly cache: WatchCache) {}

  resolve(ref: ServiceReference): Promise<ServiceAddress> {
    const svc = this.cache.get(resourceKey('', 'services'), ref.namespace, ref.name)?.object;
    if (!svc) return Promise.reject(new Error(`service "${ref.name}" not found in namespace "${ref.namespace}"`));
    const r = resolveServiceEndpoints(svc, this.cache.get(resourceKey('', 'endpoints'), ref.namespace, ref.name)?.object, ref.port);
    switch (r.kind) {
      case 'ok':
        return Promise.resolve(pickAddress(r.addresses));
      case 'unsupported-type':
        return Promise.reject(new Error(`unsupported service type "${r.type}"`));
      case 'no-port':
        return Promise.reject(new Error(`no service port ${ref.port} found for service "${ref.name}"`));
      default:
        return Promise.reject(new Error(`no endpoints available for service "${ref.name}"`));
    }
  }
}

export { ConversionWebhooks };
