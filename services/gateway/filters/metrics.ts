// The metrics filter: counts and times every request once it is answered, and keeps the gauges of
// the long-running ones (watches, proxies) while they run. The figures live in ../metrics.ts.

import type { FastifyRequest } from 'fastify';
import { isLongRunning } from './max-in-flight.js';
import type { Filter } from './filter.js';
import type { GatewayMetrics } from '../metrics.js';

/**
 * Counts and times every request by its RequestInfo (who made it is the audit log's business). A
 * long-running request (a watch) is counted as running from here and recorded when its stream
 * closes — also when the client leaves first, which fastify's onResponse does not see.
 */
export function metricsFilter(metrics: GatewayMetrics): Filter {
  const longRunning = new WeakSet<FastifyRequest>();
  return {
    name: 'metrics',
    onRequest(req, reply) {
      const api = req.api;
      if (!api || !isLongRunning(api.info)) return;
      longRunning.add(req);
      const cells = metrics.longRunningStarted(api, req.method);
      const contentType = req.headers['content-type'];
      reply.raw.once('close', () => {
        cells[0].dec();
        cells[1].dec();
        metrics.observeRequest(api, req.method, contentType, reply.raw.statusCode, reply);
      });
    },
    onResponse(req, reply) {
      const api = req.api;
      if (!api || longRunning.has(req)) return;
      metrics.observeRequest(api, req.method, req.headers['content-type'], reply.statusCode, reply);
    },
  };
}
