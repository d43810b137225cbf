// End to end: the PodSecurity admission plugin (on by default). Namespace labels choose what is
// enforced, warned about and audited; workloads are warned about but never refused; labelling a
// namespace warns about the pods already there; the plugin's configuration, given through
// --admission-control-config-file, exempts a user. The audit log shows the plugin's annotations.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { parseOptions } from '../../shared/config/options.js';
import { silentLogger } from '../../shared/log.js';
import { gatewayOptionSpecs } from '../../services/gateway/options.js';
import { auditOptionsFrom, loadAudit } from '../../services/gateway/audit.js';
import { assertOk, assertStatus, deployment, eventually, uniq } from './helpers.js';

const P = 'pod-security.platform.io/';

const ADMISSION_CONFIG = `
apiVersion: apiserver.config.platform.io/v1
kind: AdmissionConfiguration
plugins:
  - name: PodSecurity
    configuration:
      apiVersion: pod-security.admission.config.platform.io/v1beta1
      kind: PodSecurityConfiguration
      defaults:
        enforce: privileged
      exemptions:
        usernames: [jane]
`;

const AUDIT_POLICY = `
apiVersion: audit.platform.io/v1
kind: Policy
rules:
  - level: Metadata
    resources: [{group: "", resources: [pods]}]
  - level: None
`;

const privilegedPod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'registry.example/app:1', securityContext: { privileged: true } }] },
});

const compliantPod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [{ name: 'c', image: 'registry.example/app:1', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
  },
});

const PRIVILEGED_RESTRICTED =
  'privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

/** The Warning headers' texts (`299 - "<text>"`). */
function warnings(res: { headers: Headers }): string[] {
  const raw = res.headers.get('warning');
  if (!raw) return [];
  return [...raw.matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));
}

