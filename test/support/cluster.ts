// An in-process cluster for end-to-end tests: a real nats-server, the storage, authn, authz and
// admission services, and a gateway serving HTTPS with a dev CA on a free loopback port. Also
// writes a kubeconfig so real clients (client-node, kubectl) can talk to it.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import https from 'node:https';
import type { NatsConnection } from '@nats-io/nats-core';
import { startTestNats, type TestNats } from './nats.js';
import { silentLogger } from '../../shared/log.js';
import { createBuiltinRegistry } from '../../shared/registry/builtin-registry.js';
import type { Registry } from '../../shared/registry/registry.js';
import { createStorageService } from '../../services/storage/service.js';
import { createAuthnService } from '../../services/authn/service.js';
import { createAuthzService } from '../../services/authz/service.js';
import { createAdmissionService } from '../../services/admission/service.js';
import { createGatewayService, type GatewayConfig, type GatewayService } from '../../services/gateway/service.js';
import { createCA, issueServingCert, type CertificateAuthority } from '../../shared/local/pki.js';
import type { AuthnConfig } from '../../services/authn/config.js';
import type { AdmissionConfig } from '../../services/admission/config.js';
import { kubeconfigYaml } from '../../shared/local/kubeconfig.js';
import type { FeatureGates } from '../../shared/config/feature-gates.js';

