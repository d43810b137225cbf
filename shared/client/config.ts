// Client configuration as upstream's kubeconfig: clusters, users and contexts in one or more files,
// merged as upstream merges them, then one context resolved into what a client needs to connect
// (server, trust, credentials, namespace). The parsing and merging are pure; reading the files a
// configuration names (CA, client certificate and key) happens in `resolveCluster` and
// `resolveUser`. This is the one reader of the format: the server's webhook clients
// (shared/webhook/client-config.ts) choose their cluster and user on top of it.
//
// Messages name the entry (`user "alice": ...`), not the file: whoever opened the file prefixes it.
//
// `PLATFORMCONFIG` is the platform's counterpart of upstream's `KUBECONFIG`: one file or a
// colon-separated list; `~/.platform/config` when unset. In a pod, `inClusterConfig` reads the
// service-account token, CA and namespace mounted under /var/run/secrets/platform.io/serviceaccount.

import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import type { StaticCredentials } from './credentials.js';

export const CLIENT_CONFIG_ENV = 'PLATFORMCONFIG';
export const DEFAULT_CLIENT_CONFIG_PATH = path.join('.platform', 'config');
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/platform.io/serviceaccount';

export class ClientConfigError extends Error {
  override name = 'ClientConfigError';
}

export interface ClusterEntry {
  server: string;
  certificateAuthority?: string;
  certificateAuthorityData?: string;
  insecureSkipTlsVerify?: boolean;
  tlsServerName?: string;
  proxyUrl?: string;
  /** The `client.authentication.platform.io/exec` entry of `extensions`: handed to exec plugins as `spec.cluster.config`. */
  execConfig?: unknown;
}

export interface ExecConfig {
  command: string;
  args: string[];
  env: Array<{ name: string; value: string }>;
  apiVersion: string;
  installHint?: string;
  provideClusterInfo: boolean;
  interactiveMode?: 'Never' | 'IfAvailable' | 'Always';
}

export interface AuthProviderConfig {
  name: string;
  config: Record<string, string>;
}

export interface UserEntry {
  clientCertificate?: string;
  clientCertificateData?: string;
  clientKey?: string;
  clientKeyData?: string;
  token?: string;
  tokenFile?: string;
  username?: string;
  password?: string;
  exec?: ExecConfig;
  authProvider?: AuthProviderConfig;
}

export interface ContextEntry {
  cluster: string;
  user: string;
  namespace?: string;
}

/** One file, or several merged; every relative path already made absolute against the file that named it. */
export interface ClientConfigFile {
  clusters: Map<string, ClusterEntry>;
  users: Map<string, UserEntry>;
  contexts: Map<string, ContextEntry>;
  currentContext?: string;
  /** The file each user came from (the `oidc` provider writes refreshed tokens back to it). */
  userFiles: Map<string, string>;
}

/** How a reader takes a file beyond the format itself. */
export interface ParseOptions {
  /** User fields the reader cannot honour: refused by name (`<field> is not supported for <by>`) rather than ignored. */
  unsupportedUserFields?: { fields: readonly string[]; by: string };
  /** A name given twice in one list is refused (upstream's decoding does); otherwise the first wins. */
  uniqueNames?: boolean;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
/** `where` is absent for a top-level field. */
function str(o: Obj, key: string, where?: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new ClientConfigError(`${where ? `${where}: ` : ''}${key} must be a string`);
  return v;
}

function bool(o: Obj, key: string, where: string): boolean | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new ClientConfigError(`${where}: ${key} must be true or false`);
  return v;
}

function named(list: unknown, listName: string, inner: string, opts: ParseOptions): Array<[string, Obj]> {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new ClientConfigError(`${listName} must be a list`);
  const seen = new Set<string>();
  return list.map((e, i) => {
    if (!isObj(e) || typeof e.name !== 'string' || !e.name) throw new ClientConfigError(`${listName}[${i}] needs a name`);
    if (opts.uniqueNames && seen.has(e.name)) throw new ClientConfigError(`${listName}: ${JSON.stringify(e.name)} appears twice`);
    seen.add(e.name);
    const body = e[inner] ?? {};
    if (!isObj(body)) throw new ClientConfigError(`${listName}[${i}].${inner} must be a mapping`);
    return [e.name, body];
  });
}

/** Name of the cluster extension whose value exec plugins get as `spec.cluster.config` (upstream's `client.authentication.k8s.io/exec`). */
export const EXEC_CLUSTER_EXTENSION = 'client.authentication.platform.io/exec';

