// The controllers service's own HTTPS endpoint, as upstream's controller manager serves it on
// `--secure-port` (10257): /healthz, /livez and /readyz (with `verbose`, `exclude` and per-check
// paths) answered to anyone on `--authorization-always-allow-paths`; every other path — /metrics
// and the per-check paths by default — only to a caller the API authenticates and authorizes
// (delegated-auth.ts). Without `--tls-cert-file` a self-signed certificate is made in memory.

import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { closeServer, listen } from '../../shared/listen.js';
import { hostname } from 'node:os';
import { forbiddenMessage, internalError, methodNotAllowed, pathNotFound, toStatus, unauthorized, type Status, type StatusError } from '../../shared/api/status.js';
import { jsonEncoder, value } from '../../shared/codec/index.js';
import { HEALTH_PATH, runChecks } from '../../shared/health/checks.js';
import type { Logger } from '../../shared/log.js';
import { createCA, issueServingCert, type PemPair } from '../../shared/local/pki.js';
import { alwaysAllowed, nonResourceVerb, type DelegatedAuth } from './delegated-auth.js';
import type { ControllersHealth } from './health.js';

/** Upstream's default `--authorization-always-allow-paths`. */
export const DEFAULT_ALWAYS_ALLOW_PATHS: readonly string[] = ['/healthz', '/readyz', '/livez'];

export interface SecureServingConfig {
  port: number;
  bindAddress: string;
  /** PEM certificate and key; absent: a self-signed pair made at start. */
  cert?: PemPair;
  alwaysAllowPaths: readonly string[];
}

export interface SecureServingDeps {
  health: ControllersHealth;
  auth: DelegatedAuth;
  /** The Prometheus text of /metrics. */
  metrics(): Promise<string>;
  log: Logger;
}

export interface SecureServer {
  /** The port bound (the one asked for, or the one picked for port 0 in tests). */
  port: number;
  close(): Promise<void>;
}

/** Upstream's self-signed serving pair: a CA of its own and a certificate for this host and loopback. */
export async function selfSignedServingCert(now = Date.now()): Promise<PemPair> {
  const host = hostname();
  const ca = await createCA(`${host}-ca@${Math.floor(now / 1000)}`, 365);
  return issueServingCert(ca, { commonName: `${host}@${Math.floor(now / 1000)}`, dnsNames: [host] });
}

/** A Status in upstream's JSON bytes (shared/codec/status-json.ts), as the controller manager writes it. */
function writeStatus(res: ServerResponse, status: Status): void {
  const body = String(jsonEncoder.encode(value(status), false));
  res.writeHead(status.code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function sendStatus(res: ServerResponse, err: StatusError): void {
  writeStatus(res, err.status);
}

function sendText(res: ServerResponse, code: number, text: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(code, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text), 'X-Content-Type-Options': 'nosniff' });
  res.end(text);
}

export async function startSecureServing(cfg: SecureServingConfig, d: SecureServingDeps): Promise<SecureServer> {
  const cert = cfg.cert ?? (await selfSignedServingCert());

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://localhost');
    const path = url.pathname;
    if (!alwaysAllowed(cfg.alwaysAllowPaths, path)) {
      const user = await d.auth.authenticate(req.headers.authorization).catch((err: unknown) => {
        d.log.warn({ err }, 'delegated authentication failed');
        throw internalError('authentication is unavailable');
      });
      if (!user) return sendStatus(res, unauthorized());
      const verb = nonResourceVerb(req.method ?? 'GET');
      const allowed = await d.auth.authorize(user, verb, path).catch((err: unknown) => {
        d.log.warn({ err }, 'delegated authorization failed');
        throw internalError('authorization is unavailable');
      });
      if (!allowed) return sendStatus(res, forbiddenMessage(`forbidden: User "${user.username}" cannot ${verb} path "${path}"`));
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendStatus(res, methodNotAllowed());
    const health = HEALTH_PATH.exec(path);
    if (health) {
      const endpoint = health[1]!;
      const r = await runChecks(endpoint, endpoint === 'livez' ? d.health.livez() : d.health.readyz(), url.searchParams, health[2]);
      if (!r) return sendStatus(res, pathNotFound());
      return sendText(res, r.code, r.text);
    }
    if (path === '/metrics') return sendText(res, 200, await d.metrics(), 'text/plain; version=0.0.4; charset=utf-8');
    return sendStatus(res, pathNotFound());
  }

  const server = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      const status = toStatus(err);
      if (status.code === 500) d.log.error({ err, path: req.url }, 'request failed');
      if (!res.headersSent) writeStatus(res, status);
      else res.destroy();
    });
  });
  const { port } = await listen(server, cfg.port, cfg.bindAddress);
  d.log.info({ address: `https://${cfg.bindAddress.includes(':') ? `[${cfg.bindAddress}]` : cfg.bindAddress}:${port}`, selfSigned: !cfg.cert }, 'serving /healthz, /livez, /readyz and /metrics');
  return {
    port,
    close: () => closeServer(server),
  };
}
