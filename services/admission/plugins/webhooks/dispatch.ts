// Calling the matching webhooks of a request: mutating ones one after another, each seeing the
// object as the previous left it and answering with a JSON patch; validating ones all at once on
// the final object. What a failure does follows the webhook's failurePolicy when the webhook
// could not be asked or answered nonsense (Ignore: the request goes on, the failure is logged,
// counted and annotated; Fail: 500); a webhook that answered "no" always rejects, with its own
// status code when it is 400 or more (the rejection metric records the code as the webhook gave it). Every call is timed and counted, every rejection counted
// (spec, Metrics), every mutating call annotated for the audit log (spec, Audit annotations).

import { randomUUID } from 'node:crypto';
import { badRequest, internalError, StatusError, isStatus, type Status } from '../../../../shared/api/status.js';
import type { ApiObject } from '../../../../shared/api/types.js';
import type { AdmissionRequest } from '../../../../shared/bus/messages.js';
import type { Logger } from '../../../../shared/log.js';
import { applyJsonPatch } from '../../../../shared/patch/index.js';
import { cloneJson, jsonEqual } from '../../../../shared/patch/json-value.js';
import type { JsonResponse } from '../../../../shared/webhook/http-json.js';
import type { WebhookMetrics } from '../../metrics.js';
import type { AdmissionContext } from '../../types.js';
import { invocationFor, type Invocation, type MatchEnvironment } from './matcher.js';
import { givenCode, InvalidResponseError, parseReviewResponse, PATCH_TYPE_JSON_PATCH, rejectionStatus, reviewRequest, type VersionedObjects, type WebhookResponse } from './review.js';
import { converts, versioned } from './conditions.js';
import type { Webhook } from './webhooks.js';

export const MUTATION_ANNOTATION_PREFIX = 'mutation.webhook.admission.platform.io/';
export const PATCH_ANNOTATION_PREFIX = 'patch.webhook.admission.platform.io/';
export const MUTATION_FAILED_OPEN_PREFIX = `failed-open.${MUTATION_ANNOTATION_PREFIX}`;
export const VALIDATING_FAILED_OPEN_PREFIX = 'failed-open.validating.webhook.admission.platform.io/';

export interface DispatchEnvironment extends MatchEnvironment {
  /** Posts a serialized AdmissionReview to the webhook; rejects when no answer came. */
  post(hook: Webhook, text: string): Promise<JsonResponse>;
  metrics: WebhookMetrics;
  log: Logger;
}

/** The webhook could not be asked, or its answer cannot be believed: its failure policy decides. */
export class CallingWebhookError extends Error {
  override name = 'CallingWebhookError';
  constructor(
    readonly webhook: string,
    reason: string,
    /** The status the failure stands for (metrics' rejection code). */
    readonly code: number,
  ) {
    super(`failed calling webhook ${JSON.stringify(webhook)}: ${reason}`);
  }
}

/** The webhook answered and refused. */
class WebhookRejection extends Error {
  override name = 'WebhookRejection';
  /** The code the webhook gave (0: none), which the rejection metric records as given (spec, Metrics). */
  readonly givenCode: number;
  readonly status: Status;
  constructor(hook: string, given: Record<string, unknown> | undefined) {
    const status = rejectionStatus(hook, given);
    super(status.message);
    this.status = status;
    this.givenCode = givenCode(given);
  }
}

const roundKey = (prefix: string, round: number, index: number) => `${prefix}round_${round}_index_${index}`;

function dryRunRefusal(hook: Webhook, req: AdmissionRequest): StatusError | null {
  if (!req.dryRun || hook.sideEffects === 'None' || hook.sideEffects === 'NoneOnDryRun') return null;
  return badRequest(`admission webhook ${JSON.stringify(hook.name)} does not support dry run`);
}

