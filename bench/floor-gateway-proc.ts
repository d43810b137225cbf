// The gateway half of the same-shape floor: the least a gateway built like this system can do for
// a write. A bare fastify HTTPS route with the gateway's TLS material parses the JSON body, sets
// uid and creationTimestamp (creates), encodes the object once and sends it in one NATS request to
// the storage responder in its own process (floor-storage-proc.ts), then answers with the object
// and the revision storage replied with: POST 201, PUT 200 (409 on a stale resourceVersion),
// DELETE 200 with the deleted object. No authentication, admission, defaulting, validation or
// watch cache: what is left is HTTPS, JSON, the bus hop and the KV operation, in the same number
// of processes as the system's write path. Prints "listening <port>".
//
//   node dist/bench/floor-gateway-proc.js --cert serving.crt --key serving.key --nats-url nats://…

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import Fastify, { type FastifyReply } from 'fastify';
import { connectBus } from '../shared/bus/connect.js';
import { FLOOR_SUBJECT, headFields } from './floor-wire.js';
import { configMapKey } from './objects.js';

type Obj = { metadata: Record<string, unknown> } & Record<string, unknown>;
type Params = { namespace: string; name: string };

const REQUEST_TIMEOUT_MS = 10_000;

/** The object as stored: everything but its resourceVersion, which is the KV revision. */
function encode(o: Obj): string {
  const { resourceVersion: _, ...metadata } = o.metadata;
  return JSON.stringify({ ...o, metadata });
}

function failure(reply: FastifyReply, code: number, reason: string) {
  return reply.code(code).send({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { cert: { type: 'string' }, key: { type: 'string' }, 'nats-url': { type: 'string' } } });
  const app = Fastify({ logger: false, https: { cert: readFileSync(values.cert!, 'utf8'), key: readFileSync(values.key!, 'utf8') } });
  const nc = await connectBus({ url: values['nats-url']!, name: 'bench-floor-gateway' });
  /** One bus request; the reply's fields (`ok`, revision) and the offset of the object's bytes. */
  const storage = async (payload: string, fields: number) => {
    const msg = await nc.request(FLOOR_SUBJECT, payload, { timeout: REQUEST_TIMEOUT_MS });
    return { ...headFields(msg.data, fields), data: msg.data };
  };

  app.post<{ Params: Params; Body: Obj }>('/api/v1/namespaces/:namespace/configmaps', async (req, reply) => {
    const o = req.body;
    o.metadata.uid = randomUUID();
    o.metadata.creationTimestamp = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const { fields } = await storage(`c\n${configMapKey(req.params.namespace, String(o.metadata.name))}\n${encode(o)}`, 2);
    if (fields[0] !== 'ok') return failure(reply, 409, 'AlreadyExists');
    o.metadata.resourceVersion = fields[1];
    return reply.code(201).send(o);
  });
  app.put<{ Params: Params; Body: Obj }>('/api/v1/namespaces/:namespace/configmaps/:name', async (req, reply) => {
    const o = req.body;
    const { fields } = await storage(`u\n${configMapKey(req.params.namespace, req.params.name)}\n${Number(o.metadata.resourceVersion)}\n${encode(o)}`, 2);
    if (fields[0] !== 'ok') return failure(reply, 409, 'Conflict');
    o.metadata.resourceVersion = fields[1];
    return o;
  });
  app.delete<{ Params: Params }>('/api/v1/namespaces/:namespace/configmaps/:name', async (req, reply) => {
    const { fields, rest, data } = await storage(`d\n${configMapKey(req.params.namespace, req.params.name)}\n`, 2);
    if (fields[0] !== 'ok') return failure(reply, 404, 'NotFound');
    const o = JSON.parse(Buffer.from(data.buffer, data.byteOffset + rest, data.length - rest).toString('utf8')) as Obj;
    o.metadata.resourceVersion = fields[1];
    return o;
  });

  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
  process.once('SIGTERM', () => void app.close().then(() => nc.close().then(() => process.exit(0))));
}

main().catch((err: unknown) => {
  process.stderr.write(`bench floor gateway: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
