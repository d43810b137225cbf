// The container image's HEALTHCHECK, one command for whichever service the container runs:
//
//   node dist/scripts/healthcheck.js
//
// It finds the service's process (`service.js <name> [flags]`, PID 1 or under an init) and reads
// that service's options as the service did (the same flags, PLATFORM_* variables and --config
// file, since Docker runs the check with the container's environment). The gateway and the
// controllers are asked for /readyz on their HTTPS port (401 or 403 count as an answer: with
// anonymous access off the check can only see that the server responds); storage, authn, authz
// and admission are pinged over NATS as their Helm probe does (scripts/ping-service.ts).
// Exit 0 healthy, 1 not; one line says why (`docker inspect` shows it).

import https from 'node:https';
import { readFileSync, readdirSync } from 'node:fs';
import { gatewayOptionSpecs } from '../services/gateway/options.js';
import { controllersOptionSpecs } from '../services/controllers/options.js';
import { parseOptions } from '../shared/config/options.js';
import { isEntryPoint } from './entry-point.js';
import { pingOptionsFromArgs, pingOwnReplica } from './ping-service.js';

export interface ServiceProcess {
  name: string;
  flags: string[];
}

/** The service this container runs, from the command lines in /proc (`…/service.js <name> [flags]`). */
export function findServiceProcess(procDir = '/proc'): ServiceProcess | undefined {
  const pids = readdirSync(procDir)
    .filter((p) => /^\d+$/.test(p))
    .sort((a, b) => Number(a) - Number(b));
  for (const pid of pids) {
    let argv: string[];
    try {
      argv = readFileSync(`${procDir}/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    } catch {
      continue; // gone, or not ours to read
    }
    const at = argv.findIndex((a) => /(^|\/)scripts\/service\.[jt]s$/.test(a));
    if (at >= 0 && argv[at + 1]) return { name: argv[at + 1]!, flags: argv.slice(at + 2) };
  }
  return undefined;
}

function getStatus(host: string, port: number, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    // Loopback to our own listener: the serving certificate need not name 127.0.0.1.
    const req = https.get({ host, port, path: '/readyz', rejectUnauthorized: false, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}

async function checkHttps(name: string, port: number, bind: string): Promise<{ ok: boolean; message: string }> {
  if (!port) return { ok: true, message: `${name}: no secure port, nothing to ask` };
  const host = bind === '0.0.0.0' || bind === '::' || bind === '' ? '127.0.0.1' : bind;
  try {
    const status = await getStatus(host, port, 3_000);
    const ok = status === 200 || status === 401 || status === 403;
    return { ok, message: `${name}: GET https://${host}:${port}/readyz answered ${status}` };
  } catch (err) {
    return { ok: false, message: `${name}: GET https://${host}:${port}/readyz failed: ${(err as Error).message}` };
  }
}

export async function check(proc: ServiceProcess, env: NodeJS.ProcessEnv): Promise<{ ok: boolean; message: string }> {
  if (proc.name === 'gateway') {
    const o = parseOptions(gatewayOptionSpecs, proc.flags, env);
    return checkHttps('gateway', o['secure-port'], o['bind-address']);
  }
  if (proc.name === 'controllers') {
    const o = parseOptions(controllersOptionSpecs, proc.flags, env);
    return checkHttps('controllers', o['secure-port'], o['bind-address']);
  }
  return pingOwnReplica(pingOptionsFromArgs([proc.name, ...proc.flags], env));
}

async function run(): Promise<void> {
  const proc = findServiceProcess();
  if (!proc) {
    // `docker run image --help`, local-up --init-only and the like: nothing long-running to check.
    process.stdout.write('no service process in this container\n');
    process.exit(0);
  }
  const result = await check(proc, process.env).catch((err: Error) => ({ ok: false, message: `${proc.name}: ${err.message}` }));
  process.stdout.write(`${result.message}\n`);
  process.exit(result.ok ? 0 : 1);
}

if (isEntryPoint(import.meta.url)) await run();
