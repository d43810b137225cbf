// End to end: `--upstream-group-aliases` through the real HTTPS gateway with
// `--authorization-mode=Node,RBAC`. Every branded group (`X.platform.io`) also answers to upstream's
// spelling (`X.k8s.io`). What a user sees: upstream kubectl's typed commands, `auth` commands,
// `certificate approve` and a multi-document stock manifest (apply, diff, prune, server-side
// apply) working; one object behind both spellings, each response spelled as its URL; discovery
// and OpenAPI listing the aliases; authorization seeing one group (rules, bindings, access reviews,
// escalation checks and admission alike), so that no request through an alias gets a right it
// would not get through the canonical name. With the flag off, the aliases do not exist.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { findKubectl, Kubectl, type KubectlResult } from '../support/kubectl.js';
import { csrRequest } from '../support/csr.js';
import { issueClientCert, type PemPair } from '../../shared/local/pki.js';
import { assertOk, assertStatus, createNamespace, eventually, openWatch, uniq } from './helpers.js';

const RBAC = 'rbac.authorization.platform.io';
const RBAC_K8S = 'rbac.authorization.k8s.io';
const AUTHZ = 'authorization.platform.io';
const AUTHZ_K8S = 'authorization.k8s.io';
const CERTS = 'certificates.platform.io';
const CERTS_K8S = 'certificates.k8s.io';
const BRAND = '.platform.io';
const UPSTREAM = '.k8s.io';
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };

const bin = findKubectl();
const noKubectl = bin ? false : 'kubectl not on PATH';

type Res = Awaited<ReturnType<TestCluster['request']>>;
type Rule = { verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] };
/** Who makes a request: a bearer token (null: none) and/or a client certificate. */
type Who = { token?: string | null; cert?: PemPair };

const upstreamOf = (group: string) => group.slice(0, -BRAND.length) + UPSTREAM;

const role = (group: string, name: string, rules: Rule[], labels?: Record<string, string>) => ({
  apiVersion: `${group}/v1`,
  kind: 'Role',
  metadata: { name, ...(labels ? { labels } : {}) },
  rules,
});
const roleBinding = (group: string, name: string, ref: { kind: 'Role' | 'ClusterRole'; name: string; apiGroup?: string }, subjects: unknown[]) => ({
  apiVersion: `${group}/v1`,
  kind: 'RoleBinding',
  metadata: { name },
  subjects,
  roleRef: { apiGroup: group, ...ref },
});
const user = (name: string, apiGroup = RBAC) => ({ kind: 'User', apiGroup, name });

