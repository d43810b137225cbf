// Helpers for a service's side of a contract: endpoints in a queue group whose handler returns a
// value or throws; thrown errors become Status replies (JSON). Bodies are JSON, or protobuf for an
// endpoint made with `protoEndpoint` (codec.ts).

import os from 'node:os';
import { Svcm, type Service, type ServiceGroup, type ServiceMsg } from '@nats-io/services';
import type { NatsConnection } from '@nats-io/nats-core';
import { toStatus } from '../api/status.js';
import { decodeJson, encodeJson } from './client.js';
import { endpointName } from './subjects.js';
import type { BusType } from './codec.js';

export type JsonHandler<Req, Res> = (req: Req, msg: ServiceMsg) => Promise<Res> | Res;

export interface ServiceLogger {
  error(obj: unknown, msg?: string): void;
}

/** How an endpoint reads its requests and writes its replies. */
interface BodyCodec {
  decode(data: Uint8Array): unknown;
  encode(value: unknown): Uint8Array;
}

const JSON_BODIES: BodyCodec = { decode: decodeJson, encode: encodeJson };

/** One endpoint; build with `jsonEndpoint` or `protoEndpoint` so request and reply types are checked. */
export interface JsonEndpoint {
  subject: string;
  handler: JsonHandler<never, unknown>;
  /** JSON when absent. */
  bodies?: BodyCodec;
}

export function jsonEndpoint<Req, Res>(subject: string, handler: JsonHandler<Req, Res>): JsonEndpoint {
  return { subject, handler: handler as JsonHandler<never, unknown> };
}

/** An endpoint whose request and reply are protobuf messages of the bus contract. */
export function protoEndpoint<Req, Res>(subject: string, request: BusType<Req>, reply: BusType<Res>, handler: JsonHandler<Req, Res>): JsonEndpoint {
  return { subject, handler: handler as JsonHandler<never, unknown>, bodies: { decode: (data) => request.decode(data), encode: (value) => reply.encode(value as Res) } };
}

export interface JsonServiceOptions {
  /** Service name, also its queue group and `$SRV.PING.<name>` target. */
  name: string;
  version: string;
  description: string;
  endpoints: JsonEndpoint[];
  log?: ServiceLogger;
}

export interface JsonService {
  /**
   * Leaves the queue group, so new requests go to the other replicas, then waits (at most
   * `graceMs`) until every request already taken is answered: a rolling restart loses none.
   */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Service metadata naming the host (in Kubernetes, the pod) a replica runs on: `$SRV.PING.<name>`
 * is answered by every replica, and a probe in one pod tells its own replica's answer apart by it.
 */
export const INSTANCE_HOST_METADATA = 'hostname';

/** How long a stopping service waits for the requests it took; the gateway's bus timeout is shorter. */
export const DEFAULT_STOP_GRACE_MS = 10_000;

/**
 * Registers a service and its endpoints, and resolves only once the server has the
 * subscriptions, so a request sent right after start-up never meets "no responders".
 */
export async function startJsonService(nc: NatsConnection, o: JsonServiceOptions): Promise<JsonService> {
  const service = await new Svcm(nc).add({ name: o.name, version: o.version, description: o.description, queue: o.name, metadata: { [INSTANCE_HOST_METADATA]: os.hostname() } });
  const inFlight = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    const settled = p.then(
      () => undefined,
      () => undefined,
    );
    inFlight.add(settled);
    void settled.then(() => inFlight.delete(settled));
  };
  for (const e of o.endpoints) addJsonEndpoint(service, e, track, o.log);
  await nc.flush();
  return {
    async stop(graceMs = DEFAULT_STOP_GRACE_MS) {
      await service.stop();
      if (!inFlight.size) return;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([Promise.allSettled([...inFlight]), late]);
      clearTimeout(timer);
    },
  };
}

/** Adds an endpoint at its subject, which must be `<group>.<endpoint>`. */
function addJsonEndpoint(group: ServiceGroup | Service, endpoint: JsonEndpoint, track: (p: Promise<void>) => void, log?: ServiceLogger): void {
  const { subject, handler } = endpoint;
  const bodies = endpoint.bodies ?? JSON_BODIES;
  const name = endpointName(subject);
  group.addEndpoint(name, {
    subject,
    handler: (err, msg) => {
      if (err) {
        log?.error({ err }, `endpoint ${subject} failed`);
        return;
      }
      track(respond(msg, handler, bodies, log));
    },
  });
}

async function respond(msg: ServiceMsg, handler: JsonHandler<never, unknown>, bodies: BodyCodec, log?: ServiceLogger): Promise<void> {
  try {
    const req = bodies.decode(msg.data) as never;
    const res = await handler(req, msg);
    msg.respond(bodies.encode(res));
  } catch (err) {
    const status = toStatus(err);
    if (status.code >= 500) log?.error({ err }, 'request failed');
    msg.respondError(status.code, status.message, encodeJson(status));
  }
}