/** The exec plugins' entry of a cluster's `extensions` (`[{name, extension}]`), if any. */
function execExtension(list: unknown, where: string): unknown {
  if (list === undefined || list === null) return undefined;
  if (!Array.isArray(list)) throw new ClientConfigError(`${where}: extensions must be a list`);
  const entry = list.find((e): e is Obj => isObj(e) && e.name === EXEC_CLUSTER_EXTENSION);
  return entry?.extension ?? undefined;
}

const abs = (base: string, p: string | undefined) => (p === undefined ? undefined : path.resolve(base, p));

function parseExec(o: Obj, where: string, base: string): ExecConfig {
  const command = str(o, 'command', where);
  if (!command) throw new ClientConfigError(`${where}: exec.command is required`);
  const apiVersion = str(o, 'apiVersion', where);
  if (!apiVersion) throw new ClientConfigError(`${where}: exec.apiVersion is required`);
  const args = o.args === undefined || o.args === null ? [] : o.args;
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw new ClientConfigError(`${where}: exec.args must be a list of strings`);
  const envList = o.env === undefined || o.env === null ? [] : o.env;
  if (!Array.isArray(envList)) throw new ClientConfigError(`${where}: exec.env must be a list`);
  const env = envList.map((e, i) => {
    if (!isObj(e) || typeof e.name !== 'string' || typeof e.value !== 'string') throw new ClientConfigError(`${where}: exec.env[${i}] needs a name and a value`);
    return { name: e.name, value: e.value };
  });
  const mode = str(o, 'interactiveMode', where);
  if (mode !== undefined && mode !== 'Never' && mode !== 'IfAvailable' && mode !== 'Always') {
    throw new ClientConfigError(`${where}: exec.interactiveMode must be Never, IfAvailable or Always`);
  }
  if (mode === undefined && apiVersion.endsWith('/v1')) throw new ClientConfigError(`${where}: exec.interactiveMode is required in ${apiVersion}`);
  // A command with a path separator is relative to the file; a bare name is looked up on PATH.
  const resolved = command.includes('/') ? path.resolve(base, command) : command;
  const exec: ExecConfig = { command: resolved, args: args as string[], env, apiVersion, provideClusterInfo: bool(o, 'provideClusterInfo', where) ?? false };
  const hint = str(o, 'installHint', where);
  if (hint) exec.installHint = hint;
  exec.interactiveMode = mode ?? 'IfAvailable';
  return exec;
}

