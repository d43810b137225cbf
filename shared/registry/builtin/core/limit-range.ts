// LimitRanges: per-namespace bounds and defaults for container, pod and claim resources.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { asArray, asObject, ensureObject } from '../common/field-errors.js';
import { atomicList, described, obj, quantityMap, str } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { duplicate, forbidden, invalidValue, required } from '../../../api/field-errors.js';
import { qualifiedNameProblems } from '../../../api/validation.js';
import { MAX_MILLI_VALUE, parseQuantity, type Quantity } from '../../../api/quantity.js';
import { sortedResourceEntries, validateContainerResourceName, validateResourceName } from './resource-names.js';

const limitItem = described(
  obj({ type: str, max: quantityMap, min: quantityMap, default: quantityMap, defaultRequest: quantityMap, maxLimitRequestRatio: quantityMap }, ['type']),
  {
    type: 'What the item bounds: Container (each container of a pod), Pod (the sum over the containers of a pod), PersistentVolumeClaim (the storage of a claim), or a custom type named by a qualified name with a prefix. Each type appears once.',
    max: 'Most of each resource, by resource name, that one object of the type may ask for, as a limit (or, for claims, as a storage request). For a Container item it is also the default limit when default omits the resource.',
    min: 'Least of each resource, by resource name, that one object of the type must ask for, as a request. For a Container item it is also the default request when neither defaultRequest nor default names the resource.',
    default: 'Limits given to containers that set none for a resource. Only for Container items (not Pod); the server fills it from max when omitted. Must lie between min and max.',
    defaultRequest: 'Requests given to containers that set none for a resource. Only for Container items (not Pod); the server fills it from default, else from min. May not exceed default.',
    maxLimitRequestRatio: 'Largest ratio of limit to request allowed for each resource, at least 1: a container asking for 100m cpu with a ratio of 4 may have a limit of at most 400m.',
  },
  'Bounds and defaults for one type of object.',
);

const schema = described(
  obj(
    {
      spec: described(obj({ limits: atomicList(limitItem) }, ['limits']), { limits: 'The bounds, one item per type of object.' }, 'The bounds and defaults the LimitRange sets.'),
    },
    ['spec'],
  ),
  { spec: 'The bounds and defaults the LimitRange sets.' },
  'Per-namespace bounds and defaults for the resources of containers, pods and claims. The LimitRanger admission plugin fills in missing requests and limits of new pods from it, and rejects pods and claims that fall outside its bounds.',
);

const STANDARD_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];

function validateTypeName(value: string, field: string): FieldError[] {
  const problems = qualifiedNameProblems(value);
  if (problems.length) return problems.map((p) => invalidValue(field, value, p));
  if (!value.includes('/') && !STANDARD_TYPES.includes(value)) return [invalidValue(field, value, 'must be a standard limit type or fully qualified')];
  return [];
}

/** Pod and Container limits name container resources; other types any resource (claims: storage). */
function validateLimitResourceName(type: string, name: string, field: string): FieldError[] {
  return type === 'Pod' || type === 'Container' ? validateContainerResourceName(name, field) : validateResourceName(name, field);
}

/** Native resources other than hugepages may be overcommitted; for the rest default limit and request must agree. */
function overcommitAllowed(name: string): boolean {
  const native = !name.includes('/') || name.includes('platform.io/') || name.includes('kubernetes.io/');
  return native && !name.startsWith('hugepages-');
}

const fmt = (q: Quantity) => q.toString();

