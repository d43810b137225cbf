// One POST of an AdmissionReview to a webhook, through the caller every webhook an API object
// names shares (shared/webhook/webhook-caller.ts: URL or Service, caBundle, kept-alive agents):
// here with the admission service's Service resolution (Endpoints, or `--webhook-service-resolver`)
// and the credentials of the plugin's kubeConfigFile, within the webhook's own timeout.

import type { JsonResponse } from '../../../../shared/webhook/http-json.js';
import { ApiWebhookCaller } from '../../../../shared/webhook/webhook-caller.js';
import type { CredentialResolver } from './credentials.js';
import type { ServiceResolver } from './service-resolver.js';
import type { Webhook } from './webhooks.js';

export class WebhookCaller {
  private readonly caller: ApiWebhookCaller;

  constructor(resolver: ServiceResolver, credentials: CredentialResolver) {
    this.caller = new ApiWebhookCaller(resolver, credentials);
  }

  /** Sends `text` (an AdmissionReview) and resolves with the answer; rejects when none came (network, TLS, deadline). */
  post(hook: Webhook, text: string): Promise<JsonResponse> {
    return this.caller.post(hook.clientConfig, text, hook.timeoutMs);
  }

  close(): void {
    this.caller.close();
  }
}
