// Write throughput: creates straight into a KV bucket (the raw limit: what JetStream on this
// machine can take at this concurrency) versus ConfigMap creates through the gateway, which adds
// HTTPS, authn/authz (cached), decoding, defaults/validation, two admission round trips and the
// storage service's round trip in front of the very same KV create.

import { Kvm, type KV } from '@nats-io/kv';
import { StorageType } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { MAX_VALUE_BYTES } from '../shared/store/kv-bucket.js';
import type { HttpClient } from './http.js';
import type { Operation } from './load.js';
import { configMapBody, configMapKey, storedConfigMap } from './objects.js';

const encoder = new TextEncoder();

/**
 * Raw KV creates on the same NATS, into a scratch bucket configured like the object bucket
 * (history 1, file storage): the same JetStream work without disturbing the gateway's cache.
 * Call `close` to delete the bucket.
 */
export async function rawKvCreateOp(nc: NatsConnection): Promise<{ op: Operation; close(): Promise<unknown> }> {
  const kv: KV = await new Kvm(nc).create('bench-raw', { history: 1, storage: StorageType.File, replicas: 1, maxValueSize: MAX_VALUE_BYTES });
  const op: Operation = async (_w, seq) => {
    const name = `raw-${seq}`;
    // Encoding is part of the storage service's work too, so it stays inside the loop.
    await kv.create(configMapKey('bench-raw', name), encoder.encode(JSON.stringify(storedConfigMap('bench-raw', name))));
  };
  return { op, close: () => kv.destroy() };
}

/**
 * Creates, updates and deletes of ConfigMaps over HTTPS, the same requests for the gateway and for
 * the minimal write server. Creates POST a fresh name each time and remember it; updates PUT a
 * worker's own object with the resourceVersion of its last write (so they measure the write path,
 * not lost races); deletes take the names creates left behind and those handed to `stock`. Anything
 * but the expected status is an error.
 */
export function configMapWrites(
  client: HttpClient,
  namespace: string,
  prefix: string,
): { create: Operation; update: Operation; remove: Operation; prepareUpdates(workers: number): Promise<void>; stock(names: string[]): void } {
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  const created: string[] = [];
  const current = new Map<number, Record<string, any>>();
  return {
    async create(_w, seq) {
      const name = `${prefix}-${seq}`;
      const res = await client.request('POST', path, Buffer.from(JSON.stringify(configMapBody(namespace, name))));
      if (res.status !== 201) throw new Error(`POST ${path} → ${res.status}: ${res.body.toString().slice(0, 300)}`);
      created.push(name);
    },
    async prepareUpdates(workers) {
      for (let w = 0; w < workers; w++) current.set(w, (await client.json('POST', path, configMapBody(namespace, `${prefix}-upd-${w}`), [201])) as Record<string, any>);
    },
    async update(w, seq) {
      const object = current.get(w)!;
      object.data['log-level'] = `debug-${seq}`;
      const res = await client.request('PUT', `${path}/${object.metadata.name}`, Buffer.from(JSON.stringify(object)));
      if (res.status !== 200) throw new Error(`PUT ${path}/${object.metadata.name} → ${res.status}: ${res.body.toString().slice(0, 300)}`);
      current.set(w, JSON.parse(res.body.toString()));
    },
    stock(names) {
      created.push(...names);
    },
    async remove() {
      const name = created.pop();
      if (name === undefined) throw new Error(`DELETE: no object left that creates made (${prefix})`);
      const res = await client.request('DELETE', `${path}/${name}`);
      if (res.status !== 200) throw new Error(`DELETE ${path}/${name} → ${res.status}: ${res.body.toString().slice(0, 300)}`);
    },
  };
}

/**
 * Puts `count` ConfigMaps into the object bucket directly, encoded as the storage service would
 * (its key codec, server-owned metadata set). Seeding is not what is measured; going around the
 * gateway keeps it to a couple of seconds. The gateway's watch cache picks them up like any write.
 */
export async function seedConfigMaps(nc: NatsConnection, bucket: string, namespace: string, count: number, nameOf: (i: number) => string = seedName): Promise<void> {
  const kv = await new Kvm(nc).open(bucket);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const name = nameOf(i);
      await kv.create(configMapKey(namespace, name), encoder.encode(JSON.stringify(storedConfigMap(namespace, name))));
    }
  };
  await Promise.all(Array.from({ length: 128 }, worker));
}

export function seedName(i: number): string {
  return `cm-${String(i).padStart(5, '0')}`;
}

function deploymentBody(namespace: string, name: string): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, annotations: { seq: '0' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'registry.example/web:1', ports: [{ containerPort: 8080 }] }] } },
    },
  };
}

/** One Deployment per worker, so patches measure the write path rather than lost races. */
export async function createDeployments(client: HttpClient, namespace: string, workers: number): Promise<void> {
  for (let w = 0; w < workers; w++) await client.json('POST', `/apis/apps/v1/namespaces/${namespace}/deployments`, deploymentBody(namespace, `dep-${w}`), [201]);
}

/**
 * The same change to a worker's Deployment (its `seq` annotation) as a JSON merge patch, or as a
 * server-side apply of the whole configuration by one field manager, forced (as controllers apply: the
 * interleaved merge patches take the field over each time).
 */
export function deploymentPatchOp(client: HttpClient, namespace: string, kind: 'merge' | 'apply'): Operation {
  return async (w, seq) => {
    const name = `dep-${w}`;
    const path = `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`;
    let body: unknown;
    if (kind === 'merge') body = { metadata: { annotations: { seq: String(seq) } } };
    else {
      const full = deploymentBody(namespace, name);
      (full.metadata as { annotations: Record<string, string> }).annotations.seq = String(seq);
      body = full;
    }
    const res = await client.request('PATCH', kind === 'merge' ? path : `${path}?fieldManager=bench&force=true`, Buffer.from(JSON.stringify(body)), {
      contentType: kind === 'merge' ? 'application/merge-patch+json' : 'application/apply-patch+yaml',
    });
    if (res.status !== 200) throw new Error(`PATCH ${path} (${kind}) → ${res.status}: ${res.body.toString().slice(0, 300)}`);
  };
}
