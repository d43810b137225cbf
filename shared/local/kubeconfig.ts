// Client configuration (kubeconfig) for the local cluster, readable by kubectl, client-go and
// @kubernetes/client-node. Credentials are embedded (`*-data`) rather than referenced by path so
// the file keeps working when copied elsewhere.

import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';

export const LOCAL_CLUSTER_NAME = 'platform-local';
export const LOCAL_CONTEXT_NAME = 'platform-local';
export const TOKEN_USER_NAME = 'platform-admin';
export const CERT_USER_NAME = 'platform-admin-cert';

export interface KubeconfigOptions {
  /** https://127.0.0.1:<port> */
  server: string;
  /** CA that signed the serving certificate (PEM). */
  caPem: string;
  /** Bearer token of user `platform-admin`; the current context uses it when given. */
  token?: string;
  /** Client certificate and key (PEM) of user `platform-admin-cert`. */
  clientCertPem?: string;
  clientKeyPem?: string;
  /** Default namespace of the context. */
  namespace?: string;
  /** Name of the certificate user entry (default `platform-admin-cert`). */
  certUserName?: string;
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/** The kubeconfig as a plain object (apiVersion v1, kind Config). */
export function kubeconfigObject(opts: KubeconfigOptions): Record<string, unknown> {
  const users: Array<{ name: string; user: Record<string, string> }> = [];
  if (opts.token) users.push({ name: TOKEN_USER_NAME, user: { token: opts.token } });
  if (opts.clientCertPem && opts.clientKeyPem) {
    users.push({ name: opts.certUserName ?? CERT_USER_NAME, user: { 'client-certificate-data': b64(opts.clientCertPem), 'client-key-data': b64(opts.clientKeyPem) } });
  } else if (opts.clientCertPem || opts.clientKeyPem) {
    throw new Error('kubeconfig: client certificate and key go together');
  }
  if (users.length === 0) throw new Error('kubeconfig: give a token or a client certificate');
  const contextUser = users[0]!.name;
  return {
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: [{ name: LOCAL_CLUSTER_NAME, cluster: { server: opts.server, 'certificate-authority-data': b64(opts.caPem) } }],
    users,
    contexts: [{ name: LOCAL_CONTEXT_NAME, context: { cluster: LOCAL_CLUSTER_NAME, user: contextUser, ...(opts.namespace ? { namespace: opts.namespace } : {}) } }],
    'current-context': LOCAL_CONTEXT_NAME,
  };
}

/** The kubeconfig as YAML text. */
export function kubeconfigYaml(opts: KubeconfigOptions): string {
  return YAML.stringify(kubeconfigObject(opts), { lineWidth: 0 });
}

/** Writes the kubeconfig with mode 0600: it holds the admin credentials. */
export async function writeKubeconfig(file: string, opts: KubeconfigOptions): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, kubeconfigYaml(opts), { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, file);
}
