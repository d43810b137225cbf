// What every service's main.ts does after wiring: serve until SIGINT/SIGTERM, then stop the
// service and drain NATS; give memory back when idle; report option errors (exit 2) and failures
// (exit 1) the same way.

import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from 'pino';
import { describeOptions, OptionsError, parseOptions, type Options, type OptionSpecs } from './config/options.js';
import { reclaimWhenIdle } from './idle-reclaim.js';

export interface RunningService {
  stop(): Promise<void>;
}

/**
 * SIGINT, SIGTERM or the supervisor's exit stop the service once (`stop`), then the process: an
 * unclean stop exits 1. Returns whether a stop has begun. Every service's main calls it once it
 * serves, so this is also where the idle memory reclaim starts.
 */
export function stopOnSignals(stop: () => Promise<void>, log: Logger): () => boolean {
  reclaimWhenIdle({ onCollect: (e) => log.debug({ beforeBytes: e.beforeBytes, afterBytes: e.afterBytes, ms: Math.round(e.ms) }, 'idle: heap collected') });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    try {
      await stop();
    } catch (err) {
      log.error({ err }, 'unclean shutdown');
      process.exitCode = 1;
    }
    // Whatever handle a library leaves open must not keep a stopped service alive.
    setTimeout(() => process.exit(process.exitCode ?? 0), 5_000).unref();
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  exitWithParent(() => void shutdown('parent exited'));
  return () => stopping;
}

/** Resolves once the NATS connection is closed: after a signal, or because NATS went away (exit 1). */
export async function serveUntilSignalled(nc: NatsConnection, service: RunningService, log: Logger): Promise<void> {
  const stopping = stopOnSignals(async () => {
    await service.stop();
    await nc.drain();
  }, log);
  const closed = await nc.closed();
  if (closed && !stopping()) {
    log.error({ err: closed }, 'NATS connection closed');
    process.exitCode = 1;
  }
}

/**
 * A supervisor that starts a service with an IPC channel (`npm start`) is the service's reason to
 * run: when the channel closes — the supervisor exited, even by SIGKILL — the service stops too
 * instead of living on as an orphan. Without a channel (compose, Helm, a shell) nothing changes.
 */
export function exitWithParent(stop: () => void): void {
  if (!process.channel) return;
  // The channel must not keep the process alive by itself, nor be mistaken for work.
  process.channel.unref();
  process.once('disconnect', stop);
}

/**
 * What a service tells the supervisor that started it with an IPC channel (`npm start`) about a
 * port it was given: bound, or taken by another program before it could bind it (the supervisor
 * then starts it again on another port).
 */
export type ListenerReport = { type: 'listening'; listener: string; port: number } | { type: 'address-in-use'; listener: string; port: number };

/**
 * A listener report, or `ready` from a service whose work starts after its listener (the
 * controllers: leading, their caches synced), so that `npm start` prints its banner after the
 * service's start-up lines rather than in their middle.
 */
export type SupervisorReport = ListenerReport | { type: 'ready' };

/** Sends `report` to the supervisor, if there is one; resolves once it is handed over (an exit right after must not lose it). */
export function reportToSupervisor(report: SupervisorReport): Promise<void> {
  const send = process.send?.bind(process);
  if (!send || !process.connected) return Promise.resolve();
  return new Promise((resolve) => send(report, undefined, undefined, () => resolve()));
}

/**
 * The service's options from its flags, PLATFORM_* env vars and `--config`; `--help` prints them
 * and exits. A deprecated option that is set warns on stderr unless `--suppress-deprecation-warnings`.
 */
export function serviceOptions<S extends OptionSpecs>(title: string, specs: S): Options<S> & { config?: string } {
  const argv = process.argv.slice(2);
  if (argv.includes('--help')) {
    process.stdout.write(`${title}\n\n${describeOptions(specs)}\n`);
    process.exit(0);
  }
  // Before any logger exists: deprecated flags warn on stderr, as upstream's flag parser does.
  return parseOptions(specs, argv, process.env, (warning) => process.stderr.write(`${warning}\n`));
}

/** Runs a service entry point: a bad flag exits 2 with its message, any other failure exits 1. */
export function runMain(name: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    // A bad setting is the operator's to fix: its message, not a stack.
    if (err instanceof OptionsError || err instanceof RangeError) {
      process.stderr.write(`${name}: ${err.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
