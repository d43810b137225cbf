// Whether a webhook is called for a request, and as which resource and kind (upstream's
// ShouldCallHook): its rules against the request's own resource, then, with matchPolicy
// Equivalent, against the resources holding the same objects in other versions or groups (the
// webhook then sees the object converted to that version); then its objectSelector against the
// object or the old object, and its namespaceSelector against the labels of the request's
// namespace (of a Namespace itself when one is created or updated); last its matchConditions
// (conditions.ts).

import { internalError, notFound } from '../../../../shared/api/status.js';
import type { ApiObject, GroupVersionResource } from '../../../../shared/api/types.js';
import type { AdmissionRequest } from '../../../../shared/bus/messages.js';
import type { LabelSelector } from '../../../../shared/api/labels.js';
import { ruleMatches, type RuleSubject } from './rules.js';
import type { Webhook } from './webhooks.js';
import type { Invocation, MatchEnvironment } from './invocation.js';
import { conditionsHold } from './conditions.js';

export type { Invocation, MatchEnvironment } from './invocation.js';

function labelsOf(obj: ApiObject | null | undefined): Record<string, string> | null {
  // Objects without metadata (connect options) have no labels to select on.
  const meta = obj?.metadata;
  if (!meta || typeof meta !== 'object') return null;
  return (meta.labels as Record<string, string> | undefined) ?? {};
}

function objectSelected(sel: LabelSelector, req: AdmissionRequest, object: ApiObject | null): boolean {
  if (sel.empty) return true;
  const labels = labelsOf(object);
  const old = labelsOf(req.oldObject);
  return (labels !== null && sel.matches(labels)) || (old !== null && sel.matches(old));
}

async function namespaceSelected(sel: LabelSelector, req: AdmissionRequest, object: ApiObject | null, env: MatchEnvironment): Promise<boolean> {
  const isNamespace = req.resource.resource === 'namespaces';
  const namespace = req.namespace ?? '';
  // Other cluster-scoped objects are never exempted by a namespace selector.
  if (!namespace && !isNamespace) return true;
  if (sel.empty) return true;
  // The namespace being created or changed: its new labels, not the stored ones.
  if (isNamespace && !req.subResource && (req.operation === 'CREATE' || req.operation === 'UPDATE')) return sel.matches(labelsOf(object) ?? {});
  const labels = await env.namespaceLabels(namespace);
  if (labels === null) throw notFound({ group: '', resource: 'namespaces' }, namespace);
  return sel.matches(labels);
}

function subjectOf(req: AdmissionRequest, resource: GroupVersionResource): RuleSubject {
  return { operation: req.operation, resource, subResource: req.subResource ?? '', namespace: req.namespace ?? '' };
}

function byRules(hook: Webhook, req: AdmissionRequest, env: MatchEnvironment): Invocation | null {
  const subResource = req.subResource ?? '';
  const own = subjectOf(req, req.resource);
  if (hook.rules.some((r) => ruleMatches(r, own))) return { webhook: hook, resource: req.resource, subResource, kind: req.kind };
  if (hook.matchPolicy !== 'Equivalent') return null;
  const equivalents = env.types().equivalents(req.resource, subResource, req.kind);
  // Earlier rules first, as upstream: the first rule any equivalent matches decides.
  for (const rule of hook.rules) {
    for (const e of equivalents) {
      if (ruleMatches(rule, subjectOf(req, e.resource))) return { webhook: hook, resource: e.resource, subResource, kind: e.kind };
    }
  }
  return null;
}

/** The invocation of `hook` for `req` whose object is now `object`; null when it is not called. Throws a StatusError when it cannot tell. */
export async function invocationFor(hook: Webhook, req: AdmissionRequest, object: ApiObject | null, env: MatchEnvironment): Promise<Invocation | null> {
  const inv = byRules(hook, req, env);
  if (!inv) return null;
  if (hook.selectorError) throw internalError(`webhook "${hook.name}": ${hook.selectorError}`);
  if (!objectSelected(hook.objectSelector, req, object)) return null;
  if (!(await namespaceSelected(hook.namespaceSelector, req, object, env))) return null;
  if (!(await conditionsHold(inv, req, object, env))) return null;
  return inv;
}
