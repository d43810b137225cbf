// Schemas, defaults and validation of admission webhook configurations, per version and per
// kind (mutating webhooks add `reinvocationPolicy`). v1 tightened v1beta1: required
// sideEffects/admissionReviewVersions, unique names, and safer defaults.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject, JsonSchema } from '../../../api/types.js';
import type { VersionDef } from '../../types.js';
import { asArray, asObject, duplicates, setDefault } from '../common/field-errors.js';
import { labelSelector } from '../common/meta.js';
import { validateLabelSelector } from '../common/selector.js';
import { atomicList, bytes, described, int32, mapList, mergeList, obj, str, strEnum, type FieldDocs } from '../common/schema.js';
import { duplicate, forbidden, invalidValue, required, unsupported } from '../../../api/field-errors.js';
import { validDnsSubdomain } from '../../../api/validation.js';
import { cloneJson } from '../../../patch/json-value.js';
import { MAX_MATCH_CONDITIONS, validateMatchConditions } from './match-conditions.js';

export const ADMISSION_GROUP = 'admissionregistration.platform.io';
export const SUPPORTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];
const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT', '*'];

export type WebhookKind = 'mutating' | 'validating';
export type WebhookVersion = 'v1' | 'v1beta1';

const ruleWithOperations = described(
  obj({
    operations: atomicList(strEnum(...OPERATIONS)),
    apiGroups: atomicList(str),
    apiVersions: atomicList(str),
    resources: atomicList(str),
    scope: strEnum('Cluster', 'Namespaced', '*'),
  }),
  {
    operations: 'Operations that call the webhook: CREATE, UPDATE, DELETE, CONNECT, or `*` alone for all of them. Required.',
    apiGroups: 'API groups: `""` for the core group, `*` alone for every group. Required.',
    apiVersions: 'API versions: `*` alone for every version. Required.',
    resources:
      'Resources by plural name: `pods` for the resource alone, `pods/status` for one subresource, `pods/*` for every subresource of pods, `*/status` for that subresource of every resource; `*` covers every resource but no subresource, `*/*` everything. Required.',
    scope: 'Which objects the rule covers: Cluster for cluster-scoped ones, Namespaced for namespaced ones, `*` for both. Defaults to `*`.',
  },
  'Requests a webhook is called for: a request matches when its operation, group, version, resource and scope each match.',
);

export const webhookServiceReference: JsonSchema = described(
  obj({ namespace: str, name: str, path: str, port: int32 }, ['namespace', 'name']),
  {
    namespace: 'Namespace of the service. Required.',
    name: 'Name of the service. Required.',
    path: 'URL path requests are sent to. Defaults to `/`.',
    port: 'Port of the service to call, 1 to 65535. Defaults to 443.',
  },
  'A service in the cluster that serves the webhook over https. Its serving certificate must be valid for `<name>.<namespace>.svc`.',
);

export const webhookClientConfigDocs = {
  url: 'Where to send requests, as `https://host[:port]/path`: https only, no user information, query or fragment. Exactly one of url and service is required. The server refuses to call loopback, link-local and unspecified addresses.',
  service: 'The service in the cluster that serves the webhook. Exactly one of url and service is required.',
  caBundle: "PEM certificates (base64 in JSON and YAML) that the webhook's serving certificate must chain to. Omitted means the root certificates the server's host trusts.",
};

const clientConfig = described(
  obj({
    url: str,
    service: webhookServiceReference,
    caBundle: { ...bytes, 'x-kubernetes-list-type': 'atomic' },
  }),
  webhookClientConfigDocs,
  'How the server reaches a webhook over TLS.',
);

const matchCondition = described(
  obj({ name: str, expression: str }, ['name', 'expression']),
  {
    name: 'Name of the condition, a qualified name (`[prefix/]name`), unique within the webhook. Required.',
    expression:
      "CEL expression that must evaluate to a bool, over `object` and `oldObject` (null when the operation has none) and `request` (the AdmissionRequest without uid and objects: kind, resource, subResource, requestKind, requestResource, requestSubResource, name, namespace, operation, userInfo, dryRun, options), objects in the version the webhook is called with. Upstream's `authorizer` variable is not offered: an expression using it is refused. Checked when written (422 when it does not compile). Required.",
  },
  'A condition on the request, written in CEL, evaluated before the webhook is called.',
);

