// The client of every webhook the server calls (token authentication, authorization, admission):
// a client configuration file in kubeconfig format names the server, the CA that signed its
// certificate and the credentials the API server presents. Everything is read and checked once at
// start-up, so a bad file fails the service with its own message instead of failing requests.
// Credentials never appear in an error message or a log line; YAML errors are reported by
// position only, because the parser's excerpt of the offending line could be a token.

import https from 'node:https';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import tls from 'node:tls';
import YAML from 'yaml';
import { describeUrl, requestJson } from './http-json.js';
import { authorizationSource } from '../client/credentials.js';

/** Upstream's default for webhook calls. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 30_000;

export interface WebhookClient {
  /** POSTs `body` as JSON to the configured server; resolves with the status and parsed JSON body. */
  postJson(body: unknown, opts?: { timeoutMs?: number }): Promise<{ status: number; body: unknown }>;
  /** Posts JSON already serialized (a batch of events serialized one by one); only the status is read. */
  postJsonText(text: string, opts?: { timeoutMs?: number }): Promise<{ status: number }>;
  close(): void;
}

/** What a client configuration file resolves to: one server and the credentials for it. */
export interface WebhookClientConfig {
  server: URL;
  /** PEM; absent = the host's root CAs. */
  caPem?: string;
  insecureSkipTLSVerify: boolean;
  /** `tls-server-name`: the name the server certificate is checked against, when not the URL host. */
  tlsServerName?: string;
  clientCertPem?: string;
  clientKeyPem?: string;
  token?: string;
  /** Absolute path; read at start-up and re-read periodically (a token takes precedence). */
  tokenFile?: string;
  basicAuth?: { username: string; password: string };
}