/** One call: the review sent, the answer checked; what the webhook said, or a CallingWebhookError. */
async function call(env: DispatchEnvironment, inv: Invocation, req: AdmissionRequest, objects: VersionedObjects, mutating: boolean): Promise<WebhookResponse> {
  const hook = inv.webhook;
  if (!hook.reviewVersion) throw new CallingWebhookError(hook.name, 'could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)', 400);
  const uid = randomUUID();
  const text = JSON.stringify(reviewRequest(hook.reviewVersion, uid, inv, req, objects));
  let answer: JsonResponse;
  try {
    answer = await env.post(hook, text);
  } catch (err) {
    const code = err instanceof StatusError ? err.code : 503;
    throw new CallingWebhookError(hook.name, `failed to call webhook: ${(err as Error).message}`, code);
  }
  if (answer.status < 200 || answer.status > 299) {
    const said = isStatus(answer.body) && answer.body.message ? `: ${answer.body.message}` : '';
    throw new CallingWebhookError(hook.name, `failed to call webhook: the server responded with HTTP ${answer.status}${said}`, answer.status);
  }
  try {
    return parseReviewResponse(hook.reviewVersion, uid, answer.body, mutating);
  } catch (err) {
    if (err instanceof InvalidResponseError) throw new CallingWebhookError(hook.name, `received invalid webhook response: ${err.message}`, 503);
    throw err;
  }
}

function passOn(hook: Webhook, res: WebhookResponse, ctx: AdmissionContext): void {
  for (const w of res.warnings) ctx.warn(w);
  for (const [k, v] of Object.entries(res.auditAnnotations)) ctx.annotate(`${hook.name}/${k}`, v);
}

/** Counts one finished call (and its rejection) as upstream does; `err` is what the call threw. */
function observe(env: DispatchEnvironment, hook: Webhook, req: AdmissionRequest, err: unknown, seconds: number): void {
  const m = env.metrics;
  if (err === undefined) return m.call(hook.name, req, false, 200, seconds);
  if (err instanceof CallingWebhookError) {
    const rejected = hook.failurePolicy !== 'Ignore';
    if (rejected) m.rejection(hook.name, req, 'calling_webhook_error', err.code);
    return m.call(hook.name, req, rejected, err.code, seconds);
  }
  if (err instanceof WebhookRejection) {
    m.rejection(hook.name, req, 'no_error', err.givenCode);
    return m.call(hook.name, req, true, err.status.code, seconds);
  }
  m.rejection(hook.name, req, 'apiserver_internal_error', 0);
  m.call(hook.name, req, true, 0, seconds);
}

/** What a failed call becomes: null to go on (failed open), else the error to reject with. */
function outcome(env: DispatchEnvironment, hook: Webhook, req: AdmissionRequest, err: unknown, failedOpen: () => void): Error | null {
  if (err instanceof CallingWebhookError) {
    if (hook.failurePolicy === 'Ignore') {
      env.log.warn({ webhook: hook.name, configuration: hook.configuration, err: err.message }, 'failed calling webhook, failing open');
      env.metrics.failedOpen(hook.name, req);
      failedOpen();
      return null;
    }
    env.log.warn({ webhook: hook.name, configuration: hook.configuration, err: err.message }, 'failed calling webhook, failing closed');
    return internalError(err.message);
  }
  if (err instanceof WebhookRejection) return new StatusError(err.status);
  return err as Error;
}

/** What the mutating plugin remembers of one request across the chain's passes (upstream's webhook reinvocation context). */
interface ReinvocationState {
  /** Webhooks with IfNeeded called since the object last changed. */
  invoked: Set<string>;
  /** Webhooks to call again in the second pass. */
  again: Set<string>;
  /** The object as this plugin last left it (a change by the plugins after it means reinvoking). */
  lastOutput: ApiObject | null | undefined;
}

function requireReinvocation(s: ReinvocationState): void {
  for (const uid of s.invoked) s.again.add(uid);
  s.invoked.clear();
}

/**
 * The mutating webhooks of `hooks` that match, in order; returns the object as they left it (in
 * the request's version). A change makes the chain run once more, and the IfNeeded webhooks
 * called before the change are then called again.
 */
