// Authentication and authorization figures: authentications per second per method through the
// authn service on the bus (what an uncached request costs) and through the gateway's Identity
// cache (what a repeated credential costs), beside the raw limit of one bus round trip to a
// trivial responder measured in the same run; and RBAC decisions inside the authz service with
// 1,000 roles and 10,000 bindings. Runs in this process against its own nats-server; the OIDC
// provider and the token webhook are real HTTPS servers on loopback.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import YAML from 'yaml';
import type { NatsConnection } from '@nats-io/nats-core';
import { connectBus } from '../shared/bus/connect.js';
import { busRequest } from '../shared/bus/client.js';
import { requestAuthentication, requestAuthorization } from '../shared/bus/auth-messages.js';
import { Subjects } from '../shared/bus/subjects.js';
import type { AuthnRequest, TokenIssueReply } from '../shared/bus/messages.js';
import { startLocalNats } from '../shared/local/nats-server.js';
import { createCA, issueClientCert, issueServingCert } from '../shared/local/pki.js';
import { openObjectBucket } from '../shared/store/kv-bucket.js';
import { encodeKey } from '../shared/store/key-codec.js';
import { silentLogger } from '../shared/log.js';
import { sendJson, startHttpsServer } from '../shared/webhook/test/https-server.js';
import { createAuthnService, type AuthnConfig } from '../services/authn/service.js';
import { createAuthzService } from '../services/authz/service.js';
import { createStorageService } from '../services/storage/service.js';
import { idToken, signingKey, startProvider } from '../services/authn/test/oidc-provider.js';
import { Identity, defaultIdentityOptions } from '../services/gateway/identity.js';
import { closedLoop, type LoadOptions } from './load.js';
import { ms, rate, type Row } from './report.js';
import { benchRbac, rbacWorkload } from './authz-rbac.js';

const LOAD: LoadOptions = { concurrency: 32, warmupMs: 300, durationMs: 1_500 };
const WEBHOOK_TOKEN = 'bench-webhook-token-0123456789';

/** The files and objects the authenticators read: CA, static tokens, signing key, and the objects lookups need. */
interface Fixtures {
  ca: Awaited<ReturnType<typeof createCA>>;
  caFile: string;
  staticToken: string;
  tokenFile: string;
  saKey: string;
  saUid: string;
  podUid: string;
}

async function writeFixtures(dir: string, kv: Awaited<ReturnType<typeof openObjectBucket>>): Promise<Fixtures> {
  const ca = await createCA('bench-ca');
  const caFile = path.join(dir, 'ca.crt');
  await writeFile(caFile, ca.certPem);
  const staticToken = randomBytes(24).toString('hex');
  const tokenFile = path.join(dir, 'tokens.csv');
  await writeFile(tokenFile, `${staticToken},bench,bench-uid,"team"\n`);
  const saKey = path.join(dir, 'sa.key');
  await writeFile(saKey, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);

  // The objects the lookups need: a service account, a pod its token is bound to, a bootstrap token.
  const saUid = randomUUID();
  const podUid = randomUUID();
  await kv.put(
    encodeKey({ group: '', resource: 'serviceaccounts', namespace: 'default', name: 'bench' }),
    JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bench', namespace: 'default', uid: saUid } }),
  );
  await kv.put(
    encodeKey({ group: '', resource: 'pods', namespace: 'default', name: 'p' }),
    JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: podUid }, spec: { containers: [{ name: 'c', image: 'x' }] } }),
  );
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  await kv.put(
    encodeKey({ group: '', resource: 'secrets', namespace: 'platform-system', name: 'bootstrap-token-abcdef' }),
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'bootstrap.platform.io/token',
      metadata: { name: 'bootstrap-token-abcdef', namespace: 'platform-system', uid: randomUUID() },
      data: { 'token-id': b64('abcdef'), 'token-secret': b64('0123456789abcdef'), 'usage-bootstrap-authentication': b64('true') },
    }),
  );
  return { ca, caFile, staticToken, tokenFile, saKey, saUid, podUid };
}

/** The outside parties: an OIDC provider (discovery + JWKS) and a token webhook, both HTTPS, and a front proxy's CA. */
async function startOutsideParties(dir: string, f: Fixtures) {
  const oidcKey = await signingKey('bench-key');
  const provider = await startProvider(f.ca, [oidcKey]);
  const webhook = await startHttpsServer(await issueServingCert(f.ca), (req, res) => {
    const review = JSON.parse(req.body) as { apiVersion: string; spec: { token: string } };
    const status = review.spec.token === WEBHOOK_TOKEN ? { authenticated: true, user: { username: 'robot', uid: 'r-1', groups: ['bots'] } } : { authenticated: false };
    sendJson(res, 200, { apiVersion: review.apiVersion, kind: 'TokenReview', status });
  });
  const webhookConfig = path.join(dir, 'webhook.yaml');
  await writeFile(
    webhookConfig,
    YAML.stringify({
      clusters: [{ name: 'hook', cluster: { server: webhook.url, 'certificate-authority': f.caFile } }],
      users: [{ name: 'apiserver', user: { token: 'apiserver-credential' } }],
      contexts: [{ name: 'default', context: { cluster: 'hook', user: 'apiserver' } }],
      'current-context': 'default',
    }),
  );
  const proxyCA = await createCA('bench-front-proxy-ca');
  const proxyCAFile = path.join(dir, 'front-proxy-ca.crt');
  await writeFile(proxyCAFile, proxyCA.certPem);
  return { oidcKey, provider, webhook, webhookConfig, proxyCA, proxyCAFile };
}