const WEBHOOK_ABOUT: Record<WebhookKind, string> = {
  mutating: 'One webhook that may change objects on their way to storage, with the requests it is called for and what to do when it fails.',
  validating: 'One webhook that may refuse requests, with the requests it is called for and what to do when it fails.',
};

const CONFIGURATION_ABOUT: Record<WebhookKind, string> = {
  mutating:
    'Admission webhooks that may change objects before they are stored. The server calls them one at a time, configurations in order of their names and webhooks in list order; each gets the object as the ones before it left it.',
  validating: 'Admission webhooks that may refuse requests after every change to the object is done. The server calls all that match at once; any refusal refuses the request.',
};

function webhookDocs(kind: WebhookKind, version: WebhookVersion): FieldDocs {
  const v1 = version === 'v1';
  const docs: Record<string, string> = {
    name: `Name of the webhook, a domain of at least three labels such as \`pods.policy.example.com\`.${v1 ? ' Unique within the configuration.' : ''} Required.`,
    clientConfig: 'How to reach the webhook. Required.',
    rules: 'Requests the webhook is called for: it is called when any rule matches (and the selectors do). Empty means it is never called.',
    failurePolicy: `What happens when the webhook cannot be reached, times out or answers with an error: Fail refuses the request, Ignore goes on without it. Defaults to ${v1 ? 'Fail' : 'Ignore'}.`,
    matchPolicy: `Exact calls the webhook only for requests to a resource its rules name; Equivalent also for requests that reach the same objects through another version or group, with the object converted to a version the rules name. Defaults to ${v1 ? 'Equivalent' : 'Exact'}.`,
    namespaceSelector:
      'Labels the namespace of a namespaced object must have (for a Namespace, its own labels) for the webhook to be called. No effect on other cluster-scoped objects. Defaults to an empty selector, which matches everything.',
    objectSelector:
      'Labels the object (or, on update and delete, its old state) must have for the webhook to be called; either one matching is enough. Defaults to an empty selector, which matches everything.',
    sideEffects: v1
      ? 'Whether calling the webhook changes anything outside the object: None, or NoneOnDryRun when it does but skips them for requests marked dry-run. Required.'
      : 'Whether calling the webhook changes anything outside the object: None, NoneOnDryRun (it skips them for dry-run requests), Some or Unknown. A dry-run request that would call a webhook with Some or Unknown is refused. Defaults to Unknown.',
    timeoutSeconds: `Seconds to wait for the answer, 1 to 30; a timeout counts as a failure under failurePolicy. Defaults to ${v1 ? 10 : 30}.`,
    admissionReviewVersions: v1
      ? 'AdmissionReview versions the webhook understands, in order of preference; the server sends the first it speaks (v1 or v1beta1). Required.'
      : 'AdmissionReview versions the webhook understands, in order of preference; the server sends the first it speaks (v1 or v1beta1). Defaults to `[v1beta1]`.',
    matchConditions: `CEL conditions, at most ${MAX_MATCH_CONDITIONS}, evaluated after the rules and selectors match: the webhook is called only when all are true. When one is false it is skipped; when none is false but one fails to evaluate, failurePolicy decides: Fail refuses the request (403), Ignore skips the webhook.`,
  };
  if (kind === 'mutating') {
    docs.reinvocationPolicy =
      'Whether the webhook is called a second time when a later webhook or plugin changed the object after it: Never, or IfNeeded (at most once more, so it must be idempotent). Defaults to Never.';
  }
  return docs;
}