export interface TestCluster {
  /** https://127.0.0.1:<port> */
  url: string;
  /** Bearer token of an admin user (group system:masters). */
  adminToken: string;
  /** Bearer token of a user in no special group. */
  userToken: string;
  caPem: string;
  /** The cluster CA: with `fullAuthn` it also signs client certificates the server accepts. */
  ca: CertificateAuthority;
  /** With `fullAuthn`: the CA of the authenticating proxy's client certificate (CN `front-proxy`). */
  proxyCA?: CertificateAuthority;
  /** With `fullAuthn`: the service-account token issuer. */
  serviceAccountIssuer?: string;
  kubeconfigPath: string;
  nats: TestNats;
  nc: NatsConnection;
  gateway: GatewayService;
  /** The gateways' registry: a test may add types to it while they run, as a stored definition would. */
  registry: Registry;
  /** fetch against the gateway with the admin token and the dev CA trusted. */
  request(method: string, path: string, opts?: RequestOptions): Promise<TestResponse>;
  /** Every gateway (with `replicas`), the first being `gateway`/`url`/`request`. */
  gateways: Array<{ url: string; service: GatewayService; request(method: string, path: string, opts?: RequestOptions): Promise<TestResponse> }>;
  stop(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
  bytes: Buffer;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string | string[]>;
  /** Bearer token; default the admin's, null for none. */
  token?: string | null;
  rawBody?: string | Buffer;
  /** A client certificate to present (PEM). */
  cert?: { certPem: string; keyPem: string };
}

export interface ClusterOptions {
  authorizationModes?: string[];
  anonymousAuth?: boolean;
  /** Every authentication method that needs no outside server: client certificates (the cluster
   *  CA), the authenticating proxy (its own CA), bootstrap tokens, service-account tokens. */
  fullAuthn?: boolean;
  /** Merged over the authn configuration. */
  authn?: Partial<AuthnConfig>;
  /**
   * `--enable-admission-plugins` / `--disable-admission-plugins` of the admission service. Without
   * `disable`, ServiceAccount is disabled as in upstream's integration test server: no controllers
   * run here to create each namespace's `default` account, so it would refuse every pod.
   */
  admission?: AdmissionConfig;
  gateway?: Partial<GatewayConfig>;
  runtimeConfig?: string;
  /** `--upstream-group-aliases` of the gateway and the authz service (as `npm start` sets it). */
  upstreamGroupAliases?: boolean;
  /** `--feature-gates` of the gateway. */
  featureGates?: FeatureGates;
  /** A NATS the caller started (and stops): a clustered one. Default: a nats-server of the cluster's own. */
  nats?: TestNats;
  /** Replicas of every service and gateway, each on its own NATS connection (default 1). */
  replicas?: number;
  /** `--replicas` of the storage service: the bucket's stream replicas when it creates it. */
  bucketReplicas?: number;
}

export async function startTestCluster(opts: ClusterOptions = {}): Promise<TestCluster> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'platform-cluster-'));
  const ownNats = !opts.nats;
  const nats = opts.nats ?? (await startTestNats());
  const log = silentLogger();
  const replicas = opts.replicas ?? 1;
  const nc = await nats.connect('cluster-services');
  // Each further replica has its own connection, as separate processes would.
  const conns = [nc];
  for (let i = 1; i < replicas; i++) conns.push(await nats.connect(`cluster-services-${i}`));
  const storages: Array<{ stop(): Promise<void> }> = [];
  for (const c of conns) storages.push(await createStorageService({ nc: c, log, ...(opts.bucketReplicas ? { replicas: opts.bucketReplicas } : {}) }));
  const adminToken = randomBytes(24).toString('hex');
  const userToken = randomBytes(24).toString('hex');
  const tokenFile = path.join(dir, 'tokens.csv');
  await writeFile(tokenFile, `${adminToken},platform-admin,platform-admin,"system:masters"\n${userToken},jane,jane-uid,"developers,qa"\n`);
  const ca = await createCA('platform-test-ca');
  const authnConfig: AuthnConfig = { tokenAuthFile: tokenFile, anonymousAuth: opts.anonymousAuth ?? true };
  let proxyCA: CertificateAuthority | undefined;
  let serviceAccountIssuer: string | undefined;
  if (opts.fullAuthn) {
    const caFile = path.join(dir, 'ca.crt');
    await writeFile(caFile, ca.certPem);
    proxyCA = await createCA('platform-test-front-proxy-ca');
    const proxyCAFile = path.join(dir, 'front-proxy-ca.crt');
    await writeFile(proxyCAFile, proxyCA.certPem);
    const saKeyFile = path.join(dir, 'sa.key');
    await writeFile(saKeyFile, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
    serviceAccountIssuer = 'https://platform.test';
    Object.assign(authnConfig, {
      clientCAFile: caFile,
      requestHeader: { clientCAFile: proxyCAFile, usernameHeaders: ['X-Remote-User'], groupHeaders: ['X-Remote-Group'], extraHeadersPrefixes: ['X-Remote-Extra-'], allowedNames: ['front-proxy'] },
      enableBootstrapTokenAuth: true,
      serviceAccount: { keyFiles: [], signingKeyFile: saKeyFile, issuers: [serviceAccountIssuer], lookup: true },
    } satisfies Partial<AuthnConfig>);
  }
  const aliases = opts.upstreamGroupAliases ?? false;
  const services: Array<{ stop(): Promise<void> }> = [];
  // Admission before authz: authz starts answering once its default RBAC policy is written, and
  // those writes go through admission (without it, each bring-up waited out authz's 10 s bound).
  for (const c of conns) {
    services.push(await createAuthnService({ nc: c, log, config: { ...authnConfig, ...opts.authn } }));
    services.push(await createAdmissionService({ nc: c, log, config: { disable: ['ServiceAccount'], ...opts.admission } }));
    services.push(await createAuthzService({ nc: c, log, config: { modes: opts.authorizationModes ?? ['AlwaysAllow'], ...(aliases ? { upstreamGroupAliases: true } : {}) } }));
  }
  const serving = await issueServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const registry = createBuiltinRegistry({ ...(opts.runtimeConfig ? { runtimeConfig: opts.runtimeConfig } : {}), upstreamGroupAliases: aliases });
  const clientCA = proxyCA ? `${ca.certPem}\n${proxyCA.certPem}` : undefined;
  const gatewayServices: GatewayService[] = [];
  const gatewayUrls: string[] = [];
  for (let i = 0; i < replicas; i++) {
    const gwNc = await nats.connect(i ? `cluster-gateway-${i}` : 'cluster-gateway');
    const gw = await createGatewayService({
      nc: gwNc,
      registry,
      log,
      config: { ...opts.gateway, ...(opts.featureGates ? { featureGates: opts.featureGates } : {}), tls: { cert: serving.certPem, key: serving.keyPem, ...(clientCA ? { clientCA } : {}) } },
    });
    await gw.ready;
    gatewayServices.push(gw);
    gatewayUrls.push((await gw.app.listen({ port: 0, host: '127.0.0.1' })).replace('http://', 'https://'));
  }
  const gateway = gatewayServices[0]!;
  const url = gatewayUrls[0]!;
  const kubeconfigPath = path.join(dir, 'kubeconfig');
  await writeFile(kubeconfigPath, kubeconfigYaml({ server: url, caPem: ca.certPem, token: adminToken }));

  const agent = new https.Agent({ ca: ca.certPem, keepAlive: true });
  const requestTo =
    (url: string): TestCluster['request'] =>
    (method, p, o = {}) => {
      const headers: Record<string, string | string[]> = { ...(o.headers ?? {}) };
      const token = o.token === undefined ? adminToken : o.token;
      if (token) headers.authorization = `Bearer ${token}`;
      let body: string | Buffer | undefined = o.rawBody;
      if (o.body !== undefined) {
        body = JSON.stringify(o.body);
        headers['content-type'] ??= 'application/json';
      }
      // Node adds no Content-Length to DELETE bodies on its own; the server would read the body as the next request.
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      return new Promise((resolve, reject) => {
        const tls = o.cert ? { agent: false as const, ca: ca.certPem, cert: o.cert.certPem, key: o.cert.keyPem } : { agent };
        const req = https.request(url + p, { method, headers, ...tls }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const bytes = Buffer.concat(chunks);
            const text = bytes.toString('utf8');
            let json: unknown;
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
            const h = new Headers();
            for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) for (const x of Array.isArray(v) ? v : [v]) h.append(k, x);
            resolve({ status: res.statusCode ?? 0, headers: h, text, json, bytes });
          });
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      });
    };
  const request = requestTo(url);

  return {
    url,
    adminToken,
    userToken,
    caPem: ca.certPem,
    ca,
    ...(proxyCA ? { proxyCA } : {}),
    ...(serviceAccountIssuer ? { serviceAccountIssuer } : {}),
    kubeconfigPath,
    nats,
    nc,
    gateway,
    registry,
    request,
    gateways: gatewayServices.map((service, i) => ({ url: gatewayUrls[i]!, service, request: requestTo(gatewayUrls[i]!) })),
    stop: async () => {
      agent.destroy();
      for (const gw of gatewayServices) await gw.close();
      for (const s of services.reverse()) await s.stop();
      for (const s of storages) await s.stop();
      if (ownNats) await nats.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * TLS for another gateway process on this cluster's services: a serving certificate of the
 * cluster's CA (127.0.0.1, localhost) written to `dir`, the flags that name it, and a kubeconfig
 * for a URL with the admin token (kubectl sends no bearer token over plain HTTP, and with
 * AlwaysAllow an anonymous request is refused, as upstream's).
 */
export async function gatewayTls(c: TestCluster, dir: string): Promise<{ args: string[]; kubeconfig(url: string, name?: string): Promise<string> }> {
  const serving = await issueServingCert(c.ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const [certFile, keyFile] = [path.join(dir, 'gateway-serving.crt'), path.join(dir, 'gateway-serving.key')];
  await writeFile(certFile, serving.certPem);
  await writeFile(keyFile, serving.keyPem);
  return {
    args: [`--tls-cert-file=${certFile}`, `--tls-private-key-file=${keyFile}`],
    async kubeconfig(url, name = 'gateway.kubeconfig') {
      const file = path.join(dir, name);
      await writeFile(file, kubeconfigYaml({ server: url, caPem: c.caPem, token: c.adminToken }));
      return file;
    },
  };
}