/** One file's text; relative paths are resolved against `file`'s directory. */
export function parseClientConfig(text: string, file: string, opts: ParseOptions = {}): ClientConfigFile {
  let doc: unknown;
  try {
    doc = YAML.parse(text);
  } catch (err) {
    // Position only: the parser's excerpt of the line could be a credential.
    const pos = (err as { linePos?: Array<{ line: number; col: number }> }).linePos?.[0];
    throw new ClientConfigError(`not valid YAML${pos ? ` (line ${pos.line}, column ${pos.col})` : ''}`);
  }
  if (doc === null || doc === undefined) doc = {};
  if (!isObj(doc)) throw new ClientConfigError('expected a mapping with clusters, users and contexts');
  const base = path.dirname(path.resolve(file));
  const out: ClientConfigFile = { clusters: new Map(), users: new Map(), contexts: new Map(), userFiles: new Map() };
  for (const [name, c] of named(doc.clusters, 'clusters', 'cluster', opts)) {
    const where = `cluster ${JSON.stringify(name)}`;
    const entry: ClusterEntry = { server: str(c, 'server', where) ?? '' };
    const ca = abs(base, str(c, 'certificate-authority', where));
    if (ca) entry.certificateAuthority = ca;
    const caData = str(c, 'certificate-authority-data', where);
    if (caData) entry.certificateAuthorityData = caData;
    const insecure = bool(c, 'insecure-skip-tls-verify', where);
    if (insecure !== undefined) entry.insecureSkipTlsVerify = insecure;
    const serverName = str(c, 'tls-server-name', where);
    if (serverName) entry.tlsServerName = serverName;
    const proxy = str(c, 'proxy-url', where);
    if (proxy) entry.proxyUrl = proxy;
    const execConfig = execExtension(c.extensions, where);
    if (execConfig !== undefined) entry.execConfig = execConfig;
    if (!out.clusters.has(name)) out.clusters.set(name, entry);
  }
  for (const [name, u] of named(doc.users, 'users', 'user', opts)) {
    const where = `user ${JSON.stringify(name)}`;
    if (opts.unsupportedUserFields) {
      const { fields, by } = opts.unsupportedUserFields;
      const refused = fields.find((f) => u[f] !== undefined);
      if (refused) throw new ClientConfigError(`${where}: ${refused} is not supported for ${by}`);
    }
    const entry: UserEntry = {};
    const set = <K extends keyof UserEntry>(k: K, v: UserEntry[K] | undefined) => {
      if (v !== undefined) entry[k] = v;
    };
    set('clientCertificate', abs(base, str(u, 'client-certificate', where)));
    set('clientCertificateData', str(u, 'client-certificate-data', where));
    set('clientKey', abs(base, str(u, 'client-key', where)));
    set('clientKeyData', str(u, 'client-key-data', where));
    set('token', str(u, 'token', where));
    set('tokenFile', abs(base, str(u, 'tokenFile', where)));
    set('username', str(u, 'username', where));
    set('password', str(u, 'password', where));
    if (u.exec !== undefined && u.exec !== null) {
      if (!isObj(u.exec)) throw new ClientConfigError(`${where}: exec must be a mapping`);
      entry.exec = parseExec(u.exec, where, base);
    }
    if (u['auth-provider'] !== undefined && u['auth-provider'] !== null) {
      const ap = u['auth-provider'];
      if (!isObj(ap) || typeof ap.name !== 'string') throw new ClientConfigError(`${where}: auth-provider needs a name`);
      const config = ap.config ?? {};
      if (!isObj(config) || !Object.values(config).every((v) => typeof v === 'string')) throw new ClientConfigError(`${where}: auth-provider.config must map names to strings`);
      const conf = { ...(config as Record<string, string>) };
      // The provider's CA file is a path like any other in the file.
      if (conf['idp-certificate-authority']) conf['idp-certificate-authority'] = path.resolve(base, conf['idp-certificate-authority']);
      entry.authProvider = { name: ap.name, config: conf };
    }
    if (!out.users.has(name)) {
      out.users.set(name, entry);
      out.userFiles.set(name, path.resolve(file));
    }
  }
  for (const [name, c] of named(doc.contexts, 'contexts', 'context', opts)) {
    const where = `context ${JSON.stringify(name)}`;
    const entry: ContextEntry = { cluster: str(c, 'cluster', where) ?? '', user: str(c, 'user', where) ?? '' };
    const ns = str(c, 'namespace', where);
    if (ns) entry.namespace = ns;
    if (!out.contexts.has(name)) out.contexts.set(name, entry);
  }
  const current = str(doc, 'current-context');
  if (current) out.currentContext = current;
  return out;
}

/** Upstream's merge of several files: the first file to name a cluster, user or context wins, and the first current-context set. */
export function mergeClientConfigs(files: readonly ClientConfigFile[]): ClientConfigFile {
  const out: ClientConfigFile = { clusters: new Map(), users: new Map(), contexts: new Map(), userFiles: new Map() };
  for (const f of files) {
    for (const [k, v] of f.clusters) if (!out.clusters.has(k)) out.clusters.set(k, v);
    for (const [k, v] of f.users) {
      if (out.users.has(k)) continue;
      out.users.set(k, v);
      const from = f.userFiles.get(k);
      if (from) out.userFiles.set(k, from);
    }
    for (const [k, v] of f.contexts) if (!out.contexts.has(k)) out.contexts.set(k, v);
    if (out.currentContext === undefined && f.currentContext !== undefined) out.currentContext = f.currentContext;
  }
  return out;
}

/** The files a client reads: the environment's list (missing files skipped, as upstream), else the default path. */
export function clientConfigPaths(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): { paths: string[]; explicit: boolean } {
  const list = env[CLIENT_CONFIG_ENV];
  if (list) return { paths: [...new Set(list.split(path.delimiter).filter(Boolean))], explicit: true };
  return { paths: [path.join(home, DEFAULT_CLIENT_CONFIG_PATH)], explicit: false };
}

