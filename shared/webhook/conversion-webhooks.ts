// The conversion webhooks of the CustomResourceDefinitions a service serves or admits: a definition
// with `spec.conversion.strategy: Webhook` gets a converter (conversion-webhook.ts) that its type
// carries, so that its versions other than the one an object is stored in are converted by the
// webhook. One caller (kept-alive connections per CA) serves every definition; where a Service
// reference is dialled is the service's own rule (its `ServiceAddressResolver`). The server
// presents no credentials to conversion webhooks, as upstream's does not.

import type { ApiObject } from '../api/types.js';
import { ConversionWebhook, type ConversionWebhookOptions } from './conversion-webhook.js';
import { ApiWebhookCaller, clientConfigFromApi, type ServiceAddressResolver } from './webhook-caller.js';

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
  converterOf(crd: ApiObject): ConversionWebhook | undefined {
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