export async function dispatchMutating(env: DispatchEnvironment, hooks: readonly Webhook[], req: AdmissionRequest, ctx: AdmissionContext): Promise<ApiObject | null> {
  const round = ctx.round ?? 0;
  const state = ctx.scratch?.<ReinvocationState>(() => ({ invoked: new Set(), again: new Set(), lastOutput: undefined })) ?? {
    invoked: new Set<string>(),
    again: new Set<string>(),
    lastOutput: undefined,
  };
  let object = req.object;
  // The plugins that ran again before this one changed the object: every IfNeeded webhook sees the change.
  if (round > 0 && state.lastOutput !== undefined && !jsonEqual(state.lastOutput, object)) requireReinvocation(state);

  for (const hook of hooks) {
    const inv = await invocationFor(hook, { ...req, object }, object, env);
    if (!inv) continue;
    // A webhook skipped in the first pass is never called for the first time in the second.
    if (round > 0 && !state.again.has(hook.uid)) continue;
    const start = performance.now();
    let changed = false;
    let failure: unknown;
    try {
      const refusal = dryRunRefusal(hook, req);
      if (refusal) throw refusal;
      const objects = await versioned(env, inv, req, object);
      const res = await call(env, inv, req, objects, true);
      passOn(hook, res, ctx);
      if (!res.allowed) throw new WebhookRejection(hook.name, res.status);
      if (res.patch?.length) {
        const patched = applyPatch(hook, objects.object, res.patch);
        changed = !jsonEqual(objects.object, patched);
        ctx.annotate(
          roundKey(PATCH_ANNOTATION_PREFIX, round, hook.index),
          JSON.stringify({ configuration: hook.configuration, webhook: hook.name, patch: res.patch, patchType: PATCH_TYPE_JSON_PATCH }),
          'Request',
        );
        try {
          env.types().defaults(inv.resource, patched);
        } catch {
          // Defaults only complete a well-formed object; validation reports a malformed one.
        }
        object = converts(inv, req) ? await env.types().convert(patched, inv.resource, req.resource) : patched;
      }
    } catch (err) {
      failure = err;
    }
    ctx.annotate(roundKey(MUTATION_ANNOTATION_PREFIX, round, hook.index), JSON.stringify({ configuration: hook.configuration, webhook: hook.name, mutated: changed }));
    observe(env, hook, req, failure, (performance.now() - start) / 1000);
    if (changed) {
      requireReinvocation(state);
      ctx.requestReinvocation?.();
    }
    if (hook.reinvoke) state.invoked.add(hook.uid);
    if (failure !== undefined) {
      const err = outcome(env, hook, req, failure, () => ctx.annotate(roundKey(MUTATION_FAILED_OPEN_PREFIX, round, hook.index), hook.name));
      if (err) throw err;
    }
  }
  if (state.invoked.size) state.lastOutput = object === null ? null : cloneJson(object);
  return object;
}

function applyPatch(hook: Webhook, object: ApiObject | null, ops: unknown[]): ApiObject {
  if (!object) throw internalError(`admission webhook ${JSON.stringify(hook.name)} attempted to modify the object, which is not supported for this operation`);
  let patched: unknown;
  try {
    patched = applyJsonPatch(object, ops);
  } catch (err) {
    throw internalError(err instanceof StatusError ? err.status.message : (err as Error).message);
  }
  if (typeof patched !== 'object' || patched === null || Array.isArray(patched)) {
    throw internalError(`admission webhook ${JSON.stringify(hook.name)} patched the object into something that is not an object`);
  }
  return patched as ApiObject;
}

/** The validating webhooks of `hooks` that match, all at once on the final object; the first refusal in call order wins. */
export async function dispatchValidating(env: DispatchEnvironment, hooks: readonly Webhook[], req: AdmissionRequest, ctx: AdmissionContext): Promise<void> {
  const invocations: Invocation[] = [];
  for (const hook of hooks) {
    const inv = await invocationFor(hook, req, req.object, env);
    if (inv) invocations.push(inv);
  }
  if (!invocations.length) return;
  const errors = await Promise.all(
    invocations.map(async (inv): Promise<Error | null> => {
      const hook = inv.webhook;
      const start = performance.now();
      let failure: unknown;
      try {
        const refusal = dryRunRefusal(hook, req);
        if (refusal) throw refusal;
        const res = await call(env, inv, req, await versioned(env, inv, req, req.object), false);
        passOn(hook, res, ctx);
        if (!res.allowed) throw new WebhookRejection(hook.name, res.status);
      } catch (err) {
        failure = err;
      }
      observe(env, hook, req, failure, (performance.now() - start) / 1000);
      if (failure === undefined) return null;
      return outcome(env, hook, req, failure, () => ctx.annotate(roundKey(VALIDATING_FAILED_OPEN_PREFIX, 0, hook.index), hook.name));
    }),
  );
  const first = errors.find((e) => e !== null);
  if (first) throw first;
}