type OutsideParties = Awaited<ReturnType<typeof startOutsideParties>>;

function everyMethodConfig(f: Fixtures, o: OutsideParties): AuthnConfig {
  return {
    tokenAuthFile: f.tokenFile,
    clientCAFile: f.caFile,
    requestHeader: { clientCAFile: o.proxyCAFile, usernameHeaders: ['x-remote-user'], groupHeaders: ['x-remote-group'], extraHeadersPrefixes: ['x-remote-extra-'], allowedNames: ['front-proxy'] },
    enableBootstrapTokenAuth: true,
    serviceAccount: { keyFiles: [], signingKeyFile: f.saKey, issuers: ['https://bench'], lookup: true },
    oidc: { issuerUrl: o.provider.url, clientId: 'platform', usernameClaim: 'sub', requiredClaims: {}, signingAlgs: ['RS256'], caFile: f.caFile, groupsClaim: 'groups' },
    webhook: { configFile: o.webhookConfig, cacheTtlMs: 120_000, version: 'v1' },
    anonymousAuth: true,
  };
}

/** What measuring one authentication method needs: the bus client, the raw round trip to compare with, where rows go. */
interface AuthnBench {
  client: NatsConnection;
  raw: { rate: number };
  rows: Row[];
  progress: (msg: string) => void;
}

/** One method: uncached through the authn service, and through the gateway's Identity cache. */
async function measureAuthn(b: AuthnBench, name: string, req: AuthnRequest, note = ''): Promise<void> {
  const { client } = b;
  b.progress(`authentication: ${name}`);
  const first = await requestAuthentication(client, req);
  if (!first.authenticated || (name !== 'anonymous' && first.user?.username === 'system:anonymous')) throw new Error(`${name}: not authenticated (${first.error ?? 'anonymous'})`);
  const uncached = await closedLoop(async () => {
    const r = await requestAuthentication(client, req, 5_000);
    if (!r.authenticated) throw new Error('not authenticated');
  }, LOAD);
  const identity = new Identity(client, defaultIdentityOptions);
  const cached = await closedLoop(async () => {
    await identity.authenticate(req);
  }, LOAD);
  b.rows.push({
    figure: `authn ${name}`,
    measured: `${rate(uncached.rate)} p99 ${ms(uncached.p99Ms)} via the service${note}`,
    limit: `${rate(cached.rate)} with the gateway cache`,
    ratio: Math.round((uncached.rate / b.raw.rate) * 100) / 100,
  });
}

/** The credentials the requests present: a client certificate, the front proxy's, an OIDC id_token. */
async function issueCredentials(f: Fixtures, o: OutsideParties) {
  const cert = await issueClientCert(f.ca, { commonName: 'bench-user', organizations: ['team'] });
  const proxyCert = await issueClientCert(o.proxyCA, { commonName: 'front-proxy' });
  const oidcToken = await idToken(o.oidcKey, { iss: o.provider.url, groups: ['dev'], exp: Math.floor(Date.now() / 1000) + 3600 });
  return { cert, proxyCert, oidcToken };
}

