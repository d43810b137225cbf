// LimitRanges: per-namespace bounds and defaults for container, pod and claim resources.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { asArray, asObject, ensureObject } from '../common/field-errors.js';
import { atomicList, obj, quantityMap, str } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { required } from '../../../api/field-errors.js';

const limitItem = obj(
  { type: str, max: quantityMap, min: quantityMap, default: quantityMap, defaultRequest: quantityMap, maxLimitRequestRatio: quantityMap },
  ['type'],
);

const schema = obj({ spec: obj({ limits: atomicList(limitItem) }, ['limits']) }, ['spec']);

function validateLimitRange(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  asArray(asObject(o.spec)?.limits).forEach((l, i) => {
    const item = asObject(l) ?? {};
    if (typeof item.type !== 'string' || !item.type) errs.push(required(`spec.limits[${i}].type`));
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
  shortNames: ['limits'],
  strategy: {
    defaults(o) {
      // A container limit with a max but no default gets the max as default, and requests
      // default to the limit default, as upstream does.
      for (const l of asArray(asObject(o.spec)?.limits)) {
        const item = asObject(l);
        if (!item || item.type !== 'Container') continue;
        const max = asObject(item.max) ?? {};
        const def = Object.keys(max).length ? ensureObject(item, 'default') : asObject(item.default);
        if (def) for (const [k, v] of Object.entries(max)) if (def[k] === undefined) def[k] = v;
        const defReq = def && Object.keys(def).length ? ensureObject(item, 'defaultRequest') : undefined;
        if (defReq && def) for (const [k, v] of Object.entries(def)) if (defReq[k] === undefined) defReq[k] = v;
      }
    },
    validate: validateLimitRange,
    validateUpdate: updateValidation(validateLimitRange),
  },
};
