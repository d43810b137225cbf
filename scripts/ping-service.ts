// The health probe of the services that have no HTTP listener (storage, authn, authz, admission),
// run by the kubelet as an exec probe in the service's own container (the Helm chart does):
//
//   node dist/scripts/ping-service.js <service> [--liveness] [--timeout=3s] [the service's flags]
//
// It finds NATS exactly as the service does (its flags, PLATFORM_* variables, `--config` file:
// URL, TLS and the service's own NATS user, whose permissions allow pinging itself), sends `$SRV.PING.<service name>` and succeeds only when the replica in this container answers:
// every replica answers that subject, and this one is told apart by the host name it registers in
// its service metadata (the pod's name), so a wedged replica fails its probe while the others
// answer for theirs. NATS unreachable fails readiness; with `--liveness` it passes, because
// restarting the service cannot mend the broker and the service reconnects by itself.
// Exit 0 healthy, 1 not, 2 bad arguments; one line of output says why (kubelet shows it).

import os from 'node:os';
import { Svcm } from '@nats-io/services';
import type { NatsConnection } from '@nats-io/nats-core';
import { busOptionsFrom, connectBus, type BusConnectOptions } from '../shared/bus/connect.js';
import { INSTANCE_HOST_METADATA } from '../shared/bus/service.js';
import { ServiceName } from '../shared/bus/subjects.js';
import { OptionsError, parseDuration, parseOptions, type natsOptions, type Options, type OptionSpecs } from '../shared/config/options.js';
import { admissionOptionSpecs } from '../services/admission/options.js';
import { authnOptionSpecs } from '../services/authn/options.js';
import { authzOptionSpecs } from '../services/authz/options.js';
import { storageOptionSpecs } from '../services/storage/options.js';
import { isEntryPoint } from './entry-point.js';
import { withTimeout } from '../shared/ground/with-timeout.js';

type PingedService = keyof typeof ServiceName;

/** Each service's own flags, so its `--config` file (which names them all) is read as it reads it. */
const SERVICE_OPTIONS: Record<PingedService, OptionSpecs> = {
  storage: storageOptionSpecs,
  authn: authnOptionSpecs,
  authz: authzOptionSpecs,
  admission: admissionOptionSpecs,
};

export interface PingOptions {
  service: PingedService;
  /** How the service itself connects (its `--nats-*` options). */
  bus: Omit<BusConnectOptions, 'name'>;
  /** The replica to find: its host name as registered (default this host's). */
  hostname?: string;
  timeoutMs: number;
  liveness: boolean;
}

export interface PingResult {
  ok: boolean;
  message: string;
}

export async function pingOwnReplica(o: PingOptions): Promise<PingResult> {
  const name = ServiceName[o.service];
  const hostname = o.hostname ?? os.hostname();
  const deadline = Date.now() + o.timeoutMs;
  let nc: NatsConnection;
  try {
    nc = await withTimeout(connectBus({ ...o.bus, name: `${name}-probe`, firstConnectDeadlineMs: o.timeoutMs }), o.timeoutMs, `no connection within ${o.timeoutMs} ms`);
  } catch (err) {
    const why = `NATS unreachable (${(err as Error).message})`;
    return o.liveness ? { ok: true, message: `${why}: not this replica's fault, alive` } : { ok: false, message: why };
  }
  try {
    const replies = await new Svcm(nc).client({ strategy: 'timer', maxWait: Math.max(1, deadline - Date.now()) }).ping(name);
    let others = 0;
    for await (const id of replies) {
      if (id.metadata?.[INSTANCE_HOST_METADATA] === hostname) return { ok: true, message: `${name} on ${hostname} answered` };
      others++;
    }
    return { ok: false, message: `${name} on ${hostname} did not answer $SRV.PING within ${o.timeoutMs} ms (${others} other replica(s) did)` };
  } catch (err) {
    return { ok: false, message: `ping of ${name} failed: ${(err as Error).message}` };
  } finally {
    await nc.close().catch(() => undefined);
  }
}

/** argv after the script: `<service> [--liveness] [--timeout=3s] [service flags]`. */
export function pingOptionsFromArgs(argv: string[], env: NodeJS.ProcessEnv): PingOptions {
  const [service, ...rest] = argv;
  if (!service || !(service in SERVICE_OPTIONS)) throw new OptionsError(`expected a service name (${Object.keys(SERVICE_OPTIONS).join(', ')}), got ${JSON.stringify(service ?? '')}`);
  let liveness = false;
  let timeoutMs = 3_000;
  const serviceArgs: string[] = [];
  for (const arg of rest) {
    if (arg === '--liveness') liveness = true;
    else if (arg.startsWith('--timeout=')) timeoutMs = parseDuration(arg.slice('--timeout='.length));
    else serviceArgs.push(arg);
  }
  const opts = parseOptions(SERVICE_OPTIONS[service as PingedService], serviceArgs, env) as Options<typeof natsOptions>;
  return { service: service as PingedService, bus: busOptionsFrom(opts), timeoutMs, liveness };
}

async function run(): Promise<void> {
  let opts: PingOptions;
  try {
    opts = pingOptionsFromArgs(process.argv.slice(2), process.env);
  } catch (err) {
    process.stderr.write(`ping-service: ${(err as Error).message}\nusage: ping-service <${Object.keys(SERVICE_OPTIONS).join('|')}> [--liveness] [--timeout=3s] [service flags]\n`);
    process.exit(2);
  }
  const result = await pingOwnReplica(opts);
  process.stdout.write(`${result.message}\n`);
  process.exit(result.ok ? 0 : 1);
}

if (isEntryPoint(import.meta.url)) await run();