function validateLimitRange(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  asArray(asObject(o.spec)?.limits).forEach((l, i) => {
    const at = `spec.limits[${i}]`;
    const item = asObject(l) ?? {};
    const type = typeof item.type === 'string' ? item.type : '';
    if (!type) errs.push(required(`${at}.type`));
    else errs.push(...validateTypeName(type, `${at}.type`));
    if (seen.has(type)) errs.push(duplicate(`${at}.type`, type));
    seen.add(type);

    const maps: Record<string, Map<string, Quantity>> = {};
    const read = (field: string) => {
      const m = new Map<string, Quantity>();
      for (const [k, v] of sortedResourceEntries(item[field])) {
        errs.push(...validateLimitResourceName(type, k, `${at}.${field}[${k}]`));
        const q = parseQuantity(v);
        if (q) m.set(k, q);
      }
      maps[field] = m;
    };
    read('max');
    read('min');
    if (type === 'Pod') {
      if (Object.keys(asObject(item.default) ?? {}).length) errs.push(forbidden(`${at}.default`, "may not be specified when `type` is 'Pod'"));
      if (Object.keys(asObject(item.defaultRequest) ?? {}).length) errs.push(forbidden(`${at}.defaultRequest`, "may not be specified when `type` is 'Pod'"));
      maps.default = new Map();
      maps.defaultRequest = new Map();
    } else {
      read('default');
      read('defaultRequest');
    }
    if (type === 'PersistentVolumeClaim' && !maps.min!.has('storage') && !maps.max!.has('storage')) {
      errs.push(required(`${at}.limits`, 'either minimum or maximum storage value is required, but neither was provided'));
    }
    read('maxLimitRequestRatio');

    const keys = new Set(Object.values(maps).flatMap((m) => [...m.keys()]));
    for (const k of [...keys].sort()) {
      const min = maps.min!.get(k);
      const max = maps.max!.get(k);
      const def = maps.default!.get(k);
      const defReq = maps.defaultRequest!.get(k);
      const ratio = maps.maxLimitRequestRatio!.get(k);
      if (min && max && min.cmp(max) > 0) errs.push(invalidValue(`${at}.min[${k}]`, fmt(min), `min value ${fmt(min)} is greater than max value ${fmt(max)}`));
      if (defReq && min && min.cmp(defReq) > 0) errs.push(invalidValue(`${at}.defaultRequest[${k}]`, fmt(defReq), `min value ${fmt(min)} is greater than default request value ${fmt(defReq)}`));
      if (defReq && max && defReq.cmp(max) > 0) errs.push(invalidValue(`${at}.defaultRequest[${k}]`, fmt(defReq), `default request value ${fmt(defReq)} is greater than max value ${fmt(max)}`));
      if (defReq && def && defReq.cmp(def) > 0)
        errs.push(invalidValue(`${at}.defaultRequest[${k}]`, fmt(defReq), `default request value ${fmt(defReq)} is greater than default limit value ${fmt(def)}`));
      if (def && min && min.cmp(def) > 0) errs.push(invalidValue(`${at}.default[${k}]`, fmt(min), `min value ${fmt(min)} is greater than default value ${fmt(def)}`));
      if (def && max && def.cmp(max) > 0) errs.push(invalidValue(`${at}.default[${k}]`, fmt(max), `default value ${fmt(def)} is greater than max value ${fmt(max)}`));
      if (ratio && ratio.milliValue() < 1000n) errs.push(invalidValue(`${at}.maxLimitRequestRatio[${k}]`, fmt(ratio), `ratio ${fmt(ratio)} is less than 1`));
      if (ratio && min && max) {
        const milli = ratio.value() < MAX_MILLI_VALUE && min.value() < MAX_MILLI_VALUE && max.value() < MAX_MILLI_VALUE;
        const r = milli ? Number(ratio.milliValue()) / 1000 : Number(ratio.value());
        const limit = milli ? Number(max.milliValue()) / Number(min.milliValue()) : Number(max.value()) / Number(min.value());
        if (r > limit) errs.push(invalidValue(`${at}.maxLimitRequestRatio[${k}]`, fmt(ratio), `ratio ${fmt(ratio)} is greater than max/min = ${limit.toFixed(6)}`));
      }
      if (!overcommitAllowed(k) && def && defReq && def.cmp(defReq) !== 0) {
        errs.push(invalidValue(`${at}.defaultRequest[${k}]`, fmt(defReq), `default value ${fmt(def)} must equal to defaultRequest value ${fmt(defReq)} in ${k}`));
      }
    }
  });
  return errs;
}

export const limitranges: ResourceType = {
  group: '',
  versions: [{ name: 'v1', schema }],
  kind: 'LimitRange',
  plural: 'limitranges',
  singular: 'limitrange',
  scope: 'Namespaced',
  createOnUpdate: true,
  shortNames: ['limits'],
  strategy: {
    defaults(o) {
      // Upstream's SetDefaults_LimitRangeItem, for Container items: a default limit from max,
      // then a default request from the default limit, else from min.
      for (const l of asArray(asObject(o.spec)?.limits)) {
        const item = asObject(l);
        if (!item || item.type !== 'Container') continue;
        const max = asObject(item.max) ?? {};
        const min = asObject(item.min) ?? {};
        const fill = (field: string, from: Record<string, unknown>[]) => {
          const missing = from.flatMap((src) => Object.entries(src)).filter(([k]) => asObject(item[field])?.[k] === undefined);
          if (!missing.length) return;
          const target = ensureObject(item, field);
          for (const [k, v] of missing) if (target[k] === undefined) target[k] = v;
        };
        fill('default', [max]);
        fill('defaultRequest', [asObject(item.default) ?? {}, min]);
      }
    },
    validate: validateLimitRange,
    validateUpdate: updateValidation(validateLimitRange),
  },
};
