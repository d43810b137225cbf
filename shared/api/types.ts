// The generic object shapes the services pass around. Typed loosely on purpose: schemas live in
// the registry, and every service treats objects as JSON documents.

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: unknown[];
  [k: string]: unknown;
}

export interface ApiObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [k: string]: unknown;
}

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** Identifies one stored object. `namespace` is absent for cluster-scoped resources. */
export interface ObjectRef {
  group: string;
  resource: string;
  namespace?: string;
  name: string;
}

/** Name rules per type (upstream ValidateObjectMeta name functions). */
export type NameRule = 'dns-subdomain' | 'dns-label' | 'path-segment';

/** A JSON Schema (draft-07 subset that is also valid OpenAPI v2/v3): type, properties, required,
 *  items, additionalProperties, enum, format, minimum/maximum, minLength/maxLength, pattern,
 *  minItems/maxItems, description, and `x-kubernetes-*` markers (list-type, list-map-keys,
 *  patch-merge-key, patch-strategy, int-or-string, preserve-unknown-fields, embedded-resource). */
export type JsonSchema = Record<string, unknown>;
