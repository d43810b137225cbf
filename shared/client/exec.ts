// Credential plugins (`users[].user.exec`), as upstream's client-go runs them: the command (relative
// to the configuration file, else on PATH) gets `PLATFORM_EXEC_INFO` — an ExecCredential naming
// the apiVersion, whether it may talk to the user and, with `provideClusterInfo`, the cluster (with
// the cluster's `client.authentication.platform.io/exec` extension as `config`) — and prints an ExecCredential whose status holds a bearer token or a client certificate and key.
// The answer is reused until its `expirationTimestamp`, else until the server answers 401.

import { spawn } from 'node:child_process';
import type { ClusterEntry, ExecConfig } from './config.js';

export const EXEC_INFO_ENV = 'PLATFORM_EXEC_INFO';
export const EXEC_API_VERSIONS = ['client.authentication.platform.io/v1', 'client.authentication.platform.io/v1beta1'] as const;

export class ExecPluginError extends Error {
  override name = 'ExecPluginError';
}

export interface ExecCredentialStatus {
  token?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  expirationTimestamp?: string;
}

/** What the plugin is told: the ExecCredential put in PLATFORM_EXEC_INFO. */
export function execInfo(exec: ExecConfig, cluster: ClusterEntry | undefined, interactive: boolean): Record<string, unknown> {
  const spec: Record<string, unknown> = { interactive };
  if (exec.provideClusterInfo && cluster) {
    const c: Record<string, unknown> = { server: cluster.server };
    if (cluster.tlsServerName) c['tls-server-name'] = cluster.tlsServerName;
    if (cluster.insecureSkipTlsVerify) c['insecure-skip-tls-verify'] = true;
    if (cluster.certificateAuthorityData) c['certificate-authority-data'] = cluster.certificateAuthorityData;
    if (cluster.proxyUrl) c['proxy-url'] = cluster.proxyUrl;
    if (cluster.execConfig !== undefined) c.config = cluster.execConfig;
    spec.cluster = c;
  }
  return { apiVersion: exec.apiVersion, kind: 'ExecCredential', spec };
}

/** The status of a plugin's output, checked as upstream checks it. */
export function parseExecOutput(stdout: string, exec: ExecConfig): ExecCredentialStatus {
  let out: unknown;
  try {
    out = JSON.parse(stdout);
  } catch {
    throw new ExecPluginError(`exec plugin ${exec.command}: output is not an ExecCredential (not JSON)`);
  }
  const o = out as { apiVersion?: unknown; kind?: unknown; status?: ExecCredentialStatus };
  if (o.kind !== 'ExecCredential') throw new ExecPluginError(`exec plugin ${exec.command}: output kind is ${JSON.stringify(o.kind)}, not ExecCredential`);
  if (o.apiVersion !== exec.apiVersion) throw new ExecPluginError(`exec plugin ${exec.command}: output is ${String(o.apiVersion)}, configured for ${exec.apiVersion}`);
  const s = o.status;
  if (!s || typeof s !== 'object') throw new ExecPluginError(`exec plugin ${exec.command}: no status in its output`);
  const hasCert = Boolean(s.clientCertificateData) || Boolean(s.clientKeyData);
  if (hasCert && !(s.clientCertificateData && s.clientKeyData)) throw new ExecPluginError(`exec plugin ${exec.command}: clientCertificateData and clientKeyData go together`);
  if (!s.token && !hasCert) throw new ExecPluginError(`exec plugin ${exec.command}: its status has neither a token nor a client certificate`);
  if (s.expirationTimestamp !== undefined && !Number.isFinite(Date.parse(s.expirationTimestamp))) {
    throw new ExecPluginError(`exec plugin ${exec.command}: expirationTimestamp is not a time`);
  }
  return s;
}

export interface ExecRunOptions {
  /** Whether a terminal is there to talk to (default: stdin is a TTY). */
  terminal?: boolean;
  env?: NodeJS.ProcessEnv;
  now?: () => number;
}

/** Runs the plugin once. */
export function runExecPlugin(exec: ExecConfig, cluster: ClusterEntry | undefined, opts: ExecRunOptions = {}): Promise<ExecCredentialStatus> {
  const terminal = opts.terminal ?? Boolean(process.stdin.isTTY);
  if (exec.interactiveMode === 'Always' && !terminal) {
    return Promise.reject(new ExecPluginError(`exec plugin ${exec.command}: interactiveMode is Always but there is no terminal to interact with`));
  }
  const interactive = terminal && exec.interactiveMode !== 'Never';
  const env: NodeJS.ProcessEnv = { ...(opts.env ?? process.env) };
  for (const e of exec.env) env[e.name] = e.value;
  env[EXEC_INFO_ENV] = JSON.stringify(execInfo(exec, cluster, interactive));
  return new Promise((resolve, reject) => {
    const child = spawn(exec.command, exec.args, { env, stdio: [interactive ? 'inherit' : 'ignore', 'pipe', interactive ? 'inherit' : 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') reject(new ExecPluginError(`exec plugin ${exec.command} not found${exec.installHint ? `\n\n${exec.installHint}` : ''}`));
      else reject(new ExecPluginError(`exec plugin ${exec.command}: ${err.message}`));
    });
    child.once('close', (code) => {
      if (code !== 0) {
        reject(new ExecPluginError(`exec plugin ${exec.command} exited with ${String(code)}${stderr.trim() ? `: ${stderr.trim().split('\n').slice(-1)[0]}` : ''}`));
        return;
      }
      try {
        resolve(parseExecOutput(stdout, exec));
      } catch (err) {
        reject(err);
      }
    });
  });
}

/**
 * The credentials of a plugin for an API client: run on first use, reused until they expire or
 * `invalidate` (a 401) drops them; concurrent requests share one run.
 */
export class ExecCredentials {
  private current: ExecCredentialStatus | undefined;
  private running: Promise<ExecCredentialStatus> | undefined;

  constructor(
    private readonly exec: ExecConfig,
    private readonly cluster: ClusterEntry | undefined,
    private readonly opts: ExecRunOptions = {},
  ) {}

  async status(): Promise<ExecCredentialStatus> {
    const now = (this.opts.now ?? Date.now)();
    const c = this.current;
    if (c && (!c.expirationTimestamp || Date.parse(c.expirationTimestamp) > now)) return c;
    this.running ??= runExecPlugin(this.exec, this.cluster, this.opts).finally(() => (this.running = undefined));
    this.current = await this.running;
    return this.current;
  }

  invalidate(): void {
    this.current = undefined;
  }

  async headers(): Promise<Record<string, string>> {
    const s = await this.status();
    return s.token ? { Authorization: `Bearer ${s.token}` } : {};
  }

  async clientCert(): Promise<{ certPem: string; keyPem: string } | undefined> {
    const s = await this.status();
    return s.clientCertificateData && s.clientKeyData ? { certPem: s.clientCertificateData, keyPem: s.clientKeyData } : undefined;
  }
}
