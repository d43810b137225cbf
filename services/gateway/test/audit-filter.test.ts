// The audit filter in a gateway's filter chain and error handler, with the real log backend: the
// Panic stage of a handler's unexpected error, blocking modes holding the response until its
// events are written, and blocking-strict refusing a request it cannot record.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { silentLogger } from '../../../shared/log.js';
import { value } from '../../../shared/codec/index.js';
import { auditErrors, Auditor, createBackend, type AuditWriter, type BackendMode } from '../../../shared/audit/backend.js';
import { openLogWriter } from '../../../shared/audit/log-backend.js';
import { parsePolicy, PolicyChecker } from '../../../shared/audit/policy.js';
import { createServer } from '../server.js';
import { installFilters } from '../filters/chain.js';
import { type Filter } from '../filters/filter.js';
import { requestInfoFilter } from '../filters/request-info.js';
import { auditFilter } from '../filters/audit.js';
import { GatewayMetrics } from '../metrics.js';
import { apiState } from '../filters/request-info.js';
import { send } from '../respond.js';

const POLICY = 'apiVersion: audit.platform.io/v1\nkind: Policy\nrules:\n  - level: RequestResponse\n';
const batch = { bufferSize: 100, maxBatchSize: 10, maxBatchWaitMs: 0, throttle: null, concurrency: 1 };

/** Stands in for authentication: the user named by a header. */
const userFromHeader: Filter = {
  name: 'test-authentication',
  onRequest(req) {
    apiState(req).user = { username: String(req.headers['x-user'] ?? 'jane'), groups: ['system:authenticated'] };
  },
};

async function gateway(mode: BackendMode, prepare?: (w: AuditWriter) => Promise<void>) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'audit-filter-'));
  const file = path.join(dir, 'audit.log');
  const log = silentLogger();
  const metrics = new GatewayMetrics();
  const errors = auditErrors(metrics.audit, log);
  const writer = await openLogWriter({
    path: file,
    format: 'json',
    apiVersion: 'audit.platform.io/v1',
    rotation: { maxSizeBytes: 0, maxBackups: 0, maxAgeDays: 0, compress: false },
    truncate: null,
    errors,
  });
  await prepare?.(writer);
  const auditor = new Auditor(new PolicyChecker(parsePolicy(POLICY)), [createBackend(writer, mode, batch, errors, log)], metrics.audit);
  const app: FastifyInstance = createServer(undefined, log);
  installFilters(app, [requestInfoFilter((g) => g), userFromHeader, auditFilter(auditor)]);
  app.route({
    method: ['GET', 'POST'],
    url: '/*',
    handler: async (req, reply) => {
      if (req.url.endsWith('/boom')) throw new TypeError('kaput');
      return send(req, reply, { code: 200, body: value({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'cm' } }) }, []);
    },
  });
  await app.ready();
  const events = async () =>
    (await readFile(file, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, any>);
  return {
    app,
    events,
    metrics,
    close: async () => {
      await app.close();
      await auditor.shutdown().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

test("audit filter - a handler's unexpected error ends the record at Panic", async () => {
  const g = await gateway('blocking');
  try {
    const r = await g.app.inject({ method: 'GET', url: '/api/v1/namespaces/ns/configmaps/boom' });
    assert.equal(r.statusCode, 500);
    const evs = await g.events();
    assert.deepEqual(
      evs.map((e) => e.stage),
      ['RequestReceived', 'Panic'],
    );
    assert.equal(evs[1]!.auditID, r.headers['audit-id']);
    assert.deepEqual(evs[1]!.responseStatus, { metadata: {}, status: 'Failure', message: "APIServer panic'd: kaput", reason: 'InternalError', code: 500 });
  } finally {
    await g.close();
  }
});

test('audit filter - in blocking mode the response is sent after its events are written', async () => {
  const g = await gateway('blocking');
  try {
    const r = await g.app.inject({ method: 'GET', url: '/api/v1/namespaces/ns/configmaps/cm' });
    assert.equal(r.statusCode, 200);
    // No waiting: both stages are in the file by the time the client has its answer.
    const evs = await g.events();
    assert.deepEqual(
      evs.map((e) => e.stage),
      ['RequestReceived', 'ResponseComplete'],
    );
    assert.deepEqual(evs[1]!.responseObject, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'cm' } });
    assert.deepEqual(evs[1]!.objectRef, { resource: 'configmaps', namespace: 'ns', name: 'cm', apiVersion: 'v1' });
  } finally {
    await g.close();
  }
});

test('audit filter - blocking-strict refuses a request whose RequestReceived cannot be written; blocking serves it', async () => {
  for (const [mode, code] of [
    ['blocking-strict', 500],
    ['blocking', 200],
  ] as const) {
    // The log file is closed under the backend: every write fails.
    const g = await gateway(mode, (w) => w.close());
    try {
      const r = await g.app.inject({ method: 'GET', url: '/api/v1/namespaces/ns/configmaps/cm' });
      assert.equal(r.statusCode, code, mode);
      const metrics = await g.metrics.text();
      if (code === 500) {
        assert.match(r.json().message, /failed to store audit event/);
        assert.match(metrics, /apiserver_audit_requests_rejected_total 1/);
      }
      assert.match(metrics, /apiserver_audit_error_total\{plugin="log"\} [1-9]/, `${mode}: the lost events are counted`);
    } finally {
      await g.close();
    }
  }
});
