// The small plain-HTTP listener of a service without an HTTP port of its own (storage, authn, authz,
// admission): GET /metrics in the Prometheus text format, nothing else. It has no authentication:
// these services are internal, and the listener is off unless `--metrics-bind-address` names where.

import { createServer, type Server } from 'node:http';
import { closeServer, listen } from '../listen.js';
import type { Logger } from '../log.js';
import { metricsOptionsFrom, parseBindAddress } from './options.js';
import { MetricsRegistry } from './registry.js';

/** A service process's registry from its metric flags, with the process's own metrics in it. */
export function processRegistry(o: Parameters<typeof metricsOptionsFrom>[0], log: Logger): MetricsRegistry {
  const registry = new MetricsRegistry(metricsOptionsFrom(o, log));
  registry.processMetrics();
  return registry;
}

export interface MetricsEndpoint {
  /** `http://host:port/metrics`; undefined when no listener was asked for. */
  readonly url: string | undefined;
  close(): Promise<void>;
}

/** Starts the listener at `bindAddress` (`host:port`; port 0: any free one); empty: none. Fails when the address cannot be bound. */
export async function serveMetrics(bindAddress: string, registry: MetricsRegistry, log: Logger): Promise<MetricsEndpoint> {
  const at = parseBindAddress(bindAddress);
  if (!at) return { url: undefined, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('405 method not allowed\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      (err: unknown) => {
        log.error({ err }, 'collecting metrics failed');
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('collecting metrics failed\n');
      },
    );
  });
  const { address, port } = await listen(server, at.port, at.host);
  const url = `http://${address.includes(':') ? `[${address}]` : address}:${port}/metrics`;
  log.info({ url }, 'serving metrics');
  return {
    url,
    close: () => closeServer(server),
  };
}
