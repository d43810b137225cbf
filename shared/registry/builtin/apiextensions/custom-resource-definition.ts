// CustomResourceDefinitions (apiextensions.platform.io/v1): the type, its v1 defaults, and the
// strategy of upstream's CRD registry. Serving the resources a definition describes, and the
// controllers that accept names and set conditions, live elsewhere; this is the stored object.
// status.storedVersions is kept by the server: every version that was ever the storage version
// stays listed until a storage migration removes it through /status.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { upstreamSpelling } from '../../../api/groups.js';
import { cloneJson } from '../../../patch/json-value.js';
import { setDefault } from '../common/field-errors.js';
import { asJson } from './crd-parts.js';
import { customResourceDefinitionSchema } from './crd-schema.js';
import { validateCustomResourceDefinition, validateCustomResourceDefinitionStatus, validateCustomResourceDefinitionUpdate, type BuiltinGroupCheck } from './crd-validation.js';
import { checkSchemaShape, isNode, pruneSchemaProps } from './schema-props.js';

export const APIEXTENSIONS_GROUP = 'apiextensions.platform.io';

type Json = Record<string, unknown>;

function versionsOf(o: ApiObject): Json[] {
  const versions = asJson(o.spec)?.versions;
  return Array.isArray(versions) ? versions.map((v) => asJson(v) ?? {}) : [];
}

function storageVersion(o: ApiObject): string | undefined {
  const v = versionsOf(o).find((x) => x.storage === true);
  return typeof v?.name === 'string' ? v.name : undefined;
}

function openAPISchemas(o: ApiObject): Array<{ schema: Json; path: string }> {
  return versionsOf(o).flatMap((v, i) => {
    const schema = asJson(v.schema)?.openAPIV3Schema;
    return isNode(schema) ? [{ schema, path: `spec.versions[${i}].schema.openAPIV3Schema` }] : [];
  });
}

/** v1 defaulting (upstream's SetDefaults_CustomResourceDefinition), and decoding's part: schemas keep only JSONSchemaProps' fields. */
function defaults(o: ApiObject): void {
  const spec = asJson(o.spec);
  if (!spec) return;
  const names = asJson(spec.names);
  if (names && typeof names.kind === 'string') {
    if (!names.singular) names.singular = names.kind.toLowerCase();
    if (!names.listKind && names.kind) names.listKind = `${names.kind}List`;
  }
  setDefault(spec, 'conversion', { strategy: 'None' });
  const service = asJson(asJson(asJson(asJson(spec.conversion)?.webhook)?.clientConfig)?.service);
  if (service) setDefault(service, 'port', 443);
  for (const { schema } of openAPISchemas(o)) pruneSchemaProps(schema);
  const storage = storageVersion(o);
  const status = asJson(o.status);
  if (storage && !(Array.isArray(status?.storedVersions) && status.storedVersions.length > 0)) o.status = { ...(status ?? {}), storedVersions: [storage] };
}

/** The storage version joins status.storedVersions (objects are about to be written in it). */
function withStorageVersion(o: ApiObject, status: Json): Json {
  const storage = storageVersion(o);
  const stored = Array.isArray(status.storedVersions) ? [...(status.storedVersions as unknown[])] : [];
  if (storage && !stored.includes(storage)) stored.push(storage);
  return stored.length ? { ...status, storedVersions: stored } : status;
}

/** JSON of the wrong type inside a schema: upstream refuses it while decoding, before any rule. */
function shapeErrors(o: ApiObject): FieldError[] {
  return openAPISchemas(o).flatMap(({ schema, path }) => checkSchemaShape(schema, path));
}

function builtinGroupCheck(types: () => readonly ResourceType[]): BuiltinGroupCheck {
  let groups: Set<string> | undefined;
  return (group) => {
    groups ??= new Set(types().flatMap((t) => [t.group, upstreamSpelling(t.group) ?? t.group]));
    return groups.has(group);
  };
}

/**
 * The type. `builtinTypes` lists the server's built-in types (read at the first validation): a
 * definition may not take one of their groups, in either spelling.
 */
export function customResourceDefinitions(builtinTypes: () => readonly ResourceType[]): ResourceType {
  const isBuiltinGroup = builtinGroupCheck(builtinTypes);
  return {
    group: APIEXTENSIONS_GROUP,
    versions: [{ name: 'v1', schema: customResourceDefinitionSchema }],
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    singular: 'customresourcedefinition',
    scope: 'Cluster',
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    subresources: { status: true },
    strategy: {
      defaults,
      prepareForCreate(o) {
        o.status = withStorageVersion(o, {});
      },
      prepareForUpdate(o, old) {
        // The generic update kept the stored status (the same object as old's): copy before adding.
        o.status = withStorageVersion(o, cloneJson(asJson(old.status) ?? {}));
      },
      validate(o) {
        const shape = shapeErrors(o);
        return shape.length ? shape : validateCustomResourceDefinition(o, isBuiltinGroup);
      },
      validateUpdate(o, old) {
        const shape = shapeErrors(o);
        return shape.length ? shape : validateCustomResourceDefinitionUpdate(o, old, isBuiltinGroup);
      },
      subresources: {
        status: { prepareForUpdate: (o) => o, validateUpdate: (o) => validateCustomResourceDefinitionStatus(o) },
      },
    },
  };
}
