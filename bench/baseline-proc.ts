// The raw limits of an HTTPS server on this machine, with the gateway's TLS material (same
// certificate, key and Node TLS defaults):
//  - a read: a bare fastify GET route returning a ConfigMap-shaped object. Everything the gateway
//    does beyond this (request parsing, authn/authz cache lookups, the watch cache, metrics) is what
//    the GET ratio measures.
//  - writes: the minimal write server, the honest floor of any API server on this stack. POST parses
//    the JSON body, sets uid and creationTimestamp, creates the key in a KV bucket configured like
//    the object bucket and answers 201 with the object; PUT replaces it with a compare-and-swap on
//    the resourceVersion it carries (409 on a stale one); DELETE reads it, deletes it at that
//    revision and answers 200 with it. No authentication, admission, defaulting or validation.
//  - watch fan-out: GET on the collection with watch=true holds the response; each POST, once its
//    create is acknowledged, writes the ADDED event to every held watch as one HTTP chunk, framed
//    and encoded once, straight to each socket (the cheapest delivery there is; no KV watch hop).
// Prints "listening <port>".
//
//   node --import tsx bench/baseline-proc.ts --cert serving.crt --key serving.key --nats-url nats://… --bucket bench-minimal

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { ServerResponse } from 'node:http';
import Fastify from 'fastify';
import { connectBus } from '../shared/bus/connect.js';
import { openObjectBucket } from '../shared/store/kv-bucket.js';
import { configMapKey, storedConfigMap } from './objects.js';

type Obj = { metadata: Record<string, unknown> } & Record<string, unknown>;
type Params = { namespace: string; name?: string };

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { cert: { type: 'string' }, key: { type: 'string' }, 'nats-url': { type: 'string' }, bucket: { type: 'string' } } });
  const app = Fastify({ logger: false, https: { cert: readFileSync(values.cert!, 'utf8'), key: readFileSync(values.key!, 'utf8') } });
  const object = storedConfigMap('bench', 'cm');
  (object.metadata as Record<string, unknown>).resourceVersion = '12345';
  // Serialized per request (fastify's default JSON.stringify), as a typical handler would.
  app.get('/api/v1/namespaces/:namespace/configmaps/:name', async () => object);

  const nc = await connectBus({ url: values['nats-url']!, name: 'bench-minimal' });
  // The scratch bucket of the minimal write server, deleted when this process stops.
  const kv = await openObjectBucket(nc, { bucket: values.bucket!, create: true });
  const encode = (o: Obj) => {
    const { resourceVersion: _, ...metadata } = o.metadata;
    return JSON.stringify({ ...o, metadata });
  };
  const watchers = new Set<ServerResponse>();
  app.get<{ Params: Params; Querystring: { watch?: string } }>('/api/v1/namespaces/:namespace/configmaps', async (req, reply) => {
    if (req.query.watch !== 'true') return { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '0' }, items: [] };
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    watchers.add(res);
    res.once('close', () => watchers.delete(res));
  });
  app.post<{ Params: Params; Body: Obj }>('/api/v1/namespaces/:namespace/configmaps', async (req, reply) => {
    const o = req.body;
    o.metadata.uid = randomUUID();
    o.metadata.creationTimestamp = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const rev = await kv.create(configMapKey(req.params.namespace, String(o.metadata.name)), encode(o));
    o.metadata.resourceVersion = String(rev);
    if (watchers.size > 0) {
      const body = Buffer.from(`${JSON.stringify({ type: 'ADDED', object: o })}\n`, 'utf8');
      const chunk = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`, 'latin1'), body, Buffer.from('\r\n', 'latin1')]);
      for (const w of watchers) w.socket?.write(chunk);
    }
    return reply.code(201).send(o);
  });
  app.put<{ Params: Params; Body: Obj }>('/api/v1/namespaces/:namespace/configmaps/:name', async (req, reply) => {
    const o = req.body;
    try {
      o.metadata.resourceVersion = String(await kv.update(configMapKey(req.params.namespace, req.params.name!), encode(o), Number(o.metadata.resourceVersion)));
    } catch {
      return reply.code(409).send({ kind: 'Status', status: 'Failure', code: 409, reason: 'Conflict' });
    }
    return o;
  });
  app.delete<{ Params: Params }>('/api/v1/namespaces/:namespace/configmaps/:name', async (req, reply) => {
    const key = configMapKey(req.params.namespace, req.params.name!);
    const entry = await kv.get(key);
    if (!entry || entry.operation !== 'PUT') return reply.code(404).send({ kind: 'Status', status: 'Failure', code: 404, reason: 'NotFound' });
    await kv.delete(key, { previousSeq: entry.revision });
    const o = entry.json<Obj>();
    o.metadata.resourceVersion = String(entry.revision);
    return o;
  });

  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
  process.once(
    'SIGTERM',
    () =>
      void app
        .close()
        .then(() => kv.destroy())
        .then(() => nc.close())
        .then(() => process.exit(0)),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`bench baseline: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