function webhookSchema(kind: WebhookKind, version: WebhookVersion): JsonSchema {
  const props: Record<string, JsonSchema> = {
    name: str,
    clientConfig,
    rules: atomicList(ruleWithOperations),
    failurePolicy: strEnum('Ignore', 'Fail'),
    matchPolicy: strEnum('Exact', 'Equivalent'),
    namespaceSelector: labelSelector,
    objectSelector: labelSelector,
    sideEffects: version === 'v1' ? strEnum('None', 'NoneOnDryRun') : strEnum('Unknown', 'None', 'Some', 'NoneOnDryRun'),
    timeoutSeconds: int32,
    admissionReviewVersions: atomicList(str),
    matchConditions: mapList(matchCondition, ['name']),
  };
  if (kind === 'mutating') props.reinvocationPolicy = strEnum('Never', 'IfNeeded');
  const required = version === 'v1' ? ['name', 'clientConfig', 'sideEffects', 'admissionReviewVersions'] : ['name', 'clientConfig'];
  return described(obj(props, required), webhookDocs(kind, version), WEBHOOK_ABOUT[kind]);
}

export function configurationSchema(kind: WebhookKind, version: WebhookVersion): JsonSchema {
  const item = webhookSchema(kind, version);
  // v1 made names unique, so apply can key the list by name.
  return described(obj({ webhooks: version === 'v1' ? mapList(item, ['name']) : mergeList(item, 'name') }), { webhooks: 'The webhooks of this configuration.' }, CONFIGURATION_ABOUT[kind]);
}

function eachWebhook(o: ApiObject, fn: (w: Record<string, unknown>) => void): void {
  for (const w of asArray(o.webhooks)) {
    const wh = asObject(w);
    if (wh) fn(wh);
  }
}

/** Defaults that are the same in every version. */
export function commonDefaults(kind: WebhookKind): (o: ApiObject) => void {
  return (o) =>
    eachWebhook(o, (w) => {
      for (const r of asArray(w.rules)) {
        const rule = asObject(r);
        if (rule) setDefault(rule, 'scope', '*');
      }
      setDefault(w, 'namespaceSelector', {});
      setDefault(w, 'objectSelector', {});
      const svc = asObject(asObject(w.clientConfig)?.service);
      if (svc) {
        setDefault(svc, 'port', 443);
        setDefault(svc, 'path', '/');
      }
      if (kind === 'mutating') setDefault(w, 'reinvocationPolicy', 'Never');
    });
}

const VERSION_DEFAULTS: Record<WebhookVersion, Record<string, unknown>> = {
  v1: { failurePolicy: 'Fail', matchPolicy: 'Equivalent', timeoutSeconds: 10 },
  v1beta1: { failurePolicy: 'Ignore', matchPolicy: 'Exact', timeoutSeconds: 30, sideEffects: 'Unknown', admissionReviewVersions: ['v1beta1'] },
};

export function versionDef(kind: WebhookKind, version: WebhookVersion): VersionDef {
  const def: VersionDef = {
    name: version,
    schema: configurationSchema(kind, version),
    defaults: (o) =>
      eachWebhook(o, (w) => {
        for (const [k, v] of Object.entries(VERSION_DEFAULTS[version])) setDefault(w, k, cloneJson(v));
      }),
  };
  if (version === 'v1beta1') def.deprecation = { since: '1.16', removedIn: '1.22', replacement: 'v1' };
  return def;
}

/** A webhook URL (`url` of a client config): https, a host, no user info, fragment or query. Also the CRD conversion webhook's. */
export function validateURL(raw: string, f: string): FieldError[] {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return [invalidValue(f, raw, 'host must be specified')];
  }
  const errs: FieldError[] = [];
  if (u.protocol !== 'https:') errs.push(invalidValue(f, raw, "'https' is the only allowed URL scheme"));
  if (!u.hostname) errs.push(invalidValue(f, raw, 'host must be specified'));
  if (u.username || u.password || /^[a-z]+:\/\/[^/]*@/i.test(raw)) errs.push(invalidValue(f, raw, 'user information is not permitted in the URL'));
  if (u.hash || raw.includes('#')) errs.push(invalidValue(f, raw, 'fragments are not permitted in the URL'));
  if (u.search || raw.includes('?')) errs.push(invalidValue(f, raw, 'query parameters are not permitted in the URL'));
  return errs;
}

