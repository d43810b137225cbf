// The state `npm start` keeps in its local directory ($PLATFORM_LOCAL_DIR): the dev PKI, the
// static token file and admin token, the service-account signing key, the kubeconfigs and the
// local nats-server's users and port. Created once and reused, so a kubeconfig handed out earlier
// keeps working after a restart.

import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { writeKubeconfig } from '../shared/local/kubeconfig.js';
import { freePort } from '../shared/local/nats-server.js';
import { ensureNatsAuth, type LocalNatsAuth } from '../shared/local/nats-auth.js';
import { ADMIN_GROUPS, ADMIN_USER, ensurePki, type LocalPki } from '../shared/local/pki.js';
import { CONTROLLER_MANAGER_USER } from '../shared/api/groups.js';
import { ensureFrontProxyPki, type FrontProxyPki } from '../shared/local/front-proxy-pki.js';

export interface LocalState {
  dir: string;
  pki: LocalPki;
  tokenFile: string;
  adminTokenFile: string;
  adminToken: string;
  kubeconfig: string;
  /** The controllers service's client configuration (its own client certificate). */
  controllersKubeconfig: string;
  /** Private key that signs service-account tokens (its public half verifies them). */
  serviceAccountKeyFile: string;
  /** NATS's server certificate and the users' passwords (used when the local nats-server runs). */
  nats: LocalNatsAuth;
  /** The front-proxy CA and the client certificate the gateway presents to aggregated API servers. */
  frontProxy: FrontProxyPki;
}

/** Issuer of the local cluster's service-account tokens. */
export const LOCAL_SA_ISSUER = 'https://platform.default.svc';

/** The service-account signing key (EC P-256, PKCS#8), created once so issued tokens survive restarts. */
export async function ensureServiceAccountKey(file: string): Promise<void> {
  if (existsSync(file)) return;
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  await writePrivate(file, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
}

async function writePrivate(file: string, data: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, data, { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, file);
}

/**
 * Returns the admin's token from the static token file (`token,user,uid,"group1,group2"`),
 * creating the file, or adding the admin line to a file the user edited, when needed.
 */
export async function ensureTokenFile(file: string): Promise<string> {
  const line = (token: string) => `${token},${ADMIN_USER},${ADMIN_USER},"${ADMIN_GROUPS.join(',')}"\n`;
  if (existsSync(file)) {
    const text = await readFile(file, 'utf8');
    for (const row of text.split(/\r?\n/)) {
      const [token, user] = row.split(',');
      if (token && user === ADMIN_USER) return token.trim();
    }
    const token = randomBytes(32).toString('hex');
    await appendFile(file, (text === '' || text.endsWith('\n') ? '' : '\n') + line(token));
    return token;
  }
  const token = randomBytes(32).toString('hex');
  await writePrivate(file, line(token));
  return token;
}

/** PKI, token file and kubeconfig under `cfg.dir`; existing files are reused. */
export async function prepareLocalState(cfg: { dir: string; port: number; servingNames: string[] }): Promise<LocalState> {
  await mkdir(cfg.dir, { recursive: true, mode: 0o700 });
  const pki = await ensurePki(path.join(cfg.dir, 'pki'), { servingNames: cfg.servingNames });
  const tokenFile = path.join(cfg.dir, 'tokens.csv');
  const adminToken = await ensureTokenFile(tokenFile);
  // A file of its own so shell snippets can use it without parsing the CSV.
  const adminTokenFile = path.join(cfg.dir, 'admin-token');
  await writePrivate(adminTokenFile, adminToken + '\n');
  const serviceAccountKeyFile = path.join(pki.files.dir, 'service-account.key');
  await ensureServiceAccountKey(serviceAccountKeyFile);
  const kubeconfig = path.join(cfg.dir, 'kubeconfig');
  // Rewritten every start: the port may differ from the last run.
  await writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${cfg.port}`, caPem: pki.ca.certPem, token: adminToken, clientCertPem: pki.admin.certPem, clientKeyPem: pki.admin.keyPem });
  const controllersKubeconfig = path.join(cfg.dir, 'controllers.kubeconfig');
  await writeKubeconfig(controllersKubeconfig, {
    server: `https://127.0.0.1:${cfg.port}`,
    caPem: pki.ca.certPem,
    clientCertPem: pki.controllers.certPem,
    clientKeyPem: pki.controllers.keyPem,
    certUserName: CONTROLLER_MANAGER_USER,
  });
  const nats = await ensureNatsAuth(cfg.dir, pki, { serverNames: cfg.servingNames });
  const frontProxy = await ensureFrontProxyPki(pki.files.dir);
  return { dir: cfg.dir, pki, tokenFile, adminTokenFile, adminToken, kubeconfig, controllersKubeconfig, serviceAccountKeyFile, nats, frontProxy };
}

/** PLATFORM_NATS_PORT, else the port remembered in `<dir>/nats-port`, else a new free one (remembered). */
export async function localNatsPort(dir: string, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (env.PLATFORM_NATS_PORT) return Number(env.PLATFORM_NATS_PORT);
  const file = path.join(dir, 'nats-port');
  if (existsSync(file)) {
    const n = Number((await readFile(file, 'utf8')).trim());
    if (Number.isInteger(n) && n > 0) return n;
  }
  const port = await freePort();
  await writeFile(file, `${port}\n`);
  return port;
}
