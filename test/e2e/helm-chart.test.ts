// The Helm chart (helm/platform-apiserver), rendered by test/helm-render (Go's text/template with
// sprig and Helm's own functions: there is no helm binary here) with the default values and with
// a production-like set (existing NATS with TLS and users, three replicas, supplied certificates,
// the gateway autoscaled). What a user would notice: every manifest is accepted by
// `kubectl apply --dry-run=server` (against this project's server with upstream's group names,
// as a stock cluster would take them); values.schema.json accepts both sets and refuses bad ones;
// each service's config file is one the service itself accepts, and every file it names is
// mounted; probes hit /livez and /readyz where the services serve them; pods run as non-root with
// a read-only root; the bundled NATS is a 3-server JetStream cluster with `sync_interval: always`
// and the bucket is created with 3 replicas; NATS requires TLS of a CA of its own (routes too)
// and knows one user per service with exactly the permissions of shared/bus/permissions.ts, also
// for another bucket and other user names (the chart reads them from files/nats-permissions.json,
// which must be what scripts/gen-helm-permissions.ts generates), which a nats-server started from
// the rendering enforces on connections made with what each Deployment mounts; certificates not
// supplied are generated, signed by the CA beside them, and kept by an upgrade (the renderer's
// `lookup` finding the installed objects) unless they no longer fit. Skipped, all but the check of
// the generated file, only when Go is not installed, and never in CI (the dry run, as every
// kubectl suite here, needs kubectl on PATH).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { appendFile, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import YAML from 'yaml';
import { buildRenderer, CHART_DIR, findGo, renderChart } from '../support/helm.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { findKubectl, Kubectl } from '../support/kubectl.js';
import { createCA, issueServingCert } from '../../shared/local/pki.js';
import { parseOptions, type OptionSpecs } from '../../shared/config/options.js';
import { gatewayOptionSpecs } from '../../services/gateway/options.js';
import { storageOptionSpecs } from '../../services/storage/options.js';
import { admissionOptionSpecs } from '../../services/admission/options.js';
import { authnConfigFromOptions, authnOptionSpecs } from '../../services/authn/options.js';
import { authzConfigFromOptions, authzOptionSpecs } from '../../services/authz/options.js';
import { controllersOptionSpecs, selectControllers } from '../../services/controllers/options.js';
import { resolvePlugins } from '../../services/admission/config.js';
import { featureGatesFromFlag } from '../../shared/config/feature-gates.js';
import { parseServiceNetwork } from '../../shared/registry/builtin/core/service-network.js';
import { freePort, NATS_MAX_PAYLOAD } from '../../shared/local/nats-server.js';
import { findNatsServer } from '../../shared/local/nats-server-binary.js';
import { NatsUser, natsPermissions, type NatsUserRole } from '../../shared/bus/permissions.js';
import { busOptionsFrom, connectBus } from '../../shared/bus/connect.js';
import { natsOptions } from '../../shared/config/options.js';
import { natsAuthorizationBlock } from '../../scripts/nats-authorization.js';
import { HELM_PERMISSIONS_FILE, helmPermissionsJson } from '../../scripts/gen-helm-permissions.js';
import { connect } from '@nats-io/transport-node';
import { CONTROLLER_MANAGER_USER } from '../../shared/api/groups.js';
import { createNamespace, uniq } from './helpers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PRODUCTION_VALUES = path.join(root, 'test/e2e/fixtures/helm-production-values.yaml');
const SERVICES = ['storage', 'authn', 'authz', 'admission', 'gateway', 'controllers'] as const;
const NATS_SERVICES = ['storage', 'authn', 'authz', 'admission'] as const;
const OPTION_SPECS: Record<(typeof SERVICES)[number], OptionSpecs> = {
  storage: storageOptionSpecs,
  authn: authnOptionSpecs,
  authz: authzOptionSpecs,
  admission: admissionOptionSpecs,
  gateway: gatewayOptionSpecs,
  controllers: controllersOptionSpecs,
};

const go = findGo();
const kubectlBin = findKubectl();
// CI must run this suite: a missing Go there is a broken setup, not a reason to skip.
if (process.env.CI && !go) throw new Error('CI is set but `go` is not on PATH: .ci/run installs golang-go and golang-github-masterminds-sprig-dev for the Helm chart tests');
const skip = go ? false : 'go not on PATH: skipping the Helm chart suite (apt-get install golang-go golang-github-masterminds-sprig-dev)';
if (skip) console.log(skip);
// As every kubectl suite here: without kubectl only the dry run is skipped.
const noKubectl = kubectlBin ? false : "kubectl not on PATH: skipping the Helm chart's kubectl apply --dry-run=server";
if (go && noKubectl) console.log(noKubectl);

// A manifest as the chart renders it; fields are read loosely, as a reader of YAML would.
type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> }; [k: string]: any };

interface Rendering {
  namespace: string;
  text: string;
  docs: Obj[];
  values: Record<string, any>;
}

function parseManifests(text: string): Obj[] {
  const docs = YAML.parseAllDocuments(text);
  for (const d of docs) assert.equal(d.errors.length, 0, `a rendered document does not parse: ${d.errors.map((e) => e.message).join('; ')}`);
  return docs.map((d) => d.toJS() as Obj).filter((o) => o !== null);
}

function find(r: Rendering, kind: string, name: string): Obj {
  const o = r.docs.find((d) => d.kind === kind && d.metadata.name === name);
  assert.ok(o, `${kind} ${name} rendered (have: ${r.docs.map((d) => `${d.kind}/${d.metadata.name}`).join(', ')})`);
  return o;
}

const kindsOf = (r: Rendering) => [...new Set(r.docs.map((d) => d.kind))].sort();
const podSpec = (o: Obj) => o.spec.template.spec;
const container = (o: Obj) => podSpec(o).containers[0];
const configOf = (r: Rendering, service: string) => YAML.parse(find(r, 'ConfigMap', `platform-${service}-config`).data['config.yaml']) as Record<string, unknown>;
const secretText = (s: Obj, key: string) => Buffer.from(String(s.data[key]), 'base64').toString('utf8');

/**
 * A rendered nats.conf's `accounts` block is the one scripts/nats-authorization.ts prints from
 * shared/bus/permissions.ts for `bucket` and the user names `names` (the defaults for the rest),
 * byte for byte; each user's permissions are compared parsed first, for a readable difference.
 */
function assertAccountsOfPermissionsTs(conf: string, bucket: string, names: Partial<Record<NatsUserRole, string>>) {
  const users = { ...NatsUser, ...names };
  const expected = natsPermissions(bucket, users);
  const roles: string[] = [];
  for (const m of conf.matchAll(/\{user: "([^"]+)", password: \$NATS_PASSWORD_([A-Z]+), permissions: (\{.*\})\}$/gm)) {
    const role = m[2]!.toLowerCase() as NatsUserRole;
    roles.push(role);
    const p = JSON.parse(m[3]!);
    assert.equal(m[1], users[role]);
    const { deliveries: _deliveries, ...want } = expected[role];
    assert.deepEqual({ publish: p.publish.allow, subscribe: p.subscribe.allow, allowResponses: p.allow_responses === true }, want, role);
  }
  assert.deepEqual(roles, [...NATS_SERVICES, 'gateway']);
  const block = /^accounts \{\n[^]*?^\}$/m.exec(conf)?.[0];
  assert.equal(`${block}\n`, natsAuthorizationBlock({ bucket, names }));
}

