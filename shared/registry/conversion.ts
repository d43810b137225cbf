// Conversion between the versions of a type. Every version converts through the type's storage
// version (the hub): a request's object is converted to it before it is stored, a stored object
// from it before it is served. Versions with the hub's shape need nothing; the others declare
// `toHub`/`fromHub` (types.ts).

import type { ApiObject } from '../api/types.js';
import type { ResourceType, VersionDef } from './types.js';

/** The version objects of the type are stored in: the declared one, else the first listed. */
export function storageVersionOf(type: ResourceType): string {
  return type.storageVersion ?? type.versions[0]?.name ?? '';
}

/** The hub form of an object in `version`, for rules written against the hub (validation); the object itself when the shapes agree. */
export function hubForm(version: VersionDef, obj: ApiObject): ApiObject {
  return version.toHub ? version.toHub(obj) : obj;
}
