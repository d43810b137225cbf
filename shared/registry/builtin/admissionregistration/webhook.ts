// Schemas, defaults and validation of admission webhook configurations, per version and per
// kind (mutating webhooks add `reinvocationPolicy`). v1 tightened v1beta1: required
// sideEffects/admissionReviewVersions, unique names, and safer defaults.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject, JsonSchema } from '../../../api/types.js';
import type { VersionDef } from '../../types.js';
import { asArray, asObject, duplicates, setDefault } from '../common/field-errors.js';
import { labelSelector } from '../common/meta.js';
import { validateLabelSelector } from '../common/selector.js';
import { atomicList, bytes, int32, mapList, mergeList, obj, str, strEnum } from '../common/schema.js';
import { duplicate, forbidden, invalidValue, required, unsupported } from '../../../api/field-errors.js';
import { validDnsSubdomain } from '../../../api/validation.js';
import { cloneJson } from '../../../patch/json-value.js';

export const ADMISSION_GROUP = 'admissionregistration.platform.io';
export const SUPPORTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];
const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT', '*'];

export type WebhookKind = 'mutating' | 'validating';
export type WebhookVersion = 'v1' | 'v1beta1';

const ruleWithOperations = obj({
  operations: atomicList(strEnum(...OPERATIONS)),
  apiGroups: atomicList(str),
  apiVersions: atomicList(str),
  resources: atomicList(str),
  scope: strEnum('Cluster', 'Namespaced', '*'),
});

const clientConfig = obj({
  url: str,
  service: obj({ namespace: str, name: str, path: str, port: int32 }, ['namespace', 'name']),
  caBundle: { ...bytes, 'x-kubernetes-list-type': 'atomic' },
});

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
    matchConditions: mapList(obj({ name: str, expression: str }, ['name', 'expression']), ['name']),
  };
  if (kind === 'mutating') props.reinvocationPolicy = strEnum('Never', 'IfNeeded');
  const required = version === 'v1' ? ['name', 'clientConfig', 'sideEffects', 'admissionReviewVersions'] : ['name', 'clientConfig'];
  return obj(props, required);
}

export function configurationSchema(kind: WebhookKind, version: WebhookVersion): JsonSchema {
  const item = webhookSchema(kind, version);
  // v1 made names unique, so apply can key the list by name.
  return obj({ webhooks: version === 'v1' ? mapList(item, ['name']) : mergeList(item, 'name') });
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
