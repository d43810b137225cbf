// The converter of a CustomResourceDefinition with `conversion.strategy: Webhook`: objects not yet
// in the desired version go to the webhook in one ConversionReview (conversion-review.ts), and
// come back checked, in place of the originals. Anything that goes wrong — no address, the
// connection, TLS, the 30 s deadline (upstream's for conversion webhooks), an answer other than
// 200, an answer that fails the checks, a Failure result — is a 500 InternalError naming the
// webhook as upstream's message does: `conversion webhook for <group>/<version>, Kind=<kind> …`.

import { randomUUID } from 'node:crypto';
import { internalError, type StatusError } from '../api/status.js';
import type { ApiObject } from '../api/types.js';
import { DEFAULT_WEBHOOK_TIMEOUT_MS } from './client-config.js';
import { conversionReview, convertedObjects, ConversionResponseError, pickReviewVersion } from './conversion-review.js';
import type { ApiWebhookCaller, ApiWebhookClientConfig } from './webhook-caller.js';

export interface ConversionWebhookConfig {
  clientConfig: ApiWebhookClientConfig;
  /** `conversionReviewVersions`, in the definition's order of preference. */
  reviewVersions: readonly string[];
}

export interface ConversionWebhookOptions {
  timeoutMs?: number;
  /** The review's uid (tests). */
  uid?: () => string;
}

/** What upstream names the objects by: `<group>/<version>, Kind=<kind>` of what was sent. */
function gvkString(o: ApiObject): string {
  return `${o.apiVersion ?? ''}, Kind=${o.kind ?? ''}`;
}

/** Why a non-200 answer came: the message of a Status body, else the code. */
function refusal(status: number, body: unknown): string {
  const message = typeof body === 'object' && body !== null ? (body as { message?: unknown }).message : undefined;
  return typeof message === 'string' && message ? `the webhook answered HTTP ${status}: ${message}` : `the webhook answered HTTP ${status}`;
}

export class ConversionWebhook {
  private readonly timeoutMs: number;
  private readonly uid: () => string;

  constructor(
    private readonly caller: ApiWebhookCaller,
    private readonly config: ConversionWebhookConfig,
    opts: ConversionWebhookOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    this.uid = opts.uid ?? randomUUID;
  }

  /** `objects` in `desiredAPIVersion`, in order; only those in another version are sent, none at all when every one is in it. */
  async convert(objects: readonly ApiObject[], desiredAPIVersion: string): Promise<ApiObject[]> {
    const positions: number[] = [];
    objects.forEach((o, i) => {
      if (o.apiVersion !== desiredAPIVersion) positions.push(i);
    });
    if (positions.length === 0) return [...objects];
    const sent = positions.map((i) => objects[i]!);
    const converted = await this.review(sent, desiredAPIVersion);
    const out = [...objects];
    positions.forEach((i, k) => {
      out[i] = converted[k]!;
    });
    return out;
  }

  private async review(sent: ApiObject[], desiredAPIVersion: string): Promise<ApiObject[]> {
    const fail = (what: string): StatusError => internalError(`conversion webhook for ${gvkString(sent[0]!)} ${what}`);
    const version = pickReviewVersion(this.config.reviewVersions);
    if (!version) throw fail(`failed: none of the conversionReviewVersions ${JSON.stringify(this.config.reviewVersions)} is supported (v1, v1beta1)`);
    const uid = this.uid();
    let res: { status: number; body: unknown };
    try {
      res = await this.caller.post(this.config.clientConfig, JSON.stringify(conversionReview(version, uid, desiredAPIVersion, sent)), this.timeoutMs);
    } catch (err) {
      throw fail(`failed: ${(err as Error).message}`);
    }
    if (res.status !== 200) throw fail(`failed: ${refusal(res.status, res.body)}`);
    try {
      return convertedObjects(version, uid, res.body, sent, desiredAPIVersion);
    } catch (err) {
      if (err instanceof ConversionResponseError) throw fail(err.message);
      throw err;
    }
  }
}
