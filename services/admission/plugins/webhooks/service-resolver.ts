// Where a webhook named by a Service reference is reached. In a cluster: one of the ready
// addresses of the Service's Endpoints for the Service port the reference names (upstream's
// endpoint resolver). Running locally, where no pod network exists, `--webhook-service-resolver`
// maps `<svc>.<ns>.svc[:<port>]` to a host:port instead. Either way the serving certificate is
// checked for `<svc>.<ns>.svc`, not for the address dialled. The Endpoints rule, and its refusal of
// any address the proxy subresources would refuse (loopback, link-local, … in any spelling), is
// shared/api/service-endpoints.ts, which aggregated APIServices use too.

import { notFound, serviceUnavailable } from '../../../../shared/api/status.js';
import { pickAddress, resolveServiceEndpoints } from '../../../../shared/api/service-endpoints.js';
import type { ApiObject } from '../../../../shared/api/types.js';
import { AdmissionConfigError } from '../../errors.js';
import type { ObjectCache } from '../../object-cache.js';
import type { ServiceReference } from './webhooks.js';

export interface Address {
  host: string;
  port: number;
}

export const SERVICE_RESOLVER_FLAG = '--webhook-service-resolver';

function parsePort(text: string): number | null {
  if (!/^\d+$/.test(text)) return null;
  const n = Number(text);
  return n >= 1 && n <= 65535 ? n : null;
}

/** `host:port`, `[v6]:port`. */
function parseAddress(text: string): Address | null {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d+)$/.exec(text);
  const port = m ? parsePort(m[3]!) : null;
  return m && port ? { host: m[1] ?? m[2]!, port } : null;
}

/**
 * Parses the flag's entries, `<svc>.<ns>.svc[:<port>]=<host>:<port>`; an entry without a port
 * maps every port of the service. Mistakes fail the start with the entry quoted.
 */
export function parseServiceResolver(entries: readonly string[]): Map<string, Address> {
  const out = new Map<string, Address>();
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    const bad = (why: string) => new AdmissionConfigError(`${SERVICE_RESOLVER_FLAG}: ${JSON.stringify(entry)}: ${why} (expected <service>.<namespace>.svc[:<port>]=<host>:<port>)`);
    if (eq < 0) throw bad('no "="');
    const from = entry.slice(0, eq).trim();
    const to = entry.slice(eq + 1).trim();
    const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.svc(?::(\d+))?$/.exec(from);
    if (!m) throw bad('the service must be written <service>.<namespace>.svc');
    if (m[5] !== undefined && !parsePort(m[5])) throw bad('the service port must be 1-65535');
    const address = parseAddress(to);
    if (!address) throw bad('the address must be <host>:<port>');
    const key = m[5] !== undefined ? `${m[1]}.${m[3]}.svc:${Number(m[5])}` : `${m[1]}.${m[3]}.svc`;
    if (out.has(key)) throw bad(`${key} is mapped twice`);
    out.set(key, address);
  }
  return out;
}

export interface ServiceResolverDeps {
  mappings: ReadonlyMap<string, Address>;
  /** The Service and Endpoints caches, started on first use (a configuration with only URLs never needs them). */
  services: () => ObjectCache;
  endpoints: () => ObjectCache;
  /** Picks one of `n` ready addresses (default: at random, as upstream spreads calls). */
  pick?: (n: number) => number;
}

export class ServiceResolver {
  constructor(private readonly deps: ServiceResolverDeps) {}

  /** The address to dial for `ref`; a StatusError (503, 404) when there is none. */
  async resolve(ref: ServiceReference): Promise<Address> {
    const host = `${ref.name}.${ref.namespace}.svc`;
    const mapped = this.deps.mappings.get(`${host}:${ref.port}`) ?? this.deps.mappings.get(host);
    if (mapped) return mapped;
    const svc = await this.deps.services().lookup(ref.namespace, ref.name);
    if (!svc) throw notFound({ group: '', resource: 'services' }, ref.name);
    return this.fromEndpoints(svc, ref);
  }

  private async fromEndpoints(svc: ApiObject, ref: ServiceReference): Promise<Address> {
    const r = resolveServiceEndpoints(svc, await this.deps.endpoints().lookup(ref.namespace, ref.name), ref.port);
    switch (r.kind) {
      case 'ok':
        return pickAddress(r.addresses, this.deps.pick);
      case 'unsupported-type':
        throw serviceUnavailable(`unsupported service type "${r.type}"`);
      case 'no-port':
        throw serviceUnavailable(`no service port ${ref.port} found for service "${ref.name}"`);
      default:
        throw serviceUnavailable(`no endpoints available for service "${ref.name}"`);
    }
  }
}
