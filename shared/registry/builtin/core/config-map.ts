// ConfigMaps: non-secret configuration as string (`data`) and binary (`binaryData`) entries.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asObject } from '../common/field-errors.js';
import { bool, bytesMap, described, obj, strMap } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { configKeyErrors, decodedLength, immutableDataErrors, sizeError } from './data-rules.js';
import { invalidValue } from '../../../api/field-errors.js';

const schema = described(
  obj({ data: strMap, binaryData: bytesMap, immutable: bool }),
  {
    data: 'Text entries. Keys consist of letters, digits, `-`, `_` and `.`, and may not appear in binaryData too.',
    binaryData: 'Binary entries, base64-encoded in JSON. Keys follow the rules of data. Together with data at most 1 MiB.',
    immutable: 'When true, data and binaryData can no longer be changed, and immutable cannot be set back: only deleting the object remains. Defaults to false.',
  },
  'Configuration that is not secret, as key/value entries that pods read as environment variables, command arguments or files of a volume.',
);

function validateConfigMap(o: ApiObject): FieldError[] {
  const data = asObject(o.data) ?? {};
  const binary = asObject(o.binaryData) ?? {};
  const errs = [...configKeyErrors('data', data), ...configKeyErrors('binaryData', binary)];
  let total = 0;
  for (const [k, v] of Object.entries(data)) {
    if (typeof v === 'string') total += Buffer.byteLength(v);
    if (Object.hasOwn(binary, k)) errs.push(invalidValue('data', k, 'duplicate of key present in binaryData'));
  }
  for (const v of Object.values(binary)) if (typeof v === 'string') total += decodedLength(v);
  errs.push(...sizeError('', total));
  return errs;
}

export const configmaps: ResourceType = {
  group: '',
  versions: [{ name: 'v1', schema }],
  kind: 'ConfigMap',
  plural: 'configmaps',
  singular: 'configmap',
  scope: 'Namespaced',
  shortNames: ['cm'],
  generation: false,
  columns: [
    { name: 'Data', type: 'integer', description: 'Number of data entries', cell: (o) => Object.keys(asObject(o.data) ?? {}).length + Object.keys(asObject(o.binaryData) ?? {}).length },
    ageColumn,
  ],
  strategy: {
    validate: validateConfigMap,
    validateUpdate: updateValidation(validateConfigMap, (o, old) => immutableDataErrors(o, old, ['data', 'binaryData'])),
  },
};