/** A webhook service reference (`service` of a client config). Also the CRD conversion webhook's. */
export function validateService(svc: Record<string, unknown>, f: string): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof svc.name !== 'string' || !svc.name) errs.push(required(`${f}.name`, 'service name is required'));
  if (typeof svc.namespace !== 'string' || !svc.namespace) errs.push(required(`${f}.namespace`, 'service namespace is required'));
  if (typeof svc.port === 'number' && (svc.port < 1 || svc.port > 65535)) errs.push(invalidValue(`${f}.port`, svc.port, 'port is not valid: must be between 1 and 65535, inclusive'));
  const path = svc.path;
  if (typeof path === 'string' && path !== '') {
    if (!path.startsWith('/')) errs.push(invalidValue(`${f}.path`, path, "must start with a '/'"));
    else if (
      path !== '/' &&
      path
        .slice(1)
        .split('/')
        .some((seg, i, all) => seg === '' && i !== all.length - 1)
    )
      errs.push(invalidValue(`${f}.path`, path, 'segment must not be empty'));
    else if (/[?#]/.test(path)) errs.push(invalidValue(`${f}.path`, path, 'must be a valid path'));
  }
  return errs;
}

function starAlone(values: unknown[], f: string, what: string): FieldError[] {
  return values.includes('*') && values.length > 1 ? [invalidValue(f, values, `if '*' is present, must not specify other ${what}`)] : [];
}

function validateResources(resources: unknown[], f: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!resources.length) return [required(f)];
  const bySub = new Map<string, Set<string>>();
  for (const raw of resources) {
    const r = String(raw);
    if (!r) {
      errs.push(required(f));
      continue;
    }
    const [res, sub = ''] = r.split('/', 2) as [string, string?];
    const set = bySub.get(res) ?? new Set<string>();
    set.add(sub);
    bySub.set(res, set);
  }
  if (resources.includes('*/*') && resources.length > 1) errs.push(invalidValue(f, resources, "if '*/*' is present, must not specify other resources"));
  // `*` (all resources, no subresources) overlaps any other plain resource.
  if (bySub.get('*')?.has('') && [...bySub.entries()].some(([res, subs]) => res !== '*' && subs.has(''))) {
    errs.push(invalidValue(f, resources, "if '*' is present, must not specify other resources without subresources"));
  }
  for (const [res, subs] of bySub) {
    if (subs.has('*') && subs.size > 1) errs.push(invalidValue(f, resources, `if '${res}/*' is present, must not specify ${res}/<subresource>`));
  }
  return errs;
}

