// The webhooks of the stored configurations, read once per change into the shape the dispatchers
// use: configurations in name order (upstream sorts them so the call order does not depend on
// when each was written), each configuration's webhooks in their own order, selectors parsed,
// match conditions compiled, defaults filled for anything a configuration stored without them, the
// AdmissionReview version chosen. Also the coarse match the gateway is told (which operations and group/resources any
// webhook may want), so requests no webhook can match skip the webhook phase altogether.

import type { ApiObject, GroupVersionResource } from '../../../../shared/api/types.js';
import { LabelSelector, labelSelectorFromObject, type LabelSelectorObject } from '../../../../shared/api/labels.js';
import { MAX_ADMISSION_SECONDS, type ResourceMatch } from '../../../../shared/api/admission-match.js';
import type { PluginMatch } from '../../types.js';
import type { WebhookRule } from './rules.js';
import { compileMatchCondition, type CompiledCondition } from '../../../../shared/registry/builtin/admissionregistration/match-conditions.js';
import { clientConfigFromApi, type ApiWebhookClientConfig, type ServiceReference } from '../../../../shared/webhook/webhook-caller.js';

export type WebhookKind = 'mutating' | 'validating';
export type ReviewVersion = 'v1' | 'v1beta1';

/** The AdmissionReview versions this server sends, best first. */
export const REVIEW_VERSIONS: readonly ReviewVersion[] = ['v1', 'v1beta1'];

export type { ServiceReference };
export type WebhookClientConfig = ApiWebhookClientConfig;

export interface Webhook {
  /** Stable within one generation of configurations: `<configuration>/<index>`. */
  uid: string;
  kind: WebhookKind;
  configuration: string;
  name: string;
  /** Position in the call order of its kind (audit annotations' `index`). */
  index: number;
  rules: WebhookRule[];
  matchPolicy: 'Exact' | 'Equivalent';
  namespaceSelector: LabelSelector;
  objectSelector: LabelSelector;
  /** A selector that cannot be parsed: requests the rules match fail with 500, as upstream. */
  selectorError?: string;
  failurePolicy: 'Fail' | 'Ignore';
  sideEffects: string;
  timeoutMs: number;
  /** The first of `admissionReviewVersions` this server sends; null when none is (calls fail by failure policy). */
  reviewVersion: ReviewVersion | null;
  /** Mutating only: `reinvocationPolicy: IfNeeded`. */
  reinvoke: boolean;
  /** `matchConditions`, compiled once per configuration revision (one that does not compile fails by failure policy when evaluated). */
  matchConditions: CompiledCondition[];
  clientConfig: WebhookClientConfig;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const str = (v: unknown, fallback: string): string => (typeof v === 'string' && v !== '' ? v : fallback);

function selector(raw: unknown): LabelSelector {
  // Defaulted to {} on write; an absent one (written around the API) selects everything, as the default would.
  return raw === undefined || raw === null ? LabelSelector.everything() : labelSelectorFromObject(raw as LabelSelectorObject);
}

function webhookOf(kind: WebhookKind, configuration: string, position: number, index: number, w: Obj): Webhook {
  const rules: WebhookRule[] = (Array.isArray(w.rules) ? w.rules : []).filter(isObj).map((r) => ({
    operations: strings(r.operations),
    apiGroups: strings(r.apiGroups),
    apiVersions: strings(r.apiVersions),
    resources: strings(r.resources),
    scope: str(r.scope, '*'),
  }));
  const hook: Webhook = {
    uid: `${configuration}/${position}`,
    kind,
    configuration,
    name: str(w.name, ''),
    index,
    rules,
    matchPolicy: w.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
    namespaceSelector: LabelSelector.everything(),
    objectSelector: LabelSelector.everything(),
    failurePolicy: w.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    sideEffects: str(w.sideEffects, 'Unknown'),
    timeoutMs: (typeof w.timeoutSeconds === 'number' && w.timeoutSeconds > 0 ? w.timeoutSeconds : 10) * 1000,
    reviewVersion: (strings(w.admissionReviewVersions).find((v) => (REVIEW_VERSIONS as readonly string[]).includes(v)) as ReviewVersion | undefined) ?? null,
    reinvoke: kind === 'mutating' && w.reinvocationPolicy === 'IfNeeded',
    matchConditions: (Array.isArray(w.matchConditions) ? w.matchConditions : []).filter(isObj).map((c) => compileMatchCondition(str(c.name, ''), str(c.expression, '').trim())),
    clientConfig: clientConfigFromApi(w.clientConfig),
  };
  try {
    hook.namespaceSelector = selector(w.namespaceSelector);
    hook.objectSelector = selector(w.objectSelector);
  } catch (err) {
    hook.selectorError = (err as Error).message;
  }
  return hook;
}

/** Every webhook of `configurations` (stored objects of one kind) in call order. */
export function webhooksOf(kind: WebhookKind, configurations: readonly ApiObject[]): Webhook[] {
  const sorted = [...configurations].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0));
  const out: Webhook[] = [];
  for (const c of sorted) {
    const list = Array.isArray(c.webhooks) ? c.webhooks : [];
    list.forEach((w, position) => {
      if (isObj(w)) out.push(webhookOf(kind, c.metadata.name ?? '', position, out.length, w));
    });
  }
  return out;
}

/** Group/resources whose requests some equivalent of (group, resource) may reach (matchPolicy Equivalent). */
export type RelatedResources = (group: string, resource: string) => readonly ResourceMatch[];

/**
 * The operations and group/resources any of `hooks` may want: what the gateway is told. Coarse on
 * purpose (versions, subresources, scope and selectors are left to the plugin): it only has to
 * never leave out a request a webhook would match.
 */
export function interestOf(hooks: readonly Webhook[], related: RelatedResources): PluginMatch {
  const ops = new Set<string>();
  const resources = new Map<string, ResourceMatch>();
  const add = (group: string, resource: string) => resources.set(`${group}/${resource}`, { group, resource });
  for (const h of hooks) {
    for (const r of h.rules) {
      for (const op of r.operations) ops.add(op);
      for (const group of r.apiGroups) {
        for (const entry of r.resources) {
          const resource = entry.split('/', 1)[0]!;
          add(group, resource);
          if (h.matchPolicy === 'Equivalent' && group !== '*') for (const e of related(group, resource)) add(e.group, e.resource);
        }
      }
    }
  }
  // Anything in any group covers every other entry.
  const all = resources.get('*/*');
  const match: PluginMatch = { resources: all ? [all] : [...resources.values()] };
  if (!ops.has('*')) match.operations = [...ops] as PluginMatch['operations'];
  // The caller waits for every webhook in turn, an IfNeeded one possibly twice.
  const seconds = hooks.reduce((sum, h) => sum + (h.timeoutMs / 1000) * (h.reinvoke ? 2 : 1), 0);
  if (seconds > 0) match.timeoutSeconds = Math.min(Math.ceil(seconds), MAX_ADMISSION_SECONDS);
  return match;
}

export function gvrString(r: GroupVersionResource): string {
  return r.group ? `${r.group}/${r.version}/${r.resource}` : `${r.version}/${r.resource}`;
}
