// The availability of one remote APIService, judged as upstream's AvailableConditionController
// judges it: its Service exists, listens on the port, has endpoints for it, and the backend answers
// `GET /apis/<group>/<version>` (the one path an aggregated server must serve) within five seconds
// with a 2xx. The check is made as the aggregator (system:kube-aggregator in system:masters, in the
// authenticating-proxy headers, with the front-proxy client certificate when there is one) and,
// as upstream's, does not verify the backend's certificate: it asks whether something answers, the
// gateway's proxy is what trusts the backend. Reasons and messages are upstream's, so a user's
// `kubectl describe apiservice` and any script reading the condition read the same words.

import https from 'node:https';
import type { ApiObject } from '../../../shared/api/types.js';
import { SYSTEM_MASTERS } from '../../../shared/api/groups.js';
import { pickAddress, resolveServiceEndpoints, type ServiceAddress } from '../../../shared/api/service-endpoints.js';
import type { AvailableCondition } from '../../../shared/registry/builtin/apiregistration/api-service.js';
import { AGGREGATOR_USER, type RemoteApiService } from '../../../shared/registry/builtin/apiregistration/remote-api-service.js';

/** `--proxy-client-cert-file` / `--proxy-client-key-file`, read. */
export interface ClientCertificate {
  cert: string;
  key: string;
}

export interface CheckOptions {
  clientCertificate?: ClientCertificate;
  /** Upstream's discovery client timeout. */
  timeoutMs: number;
  /** Attempts made at once, each to an endpoint picked at random; one success is enough (upstream's 5). */
  attempts: number;
}

export const PASSED: AvailableCondition = { status: 'True', reason: 'Passed', message: 'all checks passed' };

const unavailable = (reason: string, message: string): AvailableCondition => ({ status: 'False', reason, message });

/** What the Service and its Endpoints say before anything is dialled: a failed condition, or the addresses to try. */
export function precheck(api: RemoteApiService, svc: ApiObject | undefined, endpoints: ApiObject | undefined): { condition: AvailableCondition } | { addresses: ServiceAddress[] } {
  const { namespace, name, port } = api.service;
  const where = `service/${name} in ${JSON.stringify(namespace)}`;
  if (!svc) return { condition: unavailable('ServiceNotFound', `${where} is not present`) };
  const r = resolveServiceEndpoints(svc, endpoints, port);
  switch (r.kind) {
    case 'ok':
      return { addresses: r.addresses };
    case 'unsupported-type':
      // Upstream checks no port or endpoints of such a Service; its resolver's refusal fails the discovery check.
      return { condition: unavailable('FailedDiscoveryCheck', `unsupported service type ${JSON.stringify(r.type)}`) };
    case 'no-port':
      return { condition: unavailable('ServicePortError', `${where} is not listening on port ${port}`) };
    default:
      if (!r.endpoints) return { condition: unavailable('EndpointsNotFound', `cannot find endpoints for ${where}`) };
      return { condition: unavailable('MissingEndpoints', `endpoints for ${where} have no addresses with port name ${JSON.stringify(r.portName)}`) };
  }
}

function hostPort(a: ServiceAddress): string {
  return a.host.includes(':') ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`;
}

/** A failed request as Go's HTTP client words it (`dial tcp …: connect: connection refused`), where the failure is one it names. */
function goError(err: NodeJS.ErrnoException, address: string, timedOut: boolean): string {
  if (timedOut) return 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)';
  if (err.code === 'ECONNREFUSED') return `dial tcp ${address}: connect: connection refused`;
  if (err.code === 'EHOSTUNREACH') return `dial tcp ${address}: connect: no route to host`;
  if (err.code === 'ENETUNREACH') return `dial tcp ${address}: connect: network is unreachable`;
  if (err.code === 'ECONNRESET') return 'read: connection reset by peer';
  return err.message;
}

/** One GET of the discovery path; resolves with an error message, or undefined when it passed. */
function attempt(api: RemoteApiService, address: ServiceAddress, opts: CheckOptions): Promise<string | undefined> {
  const url = `https://${hostPort(address)}/apis/${api.group}/${api.version}`;
  const headers = { 'x-remote-user': AGGREGATOR_USER, 'x-remote-group': SYSTEM_MASTERS, accept: 'application/json' };
  return new Promise((resolve) => {
    let timedOut = false;
    const req = https.request(url, { method: 'GET', headers, agent: false, rejectUnauthorized: false, ...(opts.clientCertificate ?? {}) }, (res) => {
      clearTimeout(timer);
      res.resume();
      const code = res.statusCode ?? 0;
      // 1.32's range: 200 up to, not including, 207.
      resolve(code >= 200 && code < 207 ? undefined : `failing or missing response from ${url}: bad status from ${url}: ${code}`);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error('timeout'));
    }, opts.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(`failing or missing response from ${url}: Get ${JSON.stringify(url)}: ${goError(err, hostPort(address), timedOut)}`);
    });
    req.end();
  });
}

/**
 * Asks the backend through up to `opts.attempts` endpoints at once: Passed if one answers, else the
 * last failure. Never more attempts than addresses (upstream makes five whatever their number):
 * asking one backend five times a round only costs it handshakes.
 */
export async function checkDiscovery(api: RemoteApiService, addresses: readonly ServiceAddress[], opts: CheckOptions): Promise<AvailableCondition> {
  const n = Math.max(1, Math.min(opts.attempts, addresses.length));
  const results = await Promise.all(Array.from({ length: n }, () => attempt(api, pickAddress(addresses), opts)));
  const failures = results.filter((r): r is string => r !== undefined);
  return failures.length < results.length ? PASSED : unavailable('FailedDiscoveryCheck', failures.at(-1)!);
}