function validateWebhook(w: Record<string, unknown>, i: number, version: WebhookVersion): FieldError[] {
  const f = `webhooks[${i}]`;
  const errs: FieldError[] = [];
  const name = typeof w.name === 'string' ? w.name : '';
  if (!name) errs.push(required(`${f}.name`));
  else if (!validDnsSubdomain(name) || name.split('.').length < 3) errs.push(invalidValue(`${f}.name`, name, 'should be a domain with at least three segments separated by dots'));

  const cc = asObject(w.clientConfig);
  if (!cc) errs.push(required(`${f}.clientConfig`));
  else {
    const hasURL = typeof cc.url === 'string' && cc.url !== '';
    const svc = asObject(cc.service);
    if (hasURL === Boolean(svc)) errs.push(required(`${f}.clientConfig`, 'exactly one of url or service is required'));
    if (hasURL) errs.push(...validateURL(cc.url as string, `${f}.clientConfig.url`));
    if (svc) errs.push(...validateService(svc, `${f}.clientConfig.service`));
  }

  asArray(w.rules).forEach((r, j) => {
    const rule = asObject(r) ?? {};
    const rf = `${f}.rules[${j}]`;
    const ops = asArray(rule.operations);
    if (!ops.length) errs.push(required(`${rf}.operations`));
    errs.push(...starAlone(ops, `${rf}.operations`, 'operations'));
    ops.forEach((op, k) => {
      if (!OPERATIONS.includes(String(op))) errs.push(unsupported(`${rf}.operations[${k}]`, op, OPERATIONS));
    });
    const groups = asArray(rule.apiGroups);
    if (!groups.length) errs.push(required(`${rf}.apiGroups`));
    errs.push(...starAlone(groups, `${rf}.apiGroups`, 'groups'));
    const versions = asArray(rule.apiVersions);
    if (!versions.length) errs.push(required(`${rf}.apiVersions`));
    errs.push(...starAlone(versions, `${rf}.apiVersions`, 'versions'));
    versions.forEach((v, k) => {
      if (v === '') errs.push(required(`${rf}.apiVersions[${k}]`, 'version must not be empty'));
    });
    errs.push(...validateResources(asArray(rule.resources), `${rf}.resources`));
  });

  const timeout = w.timeoutSeconds;
  if (typeof timeout === 'number' && (timeout < 1 || timeout > 30)) errs.push(invalidValue(`${f}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds'));

  const arv = asArray(w.admissionReviewVersions);
  if (version === 'v1' && !arv.length) errs.push(required(`${f}.admissionReviewVersions`, `must specify one of ${SUPPORTED_REVIEW_VERSIONS.join(', ')}`));
  else if (arv.length && !arv.some((v) => SUPPORTED_REVIEW_VERSIONS.includes(String(v)))) {
    errs.push(invalidValue(`${f}.admissionReviewVersions`, arv, `must include at least one of ${SUPPORTED_REVIEW_VERSIONS.join(', ')}`));
  }
  errs.push(...duplicates(`${f}.admissionReviewVersions`, arv));
  errs.push(...validateLabelSelector(w.namespaceSelector, `${f}.namespaceSelector`));
  errs.push(...validateLabelSelector(w.objectSelector, `${f}.objectSelector`));
  if (w.reinvocationPolicy !== undefined && !['Never', 'IfNeeded'].includes(String(w.reinvocationPolicy))) {
    errs.push(unsupported(`${f}.reinvocationPolicy`, w.reinvocationPolicy, ['Never', 'IfNeeded']));
  }
  errs.push(...validateMatchConditions(w.matchConditions, `${f}.matchConditions`));
  return errs;
}

/** The version the object was written in (validation has the external object). */
export function versionOf(o: ApiObject): WebhookVersion {
  return typeof o.apiVersion === 'string' && o.apiVersion.endsWith('/v1beta1') ? 'v1beta1' : 'v1';
}

function nameDuplicates(o: ApiObject): FieldError[] {
  const seen = new Set<string>();
  const errs: FieldError[] = [];
  asArray(o.webhooks).forEach((w, i) => {
    const name = asObject(w)?.name;
    if (typeof name !== 'string' || !name) return;
    if (seen.has(name)) errs.push(duplicate(`webhooks[${i}].name`, name));
    seen.add(name);
  });
  return errs;
}

export function validateConfiguration(o: ApiObject, requireUniqueNames = versionOf(o) === 'v1'): FieldError[] {
  const version = versionOf(o);
  const errs: FieldError[] = [];
  asArray(o.webhooks).forEach((w, i) => errs.push(...validateWebhook(asObject(w) ?? {}, i, version)));
  if (requireUniqueNames) errs.push(...nameDuplicates(o));
  return errs;
}

/** Old objects with duplicate names (written through v1beta1) stay updatable. */
export function validateConfigurationUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  return validateConfiguration(o, versionOf(o) === 'v1' && nameDuplicates(old).length === 0);
}

export function mutatingOnlyCheck(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  asArray(o.webhooks).forEach((w, i) => {
    if (asObject(w)?.reinvocationPolicy !== undefined) errs.push(forbidden(`webhooks[${i}].reinvocationPolicy`, 'only mutating webhooks may set reinvocationPolicy'));
  });
  return errs;
}
