// Where a Service reference (namespace, name, port) is reached: the ready addresses of its
// Endpoints for the Service port the reference names, as upstream's endpoint resolver finds them.
// Shared by whatever dials a Service the API names — admission webhooks, aggregated APIServices
// and their availability check — so they agree on the rule, and on the one refusal upstream's
// proxies make: an address that names the host itself, its link or no host (loopback, link-local,
// unspecified, in any spelling) is never dialled, so whoever may write Endpoints cannot point the
// server at its own ports. Pure: the caller hands in the objects it holds and words the outcome.

import { proxyableIP } from './special-ip.js';
import type { ApiObject } from './types.js';

export interface ServiceAddress {
  host: string;
  port: number;
}

/** The Service types that have endpoints to resolve (ExternalName has none). */
const RESOLVABLE_TYPES = new Set(['ClusterIP', 'NodePort', 'LoadBalancer']);

/**
 * What a Service reference resolves to: the addresses to dial, or why there are none. `no-port`:
 * the Service has no port with that number; `no-endpoints`: no ready, dialable address serves the
 * port (`endpoints` false: there is no Endpoints object at all).
 */
export type EndpointResolution =
  { kind: 'ok'; addresses: ServiceAddress[] } | { kind: 'unsupported-type'; type: string } | { kind: 'no-port' } | { kind: 'no-endpoints'; endpoints: boolean; portName: string };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

/** The Service's type, `ClusterIP` when unset (its default). */
export function serviceType(svc: ApiObject): string {
  const spec = isObj(svc.spec) ? svc.spec : {};
  return typeof spec.type === 'string' ? spec.type : 'ClusterIP';
}

/** Resolves `port` of the Service `svc` through its Endpoints (undefined when there are none). */
export function resolveServiceEndpoints(svc: ApiObject, endpoints: ApiObject | null | undefined, port: number): EndpointResolution {
  const type = serviceType(svc);
  if (!RESOLVABLE_TYPES.has(type)) return { kind: 'unsupported-type', type };
  const spec = isObj(svc.spec) ? svc.spec : {};
  const servicePort = list(spec.ports).find((p) => p.port === port);
  if (!servicePort) return { kind: 'no-port' };
  const portName = typeof servicePort.name === 'string' ? servicePort.name : '';
  const addresses: ServiceAddress[] = [];
  for (const subset of list(endpoints?.subsets)) {
    const p = list(subset.ports).find((x) => (typeof x.name === 'string' ? x.name : '') === portName);
    if (!p || typeof p.port !== 'number') continue;
    for (const a of list(subset.addresses)) if (typeof a.ip === 'string' && proxyableIP(a.ip)) addresses.push({ host: a.ip, port: p.port });
  }
  return addresses.length ? { kind: 'ok', addresses } : { kind: 'no-endpoints', endpoints: Boolean(endpoints), portName };
}

/** One of the addresses, at random, as upstream spreads calls over a Service's endpoints. */
export function pickAddress(addresses: readonly ServiceAddress[], pick: (n: number) => number = (n) => Math.floor(Math.random() * n)): ServiceAddress {
  return addresses[pick(addresses.length)]!;
}
