// The object filter of a list, watch or deletecollection: namespace, label selector and field
// selector, checked against the fields the type supports.

import type { ApiObject } from '../../../shared/api/types.js';
import { badRequest } from '../../../shared/api/status.js';
import { parseLabelSelector } from '../../../shared/api/labels.js';
import { parseFieldSelector } from '../../../shared/api/fields.js';
import type { Target } from '../../../shared/registry/types.js';
import { versionFieldSelectors } from '../../../shared/registry/version-parts.js';

export type ObjectFilter = (o: ApiObject) => boolean;

/** The filter, or undefined when every object of the type passes. Unsupported fields are 400. */
export function objectFilter(t: Target, namespace: string | undefined, labelSelector: string | undefined, fieldSelector: string | undefined): ObjectFilter | undefined {
  const labels = labelSelector ? parseLabelSelector(labelSelector) : undefined;
  const fields = fieldSelector ? parseFieldSelector(fieldSelector) : undefined;
  // The request's version's fields: a definition's versions may each select by other fields.
  const getters = versionFieldSelectors(t.type, t.served.version) ?? {};
  if (fields) {
    for (const r of fields.requirements) {
      if (r.field !== 'metadata.name' && r.field !== 'metadata.namespace' && !Object.hasOwn(getters, r.field)) {
        throw badRequest(`field label not supported: ${r.field}`);
      }
    }
  }
  const useLabels = labels && !labels.empty ? labels : undefined;
  const useFields = fields && !fields.empty ? fields : undefined;
  if (!namespace && !useLabels && !useFields) return undefined;
  return (o: ApiObject) => {
    if (namespace && o.metadata.namespace !== namespace) return false;
    if (useLabels && !useLabels.matches(o.metadata.labels)) return false;
    if (useFields) {
      return useFields.matches((f: string) => {
        if (f === 'metadata.name') return o.metadata.name;
        if (f === 'metadata.namespace') return o.metadata.namespace ?? '';
        return getters[f]?.(o);
      });
    }
    return true;
  };
}