/** Reads and merges the files; a file that does not exist is skipped unless it is the only one named explicitly. */
export async function loadClientConfigFiles(paths: readonly string[], opts: { requireFirst?: boolean } = {}): Promise<ClientConfigFile> {
  const files: ClientConfigFile[] = [];
  for (const [i, p] of paths.entries()) {
    let text: string;
    try {
      text = await readFile(p, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && !(opts.requireFirst && i === 0)) continue;
      throw new ClientConfigError(`${p}: cannot read: ${code ?? (err as Error).message}`);
    }
    try {
      files.push(parseClientConfig(text, p));
    } catch (err) {
      if (err instanceof ClientConfigError) throw new ClientConfigError(`${p}: ${err.message}`);
      throw err;
    }
  }
  return mergeClientConfigs(files);
}

/** A cluster entry made usable: the server as a URL, its CA read. */
export interface ClusterConnection {
  server: URL;
  caPem?: string;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
  proxyUrl?: string;
}

/** A user entry made usable: certificate files read, one kind of token or basic auth chosen. */
export interface UserCredentials extends StaticCredentials {
  clientCertPem?: string;
  clientKeyPem?: string;
  exec?: ExecConfig;
  authProvider?: AuthProviderConfig;
}

/** Everything a client needs to talk to one server as one user. */
export interface ClientConfig extends ClusterConnection, Omit<UserCredentials, 'authProvider'> {
  authProvider?: AuthProviderConfig & { file?: string; user: string };
  /** The context's namespace, else `default`. */
  namespace: string;
  /** The cluster entry as written, for exec plugins that ask for it (`provideClusterInfo`). */
  cluster: ClusterEntry;
}

export interface ResolveOptions {
  /**
   * `<field>-data` must decode to PEM. The webhook readers ask for it: they check everything at
   * start-up, and a value pasted without base64 would otherwise fail the first call with OpenSSL's
   * words instead of start-up with the field's name. The API client hands the decoded bytes to TLS
   * as written, as it always has (its tests embed placeholders).
   */
  requirePemData?: boolean;
}

