// Service cluster IPs and node ports end to end, on a deliberately small network so exhaustion is
// reachable: 10.96.0.0/28 (14 usable addresses, .1-.14) and node ports 30000-30009. Allocation,
// requested values, conflicts (also between concurrent creates), release on delete and on a change
// of type, headless and ExternalName Services, dry runs, health check node ports, a dual-stack
// cluster, and upstream kubectl (protobuf bodies) creating a Service and listing its address.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { findKubectl, Kubectl } from '../support/kubectl.js';
import { parseServiceNetwork } from '../../shared/registry/builtin/core/service-network.js';
import { assertOk, assertStatus, createNamespace, uniq } from './helpers.js';

const RANGE = '10.96.0.0/28';
const V6_RANGE = 'fd00:10:96::/112';
const PORTS = '30000-30009';
const MERGE = { 'content-type': 'application/merge-patch+json' };

type Res = Awaited<ReturnType<TestCluster['request']>>;

function service(name: string, spec: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: { app: name }, ports: [{ port: 80, targetPort: 8080 }], ...spec } };
}

/** The offset of an address in 10.96.0.0/28, or -1 when it is not an IPv4 address of that range. */
function v4Offset(ip: unknown): number {
  const m = typeof ip === 'string' ? /^10\.96\.0\.(\d{1,3})$/.exec(ip) : null;
  const n = m ? Number(m[1]) : -1;
  return n >= 0 && n <= 15 ? n : -1;
}

function assertUsableV4(ip: unknown): void {
  const n = v4Offset(ip);
  assert.ok(n >= 1 && n <= 14, `expected a usable address of ${RANGE} (not network or broadcast), got ${String(ip)}`);
}

function assertNodePort(p: unknown): void {
  assert.ok(typeof p === 'number' && p >= 30000 && p <= 30009, `expected a node port in ${PORTS}, got ${String(p)}`);
}

/** A 422 Invalid whose causes hold one on `field` with `message` in it; the top message carries it too. */
function assertInvalid(res: Res, field: string, message: string): any {
  const s = assertStatus(res, 422, 'Invalid');
  const causes: Array<{ field?: string; message?: string }> = s.details?.causes ?? [];
  assert.ok(
    causes.some((c) => c.field === field && c.message?.includes(message)),
    `expected a cause on ${field} saying "${message}", got ${JSON.stringify(s)}`,
  );
  assert.ok(String(s.message).includes(message), `top-level message: ${String(s.message)}`);
  return s;
}

async function deleteAllServices(c: TestCluster, ns: string): Promise<void> {
  const list = assertOk(await c.request('GET', `/api/v1/namespaces/${ns}/services`));
  await Promise.all(list.items.map(async (s: any) => assertOk(await c.request('DELETE', `/api/v1/namespaces/${ns}/services/${s.metadata.name}`))));
}