/** Every authentication method with every authenticator configured, then the token webhook without its cache. */
async function benchAuthnMethods(
  b: AuthnBench,
  nc: NatsConnection,
  f: Fixtures,
  o: OutsideParties,
  setup: { everyMethod: AuthnConfig; creds: Awaited<ReturnType<typeof issueCredentials>> },
): Promise<void> {
  const { cert, proxyCert, oidcToken } = setup.creds;
  let authn = await createAuthnService({ nc, log: silentLogger(), config: setup.everyMethod });
  try {
    const issued = await busRequest<TokenIssueReply>(b.client, Subjects.authnIssueToken, {
      serviceAccount: { namespace: 'default', name: 'bench', uid: f.saUid },
      audiences: [],
      expirationSeconds: 3600,
      boundObject: { kind: 'Pod', apiVersion: 'v1', name: 'p', uid: f.podUid },
    });
    const methods: Array<[string, AuthnRequest, string?]> = [
      ['static token', { token: f.staticToken }],
      ['client certificate', { certificates: [cert.certPem] }, ' (verified chains remembered)'],
      ['front proxy (certificate + X-Remote-* headers)', { certificates: [proxyCert.certPem], headers: { 'x-remote-user': ['alice'], 'x-remote-group': ['devs'] } }],
      ['bootstrap token', { token: 'abcdef.0123456789abcdef' }],
      ['service-account token (bound, lookup on)', { token: issued.token }],
      ['OIDC id_token', { token: oidcToken }],
      ['token webhook, 2 min answer cache', { token: WEBHOOK_TOKEN }],
      ['anonymous', {}],
    ];
    for (const [name, req, note] of methods) await measureAuthn(b, name, req, note);
  } finally {
    await authn.stop();
  }
  // Every request a real HTTPS TokenReview: the webhook's own answer cache off.
  authn = await createAuthnService({ nc, log: silentLogger(), config: { webhook: { configFile: o.webhookConfig, cacheTtlMs: 0, version: 'v1' }, anonymousAuth: false } });
  try {
    await measureAuthn(b, 'token webhook, no answer cache (HTTPS per request)', { token: WEBHOOK_TOKEN });
  } finally {
    await authn.stop();
  }
}

/**
 * The RBAC workload's objects in the bucket, the authz service loading them from its watch, and
 * the same decisions asked over the bus: what an uncached authorization costs the gateway.
 */
async function benchAuthzViaBus(b: AuthnBench, nc: NatsConnection, kv: Awaited<ReturnType<typeof openObjectBucket>>): Promise<void> {
  b.progress('authorization: the same decisions through the bus');
  const workload = rbacWorkload();
  for (let i = 0; i < workload.objects.length; i += 500) {
    await Promise.all(workload.objects.slice(i, i + 500).map(({ ref, object }) => kv.put(encodeKey(ref), JSON.stringify({ ...object, metadata: { ...object.metadata, uid: randomUUID() } }))));
  }
  const storage = await createStorageService({ nc, log: silentLogger() });
  const authz = await createAuthzService({ nc, log: silentLogger(), config: { modes: ['RBAC'] } });
  try {
    await authz.synced;
    let next = 0;
    const viaBus = await closedLoop(async () => {
      await requestAuthorization(b.client, workload.attributes[next++ % workload.attributes.length]!, 5_000);
    }, LOAD);
    b.rows.push({
      figure: 'RBAC decisions through the bus (same objects and mix, c=32)',
      measured: `${rate(viaBus.rate)} p99 ${ms(viaBus.p99Ms)}`,
      limit: 'vs the bus round trip above',
      ratio: Math.round((viaBus.rate / b.raw.rate) * 100) / 100,
    });
  } finally {
    await authz.stop();
    await storage.stop();
  }
}

export async function authBench(progress: (msg: string) => void): Promise<Row[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'platform-bench-auth-'));
  const nats = await startLocalNats(path.join(dir, 'nats'));
  const nc = await connectBus({ url: nats.url, name: 'bench-auth' });
  const client = await connectBus({ url: nats.url, name: 'bench-auth-client' });
  const rows: Row[] = [];
  try {
    const kv = await openObjectBucket(nc, { bucket: 'objects', create: true });
    const fixtures = await writeFixtures(dir, kv);
    const outside = await startOutsideParties(dir, fixtures);
    const everyMethod = everyMethodConfig(fixtures, outside);
    const creds = await issueCredentials(fixtures, outside);

    // The raw limit: one bus round trip to a responder that does nothing.
    const echo = client.subscribe('bench.echo', { callback: (_e, m) => void m.respond(m.data) });
    progress('authentication: raw bus round trip');
    const raw = await closedLoop(() => busRequest(client, 'bench.echo', {}, 5_000).then(() => undefined), LOAD);
    echo.unsubscribe();
    rows.push({ figure: 'bus round trip, trivial responder (c=32)', measured: `${rate(raw.rate)} p99 ${ms(raw.p99Ms)}`, limit: 'raw limit of an uncached authentication' });
    const b: AuthnBench = { client, raw, rows, progress };

    try {
      await benchAuthnMethods(b, nc, fixtures, outside, { everyMethod, creds });
    } finally {
      await outside.webhook.close();
      await outside.provider.close();
    }

    progress('authorization: RBAC decisions, 1,000 roles and 10,000 bindings');
    const rbac = await benchRbac();
    rows.push({
      figure: 'RBAC decisions in the authz service (1,000 roles, 10,000 bindings)',
      measured: `${rate(rbac.decisionsPerSec)} p50 ${rbac.p50us.toFixed(1)} µs p99 ${rbac.p99us.toFixed(1)} µs`,
      target: 'p99 ≤ 1 ms',
      ok: rbac.p99us <= 1000,
    });
    await benchAuthzViaBus(b, nc, kv);
  } finally {
    await client.close();
    await nc.close();
    await nats.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
