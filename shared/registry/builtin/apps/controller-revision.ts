// ControllerRevisions: immutable snapshots of a controller's template, for rollbacks.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';

import { anyValue, described, int64, obj } from '../common/schema.js';
import { immutableFields, updateValidation } from '../common/strategy.js';
import { invalidValue } from '../../../api/field-errors.js';

const schema = described(
  obj({ data: anyValue, revision: int64 }, ['revision']),
  {
    data: 'The snapshot: the part of the owner that the revision records, such as a patch holding its pod template. Kept as written; cannot be changed.',
    revision: 'Number of the revision, higher for later revisions of the same owner; at least 0. Required.',
  },
  'A snapshot of the template of a controller (a daemon set or stateful set), written by the controller on each change so that it can roll back to it. Its data cannot change; its owner reference names the controller.',
);

function validate(o: ApiObject): FieldError[] {
  return typeof o.revision === 'number' && o.revision < 0 ? [invalidValue('revision', o.revision, 'must be greater than or equal to 0')] : [];
}

function controllerCell(o: ApiObject): string {
  const owner = (o.metadata.ownerReferences ?? []).find((r) => r.controller);
  if (!owner) return '<none>';
  const group = owner.apiVersion.includes('/') ? owner.apiVersion.split('/')[0]! : '';
  return `${owner.kind.toLowerCase()}${group ? `.${group}` : ''}/${owner.name}`;
}

export const controllerrevisions: ResourceType = {
  group: 'apps',
  versions: [{ name: 'v1', schema }],
  kind: 'ControllerRevision',
  plural: 'controllerrevisions',
  singular: 'controllerrevision',
  scope: 'Namespaced',
  generation: false,
  columns: [
    { name: 'Controller', type: 'string', description: 'Controller of the object', cell: controllerCell },
    { name: 'Revision', type: 'integer', description: 'Revision of the ControllerRevision', cell: (o) => o.revision ?? 0 },
    ageColumn,
  ],
  strategy: {
    validate,
    validateUpdate: updateValidation(validate, (o, old) => immutableFields(o, old, ['data'])),
  },
};
