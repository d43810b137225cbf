// The conversion webhooks of the custom resources this gateway serves: a definition with
// `spec.conversion.strategy: Webhook` gets a converter (shared/webhook/conversion-webhook.ts) that
// its type carries, so that its versions other than the one an object is stored in are converted
// by the webhook. One caller (kept-alive connections per CA) serves every definition. A webhook
// named by a Service is reached at a ready address of the Service's Endpoints, read from the
// watch cache under the shared rule (shared/api/service-endpoints.ts) that never dials the host's
// own addresses; its certificate is checked for `<svc>.<ns>.svc`. The server presents no
// credentials to conversion webhooks, as upstream's does not.

import { resourceKey } from '../../shared/api/resource-key.js';
import { pickAddress, resolveServiceEndpoints, type ServiceAddress } from '../../shared/api/service-endpoints.js';
import type { ApiObject } from '../../shared/api/types.js';
import type { ObjectConverter } from '../../shared/registry/types.js';
import type { WatchCache } from '../../shared/store/watch-cache.js';
import { ConversionWebhook, type ConversionWebhookOptions } from '../../shared/webhook/conversion-webhook.js';
import { ApiWebhookCaller, clientConfigFromApi, type ServiceAddressResolver, type ServiceReference } from '../../shared/webhook/webhook-caller.js';

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

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export class ConversionWebhooks {
  private readonly caller: ApiWebhookCaller;

  constructor(
    resolver: ServiceAddressResolver,
    private readonly opts: ConversionWebhookOptions = {},
  ) {
    this.caller = new ApiWebhookCaller(resolver);
  }

  /** The converter of a definition whose strategy is Webhook; undefined for strategy None. */
  converterOf(crd: ApiObject): ObjectConverter | undefined {
    const spec = isObj(crd.spec) ? crd.spec : {};
    const conversion = isObj(spec.conversion) ? spec.conversion : {};
    if (conversion.strategy !== 'Webhook') return undefined;
    const webhook = isObj(conversion.webhook) ? conversion.webhook : {};
    const versions = Array.isArray(webhook.conversionReviewVersions) ? webhook.conversionReviewVersions.filter((v): v is string => typeof v === 'string') : [];
    return new ConversionWebhook(this.caller, { clientConfig: clientConfigFromApi(webhook.clientConfig), reviewVersions: versions }, this.opts);
  }

  close(): void {
    this.caller.close();
  }
}
