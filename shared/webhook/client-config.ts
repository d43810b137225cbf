// The client of every webhook the server calls (token authentication, authorization, admission,
// audit): a client configuration file in kubeconfig format names the server, the CA that signed its
// certificate and the credentials the API server presents. shared/client/config.ts reads the
// format; this module adds what is particular to webhooks: which cluster and user a file selects,
// what a webhook refuses (a server that is not HTTPS, credential plugins), and an HTTPS client with
// a timeout. Everything is read and checked once at start-up, so a bad file fails the service with
// its own message instead of failing requests. Credentials never appear in an error message or a
// log line.

import { readFile } from 'node:fs/promises';
import tls from 'node:tls';
import { describeUrl, requestJson } from './http-json.js';
import { closeDispatcher, createTlsDispatcher, type TlsDialOptions } from './tls-dispatcher.js';
import {
  ClientConfigError,
  parseClientConfig,
  resolveCluster,
  resolveUser,
  type ClientConfigFile,
  type ClusterEntry,
  type ParseOptions,
  type ResolveOptions,
  type UserCredentials,
  type UserEntry,
} from '../client/config.js';
import { authorizationSource, readTokenFile } from '../client/credentials.js';

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
export interface WebhookClientConfig extends Omit<UserCredentials, 'exec' | 'authProvider'> {
  server: URL;
  /** PEM; absent = the host's root CAs. */
  caPem?: string;
  insecureSkipTLSVerify: boolean;
  /** `tls-server-name`: the name the server certificate is checked against, when not the URL host. */
  tlsServerName?: string;
}

export class WebhookConfigError extends Error {
  override name = 'WebhookConfigError';
}

/**
 * How webhook clients read the format: the server runs no credential plugin and impersonates no
 * one on a webhook's behalf, so those user fields are refused rather than silently ignored.
 */
export const WEBHOOK_CONFIG_FORMAT: ParseOptions = { unsupportedUserFields: { fields: ['exec', 'auth-provider', 'as', 'act-as'], by: 'webhooks' } };

/** `-data` that is not PEM fails start-up naming the field (see ResolveOptions). */
const WEBHOOK_PEM: ResolveOptions = { requirePemData: true };

interface Selected<T> {
  name: string;
  entry: T;
}

function entryNamed<T>(entries: ReadonlyMap<string, T>, listName: string, name: string): Selected<T> {
  if (entries.size === 0) throw new WebhookConfigError(`${listName} is missing`);
  const entry = entries.get(name);
  if (!entry) throw new WebhookConfigError(`${listName}: no entry named ${JSON.stringify(name)}`);
  return { name, entry };
}

function onlyEntry<T>(entries: ReadonlyMap<string, T>, listName: string): Selected<T> | undefined {
  if (entries.size > 1) throw new WebhookConfigError(`${listName}: ${entries.size} entries and no context says which to use`);
  const [only] = entries;
  return only && { name: only[0], entry: only[1] };
}

/** The cluster and user entries the file selects: current-context, else its only context. */
function selectEntries(cfg: ClientConfigFile): { cluster: Selected<ClusterEntry>; user?: Selected<UserEntry> } {
  let contextName = cfg.currentContext;
  if (contextName === undefined) {
    if (cfg.contexts.size > 1) throw new WebhookConfigError(`no current-context and ${cfg.contexts.size} contexts`);
    [contextName] = cfg.contexts.keys();
  }
  if (contextName !== undefined) {
    const { entry: context } = entryNamed(cfg.contexts, 'contexts', contextName);
    if (!context.cluster) throw new WebhookConfigError(`context ${JSON.stringify(contextName)} names no cluster`);
    const cluster = entryNamed(cfg.clusters, 'clusters', context.cluster);
    return context.user ? { cluster, user: entryNamed(cfg.users, 'users', context.user) } : { cluster };
  }
  // No context at all: a file with one cluster (and at most one user) is unambiguous.
  const cluster = onlyEntry(cfg.clusters, 'clusters');
  if (!cluster) throw new WebhookConfigError('no cluster is configured');
  const user = onlyEntry(cfg.users, 'users');
  return user ? { cluster, user } : { cluster };
}

