// Shared by the token tests: keys generated per run (never checked in) and the objects the
// lookups read, fed into the real in-memory index the way the object feed feeds it.

import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import type { ApiObject } from '../../../shared/api/types.js';
import { createAuthnObjectIndex, type AuthnObjectIndex } from '../objects.js';

export interface KeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export const rsaKey = (): KeyPair => generateKeyPairSync('rsa', { modulusLength: 2048 });
export const ecKey = (namedCurve: 'P-256' | 'P-384' | 'P-521' = 'P-256'): KeyPair => generateKeyPairSync('ec', { namedCurve });

export const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

export type Kind = 'serviceaccounts' | 'pods' | 'secrets';

/** An index that is synced and holds what `put` gives it; there is no live read behind it. */
export function memoryObjects(): AuthnObjectIndex & {
  put(resource: Kind, o: ApiObject): void;
  remove(resource: Kind, namespace: string, name: string): void;
} {
  const index = createAuthnObjectIndex();
  index.markSynced();
  let revision = 0;
  const put = (resource: Kind, o: ApiObject) => {
    const ref = { group: '', resource, namespace: o.metadata.namespace!, name: o.metadata.name! };
    index.apply({ key: `core.${resource}.${ref.namespace}.${ref.name}`, ref, revision: ++revision, object: structuredClone(o) });
  };
  const remove = (resource: Kind, namespace: string, name: string) => {
    index.apply({ key: `core.${resource}.${namespace}.${name}`, ref: { group: '', resource, namespace, name }, revision: ++revision, object: null });
  };
  return Object.assign(index, { put, remove });
}

export function serviceAccount(namespace: string, name: string, uid = randomUUID()): ApiObject {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { namespace, name, uid } };
}

export function pod(namespace: string, name: string, uid = randomUUID()): ApiObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { namespace, name, uid }, spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox' }] } };
}

export function opaqueSecret(namespace: string, name: string, uid = randomUUID()): ApiObject {
  return { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { namespace, name, uid }, data: { k: b64('v') } };
}

export function tokenSecret(namespace: string, name: string, sa: ApiObject, token: string): ApiObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'platform.io/service-account-token',
    metadata: {
      namespace,
      name,
      uid: randomUUID(),
      annotations: { 'platform.io/service-account.name': sa.metadata.name!, 'platform.io/service-account.uid': sa.metadata.uid! },
    },
    data: { token: b64(token), namespace: b64(namespace), 'ca.crt': b64('-----BEGIN CERTIFICATE-----\n') },
  };
}

export function bootstrapSecret(id: string, secret: string, data: Record<string, string> = {}, meta: Partial<ApiObject['metadata']> = {}): ApiObject {
  const plain: Record<string, string> = { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-authentication': 'true', ...data };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'bootstrap.platform.io/token',
    metadata: { namespace: 'platform-system', name: `bootstrap-token-${id}`, uid: randomUUID(), ...meta },
    data: Object.fromEntries(Object.entries(plain).map(([k, v]) => [k, b64(v)])),
  };
}