describe(`service allocation - single-stack cluster (${RANGE}, node ports ${PORTS})`, () => {
  let c: TestCluster;
  let ns: string;
  const SVC = () => `/api/v1/namespaces/${ns}/services`;
  const create = (name: string, spec: Record<string, unknown> = {}, query = '') => c.request('POST', `${SVC()}${query}`, { body: service(name, spec) });

  before(async () => {
    c = await startTestCluster({ gateway: { serviceNetwork: parseServiceNetwork(RANGE, PORTS) } });
    ns = uniq('svc-alloc');
    await createNamespace(c, ns);
  });
  after(async () => c?.stop());
  // Every test starts with the whole range free.
  afterEach(async () => deleteAllServices(c, ns));

  it('a ClusterIP Service gets one address of the primary family and reads back the same', async () => {
    const created = assertOk(await create('web'), 201);
    assertUsableV4(created.spec.clusterIP);
    assert.deepEqual(created.spec.clusterIPs, [created.spec.clusterIP]);
    assert.deepEqual(created.spec.ipFamilies, ['IPv4']);
    assert.equal(created.spec.ipFamilyPolicy, 'SingleStack');
    assert.equal(created.spec.type, 'ClusterIP');
    assert.deepEqual(created.status, { loadBalancer: {} });
    const got = assertOk(await c.request('GET', `${SVC()}/web`));
    assert.deepEqual(
      [got.spec.clusterIP, got.spec.clusterIPs, got.spec.ipFamilies, got.spec.ipFamilyPolicy, got.status],
      [created.spec.clusterIP, created.spec.clusterIPs, ['IPv4'], 'SingleStack', { loadBalancer: {} }],
    );
  });

  it('an update that leaves out clusterIP and clusterIPs keeps the address, and still holds it', async () => {
    const created = assertOk(await create('web'), 201);
    const ip = created.spec.clusterIP;
    // The original manifest again (no resourceVersion, no addresses), with a label: `kubectl replace`.
    const replaced = assertOk(await c.request('PUT', `${SVC()}/web`, { body: { ...service('web'), metadata: { name: 'web', labels: { v: '2' } } } }));
    assert.deepEqual([replaced.spec.clusterIP, replaced.spec.clusterIPs, replaced.metadata.labels], [ip, [ip], { v: '2' }]);
    // The read object with the addresses removed, under its resourceVersion.
    const got = assertOk(await c.request('GET', `${SVC()}/web`));
    delete got.spec.clusterIP;
    delete got.spec.clusterIPs;
    got.metadata.labels = { v: '3' };
    const updated = assertOk(await c.request('PUT', `${SVC()}/web`, { body: got }));
    assert.deepEqual([updated.spec.clusterIP, updated.spec.clusterIPs], [ip, [ip]]);
    // The updates neither released nor duplicated the claim.
    assertInvalid(await create('other', { clusterIP: ip }), 'spec.clusterIPs', `failed to allocate IP ${ip}: provided IP is already allocated`);
  });

  it('a requested address: 422 when in use or out of range, usable again once its holder is deleted', async () => {
    const a = assertOk(await create('a', { clusterIP: '10.96.0.10' }), 201);
    assert.deepEqual([a.spec.clusterIP, a.spec.clusterIPs], ['10.96.0.10', ['10.96.0.10']]);
    assertInvalid(await create('b', { clusterIP: '10.96.0.10' }), 'spec.clusterIPs', 'failed to allocate IP 10.96.0.10: provided IP is already allocated');
    assertStatus(await c.request('GET', `${SVC()}/b`), 404, 'NotFound');
    for (const ip of ['10.97.0.1', '10.96.0.16', '10.96.0.0', '10.96.0.15']) {
      assertInvalid(await create('b', { clusterIP: ip }), 'spec.clusterIPs', `failed to allocate IP ${ip}: the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${RANGE}`);
    }
    assertOk(await c.request('DELETE', `${SVC()}/a`));
    const b = assertOk(await create('b', { clusterIP: '10.96.0.10' }), 201);
    assert.equal(b.spec.clusterIP, '10.96.0.10');
  });

  it('an IPv4-mapped IPv6 spelling of an address in use is the same address', async () => {
    assertOk(await create('a', { clusterIP: '10.96.0.9' }), 201);
    const r = await create('b', { clusterIP: '::ffff:10.96.0.9' });
    assert.equal(r.status, 422, `two Services would share 10.96.0.9: ${r.text.slice(0, 400)}`);
  });

  it('20 concurrent creates asking for the same address: exactly one 201, the rest 422, no claim leaked or lost', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `race-${i}`);
    const results = await Promise.all(names.map((n) => create(n, { clusterIP: '10.96.0.7' })));
    const won = results.filter((r) => r.status === 201);
    assert.equal(won.length, 1, `statuses: ${results.map((r) => r.status).join(',')}`);
    for (const r of results.filter((x) => x.status !== 201)) assertInvalid(r, 'spec.clusterIPs', 'failed to allocate IP 10.96.0.7: provided IP is already allocated');
    const winner = won[0]!.json.metadata.name;
    const list = assertOk(await c.request('GET', SVC()));
    assert.deepEqual(
      list.items.map((s: any) => [s.metadata.name, s.spec.clusterIP]),
      [[winner, '10.96.0.7']],
    );
    // The losers gave back nothing of the winner's.
    assertInvalid(await create('late', { clusterIP: '10.96.0.7' }), 'spec.clusterIPs', 'provided IP is already allocated');
    assertOk(await c.request('DELETE', `${SVC()}/${winner}`));
    assertOk(await create('late', { clusterIP: '10.96.0.7' }), 201);
  });

  it('concurrent creates without a request all get distinct addresses', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => create(`any-${i}`)));
    const ips = results.map((r) => assertOk(r, 201).spec.clusterIP);
    for (const ip of ips) assertUsableV4(ip);
    assert.equal(new Set(ips).size, 10, `addresses: ${ips.join(',')}`);
  });

  it('exhaustion: every usable address handed out once, the next create is 500 range is full, a delete frees one', async () => {
    const all = assertOk(await c.request('GET', '/api/v1/services'));
    const used = all.items.map((s: any) => s.spec.clusterIP).filter((ip: unknown) => v4Offset(ip) > 0);
    const ips: string[] = [...used];
    for (let i = 0; ips.length < 14; i++) ips.push(assertOk(await create(`fill-${i}`), 201).spec.clusterIP);
    assert.deepEqual(
      ips.map(v4Offset).sort((x, y) => x - y),
      Array.from({ length: 14 }, (_, i) => i + 1),
    );
    const full = assertStatus(await create('extra'), 500, 'InternalError');
    assert.match(full.message, /failed to allocate a serviceIP: range is full/);
    assertStatus(await c.request('GET', `${SVC()}/extra`), 404, 'NotFound');
    // A dry run finds nothing either.
    assertStatus(await create('extra', {}, '?dryRun=All'), 500, 'InternalError');
    // Headless and ExternalName Services take no address.
    const headless = assertOk(await create('headless', { clusterIP: 'None' }), 201);
    assert.deepEqual([headless.spec.clusterIP, headless.spec.clusterIPs], ['None', ['None']]);
    const external = assertOk(await create('external', { type: 'ExternalName', externalName: 'db.example.com' }), 201);
    assert.equal(external.spec.clusterIP, undefined);
    // Deleting one frees exactly its address.
    const victim = assertOk(await c.request('GET', `${SVC()}/fill-3`));
    assertOk(await c.request('DELETE', `${SVC()}/fill-3`));
    const again = assertOk(await create('extra'), 201);
    assert.equal(again.spec.clusterIP, victim.spec.clusterIP);
  });

  it('a dry-run create answers with an address and a node port but consumes neither', async () => {
    const dry = assertOk(await create('dry', { type: 'NodePort' }, '?dryRun=All'), 201);
    assertUsableV4(dry.spec.clusterIP);
    assertNodePort(dry.spec.ports[0].nodePort);
    assertStatus(await c.request('GET', `${SVC()}/dry`), 404, 'NotFound');
    const real = assertOk(await create('real', { type: 'NodePort', clusterIP: dry.spec.clusterIP, ports: [{ port: 80, nodePort: dry.spec.ports[0].nodePort }] }), 201);
    assert.deepEqual([real.spec.clusterIP, real.spec.ports[0].nodePort], [dry.spec.clusterIP, dry.spec.ports[0].nodePort]);
    // A dry run still refuses what is taken.
    assertInvalid(await create('dry2', { clusterIP: dry.spec.clusterIP }, '?dryRun=All'), 'spec.clusterIPs', 'provided IP is already allocated');
  });

  it('NodePort: a node port from the range; a requested port in use or out of range is 422 on spec.ports[0].nodePort', async () => {
    const np = assertOk(await create('np', { type: 'NodePort' }), 201);
    const port = np.spec.ports[0].nodePort;
    assertNodePort(port);
    assertUsableV4(np.spec.clusterIP);
    assertInvalid(await create('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: port }] }), 'spec.ports[0].nodePort', 'provided port is already allocated');
    assertInvalid(
      await create('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: 31000 }] }),
      'spec.ports[0].nodePort',
      'provided port is not in the valid range. The range of valid ports is 30000-30009',
    );
    // A failed create gave back the address it had claimed: the range is as before.
    const list = assertOk(await c.request('GET', SVC()));
    assert.equal(list.items.length, 1);
  });

  it('NodePort -> ClusterIP by a merge patch of spec.type drops the node ports and frees them', async () => {
    const np = assertOk(await create('np', { type: 'NodePort', ports: [{ port: 80, nodePort: 30005 }] }), 201);
    const patched = assertOk(await c.request('PATCH', `${SVC()}/np`, { body: { spec: { type: 'ClusterIP' } }, headers: MERGE }));
    assert.equal(patched.spec.type, 'ClusterIP');
    assert.equal(patched.spec.ports[0].nodePort, undefined);
    assert.equal(patched.spec.clusterIP, np.spec.clusterIP);
    const other = assertOk(await create('other', { type: 'NodePort', ports: [{ port: 80, nodePort: 30005 }] }), 201);
    assert.equal(other.spec.ports[0].nodePort, 30005);
  });

  it('NodePort -> ClusterIP by a PUT of the read object with only spec.type changed drops and frees the node port', async () => {
    const np = assertOk(await create('np', { type: 'NodePort' }), 201);
    const port = np.spec.ports[0].nodePort;
    const got = assertOk(await c.request('GET', `${SVC()}/np`));
    got.spec.type = 'ClusterIP';
    const put = assertOk(await c.request('PUT', `${SVC()}/np`, { body: got }));
    assert.equal(put.spec.ports[0].nodePort, undefined);
    assert.equal(put.spec.clusterIP, np.spec.clusterIP);
    assertOk(await create('other', { type: 'NodePort', ports: [{ port: 80, nodePort: port }] }), 201);
  });

  it('NodePort -> ClusterIP with TCP and UDP sharing one node port drops it and frees it', async () => {
    const ports = [
      { name: 'dns', port: 53, protocol: 'UDP', nodePort: 30003 },
      { name: 'dns-tcp', port: 53, protocol: 'TCP', nodePort: 30003 },
    ];
    assertOk(await create('dns', { type: 'NodePort', ports }), 201);
    const patched = assertOk(await c.request('PATCH', `${SVC()}/dns`, { body: { spec: { type: 'ClusterIP' } }, headers: MERGE }));
    assert.deepEqual(
      patched.spec.ports.map((p: any) => p.nodePort),
      [undefined, undefined],
    );
    assertOk(await create('other', { type: 'NodePort', ports: [{ port: 80, nodePort: 30003 }] }), 201);
  });

  it('ClusterIP -> ExternalName by a merge patch drops the addresses and frees them; back to ClusterIP gets a new one', async () => {
    assertOk(await create('ext', { clusterIP: '10.96.0.12' }), 201);
    const patched = assertOk(await c.request('PATCH', `${SVC()}/ext`, { body: { spec: { type: 'ExternalName', externalName: 'db.example.com' } }, headers: MERGE }));
    assert.equal(patched.spec.type, 'ExternalName');
    assert.deepEqual([patched.spec.clusterIP, patched.spec.clusterIPs, patched.spec.ipFamilies, patched.spec.ipFamilyPolicy], [undefined, undefined, undefined, undefined]);
    assertOk(await create('other', { clusterIP: '10.96.0.12' }), 201);
    const back = assertOk(await c.request('PATCH', `${SVC()}/ext`, { body: { spec: { type: 'ClusterIP', externalName: null } }, headers: MERGE }));
    assertUsableV4(back.spec.clusterIP);
    assert.notEqual(back.spec.clusterIP, '10.96.0.12');
    assert.deepEqual([back.spec.clusterIPs, back.spec.ipFamilies, back.spec.ipFamilyPolicy], [[back.spec.clusterIP], ['IPv4'], 'SingleStack']);
  });

  it('headless: clusterIP None reads back as clusterIPs [None]; NodePort with None is 422', async () => {
    const hl = assertOk(await create('hl', { clusterIP: 'None' }), 201);
    assert.deepEqual([hl.spec.clusterIP, hl.spec.clusterIPs, hl.spec.ipFamilies, hl.spec.ipFamilyPolicy], ['None', ['None'], ['IPv4'], 'SingleStack']);
    const got = assertOk(await c.request('GET', `${SVC()}/hl`));
    assert.deepEqual(got.spec.clusterIPs, ['None']);
    assertInvalid(await create('hlnp', { type: 'NodePort', clusterIP: 'None' }), 'spec.clusterIPs[0]', "may not be set to 'None'");
    assertInvalid(await create('hllb', { type: 'LoadBalancer', clusterIP: 'None' }), 'spec.clusterIPs[0]', "may not be set to 'None'");
  });

  it('headless without a selector is RequireDualStack with both families, even on a single-stack cluster', async () => {
    const body = service('hl');
    delete (body.spec as Record<string, unknown>).selector;
    (body.spec as Record<string, unknown>).clusterIP = 'None';
    const hl = assertOk(await c.request('POST', SVC(), { body }), 201);
    assert.deepEqual([hl.spec.clusterIPs, hl.spec.ipFamilyPolicy, hl.spec.ipFamilies], [['None'], 'RequireDualStack', ['IPv4', 'IPv6']]);
  });

  it('LoadBalancer with externalTrafficPolicy Local gets a health check node port, held like any node port', async () => {
    const lb = assertOk(await create('lb', { type: 'LoadBalancer', externalTrafficPolicy: 'Local' }), 201);
    assertNodePort(lb.spec.ports[0].nodePort);
    assertNodePort(lb.spec.healthCheckNodePort);
    assert.notEqual(lb.spec.healthCheckNodePort, lb.spec.ports[0].nodePort);
    assert.deepEqual(lb.status, { loadBalancer: {} });
    assertInvalid(await create('np', { type: 'NodePort', ports: [{ port: 80, nodePort: lb.spec.healthCheckNodePort }] }), 'spec.ports[0].nodePort', 'provided port is already allocated');
    // Cluster policy gets none.
    const lbc = assertOk(await create('lbc', { type: 'LoadBalancer' }), 201);
    assert.equal(lbc.spec.healthCheckNodePort, undefined);
  });

  it('RequireDualStack is 422 on a single-stack cluster; PreferDualStack settles for one address', async () => {
    assertInvalid(await create('dual', { ipFamilyPolicy: 'RequireDualStack' }), 'spec.ipFamilyPolicy', 'this cluster is not configured for dual-stack services');
    assertInvalid(await create('v6', { ipFamilies: ['IPv6'] }), 'spec.ipFamilies[0]', 'not configured on this cluster');
    const prefer = assertOk(await create('prefer', { ipFamilyPolicy: 'PreferDualStack' }), 201);
    assertUsableV4(prefer.spec.clusterIP);
    assert.deepEqual([prefer.spec.clusterIPs, prefer.spec.ipFamilies, prefer.spec.ipFamilyPolicy], [[prefer.spec.clusterIP], ['IPv4'], 'PreferDualStack']);
  });

  const kubectl = findKubectl();
  it('kubectl create service clusterip, then kubectl get -o wide shows the allocated Cluster-IP', { skip: kubectl ? false : 'kubectl not on PATH' }, async () => {
    const k = new Kubectl(kubectl!, c.kubeconfigPath);
    const made = await k.run(['create', 'service', 'clusterip', 'web', '--tcp=80:8080', '-n', ns]);
    assert.equal(made.code, 0, made.stderr);
    assert.equal(made.stdout.trim(), 'service/web created');
    const svc = assertOk(await c.request('GET', `${SVC()}/web`));
    assertUsableV4(svc.spec.clusterIP);
    const shown = await k.run(['get', 'svc', 'web', '-n', ns, '-o', 'wide']);
    assert.equal(shown.code, 0, shown.stderr);
    const [header, row] = shown.stdout
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s+/));
    assert.deepEqual(header, ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE', 'SELECTOR']);
    assert.deepEqual([row![0], row![1], row![2], row![3], row![4], row![6]], ['web', 'ClusterIP', svc.spec.clusterIP, '<none>', '80/TCP', 'app=web']);
  });
});

