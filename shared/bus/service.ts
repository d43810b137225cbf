// Helpers for a service's side of a contract: JSON endpoints in a queue group whose handler
// returns a value or throws; thrown errors become Status replies.

import { Svcm, type Service, type ServiceGroup, type ServiceMsg } from '@nats-io/services';
import type { NatsConnection } from '@nats-io/nats-core';
import { toStatus } from '../api/status.js';
import { decodeJson, encodeJson } from './client.js';
import { endpointName } from './subjects.js';

export type JsonHandler<Req, Res> = (req: Req, msg: ServiceMsg) => Promise<Res> | Res;

export interface ServiceLogger {
  error(obj: unknown, msg?: string): void;
}

export async function startService(nc: NatsConnection, name: string, version: string, description: string): Promise<Service> {
  return new Svcm(nc).add({ name, version, description, queue: name });
}

/** Adds an endpoint at `subject`, which must be `<group>.<endpoint>`. */
export function addJsonEndpoint<Req, Res>(group: ServiceGroup | Service, subject: string, handler: JsonHandler<Req, Res>, log?: ServiceLogger): void {
  const name = endpointName(subject);
  group.addEndpoint(name, {
    subject,
    handler: (err, msg) => {
      if (err) {
        log?.error({ err }, `endpoint ${subject} failed`);
        return;
      }
      void respondJson(msg, handler, log);
    },
  });
}

async function respondJson<Req, Res>(msg: ServiceMsg, handler: JsonHandler<Req, Res>, log?: ServiceLogger): Promise<void> {
  try {
    const req = decodeJson<Req>(msg.data);
    const res = await handler(req, msg);
    msg.respond(encodeJson(res));
  } catch (err) {
    const status = toStatus(err);
    if (status.code >= 500) log?.error({ err }, 'request failed');
    msg.respondError(status.code, status.message, encodeJson(status));
  }
}
