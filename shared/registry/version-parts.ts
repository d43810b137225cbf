// What of a type may differ between its versions, resolved for one version: the subresources, the
// table columns and the field selectors. A CustomResourceDefinition gives each version its own
// (upstream's per-version `subresources`, `additionalPrinterColumns` and `selectableFields`); built-in types declare one set on the type, which
// every version shares. Whatever acts on a request asks with the request's version.

import type { TableColumn } from '../api/table-column.js';
import type { ResourceType, Subresources, VersionDef } from './types.js';

/** The subresources of `version` (the type's when the version names none, or when no version is given). */
export function versionSubresources(type: ResourceType, version: VersionDef | undefined): Subresources | undefined {
  return version?.subresources ?? type.subresources;
}

/** The extra table columns of `version` (the type's when the version names none). */
export function versionColumns(type: ResourceType, version: VersionDef | undefined): TableColumn[] | undefined {
  return version?.columns ?? type.columns;
}

/** The field selectors beyond metadata.name and metadata.namespace of `version` (the type's when the version names none). */
export function versionFieldSelectors(type: ResourceType, version: VersionDef | undefined): ResourceType['fieldSelectors'] {
  return version?.fieldSelectors ?? type.fieldSelectors;
}

/** Whether writes through `version` have a `/status` of their own, so that the main resource leaves status alone. */
export function hasStatusSubresource(type: ResourceType, version: VersionDef | undefined): boolean {
  return Boolean(versionSubresources(type, version)?.status);
}

/** Every subresources declaration of the type, its own and its versions' (for checks that hold whatever the version). */
export function allSubresources(type: ResourceType): Subresources[] {
  const all = type.subresources ? [type.subresources] : [];
  for (const v of type.versions) if (v.subresources) all.push(v.subresources);
  return all;
}