/** A webhook receives credentials: over HTTPS only, and none in the URL. */
function checkServer(server: URL, where: string): void {
  if (server.protocol !== 'https:') throw new WebhookConfigError(`${where}: server must be an https URL (it receives credentials)`);
  // Node would send these as basic auth; credentials belong in users[] where they are checked.
  if (server.username || server.password) throw new WebhookConfigError(`${where}: server must not carry user info; put credentials in users[]`);
}

/**
 * A user entry (of a file parsed with WEBHOOK_CONFIG_FORMAT) as the API server presents it to a
 * webhook. Its token file is read once now, so a missing or empty one fails start-up rather than
 * the first call.
 */
export async function resolveWebhookUser(name: string, user: UserEntry): Promise<UserCredentials> {
  const credentials = await resolveUser(name, user, WEBHOOK_PEM);
  if (credentials.tokenFile) {
    try {
      await readTokenFile(credentials.tokenFile);
    } catch (err) {
      throw new WebhookConfigError(`user ${JSON.stringify(name)}: ${(err as Error).message}`);
    }
  }
  return credentials;
}

/**
 * A client configuration file's text; `file` is its path, against whose directory relative paths
 * resolve. The files it names are read. Errors (ClientConfigError for the format,
 * WebhookConfigError for what webhooks add) name the entry, not the file.
 */
export async function parseWebhookClientConfig(text: string, file: string): Promise<WebhookClientConfig> {
  const selected = selectEntries(parseClientConfig(text, file, WEBHOOK_CONFIG_FORMAT));
  // proxy-url is ignored, as it always was here: webhooks are dialled directly.
  const cluster = await resolveCluster(selected.cluster.name, selected.cluster.entry, WEBHOOK_PEM);
  checkServer(cluster.server, `cluster ${JSON.stringify(selected.cluster.name)}`);
  const config: WebhookClientConfig = { server: cluster.server, insecureSkipTLSVerify: cluster.insecureSkipTlsVerify };
  if (cluster.caPem) config.caPem = cluster.caPem;
  if (cluster.tlsServerName) config.tlsServerName = cluster.tlsServerName;
  if (selected.user) Object.assign(config, await resolveWebhookUser(selected.user.name, selected.user.entry));
  return config;
}

/** A client for a parsed configuration. Fails on TLS material Node cannot use (e.g. a key that does not match its certificate). */
export function createWebhookClient(config: WebhookClientConfig, opts: { timeoutMs?: number } = {}): WebhookClient {
  const tlsOptions: TlsDialOptions = { rejectUnauthorized: !config.insecureSkipTLSVerify };
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
  const dispatcher = createTlsDispatcher(tlsOptions);
  const authorization = authorizationSource(config);
  const defaultTimeoutMs = opts.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  let closed = false;
  const post = async (text: string, postOpts: { timeoutMs?: number }, ignoreSuccessBody = false) => {
    if (closed) throw new Error(`${describeUrl(config.server)}: the webhook client is closed`);
    const headers: Record<string, string> = {};
    const auth = await authorization();
    if (auth) headers.Authorization = auth;
    return requestJson(config.server, { method: 'POST', dispatcher, headers, body: text, timeoutMs: postOpts.timeoutMs ?? defaultTimeoutMs, ignoreSuccessBody });
  };
  return {
    postJson: (body, postOpts = {}) => post(JSON.stringify(body), postOpts),
    postJsonText: (text, postOpts = {}) => post(text, postOpts, true),
    close() {
      closed = true;
      void closeDispatcher(dispatcher);
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
    return createWebhookClient(await parseWebhookClientConfig(text, file), opts);
  } catch (err) {
    if (err instanceof WebhookConfigError || err instanceof ClientConfigError) throw new WebhookConfigError(`${file}: ${err.message}`);
    throw err;
  }
}