function ok(r: KubectlResult): string {
  assert.equal(r.code, 0, `kubectl failed (${r.code}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

function forbiddenMessage(res: Res): string {
  return assertStatus(res, 403, 'Forbidden').message as string;
}

// ---- the stock manifest --------------------------------------------------------------------------

type Doc = { kind: string; yaml: string };

/** A stock multi-document manifest with upstream's group names, every object labelled app=web. */
function stockManifest(ns: string, suffix: string): Doc[] {
  const doc = (kind: string, yaml: string): Doc => ({ kind, yaml });
  return [
    doc(
      'Deployment',
      `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: registry.example/web:1
        ports:
        - containerPort: 8080
`,
    ),
    doc(
      'Service',
      `apiVersion: v1
kind: Service
metadata:
  name: web
  labels: {app: web}
spec:
  selector: {app: web}
  ports:
  - port: 80
    targetPort: 8080
`,
    ),
    doc(
      'ConfigMap',
      `apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
  labels: {app: web}
data:
  mode: production
`,
    ),
    doc(
      'Secret',
      `apiVersion: v1
kind: Secret
metadata:
  name: web-secret
  labels: {app: web}
stringData:
  password: s3cret
`,
    ),
    doc(
      'Role',
      `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: web-reader
  labels: {app: web}
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list]
`,
    ),
    doc(
      'RoleBinding',
      `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: web-reader
  labels: {app: web}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: web-reader
subjects:
- kind: User
  apiGroup: rbac.authorization.k8s.io
  name: jane
`,
    ),
    doc(
      'Ingress',
      `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  labels: {app: web}
spec:
  rules:
  - host: web.example.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service:
            name: web
            port:
              number: 80
`,
    ),
    doc(
      'NetworkPolicy',
      `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: web
  labels: {app: web}
spec:
  podSelector:
    matchLabels: {app: web}
  policyTypes: [Ingress]
  ingress:
  - ports:
    - port: 8080
`,
    ),
    doc(
      'StorageClass',
      `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: web-fast-${suffix}
  labels: {app: web}
provisioner: example.com/fast
reclaimPolicy: Delete
`,
    ),
    doc(
      'PodDisruptionBudget',
      `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
  labels: {app: web}
spec:
  minAvailable: 1
  selector:
    matchLabels: {app: web}
`,
    ),
    doc(
      'PriorityClass',
      `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: web-high-${suffix}
  labels: {app: web}
value: 100000
description: web tier of ${ns}
`,
    ),
    doc(
      'CronJob',
      `apiVersion: batch/v1
kind: CronJob
metadata:
  name: web-report
  labels: {app: web}
spec:
  schedule: "0 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: report
            image: registry.example/report:1
`,
    ),
  ];
}
const join = (docs: Doc[]) => docs.map((d) => d.yaml).join('---\n');

// ---- aliases on --------------------------------------------------------------------------------

describe('upstream group aliases (Node, RBAC, --upstream-group-aliases)', () => {
  let c: TestCluster;
  let jane: string;
  let k: Kubectl | undefined;
  let dir: string;

  const req = (method: string, p: string, who: Who = {}, body?: unknown, headers?: Record<string, string>) =>
    c.request(method, p, { ...who, ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });
  const create = async (p: string, body: unknown) => assertOk(await c.request('POST', p, { body }), 201);
  const get = async (p: string) => assertOk(await c.request('GET', p));
  const rbac = (group: string, ns: string | undefined, plural: string, name?: string) => `/apis/${group}/v1${ns ? `/namespaces/${ns}` : ''}/${plural}${name ? `/${encodeURIComponent(name)}` : ''}`;
  const certUser = (name: string, groups: string[] = []) => issueClientCert(c.ca, { commonName: name, organizations: groups });
  const selfReview = async (who: Who, group: string, attrs: Record<string, string>) =>
    assertOk(await req('POST', `/apis/${group}/v1/selfsubjectaccessreviews`, who, { apiVersion: `${group}/v1`, kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: attrs } }), 201);

  before(async () => {
    c = await startTestCluster({ upstreamGroupAliases: true, authorizationModes: ['Node', 'RBAC'], fullAuthn: true, admission: { enable: ['NodeRestriction'] } });
    jane = c.userToken;
    if (bin) k = new Kubectl(bin, c.kubeconfigPath);
    dir = await mkdtemp(path.join(os.tmpdir(), 'aliases-e2e-'));
    // The admin is in system:masters, which RBAC knows only once the default policy is written.
    await eventually(
      'the default policy is written',
      async () => {
        for (const b of ['cluster-admin', 'system:basic-user', 'system:discovery']) assertOk(await c.request('GET', rbac(RBAC, undefined, 'clusterrolebindings', b)));
        assertOk(await c.request('GET', '/api/v1/namespaces'));
      },
      { timeoutMs: 10_000, intervalMs: 50 },
    );
  });

  after(async () => {
    await c?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
    if (k) await rm(k.cacheDir, { recursive: true, force: true });
  });

  // ---- A. kubectl ---------------------------------------------------------------------------------

  it('kubectl create role|rolebinding|clusterrole|clusterrolebinding|priorityclass (protobuf bodies to the aliases): the objects are the canonical ones', { skip: noKubectl }, async () => {
    const ns = uniq('kc');
    await createNamespace(c, ns);
    const n = uniq('x');
    const created: Array<[string[], string]> = [
      [['role', n, '--verb=get,list', '--resource=pods', '-n', ns], `role.${RBAC_K8S}/${n} created`],
      [['rolebinding', n, `--role=${n}`, '--user=jane', '-n', ns], `rolebinding.${RBAC_K8S}/${n} created`],
      [['clusterrole', n, '--verb=get', '--resource=nodes'], `clusterrole.${RBAC_K8S}/${n} created`],
      [['clusterrolebinding', n, `--clusterrole=${n}`, '--group=e2e-nobody'], `clusterrolebinding.${RBAC_K8S}/${n} created`],
      [['priorityclass', n, '--value=1000', '--description=from kubectl'], `priorityclass.scheduling.k8s.io/${n} created`],
    ];
    for (const [args, want] of created) assert.equal(ok(await k!.run(['create', ...args])).trim(), want);

    const r = await get(rbac(RBAC, ns, 'roles', n));
    assert.equal(r.apiVersion, `${RBAC}/v1`);
    assert.deepEqual(r.rules, [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }]);
    const rb = await get(rbac(RBAC, ns, 'rolebindings', n));
    assert.equal(rb.apiVersion, `${RBAC}/v1`);
    // kubectl writes upstream's group into roleRef and subjects through the alias: stored canonical, as the URL spells it when read.
    assert.deepEqual(rb.roleRef, { apiGroup: RBAC, kind: 'Role', name: n });
    assert.deepEqual(rb.subjects, [{ kind: 'User', apiGroup: RBAC, name: 'jane' }]);
    assert.deepEqual((await get(rbac(RBAC_K8S, ns, 'rolebindings', n))).roleRef, { apiGroup: RBAC_K8S, kind: 'Role', name: n });
    const cr = await get(rbac(RBAC, undefined, 'clusterroles', n));
    assert.deepEqual(cr.rules, [{ verbs: ['get'], apiGroups: [''], resources: ['nodes'] }]);
    const crb = await get(rbac(RBAC, undefined, 'clusterrolebindings', n));
    assert.deepEqual(crb.subjects, [{ kind: 'Group', apiGroup: RBAC, name: 'e2e-nobody' }]);
    const pc = await get(`/apis/scheduling.platform.io/v1/priorityclasses/${n}`);
    assert.equal(pc.apiVersion, 'scheduling.platform.io/v1');
    assert.equal(pc.value, 1000);
    assert.equal(pc.description, 'from kubectl');
    // The same object through kubectl's alias read.
    const viaKubectl = JSON.parse(ok(await k!.run(['get', `roles.${RBAC_K8S}`, n, '-n', ns, '-o', 'json'])));
    assert.equal(viaKubectl.apiVersion, `${RBAC_K8S}/v1`);
    assert.equal(viaKubectl.metadata.uid, r.metadata.uid);
    assert.equal(viaKubectl.metadata.resourceVersion, r.metadata.resourceVersion);
  });

  it('kubectl auth can-i --as jane follows a RoleBinding made by kubectl create rolebinding; auth whoami; can-i --list is complete', { skip: noKubectl }, async () => {
    const ns = uniq('cani');
    const other = uniq('cani-other');
    await createNamespace(c, ns);
    await createNamespace(c, other);
    const canI = (...args: string[]) => k!.run(['auth', 'can-i', ...args, '--as', 'jane']);

    const before = await canI('list', 'pods', '-n', ns);
    assert.equal(before.stdout.trim(), 'no', before.stderr);
    assert.equal(before.code, 1);
    ok(await k!.run(['create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods', '-n', ns]));
    ok(await k!.run(['create', 'rolebinding', 'jane-pod-reader', '--role=pod-reader', '--user=jane', '-n', ns]));
    await eventually('kubectl auth can-i list pods says yes', async () => {
      const yes = await canI('list', 'pods', '-n', ns);
      assert.equal(yes.stdout.trim(), 'yes', yes.stderr);
      assert.equal(yes.code, 0);
    });
    for (const args of [
      ['delete', 'pods', '-n', ns],
      ['list', 'pods', '-n', other],
      ['list', 'secrets', '-n', ns],
    ]) {
      const no = await canI(...args);
      assert.equal(no.stdout.trim(), 'no', `${args.join(' ')}: ${no.stderr}`);
      assert.equal(no.code, 1);
    }

    const whoami = ok(await k!.run(['auth', 'whoami']));
    assert.match(whoami, /^Username\s+platform-admin\s*$/m);
    assert.match(whoami, /^Groups\s+\[.*system:masters.*\]\s*$/m);
    const janeWhoami = ok(await k!.run(['auth', 'whoami', '--as', 'jane']));
    assert.match(janeWhoami, /^Username\s+jane\s*$/m);

    const list = await canI('--list', '-n', ns);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^pods\s+\[\]\s+\[\]\s+\[get list\]\s*$/m);
    assert.doesNotMatch(list.stdout + list.stderr, /may be incomplete/);
    const otherList = ok(await canI('--list', '-n', other));
    assert.doesNotMatch(otherList, /^pods\s/m, 'the grant does not leak into another namespace');
  });

  /** Creates, with `kubectl create -f`, a stock CSR manifest (upstream group) in a file named after it. */
  const stockCsr = async (name: string) => {
    const file = path.join(dir, `${name}.yaml`);
    await writeFile(
      file,
      `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata:
  name: ${name}
spec:
  request: ${await csrRequest('CN=bob')}
  signerName: platform.io/kube-apiserver-client
  usages:
  - client auth
`,
    );
    assert.equal(ok(await k!.run(['create', '-f', file])).trim(), `certificatesigningrequest.${CERTS_K8S}/${name} created`);
    return file;
  };
  const csrConditions = async (name: string) => ((await get(`/apis/${CERTS}/v1/certificatesigningrequests/${name}`)).status?.conditions ?? []).map((x: any) => `${x.type}=${x.status}`);

  it('kubectl certificate approve|deny: the plural alias, -f and a bare NAME act on a stock CSR', { skip: noKubectl }, async () => {
    const [byPlural, byFile, bare] = [uniq('csr-plural'), uniq('csr-file'), uniq('csr-bare')];
    const files = new Map<string, string>();
    for (const name of [byPlural, byFile, bare]) files.set(name, await stockCsr(name));
    const conditions = csrConditions;

    assert.equal(ok(await k!.run(['certificate', 'approve', `certificatesigningrequests.${CERTS_K8S}/${byPlural}`])).trim(), `certificatesigningrequest.${CERTS_K8S}/${byPlural} approved`);
    assert.deepEqual(await conditions(byPlural), ['Approved=True']);
    assert.equal(ok(await k!.run(['certificate', 'approve', '-f', files.get(byFile)!])).trim(), `certificatesigningrequest.${CERTS_K8S}/${byFile} approved`);
    assert.deepEqual(await conditions(byFile), ['Approved=True']);

    // A bare NAME: kubectl resolves it through discovery, where certificates.k8s.io is preferred.
    assert.equal(ok(await k!.run(['certificate', 'deny', bare])).trim(), `certificatesigningrequest.${CERTS_K8S}/${bare} denied`);
    assert.deepEqual(await conditions(bare), ['Denied=True']);
  });

  it('kubectl describe role|rolebinding|clusterrole and set subject resolve the upstream groups kubectl knows', { skip: noKubectl }, async () => {
    const ns = uniq('describe');
    ok(await k!.run(['create', 'namespace', ns]));
    ok(await k!.run(['-n', ns, 'create', 'role', 'reader', '--verb=get,list', '--resource=pods']));
    ok(await k!.run(['-n', ns, 'create', 'rolebinding', 'readers', '--role=reader', '--user=jane']));
    // kubectl's own describers: a PolicyRule table and the binding's Role and Subjects, not a field dump.
    assert.match(ok(await k!.run(['-n', ns, 'describe', 'role', 'reader'])), /PolicyRule:\n\s+Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs/);
    assert.match(ok(await k!.run(['-n', ns, 'describe', 'rolebinding', 'readers'])), /Role:\n\s+Kind:\s+Role\n\s+Name:\s+reader/);
    assert.match(ok(await k!.run(['describe', 'clusterrole', 'view'])), /PolicyRule:/);
    assert.equal(ok(await k!.run(['-n', ns, 'set', 'subject', 'rolebinding', 'readers', '--user=bob'])).trim(), `rolebinding.${RBAC_K8S}/readers subjects updated`);
    const subjects = JSON.parse(ok(await k!.run(['-n', ns, 'get', 'rolebinding', 'readers', '-o', 'jsonpath={.subjects}'])));
    assert.deepEqual(
      subjects.map((x: { name: string }) => x.name),
      ['jane', 'bob'],
    );
  });

  // ---- B. a stock multi-document manifest ------------------------------------------------------

  it('a stock manifest: apply creates every object, diff is empty, the RoleBinding grants jane, apply --prune prunes, apply --server-side works', { skip: noKubectl }, async () => {
    const ns = uniq('stock');
    await createNamespace(c, ns);
    const suffix = ns.split('-').pop()!;
    const docs = stockManifest(ns, suffix);
    const expectCreated = [
      'deployment.apps/web',
      'service/web',
      'configmap/web-config',
      'secret/web-secret',
      `role.${RBAC_K8S}/web-reader`,
      `rolebinding.${RBAC_K8S}/web-reader`,
      'ingress.networking.k8s.io/web',
      'networkpolicy.networking.k8s.io/web',
      `storageclass.storage.k8s.io/web-fast-${suffix}`,
      'poddisruptionbudget.policy/web',
      `priorityclass.scheduling.k8s.io/web-high-${suffix}`,
      'cronjob.batch/web-report',
    ];
    const applied = ok(await k!.run(['apply', '-n', ns, '-f', '-'], { input: join(docs) }));
    assert.deepEqual(
      applied.trim().split('\n'),
      expectCreated.map((x) => `${x} created`),
    );

    const diff = await k!.run(['diff', '-n', ns, '-f', '-'], { input: join(docs) });
    assert.equal(diff.code, 0, `kubectl diff: ${diff.stdout}${diff.stderr}`);

    // The objects are there under their canonical groups.
    assert.equal((await get(`/apis/networking.platform.io/v1/namespaces/${ns}/ingresses/web`)).spec.rules[0].host, 'web.example.com');
    assert.equal((await get(`/apis/storage.platform.io/v1/storageclasses/web-fast-${suffix}`)).provisioner, 'example.com/fast');
    assert.equal((await get(`/apis/scheduling.platform.io/v1/priorityclasses/web-high-${suffix}`)).value, 100000);
    assert.deepEqual((await get(rbac(RBAC, ns, 'rolebindings', 'web-reader'))).roleRef, { apiGroup: RBAC, kind: 'Role', name: 'web-reader' });
    // The stock RoleBinding (upstream group in roleRef and subject) grants jane the Role.
    await eventually('the stock RoleBinding lets jane list configmaps', async () => {
      assert.equal(assertOk(await c.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { token: jane })).kind, 'ConfigMapList');
    });
    assertStatus(await c.request('GET', `/api/v1/namespaces/${ns}/secrets`, { token: jane }), 403, 'Forbidden');

    // Drop the ConfigMap and the Ingress: both kinds are on kubectl's default prune allowlist.
    const kept = docs.filter((d) => d.kind !== 'ConfigMap' && d.kind !== 'Ingress');
    const pruned = await k!.run(['apply', '--prune', '-l', 'app=web', '-n', ns, '-f', '-'], { input: join(kept) });
    assert.equal(pruned.code, 0, pruned.stderr);
    assert.match(pruned.stdout, /^configmap\/web-config pruned$/m);
    assert.match(pruned.stdout, /^ingress\.networking\.k8s\.io\/web pruned$/m);
    assert.equal(pruned.stdout.match(/ pruned$/gm)?.length, 2, pruned.stdout);
    assertStatus(await c.request('GET', `/api/v1/namespaces/${ns}/configmaps/web-config`), 404, 'NotFound');
    assertStatus(await c.request('GET', `/apis/networking.platform.io/v1/namespaces/${ns}/ingresses/web`), 404, 'NotFound');
    assertStatus(await c.request('GET', `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses/web`), 404, 'NotFound');
    assertOk(await c.request('GET', `/apis/networking.platform.io/v1/namespaces/${ns}/networkpolicies/web`));

    // Server-side apply of the whole manifest in a fresh namespace.
    const ssaNs = uniq('stock-ssa');
    await createNamespace(c, ssaNs);
    const ssaDocs = stockManifest(ssaNs, `${suffix}-ssa`);
    const ssa = ok(await k!.run(['apply', '--server-side', '-n', ssaNs, '-f', '-'], { input: join(ssaDocs) }));
    assert.equal(ssa.trim().split('\n').length, ssaDocs.length, ssa);
    for (const line of ssa.trim().split('\n')) assert.match(line, / serverside-applied$/);
    const ssaRole = await get(rbac(RBAC_K8S, ssaNs, 'roles', 'web-reader'));
    assert.deepEqual(
      ssaRole.metadata.managedFields.map((e: any) => [e.manager, e.operation, e.apiVersion]),
      [['kubectl', 'Apply', `${RBAC_K8S}/v1`]],
    );
    assert.deepEqual(
      (await get(rbac(RBAC, ssaNs, 'roles', 'web-reader'))).metadata.managedFields.map((e: any) => [e.manager, e.operation, e.apiVersion]),
      [['kubectl', 'Apply', `${RBAC}/v1`]],
    );
    // Re-applied unchanged: the same objects, no conflict, nothing new in the spec.
    const again = ok(await k!.run(['apply', '--server-side', '-n', ssaNs, '-f', '-'], { input: join(ssaDocs) }));
    assert.equal(again.trim().split('\n').length, ssaDocs.length, again);
    const reapplied = await get(rbac(RBAC, ssaNs, 'roles', 'web-reader'));
    assert.equal(reapplied.metadata.uid, ssaRole.metadata.uid);
    assert.deepEqual(reapplied.rules, ssaRole.rules);
    assert.deepEqual(
      reapplied.metadata.managedFields.map((e: any) => e.manager),
      ['kubectl'],
    );
  });

  // ---- C. REST: one object, two spellings ---------------------------------------------------

  it('REST - one object through both spellings: same uid and resourceVersion, apiVersion and managedFields spelled as the URL, list kinds too', async () => {
    const ns = uniq('same');
    await createNamespace(c, ns);
    const name = uniq('r');
    const made = await create(rbac(RBAC, ns, 'roles', name), role(RBAC, name, [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]));
    assert.equal(made.apiVersion, `${RBAC}/v1`);
    const canonical = await get(rbac(RBAC, ns, 'roles', name));
    const alias = await get(rbac(RBAC_K8S, ns, 'roles', name));
    assert.equal(alias.apiVersion, `${RBAC_K8S}/v1`);
    assert.equal(alias.kind, 'Role');
    assert.equal(alias.metadata.uid, canonical.metadata.uid);
    assert.equal(alias.metadata.resourceVersion, canonical.metadata.resourceVersion);
    assert.deepEqual(alias.rules, canonical.rules);
    assert.deepEqual(
      canonical.metadata.managedFields.map((e: any) => e.apiVersion),
      [`${RBAC}/v1`],
    );
    assert.deepEqual(
      alias.metadata.managedFields.map((e: any) => e.apiVersion),
      [`${RBAC_K8S}/v1`],
    );
    const strip = (o: any) => ({ ...o, apiVersion: undefined, metadata: { ...o.metadata, managedFields: o.metadata.managedFields.map((e: any) => ({ ...e, apiVersion: undefined })) } });
    assert.deepEqual(strip(alias), strip(canonical), 'nothing but the spelling differs');

    // An update through the alias is an update of the same object, seen through both.
    const updated = assertOk(await c.request('PATCH', rbac(RBAC_K8S, ns, 'roles', name), { body: { metadata: { labels: { via: 'alias' } } }, headers: MERGE_PATCH }));
    assert.equal(updated.apiVersion, `${RBAC_K8S}/v1`);
    assert.notEqual(updated.metadata.resourceVersion, canonical.metadata.resourceVersion);
    const reread = await get(rbac(RBAC, ns, 'roles', name));
    assert.equal(reread.metadata.labels.via, 'alias');
    assert.equal(reread.metadata.resourceVersion, updated.metadata.resourceVersion);
    assert.ok(
      reread.metadata.managedFields.every((e: any) => e.apiVersion === `${RBAC}/v1`),
      JSON.stringify(reread.metadata.managedFields),
    );

    for (const [group, plural, kind] of [
      [RBAC, 'roles', 'RoleList'],
      [RBAC_K8S, 'roles', 'RoleList'],
      [RBAC_K8S, 'rolebindings', 'RoleBindingList'],
    ] as const) {
      const list = await get(rbac(group, ns, plural));
      assert.equal(list.kind, kind);
      assert.equal(list.apiVersion, `${group}/v1`);
      for (const item of list.items) assert.equal(item.apiVersion, `${group}/v1`, `${group} ${plural}: ${JSON.stringify(item).slice(0, 200)}`);
    }
    assert.deepEqual(
      (await get(rbac(RBAC_K8S, ns, 'roles'))).items.map((i: any) => i.metadata.uid),
      [canonical.metadata.uid],
    );
    // Another group through its alias: a PriorityClass made canonically, read as scheduling.k8s.io.
    const pc = uniq('pc');
    const pcMade = await create('/apis/scheduling.platform.io/v1/priorityclasses', { apiVersion: 'scheduling.platform.io/v1', kind: 'PriorityClass', metadata: { name: pc }, value: 7 });
    const pcAlias = await get(`/apis/scheduling.k8s.io/v1/priorityclasses/${pc}`);
    assert.equal(pcAlias.apiVersion, 'scheduling.k8s.io/v1');
    assert.equal(pcAlias.metadata.uid, pcMade.metadata.uid);
    assertOk(await c.request('DELETE', `/apis/scheduling.k8s.io/v1/priorityclasses/${pc}`));
    assertStatus(await c.request('GET', `/apis/scheduling.platform.io/v1/priorityclasses/${pc}`), 404, 'NotFound');
  });

  it('REST - a RoleBinding and ClusterRoleBinding made through the alias store the canonical group in roleRef and subjects and read back in the spelling of the URL', async () => {
    const ns = uniq('rb-alias');
    await createNamespace(c, ns);
    const n = uniq('rb');
    const sa = { kind: 'ServiceAccount', apiGroup: '', name: 'default', namespace: ns };
    const made = await create(rbac(RBAC_K8S, ns, 'rolebindings'), roleBinding(RBAC_K8S, n, { kind: 'ClusterRole', name: 'view' }, [user('jane', RBAC_K8S), sa]));
    // A ServiceAccount subject names the core group (empty, so omitted): nothing to respell.
    assert.deepEqual([made.roleRef.apiGroup, made.subjects[0].apiGroup, made.subjects[1].apiGroup ?? ''], [RBAC_K8S, RBAC_K8S, '']);
    const canonical = await get(rbac(RBAC, ns, 'rolebindings', n));
    assert.deepEqual(canonical.roleRef, { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' });
    assert.deepEqual(canonical.subjects[0], user('jane', RBAC));
    assert.deepEqual([canonical.subjects[1].kind, canonical.subjects[1].apiGroup ?? ''], ['ServiceAccount', '']);
    const listed = await get(`${rbac(RBAC_K8S, ns, 'rolebindings')}`);
    assert.deepEqual(listed.items.find((o: { metadata: { name: string } }) => o.metadata.name === n).roleRef.apiGroup, RBAC_K8S);
    // An update through the alias keeps roleRef (immutable) and stores canonical again.
    const updated = assertOk(await c.request('PUT', rbac(RBAC_K8S, ns, 'rolebindings', n), { body: { ...made, subjects: [user('carol', RBAC_K8S)] } }));
    assert.deepEqual(updated.subjects, [user('carol', RBAC_K8S)]);
    assert.deepEqual((await get(rbac(RBAC, ns, 'rolebindings', n))).subjects, [user('carol', RBAC)]);

    const crb = uniq('crb');
    const body = {
      apiVersion: `${RBAC_K8S}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name: crb },
      roleRef: { apiGroup: RBAC_K8S, kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'Group', apiGroup: RBAC_K8S, name: 'e2e-viewers' }],
    };
    assert.equal((await create(rbac(RBAC_K8S, undefined, 'clusterrolebindings'), body)).roleRef.apiGroup, RBAC_K8S);
    const stored = await get(rbac(RBAC, undefined, 'clusterrolebindings', crb));
    assert.deepEqual([stored.roleRef.apiGroup, stored.subjects[0].apiGroup], [RBAC, RBAC]);
  });

  it("REST - Status errors name the URL's spelling: 404 details.group; 409 AlreadyExists through the alias for a name made canonically", async () => {
    const ns = uniq('status');
    await createNamespace(c, ns);
    for (const group of [RBAC, RBAC_K8S]) {
      const st = assertStatus(await c.request('GET', rbac(group, ns, 'roles', 'nope')), 404, 'NotFound');
      assert.equal(st.details.group, group);
      assert.equal(st.details.kind, 'roles');
      assert.equal(st.message, `roles.${group} "nope" not found`);
    }
    const name = uniq('dup');
    await create(rbac(RBAC, ns, 'roles', undefined), role(RBAC, name, []));
    const dup = assertStatus(await c.request('POST', rbac(RBAC_K8S, ns, 'roles'), { body: role(RBAC_K8S, name, []) }), 409, 'AlreadyExists');
    assert.equal(dup.details.group, RBAC_K8S);
    assert.equal(dup.message, `roles.${RBAC_K8S} "${name}" already exists`);
    // And the other way round.
    const other = uniq('dup');
    await create(rbac(RBAC_K8S, ns, 'roles'), role(RBAC_K8S, other, []));
    const dup2 = assertStatus(await c.request('POST', rbac(RBAC, ns, 'roles'), { body: role(RBAC, other, []) }), 409, 'AlreadyExists');
    assert.equal(dup2.details.group, RBAC);
  });

  it("REST - a body naming the other spelling of the URL's group is accepted (upstream: 400); a foreign group or kind is 400", async () => {
    const ns = uniq('body');
    await createNamespace(c, ns);
    const mixed = uniq('mixed');
    // Canonical apiVersion in the body, alias URL: accepted, answered in the URL's spelling.
    const res = assertOk(await c.request('POST', rbac(RBAC_K8S, ns, 'roles'), { body: role(RBAC, mixed, []) }), 201);
    assert.equal(res.apiVersion, `${RBAC_K8S}/v1`);
    assert.equal((await get(rbac(RBAC, ns, 'roles', mixed))).metadata.uid, res.metadata.uid);
    const mixed2 = uniq('mixed');
    assert.equal(assertOk(await c.request('POST', rbac(RBAC, ns, 'roles'), { body: role(RBAC_K8S, mixed2, []) }), 201).apiVersion, `${RBAC}/v1`);

    const foreign = assertStatus(await c.request('POST', rbac(RBAC_K8S, ns, 'roles'), { body: { ...role(RBAC_K8S, uniq('f'), []), apiVersion: 'apps/v1' } }), 400, 'BadRequest');
    assert.equal(foreign.message, `the API version in the data (apps/v1) does not match the expected API version (${RBAC_K8S}/v1)`);
    const version = assertStatus(await c.request('POST', rbac(RBAC_K8S, ns, 'roles'), { body: { ...role(RBAC_K8S, uniq('f'), []), apiVersion: `${RBAC}/v2` } }), 400, 'BadRequest');
    assert.match(version.message, /does not match the expected API version/);
    const kind = assertStatus(await c.request('POST', rbac(RBAC_K8S, ns, 'roles'), { body: { ...role(RBAC_K8S, uniq('f'), []), kind: 'RoleBinding' } }), 400, 'BadRequest');
    assert.equal(kind.message, 'the kind in the data (RoleBinding) does not match the expected kind (Role)');
    assert.deepEqual((await get(rbac(RBAC, ns, 'roles'))).items.map((i: any) => i.metadata.name).sort(), [mixed, mixed2].sort());
  });

  it('REST - a watch through the alias delivers ADDED/MODIFIED/DELETED spelled as the alias for changes made canonically, with the same resourceVersions', async () => {
    const ns = uniq('watch');
    await createNamespace(c, ns);
    const aliasWatch = await openWatch(c, `${rbac(RBAC_K8S, ns, 'roles')}?watch=true`);
    const canonicalWatch = await openWatch(c, `${rbac(RBAC, ns, 'roles')}?watch=true`);
    try {
      assert.equal(aliasWatch.status, 200);
      assert.equal(canonicalWatch.status, 200);
      const name = uniq('w');
      const made = await create(rbac(RBAC, ns, 'roles'), role(RBAC, name, []));
      const isEvent = (type: string) => (e: any) => e.type === type && e.object?.metadata?.name === name;
      const added = await aliasWatch.waitFor(isEvent('ADDED'), 5_000, 'ADDED through the alias');
      assert.equal(added.object.apiVersion, `${RBAC_K8S}/v1`);
      assert.equal(added.object.kind, 'Role');
      assert.equal(added.object.metadata.uid, made.metadata.uid);
      assert.equal(added.object.metadata.resourceVersion, made.metadata.resourceVersion);
      assert.equal((await canonicalWatch.waitFor(isEvent('ADDED'))).object.apiVersion, `${RBAC}/v1`);

      const patched = assertOk(await c.request('PATCH', rbac(RBAC_K8S, ns, 'roles', name), { body: { metadata: { labels: { x: 'y' } } }, headers: MERGE_PATCH }));
      const [aMod, cMod] = await Promise.all([aliasWatch.waitFor(isEvent('MODIFIED')), canonicalWatch.waitFor(isEvent('MODIFIED'))]);
      assert.equal(aMod.object.apiVersion, `${RBAC_K8S}/v1`);
      assert.equal(cMod.object.apiVersion, `${RBAC}/v1`);
      assert.equal(aMod.object.metadata.resourceVersion, patched.metadata.resourceVersion);
      assert.equal(cMod.object.metadata.resourceVersion, patched.metadata.resourceVersion);
      assert.deepEqual(
        aMod.object.metadata.managedFields.map((e: any) => e.apiVersion),
        aMod.object.metadata.managedFields.map(() => `${RBAC_K8S}/v1`),
      );

      assertOk(await c.request('DELETE', rbac(RBAC, ns, 'roles', name)));
      const deleted = await aliasWatch.waitFor(isEvent('DELETED'));
      assert.equal(deleted.object.apiVersion, `${RBAC_K8S}/v1`);
      assert.ok(!aliasWatch.events.some((e) => e.type === 'ERROR'), JSON.stringify(aliasWatch.events).slice(0, 500));
    } finally {
      aliasWatch.close();
      canonicalWatch.close();
    }
  });

  // ---- discovery and OpenAPI -----------------------------------------------------------------

  it("discovery - /apis lists each branded group's upstream spelling in its place, then exactly the canonical spellings; the alias group and its resource list", async () => {
    const apis = await get('/apis');
    const names: string[] = apis.groups.map((g: any) => g.name);
    const firstCanonical = names.findIndex((n) => n.endsWith(BRAND));
    assert.ok(firstCanonical > 0, `no canonical spelling in ${names}`);
    assert.ok(
      names.slice(firstCanonical).every((n) => n.endsWith(BRAND)),
      `an upstream spelling after the first canonical one: ${names}`,
    );
    assert.deepEqual(
      names
        .slice(0, firstCanonical)
        .filter((n) => n.endsWith(UPSTREAM) && names.includes(n.slice(0, -UPSTREAM.length) + BRAND))
        .map((n) => n.slice(0, -UPSTREAM.length) + BRAND),
      names.slice(firstCanonical),
    );
    for (const g of ['rbac.authorization', 'scheduling', 'networking', 'storage', 'certificates', 'coordination', 'events', 'node', 'admissionregistration', 'authentication', 'authorization']) {
      assert.ok(names.includes(`${g}${BRAND}`), `${g}${BRAND} served`);
      assert.ok(names.includes(`${g}${UPSTREAM}`), `${g}${UPSTREAM} served`);
    }
    const rbacAlias = apis.groups.find((g: any) => g.name === RBAC_K8S);
    assert.deepEqual(rbacAlias.preferredVersion, { groupVersion: `${RBAC_K8S}/v1`, version: 'v1' });
    assert.ok(
      rbacAlias.versions.every((v: any) => v.groupVersion.startsWith(`${RBAC_K8S}/`)),
      JSON.stringify(rbacAlias),
    );

    const group = await get(`/apis/${RBAC_K8S}`);
    assert.equal(group.kind, 'APIGroup');
    assert.equal(group.name, RBAC_K8S);
    const aliasList = await get(`/apis/${RBAC_K8S}/v1`);
    const canonicalList = await get(`/apis/${RBAC}/v1`);
    assert.equal(aliasList.kind, 'APIResourceList');
    assert.equal(aliasList.groupVersion, `${RBAC_K8S}/v1`);
    const shape = (l: any) => l.resources.map((r: any) => [r.name, r.kind, r.namespaced, [...r.verbs].sort().join(',')]).sort();
    assert.deepEqual(shape(aliasList), shape(canonicalList));
    assert.deepEqual(aliasList.resources.map((r: any) => r.name).sort(), ['clusterrolebindings', 'clusterroles', 'rolebindings', 'roles']);
    // Short names go with the preferred (upstream) spelling only, so kubectl's `csr`/`ing` stay unambiguous.
    const certs = await get(`/apis/${CERTS}/v1`);
    const certsAlias = await get(`/apis/${CERTS_K8S}/v1`);
    const aliasCsr = certsAlias.resources.find((r: any) => r.name === 'certificatesigningrequests');
    assert.ok(aliasCsr, JSON.stringify(certsAlias));
    assert.deepEqual(aliasCsr.shortNames, ['csr']);
    const canonicalCsr = certs.resources.find((r: any) => r.name === 'certificatesigningrequests');
    assert.equal(canonicalCsr.shortNames, undefined);
    assert.equal(canonicalCsr.categories, undefined);
  });

  it('discovery - aggregated discovery lists the upstream spellings in place and the canonical ones last, without shortNames or categories', async () => {
    const res = await c.request('GET', '/apis', { headers: { accept: AGGREGATED } });
    const list = assertOk(res);
    assert.equal(list.kind, 'APIGroupDiscoveryList');
    const names: string[] = list.items.map((g: any) => g.metadata.name);
    const firstCanonical = names.findIndex((n) => n.endsWith(BRAND));
    assert.ok(firstCanonical > 0, `no canonical spelling in ${names}`);
    assert.ok(
      names.slice(firstCanonical).every((n) => n.endsWith(BRAND)),
      `an upstream spelling after the first canonical one: ${names}`,
    );
    const byName = new Map(list.items.map((g: any) => [g.metadata.name, g]));
    const resources = (g: string) => (byName.get(g) as any).versions.flatMap((v: any) => v.resources);
    let aliasShortNames = 0;
    for (const canonical of names.slice(firstCanonical)) {
      const alias = upstreamOf(canonical);
      assert.ok(names.indexOf(alias) < firstCanonical, `${alias} listed before the canonical spellings`);
      const kinds = (g: string) =>
        resources(g)
          .map((r: any) => `${r.resource}:${r.responseKind?.kind}:${r.scope}`)
          .sort();
      assert.deepEqual(kinds(alias), kinds(canonical), alias);
      for (const r of resources(canonical)) {
        assert.equal(r.shortNames, undefined, `${canonical} ${r.resource} shortNames`);
        assert.equal(r.categories, undefined, `${canonical} ${r.resource} categories`);
      }
      aliasShortNames += resources(alias).filter((r: any) => r.shortNames?.length).length;
    }
    assert.ok(aliasShortNames > 0, 'the upstream spellings carry the short names');
  });

  it('OpenAPI - v2 has one definition per type carrying both group/version/kinds and the alias paths; v3 lists apis/rbac.authorization.k8s.io/v1', async () => {
    const v2 = await get('/openapi/v2');
    const gvks = (kind: string, groups: string[]) =>
      Object.entries(v2.definitions as Record<string, any>).filter(([, d]) => (d['x-kubernetes-group-version-kind'] ?? []).some((x: any) => x.kind === kind && groups.includes(x.group)));
    for (const [kind, group] of [
      ['Role', RBAC],
      ['ClusterRoleBinding', RBAC],
      ['PriorityClass', 'scheduling.platform.io'],
      ['CertificateSigningRequest', CERTS],
    ]) {
      const defs = gvks(kind, [group, upstreamOf(group)]);
      assert.equal(defs.length, 1, `${kind}: ${defs.map(([k]) => k)}`);
      const listed = defs[0]![1]['x-kubernetes-group-version-kind'].map((x: any) => `${x.group}/${x.version}/${x.kind}`).sort();
      assert.deepEqual(listed, [`${group}/v1/${kind}`, `${upstreamOf(group)}/v1/${kind}`].sort());
    }
    assert.ok(v2.paths[`/apis/${RBAC_K8S}/v1/namespaces/{namespace}/roles`], 'v2 has the alias path');
    assert.ok(v2.paths[`/apis/${RBAC}/v1/namespaces/{namespace}/roles`], 'v2 has the canonical path');

    const v3 = await get('/openapi/v3');
    const entry = v3.paths[`apis/${RBAC_K8S}/v1`];
    assert.ok(entry?.serverRelativeURL, `v3 paths: ${Object.keys(v3.paths).join(' ')}`);
    assert.ok(v3.paths[`apis/${RBAC}/v1`], 'v3 lists the canonical group too');
    const doc = await get(entry.serverRelativeURL);
    const paths = Object.keys(doc.paths);
    assert.ok(paths.length > 0);
    assert.ok(
      paths.every((p) => p.startsWith(`/apis/${RBAC_K8S}/v1/`)),
      paths.join(' '),
    );
  });

  // ---- D. authorization sees one group ---------------------------------------------------------

  it('authorization - a get-roles grant in namespace A gives exactly the same rights through both spellings, whichever spelling its rule names; no grant, no rights', async () => {
    const nsA = uniq('authz-a');
    const nsB = uniq('authz-b');
    await createNamespace(c, nsA);
    await createNamespace(c, nsB);
    const target = 'target';
    await create(rbac(RBAC, nsA, 'roles'), role(RBAC, target, [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]));
    await create(rbac(RBAC, nsB, 'roles'), role(RBAC, target, [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]));
    await create(rbac(RBAC, nsA, 'rolebindings'), roleBinding(RBAC, 'unrelated', { kind: 'Role', name: target }, [user('somebody-else')]));
    await create(rbac(RBAC, undefined, 'clusterroles'), { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: uniq('cr') }, rules: [] });

    // jane: the rule names the canonical group; carol: only roles.rbac.authorization.k8s.io; bob: nothing.
    const carol: Who = { token: null, cert: await certUser('carol', ['testers']) };
    const bob: Who = { token: null, cert: await certUser('bob', ['testers']) };
    const janeWho: Who = { token: jane };
    await create(rbac(RBAC, nsA, 'roles'), role(RBAC, 'jane-get-roles', [{ verbs: ['get'], apiGroups: [RBAC], resources: ['roles'] }]));
    await create(rbac(RBAC, nsA, 'rolebindings'), roleBinding(RBAC, 'jane-get-roles', { kind: 'Role', name: 'jane-get-roles' }, [user('jane')]));
    await create(rbac(RBAC_K8S, nsA, 'roles'), role(RBAC_K8S, 'carol-get-roles', [{ verbs: ['get'], apiGroups: [RBAC_K8S], resources: ['roles'] }]));
    await create(rbac(RBAC_K8S, nsA, 'rolebindings'), roleBinding(RBAC_K8S, 'carol-get-roles', { kind: 'Role', name: 'carol-get-roles' }, [user('carol', RBAC_K8S)]));

    const body = (g: string) => role(g, target, [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]);
    const probes = (g: string): Array<[string, string, string, unknown?, Record<string, string>?]> => [
      ['get a role in A', 'GET', rbac(g, nsA, 'roles', target)],
      ['list roles in A', 'GET', rbac(g, nsA, 'roles')],
      ['watch roles in A', 'GET', `${rbac(g, nsA, 'roles')}?watch=true&timeoutSeconds=1`],
      ['watch a role in A (legacy path)', 'GET', `/apis/${g}/v1/watch/namespaces/${nsA}/roles/${target}?timeoutSeconds=1`],
      ['create a role in A', 'POST', rbac(g, nsA, 'roles'), role(g, uniq('new'), [])],
      ['update a role in A', 'PUT', rbac(g, nsA, 'roles', target), body(g)],
      ['patch a role in A', 'PATCH', rbac(g, nsA, 'roles', target), { metadata: { labels: { hacked: 'yes' } } }, MERGE_PATCH],
      ['delete a role in A', 'DELETE', rbac(g, nsA, 'roles', target)],
      ['delete the roles of A', 'DELETE', rbac(g, nsA, 'roles')],
      ['get a role in B', 'GET', rbac(g, nsB, 'roles', target)],
      ['list roles in B', 'GET', rbac(g, nsB, 'roles')],
      ['list roles everywhere', 'GET', rbac(g, undefined, 'roles')],
      ['get a rolebinding in A', 'GET', rbac(g, nsA, 'rolebindings', 'unrelated')],
      ['list rolebindings in A', 'GET', rbac(g, nsA, 'rolebindings')],
      ['list clusterroles', 'GET', rbac(g, undefined, 'clusterroles')],
      ['get clusterrole view', 'GET', rbac(g, undefined, 'clusterroles', 'view')],
    ];
    /** Every probe through both spellings: `name` -> [canonical status, alias status]; 403 messages must agree. */
    const matrix = async (who: Who, label: string) => {
      const out = new Map<string, [number, number]>();
      const canonical = probes(RBAC);
      const alias = probes(RBAC_K8S);
      for (let i = 0; i < canonical.length; i++) {
        const [what, method, p, b, h] = canonical[i]!;
        const [, aMethod, aPath, aBody, aHeaders] = alias[i]!;
        const cr = await req(method, p, who, b, h);
        const ar = await req(aMethod, aPath, who, aBody, aHeaders);
        out.set(what, [cr.status, ar.status]);
        if (cr.status === 403 || ar.status === 403) {
          const cm = forbiddenMessage(cr);
          const am = forbiddenMessage(ar);
          assert.equal(am, cm, `${label}, ${what}: the alias is refused as the canonical group`);
          assert.match(am, new RegExp(`in API group "${RBAC.replaceAll('.', '\\.')}"`), `${label}, ${what}: ${am}`);
          assert.doesNotMatch(am, /k8s\.io/, `${label}, ${what}: ${am}`);
        }
      }
      return out;
    };
    const allowedOf = (m: Map<string, [number, number]>) => [...m].filter(([, [s]]) => s !== 403).map(([w]) => w);

    await eventually(
      'jane and carol may get the role in A',
      async () => {
        assertOk(await req('GET', rbac(RBAC, nsA, 'roles', target), janeWho));
        assertOk(await req('GET', rbac(RBAC, nsA, 'roles', target), carol));
      },
      { timeoutMs: 3_000 },
    );
    const before = await get(rbac(RBAC, nsA, 'roles', target));

    for (const [who, label, allowed] of [
      [janeWho, 'jane (canonical rule)', ['get a role in A']],
      [carol, 'carol (alias rule)', ['get a role in A']],
      [bob, 'bob (no grant)', []],
    ] as const) {
      const m = await matrix(who, label);
      for (const [what, [cs, as]] of m) assert.equal(as, cs, `${label}, ${what}: canonical ${cs}, alias ${as}`);
      assert.deepEqual(allowedOf(m), allowed, `${label}: ${JSON.stringify([...m])}`);
      for (const what of allowed) assert.deepEqual(m.get(what), [200, 200], `${label}, ${what}`);
    }
    // Nothing the refused probes tried happened.
    const afterwards = await get(rbac(RBAC, nsA, 'roles', target));
    assert.equal(afterwards.metadata.resourceVersion, before.metadata.resourceVersion);
    assert.deepEqual((await get(rbac(RBAC, nsA, 'roles'))).items.map((i: any) => i.metadata.name).sort(), ['carol-get-roles', 'jane-get-roles', target]);

    // Through the alias the allowed read is the same object.
    const viaAlias = assertOk(await req('GET', rbac(RBAC_K8S, nsA, 'roles', target), carol));
    assert.equal(viaAlias.apiVersion, `${RBAC_K8S}/v1`);
    assert.equal(viaAlias.metadata.uid, before.metadata.uid);
    // The access reviews agree: jane's rule answers for the alias group, carol's for the canonical one.
    for (const [who, group] of [
      [janeWho, RBAC_K8S],
      [carol, RBAC],
    ] as const) {
      assert.equal((await selfReview(who, AUTHZ_K8S, { namespace: nsA, verb: 'get', group, resource: 'roles', name: target })).status.allowed, true);
      assert.equal((await selfReview(who, AUTHZ_K8S, { namespace: nsA, verb: 'list', group, resource: 'roles' })).status.allowed, false);
      assert.equal((await selfReview(who, AUTHZ, { namespace: nsB, verb: 'get', group, resource: 'roles', name: target })).status.allowed, false);
    }
  });

  it('authorization - a Role whose rules name rbac.authorization.k8s.io grants list through both spellings; access reviews answer for either group; revocation through the alias is prompt', async () => {
    const ns = uniq('list');
    const other = uniq('list-other');
    await createNamespace(c, ns);
    await createNamespace(c, other);
    const janeWho: Who = { token: jane };
    for (const group of [RBAC, RBAC_K8S]) assertStatus(await req('GET', rbac(group, ns, 'roles'), janeWho), 403, 'Forbidden');
    await create(rbac(RBAC_K8S, ns, 'roles'), role(RBAC_K8S, 'list-roles', [{ verbs: ['list'], apiGroups: [RBAC_K8S], resources: ['roles'] }]));
    await create(rbac(RBAC_K8S, ns, 'rolebindings'), roleBinding(RBAC_K8S, 'jane-list-roles', { kind: 'Role', name: 'list-roles' }, [user('jane', RBAC_K8S)]));
    await eventually('jane lists roles through the canonical group', async () => {
      assert.equal(assertOk(await req('GET', rbac(RBAC, ns, 'roles'), janeWho)).kind, 'RoleList');
    });
    const aliasList = assertOk(await req('GET', rbac(RBAC_K8S, ns, 'roles'), janeWho));
    assert.equal(aliasList.apiVersion, `${RBAC_K8S}/v1`);
    assert.deepEqual(
      aliasList.items.map((i: any) => i.metadata.name),
      ['list-roles'],
    );
    // list, not get, not in the other namespace, not rolebindings.
    for (const group of [RBAC, RBAC_K8S]) {
      assertStatus(await req('GET', rbac(group, ns, 'roles', 'list-roles'), janeWho), 403, 'Forbidden');
      assertStatus(await req('GET', rbac(group, other, 'roles'), janeWho), 403, 'Forbidden');
      assertStatus(await req('GET', rbac(group, ns, 'rolebindings'), janeWho), 403, 'Forbidden');
    }

    // SelfSubjectAccessReview as jane, through either review group, about either spelling.
    for (const reviewGroup of [AUTHZ_K8S, AUTHZ]) {
      for (const group of [RBAC_K8S, RBAC]) {
        const yes = await selfReview(janeWho, reviewGroup, { namespace: ns, verb: 'list', group, resource: 'roles' });
        assert.equal(yes.apiVersion, `${reviewGroup}/v1`);
        assert.equal(yes.status.allowed, true, `${reviewGroup} about ${group}: ${JSON.stringify(yes.status)}`);
        assert.equal((await selfReview(janeWho, reviewGroup, { namespace: ns, verb: 'delete', group, resource: 'roles', name: 'x' })).status.allowed, false);
        assert.equal((await selfReview(janeWho, reviewGroup, { namespace: other, verb: 'list', group, resource: 'roles' })).status.allowed, false);
        assert.equal((await selfReview(janeWho, reviewGroup, { namespace: ns, verb: 'list', group, resource: 'rolebindings' })).status.allowed, false);
      }
    }
    // SubjectAccessReview by the admin, through the alias.
    const sar = async (group: string, verb: string) =>
      assertOk(
        await c.request('POST', `/apis/${AUTHZ_K8S}/v1/subjectaccessreviews`, {
          body: {
            apiVersion: `${AUTHZ_K8S}/v1`,
            kind: 'SubjectAccessReview',
            spec: { user: 'jane', groups: ['developers', 'qa'], resourceAttributes: { namespace: ns, verb, group, resource: 'roles' } },
          },
        }),
        201,
      ).status.allowed;
    assert.equal(await sar(RBAC_K8S, 'list'), true);
    assert.equal(await sar(RBAC, 'list'), true);
    assert.equal(await sar(RBAC_K8S, 'create'), false);
    // A group that merely resembles it is another group.
    assert.equal(await sar('authorization.k8s.io', 'list'), false);
    assert.equal(await sar('rbac.authorization.k8s.io.evil', 'list'), false);

    // kubectl asks the same question through the aliases.
    if (k) {
      const yes = await k.run(['auth', 'can-i', 'list', `roles.${RBAC_K8S}`, '-n', ns, '--as', 'jane']);
      assert.equal(yes.stdout.trim(), 'yes', yes.stderr);
      const no = await k.run(['auth', 'can-i', 'list', `rolebindings.${RBAC_K8S}`, '-n', ns, '--as', 'jane']);
      assert.equal(no.stdout.trim(), 'no', no.stderr);
    }

    // Deleting the binding through the alias revokes the alias reads promptly (no stale cached allow).
    assertOk(await req('GET', rbac(RBAC_K8S, ns, 'roles'), janeWho));
    assertOk(await c.request('DELETE', rbac(RBAC_K8S, ns, 'rolebindings', 'jane-list-roles')));
    await eventually(
      'jane is refused through the alias after the binding is deleted',
      async () => {
        assertStatus(await req('GET', rbac(RBAC_K8S, ns, 'roles'), janeWho), 403, 'Forbidden');
        assertStatus(await req('GET', rbac(RBAC, ns, 'roles'), janeWho), 403, 'Forbidden');
      },
      { timeoutMs: 1_000, intervalMs: 20 },
    );
  });

  it('authorization - escalation checks through the alias: jane may not create a Role or RoleBinding granting what she lacks, and may grant what she holds in either spelling', async () => {
    const ns = uniq('esc');
    await createNamespace(c, ns);
    const janeWho: Who = { token: jane };
    await create(
      rbac(RBAC, ns, 'roles'),
      role(RBAC, 'role-writer', [
        { verbs: ['create', 'get'], apiGroups: [RBAC], resources: ['roles'] },
        { verbs: ['create'], apiGroups: [RBAC_K8S], resources: ['rolebindings'] },
      ]),
    );
    await create(rbac(RBAC, ns, 'rolebindings'), roleBinding(RBAC, 'jane-role-writer', { kind: 'Role', name: 'role-writer' }, [user('jane')]));
    await eventually('jane may create roles in the namespace', async () => {
      assert.equal((await selfReview(janeWho, AUTHZ, { namespace: ns, verb: 'create', group: RBAC, resource: 'roles' })).status.allowed, true);
    });

    // A Role granting delete pods, which she does not hold: refused through both spellings alike.
    const podDeleter = uniq('pod-deleter');
    const msgs: string[] = [];
    for (const group of [RBAC_K8S, RBAC]) {
      const res = await req('POST', rbac(group, ns, 'roles'), janeWho, role(group, podDeleter, [{ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }]));
      const msg = forbiddenMessage(res);
      assert.match(
        msg,
        new RegExp(
          `^roles\\.rbac\\.authorization\\.(platform|k8s)\\.io "${podDeleter}" is forbidden: user "jane" \\(groups=\\[.*\\]\\) is attempting to grant RBAC permissions not currently held:\\n\\{APIGroups:\\[""\\], Resources:\\["pods"\\], Verbs:\\["delete"\\]\\}$`,
        ),
      );
      msgs.push(msg.replace(/^roles\.rbac\.authorization\.(platform|k8s)\.io /, ''));
    }
    assert.equal(msgs[0], msgs[1], 'the same refusal through both spellings');
    assertStatus(await c.request('GET', rbac(RBAC, ns, 'roles', podDeleter)), 404, 'NotFound');
    // Rules naming the alias group do not smuggle anything in: get rolebindings is not held either.
    const sneaky = forbiddenMessage(await req('POST', rbac(RBAC_K8S, ns, 'roles'), janeWho, role(RBAC_K8S, uniq('sneaky'), [{ verbs: ['get'], apiGroups: [RBAC_K8S], resources: ['rolebindings'] }])));
    assert.match(sneaky, /attempting to grant RBAC permissions not currently held/);
    const star = forbiddenMessage(await req('POST', rbac(RBAC_K8S, ns, 'roles'), janeWho, role(RBAC_K8S, uniq('star'), [{ verbs: ['get'], apiGroups: ['*'], resources: ['roles'] }])));
    assert.match(star, /attempting to grant RBAC permissions not currently held/);

    // What she holds she may pass on, whichever spelling the new rule uses.
    const subset = uniq('subset');
    const made = assertOk(await req('POST', rbac(RBAC_K8S, ns, 'roles'), janeWho, role(RBAC_K8S, subset, [{ verbs: ['get'], apiGroups: [RBAC_K8S], resources: ['roles'] }])), 201);
    assert.equal(made.apiVersion, `${RBAC_K8S}/v1`);
    assertOk(await req('POST', rbac(RBAC, ns, 'roles'), janeWho, role(RBAC, uniq('subset'), [{ verbs: ['create'], apiGroups: [RBAC], resources: ['rolebindings'] }])), 201);

    // Binding: admin's ClusterRole is far beyond her rights, through either spelling.
    for (const group of [RBAC_K8S, RBAC]) {
      const msg = forbiddenMessage(await req('POST', rbac(group, ns, 'rolebindings'), janeWho, roleBinding(group, 'jane-admin', { kind: 'ClusterRole', name: 'admin' }, [user('jane', group)])));
      assert.match(msg, /^rolebindings\.rbac\.authorization\.(platform|k8s)\.io "jane-admin" is forbidden: user "jane" .*is attempting to grant RBAC permissions not currently held/s);
    }
    assertStatus(await c.request('GET', rbac(RBAC, ns, 'rolebindings', 'jane-admin')), 404, 'NotFound');
    // Binding a Role she fully holds is fine, through the alias.
    const bound = assertOk(await req('POST', rbac(RBAC_K8S, ns, 'rolebindings'), janeWho, roleBinding(RBAC_K8S, 'bob-subset', { kind: 'Role', name: subset }, [user('bob', RBAC_K8S)])), 201);
    assert.equal(bound.apiVersion, `${RBAC_K8S}/v1`);
  });

  it('403 through an alias names the canonical group whichever layer refuses (authorizer, NodeRestriction, RBAC escalation, RBAC bind)', async () => {
    const ns = uniq('msg');
    await createNamespace(c, ns);
    const janeWho: Who = { token: jane };
    await create(rbac(RBAC_K8S, ns, 'roles'), role(RBAC_K8S, 'writer', [{ verbs: ['create'], apiGroups: [RBAC_K8S], resources: ['roles', 'rolebindings'] }]));
    await create(rbac(RBAC_K8S, ns, 'rolebindings'), roleBinding(RBAC_K8S, 'jane-writer', { kind: 'Role', name: 'writer' }, [user('jane', RBAC_K8S)]));
    await eventually('jane may create roles', async () => {
      assert.equal((await selfReview(janeWho, AUTHZ_K8S, { namespace: ns, verb: 'create', group: RBAC_K8S, resource: 'roles' })).status.allowed, true);
    });
    const n1: Who = { token: null, cert: await certUser('system:node:n1', ['system:nodes']) };
    const refusals: Array<[string, Res, string, string]> = [
      ['authorizer: list roles', await req('GET', rbac(RBAC_K8S, ns, 'roles'), janeWho), RBAC, 'roles'],
      [
        'escalation: a Role granting delete pods',
        await req('POST', rbac(RBAC_K8S, ns, 'roles'), janeWho, role(RBAC_K8S, 'pod-deleter', [{ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }])),
        RBAC,
        'roles',
      ],
      [
        'bind: a RoleBinding to ClusterRole admin',
        await req('POST', rbac(RBAC_K8S, ns, 'rolebindings'), janeWho, roleBinding(RBAC_K8S, 'jane-admin', { kind: 'ClusterRole', name: 'admin' }, [user('jane', RBAC_K8S)])),
        RBAC,
        'rolebindings',
      ],
      [
        "NodeRestriction: another node's Lease",
        await req('POST', '/apis/coordination.k8s.io/v1/namespaces/platform-node-lease/leases', n1, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'n2' } }),
        'coordination.platform.io',
        'leases',
      ],
    ];
    const wrong: string[] = [];
    for (const [what, res, group, plural] of refusals) {
      const st = assertStatus(res, 403, 'Forbidden');
      if (!st.message.startsWith(`${plural}.${group}`) || st.details?.group !== group)
        wrong.push(`${what}: message ${JSON.stringify(st.message.split('\n')[0])}, details.group ${JSON.stringify(st.details?.group)}`);
    }
    assert.deepEqual(wrong, [], 'every 403 through the alias names the canonical group');
  });

  it('admission sees the canonical group: CSR approval through certificates.k8s.io needs approve on the signer (a rule may name either spelling); NodeRestriction guards leases through coordination.k8s.io', async () => {
    // Dana may update approvals of CSRs (rule spelled certificates.k8s.io) but approve no signer.
    const dana: Who = { token: null, cert: await certUser('dana') };
    const rules = uniq('csr-approver');
    await create(rbac(RBAC_K8S, undefined, 'clusterroles'), {
      apiVersion: `${RBAC_K8S}/v1`,
      kind: 'ClusterRole',
      metadata: { name: rules },
      rules: [{ verbs: ['get', 'update'], apiGroups: [CERTS_K8S], resources: ['certificatesigningrequests', 'certificatesigningrequests/approval'] }],
    });
    await create(rbac(RBAC_K8S, undefined, 'clusterrolebindings'), {
      apiVersion: `${RBAC_K8S}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name: rules },
      roleRef: { apiGroup: RBAC_K8S, kind: 'ClusterRole', name: rules },
      subjects: [user('dana', RBAC_K8S)],
    });
    const name = uniq('csr');
    const signerName = 'platform.io/kube-apiserver-client';
    await create(`/apis/${CERTS_K8S}/v1/certificatesigningrequests`, {
      apiVersion: `${CERTS_K8S}/v1`,
      kind: 'CertificateSigningRequest',
      metadata: { name },
      spec: { request: await csrRequest('CN=bob'), signerName, usages: ['client auth'] },
    });
    const approveVia = async (group: string) => {
      const csr = assertOk(await req('GET', `/apis/${group}/v1/certificatesigningrequests/${name}`, dana));
      csr.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'E2E', message: `approved through ${group}` }] };
      return req('PUT', `/apis/${group}/v1/certificatesigningrequests/${name}/approval`, dana, csr);
    };
    await eventually('dana may read CSRs', async () => assertOk(await req('GET', `/apis/${CERTS_K8S}/v1/certificatesigningrequests/${name}`, dana)));
    for (const group of [CERTS_K8S, CERTS]) {
      const msg = forbiddenMessage(await approveVia(group));
      assert.match(msg, new RegExp(`user not permitted to approve requests with signerName "${signerName}"`));
      assert.match(msg, /^certificatesigningrequests\.certificates\.platform\.io /);
    }
    assert.equal((await get(`/apis/${CERTS}/v1/certificatesigningrequests/${name}`)).status?.conditions, undefined);
    // approve on the signer, in a rule naming certificates.k8s.io: now she may, through the alias.
    const signer = uniq('signer-approver');
    await create(rbac(RBAC_K8S, undefined, 'clusterroles'), {
      apiVersion: `${RBAC_K8S}/v1`,
      kind: 'ClusterRole',
      metadata: { name: signer },
      rules: [{ verbs: ['approve'], apiGroups: [CERTS_K8S], resources: ['signers'], resourceNames: [signerName] }],
    });
    await create(rbac(RBAC, undefined, 'clusterrolebindings'), {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name: signer },
      roleRef: { apiGroup: RBAC_K8S, kind: 'ClusterRole', name: signer },
      subjects: [user('dana')],
    });
    const approved = await eventually('dana may approve through the alias', async () => assertOk(await approveVia(CERTS_K8S)));
    assert.equal(approved.apiVersion, `${CERTS_K8S}/v1`);
    assert.deepEqual(
      (await get(`/apis/${CERTS}/v1/certificatesigningrequests/${name}`)).status.conditions.map((x: any) => x.type),
      ['Approved'],
    );

    // NodeRestriction: node n1 may create its own Lease and not n2's, through either spelling.
    const n1: Who = { token: null, cert: await certUser('system:node:n1', ['system:nodes']) };
    const lease = (group: string, leaseName: string) => ({ apiVersion: `${group}/v1`, kind: 'Lease', metadata: { name: leaseName }, spec: { holderIdentity: leaseName, leaseDurationSeconds: 40 } });
    const leases = (group: string) => `/apis/${group}/v1/namespaces/platform-node-lease/leases`;
    for (const group of ['coordination.k8s.io', 'coordination.platform.io']) {
      const msg = forbiddenMessage(await req('POST', leases(group), n1, lease(group, 'n2')));
      assert.match(msg, /can only access node lease with the same name as the requesting node/);
    }
    assertStatus(await c.request('GET', `${leases('coordination.platform.io')}/n2`), 404, 'NotFound');
    const own = await eventually('n1 creates its own lease through the alias', async () => assertOk(await req('POST', leases('coordination.k8s.io'), n1, lease('coordination.k8s.io', 'n1')), 201));
    assert.equal(own.apiVersion, 'coordination.k8s.io/v1');
    assert.equal((await get(`${leases('coordination.platform.io')}/n1`)).metadata.uid, own.metadata.uid);
  });
});

// ---- aliases off -------------------------------------------------------------------------------

describe('upstream group aliases off (the default)', () => {
  let c: TestCluster;

  before(async () => {
    c = await startTestCluster();
  });

  after(async () => {
    await c?.stop();
  });

  it('the alias paths are 404 and discovery lists no .k8s.io group', async () => {
    assertOk(await c.request('GET', `/apis/${RBAC}/v1/namespaces/default/roles`));
    for (const p of [`/apis/${RBAC_K8S}/v1/namespaces/default/roles`, `/apis/${RBAC_K8S}/v1`, `/apis/${RBAC_K8S}`, '/apis/scheduling.k8s.io/v1/priorityclasses']) {
      const res = await c.request('GET', p);
      assert.equal(res.status, 404, `${p}: ${res.status} ${res.text.slice(0, 200)}`);
    }
    const post = await c.request('POST', `/apis/${RBAC_K8S}/v1/namespaces/default/roles`, { body: role(RBAC_K8S, 'nope', []) });
    assert.equal(post.status, 404, post.text.slice(0, 200));
    assertStatus(await c.request('GET', `/apis/${RBAC}/v1/namespaces/default/roles/nope`), 404, 'NotFound');

    const names: string[] = (await c.request('GET', '/apis')).json.groups.map((g: any) => g.name);
    assert.ok(names.includes(RBAC), names.join(' '));
    assert.deepEqual(
      names.filter((n) => n.endsWith(UPSTREAM)),
      [],
    );
    const aggregated = assertOk(await c.request('GET', '/apis', { headers: { accept: AGGREGATED } }));
    const aggregatedNames: string[] = aggregated.items.map((g: any) => g.metadata.name);
    assert.ok(aggregatedNames.includes(RBAC));
    assert.deepEqual(
      aggregatedNames.filter((n) => n.endsWith(UPSTREAM)),
      [],
    );
    const v3 = assertOk(await c.request('GET', '/openapi/v3'));
    assert.deepEqual(
      Object.keys(v3.paths).filter((p) => p.includes(UPSTREAM)),
      [],
    );
  });
});