export class WebhookConfigError extends Error {
  override name = 'WebhookConfigError';
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function optString(o: Obj, key: string, where: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new WebhookConfigError(`${where}: ${key} must be a string`);
  return v;
}

function namedEntry(list: unknown, listName: string, name: string): Obj {
  if (!Array.isArray(list)) throw new WebhookConfigError(`${listName} is missing`);
  const entry = list.find((e) => isObj(e) && e.name === name);
  if (!entry) throw new WebhookConfigError(`${listName}: no entry named ${JSON.stringify(name)}`);
  return entry as Obj;
}

function onlyEntry(list: unknown, listName: string): Obj | undefined {
  if (list === undefined || list === null) return undefined;
  if (!Array.isArray(list)) throw new WebhookConfigError(`${listName} must be a list`);
  if (list.length > 1) throw new WebhookConfigError(`${listName}: ${list.length} entries and no context says which to use`);
  const e = list[0];
  if (e !== undefined && !isObj(e)) throw new WebhookConfigError(`${listName}[0] must be a mapping`);
  return e;
}

/** The cluster and user entries the file selects: current-context, else its only context. */
function selectEntries(doc: Obj): { cluster: Obj; user: Obj | undefined } {
  const current = optString(doc, 'current-context', 'config');
  const contexts = doc.contexts;
  let context: Obj | undefined;
  if (current !== undefined) {
    context = namedEntry(contexts, 'contexts', current);
  } else if (Array.isArray(contexts) && contexts.length > 0) {
    if (contexts.length > 1) throw new WebhookConfigError(`no current-context and ${contexts.length} contexts`);
    context = contexts[0] as Obj;
  }
  if (context) {
    const c = context.context;
    if (!isObj(c)) throw new WebhookConfigError(`context ${JSON.stringify(context.name)} has no context mapping`);
    const clusterName = optString(c, 'cluster', 'context');
    if (!clusterName) throw new WebhookConfigError(`context ${JSON.stringify(context.name)} names no cluster`);
    const userName = optString(c, 'user', 'context');
    return { cluster: namedEntry(doc.clusters, 'clusters', clusterName), user: userName ? namedEntry(doc.users, 'users', userName) : undefined };
  }
  // No context at all: a file with one cluster (and at most one user) is unambiguous.
  const cluster = onlyEntry(doc.clusters, 'clusters');
  if (!cluster) throw new WebhookConfigError('no cluster is configured');
  return { cluster, user: onlyEntry(doc.users, 'users') };
}

async function readPem(file: string, where: string, field: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new WebhookConfigError(`${where}: ${field}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

function decodeData(value: string, where: string, field: string): string {
  const text = Buffer.from(value, 'base64').toString('utf8');
  // The decoded text is never echoed: for client-key-data it is the key.
  if (!text.includes('-----BEGIN ')) throw new WebhookConfigError(`${where}: ${field} is not base64-encoded PEM`);
  return text;
}

/** `<field>-data` (base64 PEM) or `<field>` (a path, relative to the file's directory); never both. */
async function pemFrom(o: Obj, field: string, where: string, baseDir: string): Promise<string | undefined> {
  const data = optString(o, `${field}-data`, where);
  const file = optString(o, field, where);
  if (data && file) throw new WebhookConfigError(`${where}: give ${field} or ${field}-data, not both`);
  if (data) return decodeData(data, where, `${field}-data`);
  if (file) return readPem(path.resolve(baseDir, file), where, field);
  return undefined;
}

function parseServer(raw: string | undefined, where: string): URL {
  if (!raw) throw new WebhookConfigError(`${where}: server is missing`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookConfigError(`${where}: server is not a URL`);
  }
  if (url.protocol !== 'https:') throw new WebhookConfigError(`${where}: server must be an https URL (it receives credentials)`);
  // Node would send these as basic auth; credentials belong in users[] where they are checked.
  if (url.username || url.password) throw new WebhookConfigError(`${where}: server must not carry user info; put credentials in users[]`);
  return url;
}

/** A kubeconfig-style file's YAML; an error names only the position (the line could hold a token). */
export function parseConfigYaml(text: string): unknown {
  try {
    return YAML.parse(text);
  } catch (err) {
    const pos = (err as { linePos?: Array<{ line: number; col: number }> }).linePos?.[0];
    throw new WebhookConfigError(`not valid YAML${pos ? ` (line ${pos.line}, column ${pos.col})` : ''}`);
  }
}

/**
 * Parses a client configuration file's text. Referenced files (CA, client certificate and key)
 * are read, relative to `baseDir`; the token file only has to be readable.
 */
export async function parseWebhookClientConfig(text: string, baseDir: string): Promise<WebhookClientConfig> {
  const doc = parseConfigYaml(text);
  if (!isObj(doc)) throw new WebhookConfigError('expected a mapping with clusters, users and contexts');
  const { cluster: clusterEntry, user: userEntry } = selectEntries(doc);

  const clusterWhere = `cluster ${JSON.stringify(clusterEntry.name ?? '')}`;
  const cluster = clusterEntry.cluster;
  if (!isObj(cluster)) throw new WebhookConfigError(`${clusterWhere}: cluster mapping is missing`);
  const config: WebhookClientConfig = { server: parseServer(optString(cluster, 'server', clusterWhere), clusterWhere), insecureSkipTLSVerify: false };
  const insecure = cluster['insecure-skip-tls-verify'];
  if (insecure !== undefined && typeof insecure !== 'boolean') throw new WebhookConfigError(`${clusterWhere}: insecure-skip-tls-verify must be true or false`);
  config.insecureSkipTLSVerify = insecure === true;
  const caPem = await pemFrom(cluster, 'certificate-authority', clusterWhere, baseDir);
  if (caPem && config.insecureSkipTLSVerify) throw new WebhookConfigError(`${clusterWhere}: a certificate authority and insecure-skip-tls-verify contradict each other`);
  if (caPem) config.caPem = caPem;
  const serverName = optString(cluster, 'tls-server-name', clusterWhere);
  if (serverName) config.tlsServerName = serverName;

  if (userEntry) Object.assign(config, await parseUserCredentials(userEntry, baseDir));
  return config;
}

/** What a client configuration's user entry gives the API server to present. */
export interface UserCredentials {
  clientCertPem?: string;
  clientKeyPem?: string;
  token?: string;
  /** Absolute path; read at start-up and re-read periodically (a token takes precedence). */
  tokenFile?: string;
  basicAuth?: { username: string; password: string };
}

/**
 * One `users[]` entry (`{name, user}`) of a client configuration file: a client certificate and
 * key, a token or token file, or a username and password. Referenced files are read relative to
 * `baseDir`; the token file only has to be readable.
 */
export async function parseUserCredentials(userEntry: Record<string, unknown>, baseDir: string): Promise<UserCredentials> {
  const userWhere = `user ${JSON.stringify(userEntry.name ?? '')}`;
  const user = userEntry.user ?? {};
  if (!isObj(user)) throw new WebhookConfigError(`${userWhere}: user must be a mapping`);
  for (const unsupported of ['exec', 'auth-provider', 'as', 'act-as']) {
    if (user[unsupported] !== undefined) throw new WebhookConfigError(`${userWhere}: ${unsupported} is not supported for webhooks`);
  }
  const out: UserCredentials = {};
  const cert = await pemFrom(user, 'client-certificate', userWhere, baseDir);
  const key = await pemFrom(user, 'client-key', userWhere, baseDir);
  if (Boolean(cert) !== Boolean(key)) throw new WebhookConfigError(`${userWhere}: client-certificate and client-key go together`);
  if (cert && key) {
    out.clientCertPem = cert;
    out.clientKeyPem = key;
  }
  const token = optString(user, 'token', userWhere);
  const tokenFile = optString(user, 'tokenFile', userWhere);
  const username = optString(user, 'username', userWhere);
  const password = optString(user, 'password', userWhere);
  if ((token || tokenFile) && (username || password)) throw new WebhookConfigError(`${userWhere}: give a token or a username and password, not both`);
  if (token) out.token = token;
  if (tokenFile) {
    out.tokenFile = path.resolve(baseDir, tokenFile);
    await readTokenFile(out.tokenFile, userWhere);
  }
  if (username || password) {
    if (!username) throw new WebhookConfigError(`${userWhere}: password without username`);
    out.basicAuth = { username, password: password ?? '' };
  }
  return out;
}

export async function readTokenFile(file: string, where: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new WebhookConfigError(`${where}: tokenFile: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const token = text.trim();
  if (!token) throw new WebhookConfigError(`${where}: tokenFile ${file} is empty`);
  return token;
}


/** A client for a parsed configuration. Fails on TLS material Node cannot use (e.g. a key that does not match its certificate). */
export function createWebhookClient(config: WebhookClientConfig, opts: { timeoutMs?: number } = {}): WebhookClient {
  const tlsOptions: https.AgentOptions = { rejectUnauthorized: !config.insecureSkipTLSVerify };
  if (config.caPem) tlsOptions.ca = config.caPem;
  if (config.clientCertPem) tlsOptions.cert = config.clientCertPem;
  if (config.clientKeyPem) tlsOptions.key = config.clientKeyPem;
  if (config.tlsServerName) tlsOptions.servername = config.tlsServerName;
  try {
    tls.createSecureContext(tlsOptions);
  } catch (err) {
    // OpenSSL's messages name the problem ("key values mismatch"), never the key material.
    throw new WebhookConfigError(`invalid TLS material: ${(err as Error).message}`);
  }
  const agent = new https.Agent({ keepAlive: true, ...tlsOptions });
  const authorization = authorizationSource(config, (file) => readTokenFile(file, 'tokenFile'));
  const defaultTimeoutMs = opts.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  let closed = false;
  const post = async (text: string, postOpts: { timeoutMs?: number }, ignoreSuccessBody = false) => {
    if (closed) throw new Error(`${describeUrl(config.server)}: the webhook client is closed`);
    const headers: Record<string, string> = {};
    const auth = await authorization();
    if (auth) headers.Authorization = auth;
    return requestJson(config.server, { method: 'POST', agent, headers, body: text, timeoutMs: postOpts.timeoutMs ?? defaultTimeoutMs, ignoreSuccessBody });
  };
  return {
    postJson: (body, postOpts = {}) => post(JSON.stringify(body), postOpts),
    postJsonText: (text, postOpts = {}) => post(text, postOpts, true),
    close() {
      closed = true;
      agent.destroy();
    },
  };
}

/** Reads a client configuration file (kubeconfig format) and returns a client for it. */
export async function loadWebhookClient(file: string, opts: { timeoutMs?: number } = {}): Promise<WebhookClient> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new WebhookConfigError(`${file}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return createWebhookClient(await parseWebhookClientConfig(text, path.dirname(path.resolve(file))), opts);
  } catch (err) {
    if (err instanceof WebhookConfigError) throw new WebhookConfigError(`${file}: ${err.message}`);
    throw err;
  }
}