describe(`service allocation - dual-stack cluster (${RANGE},${V6_RANGE})`, () => {
  let c: TestCluster;
  let ns: string;
  const SVC = () => `/api/v1/namespaces/${ns}/services`;
  const create = (name: string, spec: Record<string, unknown> = {}) => c.request('POST', SVC(), { body: service(name, spec) });
  const v6 = (ip: unknown) => typeof ip === 'string' && /^fd00:10:96::[0-9a-f]{1,4}$/.test(ip);

  before(async () => {
    c = await startTestCluster({ gateway: { serviceNetwork: parseServiceNetwork(`${RANGE},${V6_RANGE}`, PORTS) } });
    ns = uniq('svc-dual');
    await createNamespace(c, ns);
  });
  after(async () => c?.stop());
  afterEach(async () => deleteAllServices(c, ns));

  it('PreferDualStack gets one address per family, primary first; the default stays single-stack', async () => {
    const dual = assertOk(await create('dual', { ipFamilyPolicy: 'PreferDualStack' }), 201);
    assert.equal(dual.spec.clusterIPs.length, 2, JSON.stringify(dual.spec));
    assertUsableV4(dual.spec.clusterIPs[0]);
    assert.ok(v6(dual.spec.clusterIPs[1]), `expected an address of ${V6_RANGE}, got ${dual.spec.clusterIPs[1]}`);
    assert.equal(dual.spec.clusterIP, dual.spec.clusterIPs[0]);
    assert.deepEqual([dual.spec.ipFamilies, dual.spec.ipFamilyPolicy], [['IPv4', 'IPv6'], 'PreferDualStack']);
    const single = assertOk(await create('single'), 201);
    assertUsableV4(single.spec.clusterIP);
    assert.deepEqual([single.spec.clusterIPs, single.spec.ipFamilies, single.spec.ipFamilyPolicy], [[single.spec.clusterIP], ['IPv4'], 'SingleStack']);
  });

  it('RequireDualStack with IPv6 first gets the IPv6 address first', async () => {
    const s = assertOk(await create('v6first', { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv6', 'IPv4'] }), 201);
    assert.ok(v6(s.spec.clusterIP), JSON.stringify(s.spec));
    assertUsableV4(s.spec.clusterIPs[1]);
    assert.deepEqual(s.spec.ipFamilies, ['IPv6', 'IPv4']);
  });

  it('a requested IPv6 address in use is 422, in any spelling', async () => {
    const a = assertOk(await create('a', { clusterIP: 'fd00:10:96::a' }), 201);
    assert.deepEqual([a.spec.clusterIPs, a.spec.ipFamilies], [['fd00:10:96::a'], ['IPv6']]);
    assertInvalid(await create('b', { clusterIP: 'fd00:10:96::a' }), 'spec.clusterIPs', 'failed to allocate IP fd00:10:96::a: provided IP is already allocated');
    for (const spelling of ['fd00:10:96:0:0:0:0:a', 'FD00:10:96::A']) {
      const r = await create('b', { clusterIP: spelling });
      assert.equal(r.status, 422, `${spelling} is fd00:10:96::a, already held by "a": ${r.text.slice(0, 400)}`);
    }
    assertInvalid(
      await create('b', { clusterIP: 'fd00:10:97::a' }),
      'spec.clusterIPs',
      `failed to allocate IP fd00:10:97::a: the provided IP (fd00:10:97::a) is not in the valid range. The range of valid IPs is ${V6_RANGE}`,
    );
  });
});