describe('PodSecurity admission', () => {
  let c: TestCluster;
  let dir: string;
  let auditLog: string;

  const createNs = async (name: string, labels: Record<string, string> = {}) =>
    assertOk(await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } } }), 201);
  const podsOf = (ns: string) => `/api/v1/namespaces/${ns}/pods`;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'platform-pod-security-'));
    const configFile = path.join(dir, 'admission.yaml');
    await writeFile(configFile, ADMISSION_CONFIG);
    const policyFile = path.join(dir, 'audit-policy.yaml');
    await writeFile(policyFile, AUDIT_POLICY);
    auditLog = path.join(dir, 'audit.log');
    const audit = await loadAudit(auditOptionsFrom(parseOptions(gatewayOptionSpecs, ['--audit-policy-file', policyFile, '--audit-log-path', auditLog])), silentLogger());
    c = await startTestCluster({ admission: { configFile }, gateway: { audit } });
  });
  after(async () => {
    await c?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('enforce restricted - a privileged pod is refused with upstream message, a compliant one admitted', async () => {
    const ns = uniq('psa-restricted');
    await createNs(ns, { [`${P}enforce`]: 'restricted' });
    const refused = assertStatus(await c.request('POST', podsOf(ns), { body: privilegedPod('priv') }), 403, 'Forbidden');
    assert.equal(refused.message, `pods "priv" is forbidden: violates PodSecurity "restricted:latest": ${PRIVILEGED_RESTRICTED}`);
    assertStatus(await c.request('GET', `${podsOf(ns)}/priv`), 404);

    const admitted = await c.request('POST', podsOf(ns), { body: compliantPod('ok') });
    assertOk(admitted, 201);
    assert.deepEqual(warnings(admitted), []);
    // A dry run is refused the same way.
    assertStatus(await c.request('POST', `${podsOf(ns)}?dryRun=All`, { body: privilegedPod('priv') }), 403);
  });

  it('warn - a kubectl-like request gets a Warning header and the pod is created; audit records the violation', async () => {
    const ns = uniq('psa-warn');
    await createNs(ns, { [`${P}warn`]: 'baseline', [`${P}audit`]: 'restricted', [`${P}audit-version`]: 'v1.23' });
    const res = await c.request('POST', podsOf(ns), { body: privilegedPod('loud'), headers: { 'user-agent': 'kubectl/v1.24.0 (linux/amd64)', accept: 'application/json' } });
    assertOk(res, 201);
    assert.deepEqual(warnings(res), ['would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)']);
    assert.match(res.headers.get('warning')!, /^299 - "would violate PodSecurity \\"baseline:latest\\": privileged/);

    const auditID = res.headers.get('audit-id');
    const event = await eventually('the pod create in the audit log', async () => {
      const events = (await readFile(auditLog, 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      const done = events.find((e) => e.auditID === auditID && e.stage === 'ResponseComplete');
      assert.ok(done, 'no ResponseComplete event yet');
      return done;
    });
    assert.equal(event.annotations[`${P}enforce-policy`], 'privileged:latest');
    assert.equal(event.annotations[`${P}audit-violations`], `would violate PodSecurity "restricted:v1.23": ${PRIVILEGED_RESTRICTED}`);
  });

  it('workloads - a Deployment in an enforcing namespace is created, with a warning when warn is set', async () => {
    const ns = uniq('psa-deploy');
    await createNs(ns, { [`${P}enforce`]: 'restricted', [`${P}warn`]: 'restricted' });
    const d = deployment('web');
    d.spec.template.spec.containers[0] = { ...d.spec.template.spec.containers[0]!, securityContext: { privileged: true } } as never;
    const res = await c.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: d });
    assertOk(res, 201);
    assert.deepEqual(warnings(res), [
      'would violate PodSecurity "restricted:latest": privileged (container "main" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "main" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "main" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "main" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "main" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    ]);
    assertOk(await c.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/web`));

    // As upstream, enforce alone is not evaluated for workloads: their pods are refused instead.
    const quiet = uniq('psa-enforce-only');
    await createNs(quiet, { [`${P}enforce`]: 'restricted' });
    const created = await c.request('POST', `/apis/apps/v1/namespaces/${quiet}/deployments`, { body: d });
    assertOk(created, 201);
    assert.deepEqual(warnings(created), []);
  });

  it('labelling a namespace - existing violating pods are reported, in a dry run too, and the label is set', async () => {
    const ns = uniq('psa-existing');
    await createNs(ns);
    for (const name of ['a-priv', 'b-priv']) assertOk(await c.request('POST', podsOf(ns), { body: privilegedPod(name) }), 201);
    assertOk(await c.request('POST', podsOf(ns), { body: { ...compliantPod('c-host'), spec: { ...compliantPod('c-host').spec, hostNetwork: true } } }), 201);
    assertOk(await c.request('POST', podsOf(ns), { body: compliantPod('d-ok') }), 201);

    const patch = { metadata: { labels: { [`${P}enforce`]: 'baseline' } } };
    const headers = { 'content-type': 'application/merge-patch+json' };
    const expected = [`existing pods in namespace "${ns}" violate the new PodSecurity enforce level "baseline:latest"`, 'a-priv (and 1 other pod): privileged', 'c-host: host namespaces'];
    const dry = await c.request('PATCH', `/api/v1/namespaces/${ns}?dryRun=All`, { body: patch, headers });
    assertOk(dry);
    assert.deepEqual(warnings(dry), expected);
    assert.equal(assertOk(await c.request('GET', `/api/v1/namespaces/${ns}`)).metadata.labels[`${P}enforce`], undefined);

    const res = await c.request('PATCH', `/api/v1/namespaces/${ns}`, { body: patch, headers });
    assert.equal(assertOk(res).metadata.labels[`${P}enforce`], 'baseline');
    assert.deepEqual(warnings(res), expected);
    // The pods already running stay; new privileged ones are refused.
    assertOk(await c.request('GET', `${podsOf(ns)}/a-priv`));
    assertStatus(await c.request('POST', podsOf(ns), { body: privilegedPod('e-priv') }), 403);
    // A label that is not a level is refused.
    const bad = assertStatus(await c.request('PATCH', `/api/v1/namespaces/${ns}`, { body: { metadata: { labels: { [`${P}warn`]: 'strict' } } }, headers }), 422, 'Invalid');
    assert.equal(bad.message, `Namespace "${ns}" is invalid: metadata.labels[pod-security.platform.io/warn]: Invalid value: "strict": must be one of privileged, baseline, restricted`);
  });

  it('exemptions - a user named in the configuration file may create what others may not', async () => {
    const ns = uniq('psa-exempt');
    await createNs(ns, { [`${P}enforce`]: 'restricted' });
    assertStatus(await c.request('POST', podsOf(ns), { body: privilegedPod('by-admin') }), 403);
    const res = await c.request('POST', podsOf(ns), { body: privilegedPod('by-jane'), token: c.userToken });
    assert.equal(assertOk(res, 201).metadata.name, 'by-jane');
    assert.deepEqual(warnings(res), []);
  });
});