/** `<field>-data` (base64) or `<field>` (a path, already absolute); never both. */
async function readPem(where: string, field: string, file: string | undefined, data: string | undefined, opts: ResolveOptions): Promise<string | undefined> {
  if (file && data) throw new ClientConfigError(`${where}: give ${field} or ${field}-data, not both`);
  if (data) {
    const text = Buffer.from(data, 'base64').toString('utf8');
    // The decoded text is never echoed: for client-key-data it is the key.
    if (opts.requirePemData && !text.includes('-----BEGIN ')) throw new ClientConfigError(`${where}: ${field}-data is not base64-encoded PEM`);
    return text;
  }
  if (!file) return undefined;
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new ClientConfigError(`${where}: ${field}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** The named cluster entry's server and trust; its CA file is read. */
export async function resolveCluster(name: string, cluster: ClusterEntry, opts: ResolveOptions = {}): Promise<ClusterConnection> {
  const where = `cluster ${JSON.stringify(name)}`;
  if (!cluster.server) throw new ClientConfigError(`${where}: server is missing`);
  let server: URL;
  try {
    server = new URL(cluster.server);
  } catch {
    throw new ClientConfigError(`${where}: server is not a URL`);
  }
  const out: ClusterConnection = { server, insecureSkipTlsVerify: cluster.insecureSkipTlsVerify ?? false };
  const caPem = await readPem(where, 'certificate-authority', cluster.certificateAuthority, cluster.certificateAuthorityData, opts);
  if (caPem && out.insecureSkipTlsVerify) throw new ClientConfigError(`${where}: a certificate authority and insecure-skip-tls-verify contradict each other`);
  if (caPem) out.caPem = caPem;
  if (cluster.tlsServerName) out.tlsServerName = cluster.tlsServerName;
  if (cluster.proxyUrl) out.proxyUrl = cluster.proxyUrl;
  return out;
}

/** The named user entry's credentials; its certificate and key files are read (a token file is read per request). */
export async function resolveUser(name: string, user: UserEntry, opts: ResolveOptions = {}): Promise<UserCredentials> {
  const where = `user ${JSON.stringify(name)}`;
  const out: UserCredentials = {};
  const cert = await readPem(where, 'client-certificate', user.clientCertificate, user.clientCertificateData, opts);
  const key = await readPem(where, 'client-key', user.clientKey, user.clientKeyData, opts);
  if (Boolean(cert) !== Boolean(key)) throw new ClientConfigError(`${where}: client-certificate and client-key go together`);
  if (cert && key) Object.assign(out, { clientCertPem: cert, clientKeyPem: key });
  if ((user.token || user.tokenFile) && (user.username || user.password)) throw new ClientConfigError(`${where}: give a token or a username and password, not both`);
  // A token written in the file wins; a token file beside it is then never read.
  if (user.token) out.token = user.token;
  else if (user.tokenFile) out.tokenFile = user.tokenFile;
  if (user.password && !user.username) throw new ClientConfigError(`${where}: password without username`);
  if (user.username) out.basicAuth = { username: user.username, password: user.password ?? '' };
  if (user.exec && user.authProvider) throw new ClientConfigError(`${where}: exec and auth-provider cannot both be set`);
  if (user.exec) out.exec = user.exec;
  if (user.authProvider) out.authProvider = user.authProvider;
  return out;
}

/** One context of a merged configuration (`context` overrides current-context) as a client configuration. */
export async function resolveClientConfig(cfg: ClientConfigFile, opts: { context?: string; namespace?: string } = {}): Promise<ClientConfig> {
  const contextName = opts.context ?? cfg.currentContext;
  if (!contextName) throw new ClientConfigError('no context is selected (set current-context)');
  const ctx = cfg.contexts.get(contextName);
  if (!ctx) throw new ClientConfigError(`context ${JSON.stringify(contextName)} does not exist`);
  const cluster = cfg.clusters.get(ctx.cluster);
  if (!cluster) throw new ClientConfigError(`context ${JSON.stringify(contextName)}: cluster ${JSON.stringify(ctx.cluster)} does not exist`);
  const out: ClientConfig = { ...(await resolveCluster(ctx.cluster, cluster)), namespace: opts.namespace ?? ctx.namespace ?? 'default', cluster };
  if (ctx.user) {
    const user = cfg.users.get(ctx.user);
    if (!user) throw new ClientConfigError(`context ${JSON.stringify(contextName)}: user ${JSON.stringify(ctx.user)} does not exist`);
    const { authProvider, ...credentials } = await resolveUser(ctx.user, user);
    Object.assign(out, credentials);
    if (authProvider) {
      const file = cfg.userFiles.get(ctx.user);
      out.authProvider = { ...authProvider, user: ctx.user, ...(file ? { file } : {}) };
    }
  }
  return out;
}

/**
 * The same server and trust without any credential (upstream's AnonymousClientConfig): the base of
 * a client that brings its own, e.g. a service-account token obtained for it.
 */
export function anonymousClientConfig(c: ClientConfig): ClientConfig {
  const { clientCertPem: _cert, clientKeyPem: _key, token: _token, tokenFile: _file, basicAuth: _basic, exec: _exec, authProvider: _provider, ...rest } = c;
  return rest;
}

/** The client configuration a process finds: `PLATFORMCONFIG` or the default file, its current context. */
export async function loadClientConfig(opts: { env?: NodeJS.ProcessEnv; context?: string; namespace?: string; home?: string } = {}): Promise<ClientConfig> {
  const { paths, explicit } = clientConfigPaths(opts.env ?? process.env, opts.home);
  const merged = await loadClientConfigFiles(paths, { requireFirst: explicit && paths.length === 1 });
  return resolveClientConfig(merged, opts);
}

/** Inside a pod: the mounted service-account token (re-read as it rotates), CA and namespace, and the service's address from the environment. */
export async function inClusterConfig(opts: { env?: NodeJS.ProcessEnv; dir?: string } = {}): Promise<ClientConfig> {
  const env = opts.env ?? process.env;
  const dir = opts.dir ?? SERVICE_ACCOUNT_DIR;
  const host = env.PLATFORM_SERVICE_HOST;
  const port = env.PLATFORM_SERVICE_PORT;
  if (!host || !port) throw new ClientConfigError('not running in a cluster: PLATFORM_SERVICE_HOST and PLATFORM_SERVICE_PORT must be set');
  const tokenFile = path.join(dir, 'token');
  try {
    await readFile(tokenFile, 'utf8');
  } catch (err) {
    throw new ClientConfigError(`not running in a cluster: cannot read ${tokenFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const server = new URL(`https://${hostPart}:${port}`);
  const out: ClientConfig = { server, insecureSkipTlsVerify: false, tokenFile, namespace: 'default', cluster: { server: server.href } };
  try {
    out.caPem = await readFile(path.join(dir, 'ca.crt'), 'utf8');
  } catch {
    // No CA bundle mounted: the host's roots are used, as upstream.
  }
  try {
    const ns = (await readFile(path.join(dir, 'namespace'), 'utf8')).trim();
    if (ns) out.namespace = ns;
  } catch {
    // No namespace file: `default`.
  }
  return out;
}
