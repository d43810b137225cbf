// Rules shared by controllers that own pods through a selector and a template (replication
// controllers, replica sets, deployments, stateful sets, daemon sets, jobs).

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { TableColumn } from '../../../api/table-column.js';
import { selectorString, templateContainers } from './columns.js';
import { asObject, at } from './field-errors.js';
import { validatePodTemplate } from './pod-spec.js';
import { isEmptySelector, type LabelSelector, selectorMatches, validateLabelSelector } from './selector.js';
import { immutable, invalidValue, required, unsupported } from '../../../api/field-errors.js';
import { jsonEqual } from '../../../patch/json-value.js';

/**
 * `spec.selector` must be present, non-empty and select the template's labels; the template
 * must restart its containers (`Always`) unless the controller runs to completion.
 */
export function validateSelectorAndTemplate(spec: unknown, opts: { restartPolicies?: string[]; kind: string; claimNames?: readonly string[] } = { kind: 'deployment' }): FieldError[] {
  const s = asObject(spec) ?? {};
  const errs: FieldError[] = [];
  const selector = asObject(s.selector) as LabelSelector | undefined;
  if (!selector) errs.push(required('spec.selector'));
  else if (isEmptySelector(selector)) errs.push(invalidValue('spec.selector', selector, `empty selector is invalid for ${opts.kind}`));
  else errs.push(...validateLabelSelector(selector, 'spec.selector'));
  const template = asObject(s.template);
  if (!template) {
    errs.push(required('spec.template'));
    return errs;
  }
  const labels = asObject(asObject(template.metadata)?.labels) as Record<string, string> | undefined;
  if (selector && !isEmptySelector(selector) && !selectorMatches(selector, labels)) {
    errs.push(invalidValue('spec.template.metadata.labels', labels ?? {}, '`selector` does not match template `labels`'));
  }
  errs.push(...validatePodTemplate(template, 'spec.template', opts.claimNames));
  const restart = at(template, 'spec.restartPolicy');
  const allowed = opts.restartPolicies ?? ['Always'];
  if (restart !== undefined && !allowed.includes(String(restart))) errs.push(unsupported('spec.template.spec.restartPolicy', restart, allowed));
  return errs;
}

export function nonNegative(spec: unknown, fields: string[]): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of fields) {
    const v = at(spec, f);
    if (typeof v === 'number' && v < 0) errs.push(invalidValue(`spec.${f}`, v, 'must be greater than or equal to 0'));
  }
  return errs;
}

/** apps/v1 made `spec.selector` immutable. */
export function selectorImmutable(o: ApiObject, old: ApiObject): FieldError[] {
  const now = at(o, 'spec.selector');
  return jsonEqual(now, at(old, 'spec.selector')) ? [] : [immutable('spec.selector', now)];
}

const int = (v: unknown): number => (typeof v === 'number' ? v : 0);

export function countColumn(name: string, path: string, description: string): TableColumn {
  return { name, type: 'integer', description, cell: (o) => int(at(o, path)) };
}

export function wideTemplateColumns(templatePath = 'spec.template'): TableColumn[] {
  return [
    { name: 'Containers', type: 'string', priority: 1, description: 'Names of each container in the template.', cell: (o) => templateContainers(at(o, templatePath)).names },
    { name: 'Images', type: 'string', priority: 1, description: 'Images referenced by each container in the template.', cell: (o) => templateContainers(at(o, templatePath)).images },
    { name: 'Selector', type: 'string', priority: 1, description: 'Label selector of the pods.', cell: (o) => selectorString(at(o, 'spec.selector')) },
  ];
}

/** The scale subresource paths every replicated controller uses. */
export const REPLICAS_SCALE = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' };