function dryRunApply(k: Kubectl, namespace: string, text: string) {
  return k.run(['apply', '--dry-run=server', '-n', namespace, '-f', '-'], { input: text, timeoutMs: 60_000 });
}

const natsServer = findNatsServer();

// No Go needed: the file is compared, not rendered.
test('helm chart - files/nats-permissions.json is what scripts/gen-helm-permissions.ts makes of shared/bus/permissions.ts', () => {
  assert.equal(
    readFileSync(HELM_PERMISSIONS_FILE, 'utf8'),
    helmPermissionsJson(),
    `${path.relative(root, HELM_PERMISSIONS_FILE)} does not match shared/bus/permissions.ts: run \`npm run gen:helm-permissions\``,
  );
});

describe('helm chart', { skip }, () => {
  let bin: string;
  let dir: string;
  let cluster: TestCluster;
  let kubectl: Kubectl;
  let defaults: Rendering;
  let production: Rendering;
  let supplied: { caPem: string; servingPem: string; servingKey: string; proxyCaPem: string; natsCaPem: string };

  async function render(namespace: string, values: string[]): Promise<Rendering> {
    const r = await renderChart(bin, { name: 'platform', namespace, values });
    assert.equal(r.code, 0, `rendering failed: ${r.stderr}`);
    const v = await renderChart(bin, { name: 'platform', namespace, values, valuesJson: true });
    assert.equal(v.code, 0, v.stderr);
    return { namespace, text: r.stdout, docs: parseManifests(r.stdout), values: JSON.parse(v.stdout) };
  }

  before(async () => {
    bin = await buildRenderer(go!);
    dir = await mkdtemp(path.join(os.tmpdir(), 'helm-chart-'));
    const ca = await createCA('platform-production-ca');
    const serving = await issueServingCert(ca, { dnsNames: ['platform-gateway.platform-prod.svc.cluster.local', 'api.platform.example.com'] });
    const proxyCA = await createCA('front-proxy-ca');
    const natsCA = await createCA('messaging-nats-ca');
    supplied = { caPem: ca.certPem, servingPem: serving.certPem, servingKey: serving.keyPem, proxyCaPem: proxyCA.certPem, natsCaPem: natsCA.certPem };
    // The second -f file, as `helm install -f prod.yaml -f certs.yaml` takes supplied certificates.
    const certs = path.join(dir, 'certs.yaml');
    await writeFile(
      certs,
      YAML.stringify({
        pki: { ca: { cert: ca.certPem, key: ca.keyPem }, serving: { cert: serving.certPem, key: serving.keyPem, caBundle: ca.certPem } },
        authn: { requestHeader: { clientCA: proxyCA.certPem } },
        nats: { tls: { caBundle: natsCA.certPem } },
      }),
    );
    defaults = await render(uniq('helm-defaults'), []);
    production = await render(uniq('helm-prod'), [PRODUCTION_VALUES, certs]);
    if (kubectlBin) {
      cluster = await startTestCluster({ upstreamGroupAliases: true, authorizationModes: ['RBAC'] });
      kubectl = new Kubectl(kubectlBin, cluster.kubeconfigPath);
    }
  });

  /**
   * The rendered bundled NATS's configuration as a nats-server on this machine reads it: its TLS
   * pair from the rendered Secret, a free port, a temporary store, its passwords as the
   * StatefulSet's environment gives them (Debian's 2.9 lacks sync_interval, checked separately).
   */
  async function localNatsConf(r: Rendering, name: string): Promise<{ file: string; env: Record<string, string>; port: number; dir: string }> {
    const d = path.join(dir, name);
    await mkdir(d, { recursive: true });
    const tls = find(r, 'Secret', 'platform-nats-tls');
    for (const key of ['ca.crt', 'tls.crt', 'tls.key']) await writeFile(path.join(d, key), secretText(tls, key));
    const port = await freePort();
    const conf = (find(r, 'ConfigMap', 'platform-nats-config').data['nats.conf'] as string)
      .replace(/^\s*sync_interval: .*$/m, '')
      .replace('listen: 0.0.0.0:4222', `listen: 127.0.0.1:${port}`)
      .replace(/^\s*http: .*$/m, '')
      .replace('pid_file: /var/run/nats/nats.pid', `pid_file: ${JSON.stringify(path.join(d, 'nats.pid'))}`)
      .replace('store_dir: /data', `store_dir: ${JSON.stringify(path.join(d, 'data'))}`)
      .replaceAll('/etc/nats-tls/', `${d}/`);
    const file = path.join(d, 'nats.conf');
    await writeFile(file, conf);
    const users = find(r, 'Secret', 'platform-nats-users');
    const env: Record<string, string> = { POD_NAME: 'platform-nats-0' };
    for (const key of Object.keys(users.data)) env[`NATS_PASSWORD_${key.toUpperCase()}`] = secretText(users, key);
    return { file, env, port, dir: d };
  }

  after(async () => {
    await cluster?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('helm chart - renders the expected objects with the default and the production values', () => {
    assert.deepEqual(kindsOf(defaults), ['ConfigMap', 'Deployment', 'NetworkPolicy', 'PodDisruptionBudget', 'Secret', 'Service', 'ServiceAccount', 'StatefulSet']);
    assert.deepEqual(kindsOf(production), ['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Secret', 'Service', 'ServiceAccount']);
    for (const r of [defaults, production]) {
      assert.deepEqual(
        r.docs
          .filter((d) => d.kind === 'Deployment')
          .map((d) => d.metadata.name)
          .sort(),
        SERVICES.map((s) => `platform-${s}`).sort(),
      );
      for (const d of r.docs) {
        assert.equal(d.metadata.namespace, r.namespace, `${d.kind}/${d.metadata.name} in the release namespace`);
        assert.ok(['v1', 'apps/v1', 'policy/v1', 'autoscaling/v2', 'networking.k8s.io/v1'].includes(d.apiVersion), `${d.kind} as ${d.apiVersion}`);
        assert.ok(d.metadata.name.length <= 63, d.metadata.name);
        assert.equal(d.metadata.labels?.['app.kubernetes.io/instance'], 'platform');
      }
      assert.match(r.text, /^---\n# Source: platform-apiserver\/templates\/[a-z-]+\.yaml\n/);
    }
    // Supplied ones are not rendered: the token file and the service-account key come from existing Secrets.
    assert.deepEqual(
      production.docs
        .filter((d) => d.kind === 'Secret')
        .map((d) => d.metadata.name)
        .sort(),
      ['platform-ca', 'platform-ca-bundles', 'platform-controllers-cert', 'platform-front-proxy-ca', 'platform-front-proxy-client', 'platform-serving-cert'],
    );
    assert.deepEqual(
      defaults.docs
        .filter((d) => d.kind === 'Secret')
        .map((d) => d.metadata.name)
        .sort(),
      [
        'platform-ca',
        'platform-ca-bundles',
        'platform-controllers-cert',
        'platform-front-proxy-ca',
        'platform-front-proxy-client',
        'platform-nats-tls',
        'platform-nats-users',
        'platform-service-account-key',
        'platform-serving-cert',
        'platform-tokens',
      ],
    );
  });

  test('helm chart - values.schema.json accepts both value sets, describes every value and refuses bad ones', () => {
    const schema = JSON.parse(readFileSync(path.join(CHART_DIR, 'values.schema.json'), 'utf8'));
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    // Helm checks the merged values (defaults, then each -f file).
    for (const r of [defaults, production]) assert.ok(validate(r.values), JSON.stringify(validate.errors));
    const bad = (patch: (v: any) => void): string => {
      const v = structuredClone(defaults.values);
      patch(v);
      assert.equal(validate(v), false, 'refused');
      return JSON.stringify(validate.errors);
    };
    assert.match(
      bad((v) => (v.gateway.replicas = 'three')),
      /gateway\/replicas.*must be integer/,
    );
    assert.match(
      bad((v) => (v.gateway.securePrt = 6443)),
      /"additionalProperty":"securePrt"/,
    );
    assert.match(
      bad((v) => (v.storage.deleteMarkerTtl = 'five minutes')),
      /deleteMarkerTtl/,
    );
    assert.match(
      bad((v) => (v.authz.authorizationMode = ['RBAC', 'Everything'])),
      /authorizationMode/,
    );
    assert.match(
      bad((v) => (v.nats.bundled.maxPayload = 1048576)),
      /maxPayload.*must be >= 8388608/,
    );
    assert.match(
      bad((v) => (v.pki.ca.cert = 'not a certificate')),
      /pki\/ca\/cert/,
    );
    assert.match(
      bad((v) => (v.gateway.extraConfig = { 'Secure Port': 1 })),
      /extraConfig/,
    );

    // Every key of values.yaml is declared (a closed schema would refuse the defaults otherwise),
    // and every object of the schema is closed, so a misspelt key is refused everywhere.
    const open: string[] = [];
    const walk = (s: any, where: string) => {
      if (s?.properties) {
        if (s.additionalProperties !== false) open.push(where);
        for (const [k, sub] of Object.entries(s.properties)) if (k !== 'global') walk(sub, `${where}.${k}`);
      }
    };
    walk(schema, 'values');
    for (const d of Object.values(schema.definitions)) walk(d, 'definition');
    assert.deepEqual(open, [], 'objects of the schema left open');
    const undescribed: string[] = [];
    const cover = (v: any, s: any, where: string) => {
      if (s?.$ref) s = schema.definitions[s.$ref.split('/').pop()];
      if (!v || typeof v !== 'object' || Array.isArray(v) || !s?.properties) return;
      for (const [k, sub] of Object.entries(v)) {
        if (!(k in s.properties)) undescribed.push(`${where}.${k}`);
        else cover(sub, s.properties[k], `${where}.${k}`);
      }
    };
    cover(YAML.parse(readFileSync(path.join(CHART_DIR, 'values.yaml'), 'utf8')), schema, 'values');
    assert.deepEqual(undescribed, []);
  });

  test('helm chart - kubectl apply --dry-run=server accepts every rendered manifest', { skip: noKubectl }, async () => {
    for (const r of [defaults, production]) {
      await createNamespace(cluster, r.namespace);
      const res = await dryRunApply(kubectl, r.namespace, r.text);
      assert.equal(res.code, 0, `kubectl apply --dry-run=server refused the ${r === defaults ? 'default' : 'production'} rendering:\n${res.stderr}`);
      for (const d of r.docs) {
        const plural = `${d.kind.toLowerCase()}/${d.metadata.name}`;
        assert.ok(
          res.stdout.split('\n').some((l) => l.endsWith(`/${d.metadata.name} created (server dry run)`) && l.toLowerCase().includes(d.kind.toLowerCase())),
          `${plural} in ${res.stdout}`,
        );
      }
    }
    // Nothing was stored.
    const left = await kubectl.run(['get', 'deployments,statefulsets,services,secrets,configmaps', '-n', defaults.namespace, '-o', 'name']);
    assert.equal(left.code, 0, left.stderr);
    const stored = new Set(left.stdout.split('\n').map((l) => l.split('/').pop()));
    assert.deepEqual(
      defaults.docs.filter((d) => stored.has(d.metadata.name)).map((d) => d.metadata.name),
      [],
    );
    // The dry run does check: a manifest the server must refuse is refused.
    const broken = defaults.text.replace(/(kind: Deployment[\s\S]*?)maxSurge: 1/, '$1maxSurge: -1');
    assert.notEqual(broken, defaults.text);
    const refused = await dryRunApply(kubectl, defaults.namespace, broken);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /maxSurge/);
  });

  test('helm chart - each service gets a config file of upstream flag names that the service itself accepts', async () => {
    for (const r of [defaults, production]) {
      for (const svc of SERVICES) {
        const file = path.join(dir, `${r.namespace}-${svc}.yaml`);
        await writeFile(file, find(r, 'ConfigMap', `platform-${svc}-config`).data['config.yaml']);
        const args = container(find(r, 'Deployment', `platform-${svc}`)).args as string[];
        assert.deepEqual(args.slice(0, 2), [svc, '--config=/etc/platform/config/config.yaml'], `${svc} is picked by argument and reads its file`);
        // Parsed as the service parses its start-up: an unknown key fails here as it would there.
        const opts = parseOptions(OPTION_SPECS[svc], [`--config=${file}`, ...args.slice(2)], {}) as Record<string, any>;
        if (svc === 'authn') authnConfigFromOptions(opts as never);
        if (svc === 'authz') authzConfigFromOptions(opts as never);
        if (svc === 'admission') resolvePlugins({ enable: opts['enable-admission-plugins'], disable: opts['disable-admission-plugins'] });
        if (svc === 'controllers') selectControllers(opts.controllers);
        if (svc === 'gateway') {
          featureGatesFromFlag(opts['feature-gates']);
          parseServiceNetwork(opts['service-cluster-ip-range'], opts['service-node-port-range']);
        }
      }
    }
    const gw = configOf(defaults, 'gateway');
    assert.equal(gw['secure-port'], 6443);
    assert.equal(gw['bind-address'], '0.0.0.0');
    assert.equal(gw['tls-cert-file'], '/etc/platform/serving/tls.crt');
    assert.equal(gw['tls-private-key-file'], '/etc/platform/serving/tls.key');
    assert.equal(gw['client-ca-file'], '/etc/platform/ca-bundles/client-ca.crt');
    assert.equal(gw['upstream-group-aliases'], true);
    assert.equal(gw['nats-url'], `nats://platform-nats.${defaults.namespace}.svc.cluster.local:4222`);
    assert.equal(gw['shutdown-delay-duration'], '10s');
    assert.deepEqual(configOf(defaults, 'authz')['authorization-mode'], ['Node', 'RBAC']);
    assert.equal(configOf(defaults, 'authn')['token-auth-file'], '/etc/platform/tokens/tokens.csv');
    assert.equal(configOf(defaults, 'controllers')['nats-url'], undefined, 'the controllers speak HTTPS to the gateway, not NATS');

    const pgw = configOf(production, 'gateway');
    assert.equal(pgw['nats-url'], production.values.nats.url);
    // The existing NATS: its CA, the client certificate it asks for, the gateway's own user.
    assert.equal(pgw['nats-user'], 'platform-gateway');
    assert.equal(pgw['nats-password-file'], '/etc/platform/nats-auth/password');
    assert.equal(pgw['nats-tls-ca-file'], '/etc/platform/nats-tls/ca.crt');
    assert.equal(pgw['nats-tls-cert-file'], '/etc/platform/nats-client/tls.crt');
    assert.equal(pgw['nats-tls-key-file'], '/etc/platform/nats-client/tls.key');
    assert.equal(pgw['nats-creds'], undefined);
    assert.deepEqual(pgw['feature-gates'], 'APIListChunking=true');
    assert.equal(pgw['requestheader-client-ca-file'], '/etc/platform/ca-bundles/gateway-requestheader-ca.crt');
    const pauthn = configOf(production, 'authn');
    assert.equal(pauthn['oidc-issuer-url'], 'https://login.example.com');
    assert.equal(pauthn['oidc-groups-prefix'], 'oidc:');
    assert.deepEqual(pauthn['service-account-issuer'], ['https://api.platform.example.com']);
    assert.equal(pauthn['service-account-max-token-expiration'], '24h', 'extraConfig reaches the file');
    assert.deepEqual(container(find(production, 'Deployment', 'platform-controllers')).args.slice(2), ['--leader-elect-lease-duration=20s'], 'extraArgs follow --config');
    for (const svc of NATS_SERVICES) assert.equal(configOf(production, svc)['log-level'], 'warn');
  });

  test('helm chart - the storage service creates the bucket with 3 replicas, in the bundled NATS and in an existing one', () => {
    for (const r of [defaults, production]) {
      const c = configOf(r, 'storage');
      assert.equal(c.replicas, 3);
      assert.equal(c.bucket, 'objects');
    }
  });

  test('helm chart - every file a service is told to read is mounted from an object that has it', () => {
    for (const r of [defaults, production]) {
      for (const svc of SERVICES) {
        const dep = find(r, 'Deployment', `platform-${svc}`);
        const cm = find(r, 'ConfigMap', `platform-${svc}-config`);
        const config = configOf(r, svc);
        // The config file itself, then every file it names.
        const files = [
          '/etc/platform/config/config.yaml',
          ...Object.values(config)
            .flat()
            .filter((v): v is string => typeof v === 'string' && v.startsWith('/etc/platform/')),
        ];
        if (svc === 'controllers') {
          const kc = YAML.parse(cm.data.kubeconfig);
          files.push(kc.clusters[0].cluster['certificate-authority'], kc.users[0].user['client-certificate'], kc.users[0].user['client-key']);
          assert.equal(kc.clusters[0].cluster.server, `https://platform-gateway.${r.namespace}.svc.cluster.local:443`);
        }
        for (const file of files) {
          const mount = container(dep).volumeMounts.find((m: any) => file.startsWith(`${m.mountPath}/`));
          assert.ok(mount, `${svc}: ${file} is under a mount`);
          const key = file.slice(mount.mountPath.length + 1);
          const volume = podSpec(dep).volumes.find((v: any) => v.name === mount.name);
          const source = volume.secret ?? volume.configMap;
          const item = source.items?.find((i: any) => i.path === key);
          assert.ok(!source.items || item, `${svc}: ${file} is projected`);
          const sourceKey = item?.key ?? key;
          const obj = r.docs.find((d) => d.kind === (volume.secret ? 'Secret' : 'ConfigMap') && d.metadata.name === (source.secretName ?? source.name));
          if (obj) assert.ok(sourceKey in obj.data, `${svc}: ${obj.kind} ${obj.metadata.name} holds ${sourceKey}`);
          else
            assert.ok(
              [
                r.values.pki.serving.existingSecret,
                r.values.pki.serviceAccountKey.existingSecret,
                r.values.authn.tokenAuthFile.existingSecret,
                r.values.nats.auth.existingSecret,
                r.values.nats.tls.clientCertSecret,
              ].includes(source.secretName),
              `${svc}: ${file} comes from ${source.secretName ?? source.name}, which is neither rendered nor supplied`,
            );
        }
      }
    }
  });

  test("helm chart - probes: /livez and /readyz over HTTPS on the gateway's and the controllers' ports, $SRV.PING for the others", () => {
    for (const r of [defaults, production]) {
      const gw = container(find(r, 'Deployment', 'platform-gateway'));
      assert.deepEqual(gw.ports, [{ name: 'https', containerPort: 6443, protocol: 'TCP' }]);
      assert.deepEqual(gw.livenessProbe.httpGet, { path: '/livez', port: 'https', scheme: 'HTTPS' });
      assert.deepEqual(gw.readinessProbe.httpGet, { path: '/readyz', port: 'https', scheme: 'HTTPS' });
      assert.deepEqual(gw.startupProbe.httpGet, { path: '/livez', port: 'https', scheme: 'HTTPS' });
      const ctl = container(find(r, 'Deployment', 'platform-controllers'));
      assert.deepEqual(ctl.ports, [{ name: 'health', containerPort: 10257, protocol: 'TCP' }]);
      assert.deepEqual(ctl.livenessProbe.httpGet, { path: '/livez', port: 'health', scheme: 'HTTPS' });
      assert.deepEqual(ctl.readinessProbe.httpGet, { path: '/readyz', port: 'health', scheme: 'HTTPS' });
      assert.equal(configOf(r, 'controllers')['secure-port'], 10257);
      for (const svc of NATS_SERVICES) {
        const c = container(find(r, 'Deployment', `platform-${svc}`));
        const base = ['node', '/app/dist/scripts/ping-service.js', svc, '--timeout=3s', '--config=/etc/platform/config/config.yaml'];
        assert.deepEqual(c.readinessProbe.exec.command, base, `${svc} readiness`);
        assert.deepEqual(c.livenessProbe.exec.command, [...base, '--liveness'], `${svc} liveness`);
        assert.ok(c.readinessProbe.timeoutSeconds > 3, 'the probe outlives the ping timeout');
      }
    }
    // The probe script is part of the image: the Dockerfile compiles scripts/ into dist/scripts/.
    const build = JSON.parse(readFileSync(path.join(root, 'tsconfig.build.json'), 'utf8'));
    assert.ok(build.include.includes('scripts'));
    assert.ok(readFileSync(path.join(root, 'scripts/ping-service.ts'), 'utf8').length > 0);
    assert.match(readFileSync(path.join(root, 'deploy/Dockerfile'), 'utf8'), /^WORKDIR \/app$/m);
  });

  test('helm chart - without anonymous authentication the gateway probes check the port instead of getting 401', async () => {
    const file = path.join(dir, 'no-anonymous.yaml');
    await writeFile(file, 'authn: {anonymousAuth: false}\n');
    const r = await render('default', [file]);
    const gw = container(find(r, 'Deployment', 'platform-gateway'));
    assert.deepEqual(gw.livenessProbe.tcpSocket, { port: 'https' });
    assert.equal(gw.livenessProbe.httpGet, undefined);
    assert.equal(configOf(r, 'authn')['anonymous-auth'], false);
    // AlwaysAllow turns anonymous access off, as upstream's kube-apiserver does: the same probes.
    const allowAll = path.join(dir, 'always-allow.yaml');
    await writeFile(allowAll, 'authz: {authorizationMode: [AlwaysAllow]}\n');
    const a = await render('default', [allowAll]);
    assert.deepEqual(container(find(a, 'Deployment', 'platform-gateway')).livenessProbe.tcpSocket, { port: 'https' });
    assert.equal(configOf(a, 'authn')['anonymous-auth'], false);
    assert.deepEqual(configOf(a, 'authz')['authorization-mode'], ['AlwaysAllow']);
  });

  test('helm chart - every pod runs as non-root with a read-only root filesystem, spread over nodes and zones', () => {
    for (const r of [defaults, production]) {
      for (const o of r.docs.filter((d) => d.kind === 'Deployment' || d.kind === 'StatefulSet')) {
        const spec = podSpec(o);
        const sel = o.spec.selector.matchLabels;
        assert.equal(spec.securityContext.runAsNonRoot, true, o.metadata.name);
        assert.equal(spec.automountServiceAccountToken, false, o.metadata.name);
        // Service links would put PLATFORM_<SERVICE>_* variables into the environment, the prefix flags are read from.
        assert.equal(spec.enableServiceLinks, false, o.metadata.name);
        for (const c of spec.containers) {
          assert.equal(c.securityContext.readOnlyRootFilesystem, true, `${o.metadata.name}/${c.name}`);
          assert.equal(c.securityContext.allowPrivilegeEscalation, false);
          assert.deepEqual(c.securityContext.capabilities.drop, ['ALL']);
        }
        const anti = spec.affinity.podAntiAffinity;
        const term = r === production ? anti.requiredDuringSchedulingIgnoredDuringExecution[0] : anti.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm;
        assert.equal(term.topologyKey, 'kubernetes.io/hostname');
        assert.deepEqual(term.labelSelector.matchLabels, sel);
        assert.deepEqual(spec.topologySpreadConstraints[0].labelSelector.matchLabels, sel);
        assert.equal(spec.topologySpreadConstraints[0].topologyKey, 'topology.kubernetes.io/zone');
      }
    }
  });

  test('helm chart - the gateway: a Service, a PodDisruptionBudget, and with autoscaling an HPA on CPU owning the replicas', () => {
    const svc = find(defaults, 'Service', 'platform-gateway');
    assert.deepEqual(svc.spec.ports, [{ name: 'https', port: 443, targetPort: 'https', protocol: 'TCP' }]);
    assert.deepEqual(svc.spec.selector, find(defaults, 'Deployment', 'platform-gateway').spec.selector.matchLabels);
    assert.equal(find(defaults, 'Deployment', 'platform-gateway').spec.replicas, 2);
    assert.equal(find(defaults, 'PodDisruptionBudget', 'platform-gateway').spec.maxUnavailable, 1);
    assert.equal(
      defaults.docs.some((d) => d.kind === 'HorizontalPodAutoscaler'),
      false,
    );

    const dep = find(production, 'Deployment', 'platform-gateway');
    assert.equal(dep.spec.replicas, undefined, 'the autoscaler owns the count');
    const hpa = find(production, 'HorizontalPodAutoscaler', 'platform-gateway');
    assert.deepEqual(hpa.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'platform-gateway' });
    assert.equal(hpa.spec.minReplicas, 3);
    assert.equal(hpa.spec.maxReplicas, 12);
    assert.deepEqual(hpa.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }]);
    assert.equal(find(production, 'Service', 'platform-gateway').spec.type, 'LoadBalancer');
    for (const svcName of ['storage', 'authn', 'authz', 'admission', 'controllers']) assert.equal(find(production, 'Deployment', `platform-${svcName}`).spec.replicas, 3);
  });

  test('helm chart - the bundled NATS: 3 JetStream servers routed to each other, every write fsynced, max_payload raised', async () => {
    const sts = find(defaults, 'StatefulSet', 'platform-nats');
    assert.equal(sts.spec.replicas, 3);
    assert.equal(sts.spec.serviceName, 'platform-nats-headless');
    assert.equal(find(defaults, 'Service', 'platform-nats-headless').spec.publishNotReadyAddresses, true);
    assert.equal(sts.spec.volumeClaimTemplates[0].spec.resources.requests.storage, '10Gi');
    assert.deepEqual(container(sts).args, ['--config', '/etc/nats-config/nats.conf']);
    const conf = find(defaults, 'ConfigMap', 'platform-nats-config').data['nats.conf'] as string;
    assert.match(conf, /^\s*server_name: \$POD_NAME$/m);
    assert.match(conf, /jetstream \{[^}]*store_dir: \/data[^}]*sync_interval: always[^}]*\}/);
    assert.equal(Number(/^\s*max_payload: (\d+)$/m.exec(conf)?.[1]), NATS_MAX_PAYLOAD);
    const routes = [...conf.matchAll(/nats:\/\/(\S+):6222/g)].map((m) => m[1]);
    assert.deepEqual(
      routes,
      [0, 1, 2].map((i) => `platform-nats-${i}.platform-nats-headless.${defaults.namespace}.svc.cluster.local`),
    );
    assert.equal(find(defaults, 'PodDisruptionBudget', 'platform-nats').spec.maxUnavailable, 1);
    assert.equal(find(defaults, 'NetworkPolicy', 'platform-nats').spec.ingress[0].from[0].podSelector.matchLabels['app.kubernetes.io/instance'], 'platform');
    assert.equal(
      production.docs.some((d) => d.metadata.name.startsWith('platform-nats')),
      false,
      'nats.url: no bundled NATS',
    );

    // The configuration is one nats-server reads. Debian's nats-server (2.9) predates
    // sync_interval (2.10, the image the chart runs), so that one line is checked above instead.
    if (natsServer) {
      const { file, env } = await localNatsConf(defaults, 'nats-check');
      const r = await new Promise<{ code: number; out: string }>((resolve) =>
        execFile(natsServer, ['-c', file, '-t'], { env: { ...process.env, ...env } }, (err, stdout, stderr) => resolve({ code: err ? 1 : 0, out: `${stdout}${stderr}` })),
      );
      assert.equal(r.code, 0, r.out);
    }
  });

  test('helm chart - the bundled NATS requires TLS of its own CA, also between its servers, and knows one user per service with the permissions npm start uses', () => {
    const ns = defaults.namespace;
    const conf = find(defaults, 'ConfigMap', 'platform-nats-config').data['nats.conf'] as string;
    assert.match(conf, /^tls \{\n  cert_file: "\/etc\/nats-tls\/tls\.crt"\n  key_file: "\/etc\/nats-tls\/tls\.key"\n  timeout: 5\n\}$/m);
    assert.match(conf, /cluster \{[^]*tls \{[^}]*ca_file: "\/etc\/nats-tls\/ca\.crt"[^}]*\}[^]*routes:/, 'routes verify each other');
    assertAccountsOfPermissionsTs(conf, defaults.values.bucket, {});
    assert.doesNotMatch(conf, /password: "/, 'no password in the ConfigMap');

    // The passwords: one per service in a generated Secret, given to NATS through its environment
    // and to each service as its own file (only its own key is mounted).
    const users = find(defaults, 'Secret', 'platform-nats-users');
    assert.deepEqual(Object.keys(users.data).sort(), [...NATS_SERVICES, 'gateway'].sort());
    // A letter first: NATS reads each through an environment variable as a config value, and one
    // starting with a digit is taken for a number and refused (a start failure in ~half the installs).
    for (const key of Object.keys(users.data)) assert.match(secretText(users, key), /^[A-Za-z][A-Za-z0-9]{31}$/);
    const env = container(find(defaults, 'StatefulSet', 'platform-nats')).env;
    for (const role of [...NATS_SERVICES, 'gateway']) {
      assert.deepEqual(env.find((e: any) => e.name === `NATS_PASSWORD_${role.toUpperCase()}`)?.valueFrom.secretKeyRef, { name: 'platform-nats-users', key: role });
      const dep = find(defaults, 'Deployment', `platform-${role}`);
      assert.deepEqual(podSpec(dep).volumes.find((v: any) => v.name === 'nats-auth').secret.items, [{ key: role, path: 'password' }], `${role} sees only its own password`);
      const c = configOf(defaults, role);
      assert.equal(c['nats-user'], NatsUser[role as NatsUserRole]);
      assert.equal(c['nats-password-file'], '/etc/platform/nats-auth/password');
      assert.equal(c['nats-tls-ca-file'], '/etc/platform/nats-tls/ca.crt');
      assert.equal(c['nats-tls-cert-file'], undefined, 'no client certificate unless verifyClients');
    }

    // NATS's certificate: its own CA (not the cluster CA, which signs API users' certificates), the
    // client Service's names and every server's route name, for server and client (route) use.
    const tls = find(defaults, 'Secret', 'platform-nats-tls');
    const natsCA = new X509Certificate(secretText(tls, 'ca.crt'));
    assert.equal(secretText(find(defaults, 'Secret', 'platform-ca-bundles'), 'nats-ca.crt'), secretText(tls, 'ca.crt'), 'the services verify NATS with it');
    assert.notEqual(natsCA.fingerprint256, new X509Certificate(secretText(find(defaults, 'Secret', 'platform-ca'), 'ca.crt')).fingerprint256);
    const server = new X509Certificate(secretText(tls, 'tls.crt'));
    assert.ok(server.verify(natsCA.publicKey));
    for (const name of [`platform-nats.${ns}.svc.cluster.local`, `platform-nats.${ns}.svc`, `platform-nats-2.platform-nats-headless.${ns}.svc.cluster.local`]) assert.ok(server.checkHost(name), name);
    assert.deepEqual([...(server.keyUsage ?? [])].sort(), ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2'], 'serverAuth and clientAuth (routes)');
    const sts = find(defaults, 'StatefulSet', 'platform-nats');
    assert.deepEqual(
      podSpec(sts)
        .volumes.find((v: any) => v.name === 'tls')
        .secret.items.map((i: any) => i.key),
      ['ca.crt', 'tls.crt', 'tls.key'],
      'not the CA key',
    );
  });

  test("helm chart - another bucket and other NATS user names: the bundled NATS's users, their inboxes and the bucket's subjects follow them, as permissions.ts gives them", async () => {
    const names = { storage: 'st', authn: 'an', authz: 'az-1', admission: 'ad_m', gateway: 'gw' };
    const file = path.join(dir, 'renamed-nats.yaml');
    await writeFile(file, YAML.stringify({ bucket: 'things', nats: { auth: { userNames: names } } }));
    const r = await render('default', [file]);
    assertAccountsOfPermissionsTs(find(r, 'ConfigMap', 'platform-nats-config').data['nats.conf'], 'things', names);
    for (const role of [...NATS_SERVICES, 'gateway'] as const) assert.equal(configOf(r, role)['nats-user'], names[role]);
    assert.equal(configOf(r, 'storage').bucket, 'things');
  });

  test('helm chart - a chart packaged without files/nats-permissions.json refuses to render instead of giving the NATS users no permissions', async () => {
    const chart = path.join(dir, 'chart-without-permissions');
    await cp(CHART_DIR, chart, { recursive: true });
    await appendFile(path.join(chart, '.helmignore'), 'files/\n');
    const r = await renderChart(bin, { chart });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /files\/nats-permissions\.json is missing from the chart/);
  });

  test("helm chart - the renderer's .Files.Get reads a chart's files as Helm does: by path from the chart's root, neither templates, Chart.yaml nor what .helmignore leaves out", async () => {
    const chart = path.join(dir, 'files-chart');
    await mkdir(path.join(chart, 'templates'), { recursive: true });
    await mkdir(path.join(chart, 'files/old'), { recursive: true });
    await writeFile(path.join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: files-chart\nversion: 0.1.0\n');
    await writeFile(path.join(chart, 'values.yaml'), '{}\n');
    await writeFile(path.join(chart, '.helmignore'), '# editors\n*.bak\nold/\n');
    await writeFile(path.join(chart, 'files/a.json'), '{"a": 1}\n');
    await writeFile(path.join(chart, 'files/a.json.bak'), 'stale\n');
    await writeFile(path.join(chart, 'files/old/b.txt'), 'b\n');
    const read = {
      kept: 'files/a.json',
      ignored: 'files/a.json.bak',
      'ignored-dir': 'files/old/b.txt',
      'not-from-root': 'a.json',
      chart: 'Chart.yaml',
      template: 'templates/files.yaml',
      missing: 'files/none.json',
    };
    await writeFile(
      path.join(chart, 'templates/files.yaml'),
      ['apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: files}', 'data:', ...Object.entries(read).map(([k, f]) => `  ${k}: {{ .Files.Get ${JSON.stringify(f)} | quote }}`), ''].join('\n'),
    );
    // Hidden files in templates/ are no templates (Helm's default rule): this one would not parse.
    await writeFile(path.join(chart, 'templates/.files.yaml.swp'), '{{ broken');
    const r = await renderChart(bin, { chart });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(parseManifests(r.stdout)[0]!.data, { kept: '{"a": 1}\n', ignored: '', 'ignored-dir': '', 'not-from-root': '', chart: '', template: '', missing: '' });
  });

  test(
    'helm chart - the rendered NATS, run: each service connects with what its Deployment mounts; only storage writes the bucket; no user or another CA is refused',
    { skip: natsServer ? false : 'nats-server not installed' },
    async () => {
      const file = path.join(dir, 'one-nats.yaml');
      await writeFile(file, 'nats: {bundled: {replicas: 1}}\nstorage: {bucketReplicas: 1}\n');
      const r = await render('default', [file]);
      const { file: conf, env, port, dir: natsDir } = await localNatsConf(r, 'nats-run');
      const child = spawn(natsServer!, ['-c', conf], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      try {
        let log = '';
        child.stderr.on('data', (d) => (log += d));
        for (let i = 0; i < 100 && !log.includes('Server is ready'); i++) await new Promise((res) => setTimeout(res, 100));
        assert.match(log, /Server is ready/, log);
        const caFile = path.join(natsDir, 'services-ca.crt');
        await writeFile(caFile, secretText(find(r, 'Secret', 'platform-ca-bundles'), 'nats-ca.crt'));
        const users = find(r, 'Secret', 'platform-nats-users');
        const as = async (role: string) => {
          const c = configOf(r, role);
          const pw = path.join(natsDir, `${role}.password`);
          await writeFile(pw, secretText(users, role));
          // The service's own option parsing of its rendered file, with the mounted paths mapped here.
          return connectBus({
            ...busOptionsFrom(parseOptions(natsOptions, [`--nats-url=nats://127.0.0.1:${port}`, `--nats-user=${c['nats-user']}`, `--nats-password-file=${pw}`, `--nats-tls-ca-file=${caFile}`])),
            name: `helm-${role}`,
          });
        };
        const conns = await Promise.all([...NATS_SERVICES, 'gateway'].map(as));
        try {
          const [storage, authn, , , gateway] = conns;
          await assert.rejects(gateway!.request('$KV.objects.core.configmaps.default.x', 'forged', { timeout: 2_000 }), /Permissions Violation for Publish to "\$KV\.objects/);
          await assert.rejects(gateway!.request('$JS.API.STREAM.DELETE.KV_objects', '', { timeout: 2_000 }), /Permissions Violation/);
          const stolen = authn!.subscribe('platform.v1.storage.>');
          assert.match(String(await stolen.closed), /Permissions Violation for Subscription/);
          const own = storage!.subscribe('platform.v1.storage.get', { queue: 'platform-storage' });
          await storage!.flush();
          assert.equal(own.isClosed(), false);
        } finally {
          await Promise.all(conns.map((c) => c.close()));
        }
        await assert.rejects(connect({ servers: `nats://127.0.0.1:${port}`, tls: { caFile }, maxReconnectAttempts: 0, timeout: 3_000 }), /Authorization Violation/);
        await assert.rejects(
          connect({
            servers: `nats://127.0.0.1:${port}`,
            user: 'platform-gateway',
            pass: secretText(users, 'gateway'),
            tls: { caFile: path.join(natsDir, 'elsewhere.crt') },
            maxReconnectAttempts: 0,
            timeout: 3_000,
          }),
        );
      } finally {
        child.kill('SIGKILL');
      }
    },
  );

  test('helm chart - verifyClients: the bundled servers require a client certificate of the NATS CA, which every service presents', async () => {
    const file = path.join(dir, 'verify.yaml');
    await writeFile(file, 'nats: {tls: {verifyClients: true}}\n');
    const r = await render('default', [file]);
    assert.match(find(r, 'ConfigMap', 'platform-nats-config').data['nats.conf'], /^tls \{[^}]*ca_file: "\/etc\/nats-tls\/ca\.crt"\n  verify: true/m);
    const client = new X509Certificate(secretText(find(r, 'Secret', 'platform-nats-client-cert'), 'tls.crt'));
    assert.ok(client.verify(new X509Certificate(secretText(find(r, 'Secret', 'platform-nats-tls'), 'ca.crt')).publicKey));
    for (const svc of [...NATS_SERVICES, 'gateway']) {
      const c = configOf(r, svc);
      assert.equal(c['nats-tls-cert-file'], '/etc/platform/nats-client/tls.crt', svc);
      assert.equal(c['nats-tls-key-file'], '/etc/platform/nats-client/tls.key', svc);
      assert.equal(podSpec(find(r, 'Deployment', `platform-${svc}`)).volumes.find((v: any) => v.name === 'nats-client').secret.secretName, 'platform-nats-client-cert');
    }
    assert.equal(configOf(r, 'controllers')['nats-tls-cert-file'], undefined);
  });

  test('helm chart - an existing NATS with a credentials file per service (operator mode)', async () => {
    const file = path.join(dir, 'creds.yaml');
    await writeFile(file, 'nats: {url: "tls://nats.example:4222", auth: {mode: creds, existingSecret: platform-nats-creds}}\n');
    const r = await render('default', [file]);
    for (const svc of [...NATS_SERVICES, 'gateway']) {
      const c = configOf(r, svc);
      assert.equal(c['nats-creds'], '/etc/platform/nats-auth/nats.creds');
      assert.equal(c['nats-user'], undefined);
      assert.equal(c['nats-tls-ca-file'], undefined, 'tls:// with the system roots');
      const v = podSpec(find(r, 'Deployment', `platform-${svc}`)).volumes.find((x: any) => x.name === 'nats-auth');
      assert.deepEqual(v.secret, { secretName: 'platform-nats-creds', defaultMode: 288, items: [{ key: `${svc}.creds`, path: 'nats.creds' }] });
    }
    assert.equal(
      r.docs.some((d) => d.metadata.name === 'platform-nats-users'),
      false,
    );
  });

  test('helm chart - NATS security settings that cannot work are refused at render time', async () => {
    const refused = async (values: string, message: RegExp) => {
      const file = path.join(dir, 'bad-nats.yaml');
      await writeFile(file, values);
      const r = await renderChart(bin, { values: [file] });
      assert.notEqual(r.code, 0, values);
      assert.match(r.stderr, message);
    };
    await refused('nats: {auth: {mode: none}}\n', /nats\.auth\.mode none needs nats\.url/);
    await refused('nats: {auth: {mode: creds, existingSecret: x}}\n', /nats\.auth\.mode creds needs nats\.url/);
    await refused('nats: {url: "nats://n:4222"}\n', /nats\.auth\.mode users with nats\.url needs nats\.auth\.existingSecret/);
    await refused('nats: {url: "nats://n:4222", auth: {existingSecret: p}, tls: {verifyClients: true}}\n', /verifyClients is for the bundled NATS/);
    await refused('nats: {tls: {clientCertSecret: c}}\n', /clientCertSecret is for nats\.url/);
  });

  test('helm chart - the notes helm install prints say how to reach the gateway and where the admin token is', async () => {
    const d = await renderChart(bin, { name: 'platform', namespace: 'platform', notes: true });
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, /port-forward service\/platform-gateway 6443:443/);
    assert.match(d.stdout, /get secret platform-tokens -o jsonpath='\{\.data\.admin-token\}'/);
    assert.match(d.stdout, /nats:\/\/platform-nats\.platform\.svc\.cluster\.local:4222 \(bundled, 3 servers\)/);
    const p = await renderChart(bin, { name: 'platform', namespace: 'platform', notes: true, values: [PRODUCTION_VALUES] });
    assert.equal(p.code, 0, p.stderr);
    assert.doesNotMatch(p.stdout, /platform-tokens/, 'no generated token file to point at');
    assert.match(p.stdout, /NATS +nats:\/\/nats-0\.nats\.messaging\.svc:4222/);
  });

  test('helm chart - bucket replicas beyond the bundled servers are refused at render time', async () => {
    const file = path.join(dir, 'small-nats.yaml');
    await writeFile(file, 'nats: {bundled: {replicas: 1}}\n');
    const r = await renderChart(bin, { values: [file] });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /storage\.bucketReplicas \(3\) exceeds nats\.bundled\.replicas \(1\)/);
    await writeFile(file, 'nats: {bundled: {replicas: 1}}\nstorage: {bucketReplicas: 1}\n');
    const one = await render('default', [file]);
    assert.equal(configOf(one, 'storage').replicas, 1);
    assert.doesNotMatch(find(one, 'ConfigMap', 'platform-nats-config').data['nats.conf'], /cluster \{/, 'a single server runs no cluster block');
  });

  test("helm chart - certificates and keys not supplied are generated: a CA, a serving pair it signed for the Service names, the controllers' client certificate, a signing key and an admin token", () => {
    const ca = new X509Certificate(secretText(find(defaults, 'Secret', 'platform-ca'), 'ca.crt'));
    assert.equal(ca.ca, true);
    createPrivateKey(secretText(find(defaults, 'Secret', 'platform-ca'), 'ca.key'));
    const servingSecret = find(defaults, 'Secret', 'platform-serving-cert');
    assert.equal(servingSecret.type, 'kubernetes.io/tls');
    const serving = new X509Certificate(secretText(servingSecret, 'tls.crt'));
    assert.ok(serving.verify(ca.publicKey), 'signed by the CA beside it');
    assert.ok(serving.checkPrivateKey(createPrivateKey(secretText(servingSecret, 'tls.key'))));
    const ns = defaults.namespace;
    for (const name of ['platform-gateway', `platform-gateway.${ns}`, `platform-gateway.${ns}.svc`, `platform-gateway.${ns}.svc.cluster.local`, 'localhost'])
      assert.ok(serving.checkHost(name), `serving certificate covers ${name}`);
    assert.ok(serving.checkIP('127.0.0.1'));
    const ctl = new X509Certificate(secretText(find(defaults, 'Secret', 'platform-controllers-cert'), 'tls.crt'));
    assert.ok(ctl.verify(ca.publicKey));
    assert.match(ctl.subject, new RegExp(`CN=${CONTROLLER_MANAGER_USER}`));
    const bundles = find(defaults, 'Secret', 'platform-ca-bundles');
    assert.equal(new X509Certificate(secretText(bundles, 'client-ca.crt')).fingerprint256, ca.fingerprint256);
    assert.equal(new X509Certificate(secretText(bundles, 'serving-ca.crt')).fingerprint256, ca.fingerprint256);
    const sa = createPrivateKey(secretText(find(defaults, 'Secret', 'platform-service-account-key'), 'sa.key'));
    assert.equal(sa.asymmetricKeyType, 'ec');
    const tokens = find(defaults, 'Secret', 'platform-tokens');
    const admin = secretText(tokens, 'admin-token');
    assert.match(admin, /^[A-Za-z0-9]{48}$/);
    assert.equal(secretText(tokens, 'tokens.csv'), `${admin},platform-admin,platform-admin,"system:masters"\n`);
  });

  test('helm chart - an upgrade keeps what the install generated, and reissues only what no longer fits', async () => {
    const installed = path.join(dir, 'installed.yaml');
    await writeFile(installed, defaults.text);
    const data = (r: Rendering, name: string) => find(r, 'Secret', name).data as Record<string, string>;
    const upgrade = async (values: string[]) => {
      const r = await renderChart(bin, { name: 'platform', namespace: defaults.namespace, values, existing: installed });
      assert.equal(r.code, 0, r.stderr);
      return { namespace: defaults.namespace, text: r.stdout, docs: parseManifests(r.stdout), values: {} } as Rendering;
    };
    const same = await upgrade([]);
    const generated = [
      'platform-ca',
      'platform-serving-cert',
      'platform-controllers-cert',
      'platform-service-account-key',
      'platform-tokens',
      'platform-nats-tls',
      'platform-nats-users',
      'platform-front-proxy-ca',
      'platform-front-proxy-client',
    ];
    for (const name of generated) assert.deepEqual(data(same, name), data(defaults, name), `${name} kept`);

    // A new name for the gateway: a new serving certificate from the same CA; the rest stays.
    const sans = path.join(dir, 'sans.yaml');
    await writeFile(sans, 'pki: {serving: {extraSANs: [api.example.net]}}\n');
    const renamed = await upgrade([sans]);
    for (const name of generated.filter((n) => n !== 'platform-serving-cert')) assert.deepEqual(data(renamed, name), data(defaults, name), `${name} kept`);
    const reissued = new X509Certificate(secretText(find(renamed, 'Secret', 'platform-serving-cert'), 'tls.crt'));
    assert.ok(reissued.checkHost('api.example.net'));
    assert.ok(reissued.verify(new X509Certificate(secretText(find(defaults, 'Secret', 'platform-ca'), 'ca.crt')).publicKey));

    // A supplied CA replaces the generated one: what it signs is issued again under it.
    const ca = await createCA('replacement-ca');
    const caFile = path.join(dir, 'new-ca.yaml');
    await writeFile(caFile, YAML.stringify({ pki: { ca: { cert: ca.certPem, key: ca.keyPem } } }));
    const moved = await upgrade([caFile]);
    for (const name of ['platform-serving-cert', 'platform-controllers-cert']) {
      assert.ok(new X509Certificate(secretText(find(moved, 'Secret', name), 'tls.crt')).verify(new X509Certificate(ca.certPem).publicKey), `${name} signed by the new CA`);
    }
    assert.deepEqual(data(moved, 'platform-tokens'), data(defaults, 'platform-tokens'), 'the admin token stays');
  });

  test('helm chart - the front proxy: a CA of its own signs front-proxy-client, which the gateway and the controllers present; the gateway publishes that CA', () => {
    for (const r of [defaults, production]) {
      const ca = new X509Certificate(secretText(find(r, 'Secret', 'platform-front-proxy-ca'), 'ca.crt'));
      assert.equal(ca.ca, true);
      const clusterCA = new X509Certificate(secretText(find(r, 'Secret', 'platform-ca'), 'ca.crt'));
      assert.notEqual(ca.fingerprint256, clusterCA.fingerprint256, 'not the cluster CA');
      const pair = find(r, 'Secret', 'platform-front-proxy-client');
      assert.equal(pair.type, 'kubernetes.io/tls');
      const client = new X509Certificate(secretText(pair, 'tls.crt'));
      assert.ok(client.verify(ca.publicKey) && !client.verify(clusterCA.publicKey), 'signed by the front-proxy CA only');
      assert.ok(client.checkPrivateKey(createPrivateKey(secretText(pair, 'tls.key'))));
      assert.match(client.subject, /^CN=front-proxy-client$/m);
      for (const svc of ['gateway', 'controllers']) {
        const c = configOf(r, svc);
        assert.equal(c['proxy-client-cert-file'], '/etc/platform/front-proxy/tls.crt', svc);
        assert.equal(c['proxy-client-key-file'], '/etc/platform/front-proxy/tls.key', svc);
        const volume = podSpec(find(r, 'Deployment', `platform-${svc}`)).volumes.find((v: any) => v.name === 'front-proxy');
        assert.equal(volume.secret.secretName, 'platform-front-proxy-client', svc);
      }
      // Published for aggregated servers: the front-proxy CA first, then any authenticating proxy's CA the authn service trusts.
      assert.equal(configOf(r, 'gateway')['requestheader-client-ca-file'], '/etc/platform/ca-bundles/gateway-requestheader-ca.crt');
      const bundle = secretText(find(r, 'Secret', 'platform-ca-bundles'), 'gateway-requestheader-ca.crt');
      assert.equal(new X509Certificate(bundle).fingerprint256, ca.fingerprint256);
      if (r === production) assert.ok(bundle.includes(supplied.proxyCaPem.trim()), "the production values' authenticating proxy CA is still accepted in the handshake");
    }
  });

  test("helm chart - supplied certificates are used as given, and the CA still signs the controllers' certificate", () => {
    assert.equal(secretText(find(production, 'Secret', 'platform-ca'), 'ca.crt'), supplied.caPem);
    const serving = find(production, 'Secret', 'platform-serving-cert');
    assert.equal(secretText(serving, 'tls.crt'), supplied.servingPem);
    assert.equal(secretText(serving, 'tls.key'), supplied.servingKey);
    const bundles = find(production, 'Secret', 'platform-ca-bundles');
    assert.equal(secretText(bundles, 'serving-ca.crt'), supplied.caPem);
    assert.equal(secretText(bundles, 'requestheader-ca.crt'), supplied.proxyCaPem);
    const ctl = new X509Certificate(secretText(find(production, 'Secret', 'platform-controllers-cert'), 'tls.crt'));
    assert.ok(ctl.verify(new X509Certificate(supplied.caPem).publicKey), "the supplied CA signed the controllers' certificate");
  });
});
