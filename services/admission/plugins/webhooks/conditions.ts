// A webhook's matchConditions, the last step of deciding whether it is called (upstream's
// ShouldCallHook): evaluated on the objects in the version the webhook would see them, after its
// rules and selectors matched. One false condition skips the webhook; evaluation errors follow its
// failurePolicy: Ignore skips it, Fail refuses the request with 403, as upstream.

import { forbidden } from '../../../../shared/api/status.js';
import type { ApiObject, GroupVersionResource } from '../../../../shared/api/types.js';
import type { AdmissionRequest } from '../../../../shared/bus/messages.js';
import { aggregateErrors, evaluateMatchConditions } from '../../../../shared/registry/builtin/admissionregistration/match-conditions.js';
import type { Invocation, MatchEnvironment } from './invocation.js';
import { requestAttributes, type VersionedObjects } from './review.js';

const sameResource = (a: GroupVersionResource, b: GroupVersionResource) => a.group === b.group && a.version === b.version && a.resource === b.resource;

/** Whether the webhook sees the request's objects in another version than the request's. */
export function converts(inv: Invocation, req: AdmissionRequest): boolean {
  return !sameResource(inv.resource, req.resource) && (inv.kind.version !== req.kind.version || inv.kind.group !== req.kind.group || inv.kind.kind !== req.kind.kind);
}

/** The request's object (as it is now) and old object in the version the webhook matched. */
export async function versioned(env: MatchEnvironment, inv: Invocation, req: AdmissionRequest, object: ApiObject | null): Promise<VersionedObjects> {
  if (!converts(inv, req)) return { object, oldObject: req.oldObject };
  const convert = (o: ApiObject | null) => (o ? env.types().convert(o, req.resource, inv.resource) : null);
  return { object: await convert(object), oldObject: await convert(req.oldObject) };
}

/** Whether every match condition of the invocation's webhook holds; throws the 403 of a failing-closed evaluation error. */
export async function conditionsHold(inv: Invocation, req: AdmissionRequest, object: ApiObject | null, env: MatchEnvironment): Promise<boolean> {
  const hook = inv.webhook;
  if (!hook.matchConditions.length) return true;
  const objects = await versioned(env, inv, req, object);
  const outcome = evaluateMatchConditions(hook.matchConditions, { object: objects.object, oldObject: objects.oldObject, request: requestAttributes(inv, req) });
  if (!('errors' in outcome)) return outcome.matches;
  if (hook.failurePolicy === 'Ignore') return false;
  throw forbidden({ group: req.resource.group, resource: req.resource.resource }, req.name, aggregateErrors(outcome.errors));
}
