// End to end with upstream kubectl (skipped when kubectl is not on PATH): get, create, apply,
// label, patch, watch, delete, api-resources and Deployment validation against the gateway.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { findKubectl, kubectlOk as ok, kubectlSuite } from '../support/kubectl.js';
import { assertOk, assertStatus, configMap, createNamespace, uniq } from './helpers.js';

const bin = findKubectl();
const skip = bin ? false : 'kubectl not on PATH: skipping the kubectl suite';
if (!bin) console.log(skip);

describe('kubectl', { skip }, () => {
  const s = kubectlSuite(bin, 'kubectl-manifests-');

  it('kubectl get ns - lists the system namespaces', async () => {
    const out = ok(await s.kubectl.run(['get', 'ns']));
    assert.match(out, /^NAME\b/);
    for (const ns of ['default', 'platform-system', 'platform-public']) assert.match(out, new RegExp(`^${ns}\\s`, 'm'));
    const json = JSON.parse(ok(await s.kubectl.run(['get', 'ns', 'default', '-o', 'json'])));
    assert.equal(json.status.phase, 'Active');
  });

  // kubectl's typed generators send protobuf bodies (application/vnd.kubernetes.protobuf) and ask
  // for protobuf answers; `describe` reads objects and lists in protobuf.
  it('kubectl create <typed generator> - protobuf bodies are decoded, answers are protobuf', async () => {
    const ns = uniq('gen');
    assert.equal(ok(await s.kubectl.run(['create', 'namespace', ns])).trim(), `namespace/${ns} created`);
    const created: Array<[string[], string]> = [
      [['configmap', 'cm1', '--from-literal=a=b', '--from-literal=c=d'], 'configmap/cm1 created'],
      [['secret', 'generic', 's1', '--from-literal=p=q'], 'secret/s1 created'],
      [['serviceaccount', 'sa1'], 'serviceaccount/sa1 created'],
      [['deployment', 'd1', '--image=registry.example/web:1', '--replicas=2', '--port=8080'], 'deployment.apps/d1 created'],
      [['job', 'j1', '--image=registry.example/batch:1'], 'job.batch/j1 created'],
      [['cronjob', 'cj1', '--image=registry.example/batch:1', '--schedule=*/5 * * * *'], 'cronjob.batch/cj1 created'],
      [['service', 'clusterip', 'svc1', '--tcp=80:8080'], 'service/svc1 created'],
      [['quota', 'q1', '--hard=pods=3,requests.cpu=2'], 'resourcequota/q1 created'],
      [['poddisruptionbudget', 'pdb1', '--selector=app=d1', '--min-available=50%'], 'poddisruptionbudget.policy/pdb1 created'],
    ];
    for (const [args, want] of created) assert.equal(ok(await s.kubectl.run(['create', ...args, '-n', ns])).trim(), want);

    const get = async (path: string) => assertOk(await s.cluster.request('GET', `/api/v1/namespaces/${ns}/${path}`));
    assert.deepEqual((await get('configmaps/cm1')).data, { a: 'b', c: 'd' });
    assert.equal((await get('secrets/s1')).data.p, Buffer.from('q').toString('base64'));
    const deployment = assertOk(await s.cluster.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/d1`));
    assert.equal(deployment.spec.replicas, 2);
    assert.deepEqual(deployment.spec.template.spec.containers[0].ports, [{ containerPort: 8080, protocol: 'TCP' }]);
    assert.equal(deployment.spec.strategy.rollingUpdate.maxSurge, '25%');
    const svc = await get('services/svc1');
    assert.deepEqual(svc.spec.ports[0], { name: '80-8080', port: 80, protocol: 'TCP', targetPort: 8080 });
    const pdb = assertOk(await s.cluster.request('GET', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/pdb1`));
    assert.equal(pdb.spec.minAvailable, '50%');
    const quota = await get('resourcequotas/q1');
    assert.deepEqual(quota.spec.hard, { pods: '3', 'requests.cpu': '2' });

    // describe reads the deployment, its replica sets and events with Accept: protobuf.
    const described = ok(await s.kubectl.run(['describe', 'deployment', 'd1', '-n', ns]));
    assert.match(described, /^Replicas:\s+2 desired/m);
    assert.match(described, /^\s+Image:\s+registry\.example\/web:1$/m);
  });

  it('kubectl get -o json, label, patch (merge, json, strategic), delete', async () => {
    const name = uniq('kc');
    assertOk(await s.cluster.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap(name, { a: 'b' }) }), 201);
    const got = JSON.parse(ok(await s.kubectl.run(['get', 'cm', name, '-n', 'default', '-o', 'json'])));
    assert.equal(got.kind, 'ConfigMap');
    assert.deepEqual(got.data, { a: 'b' });

    assert.equal(ok(await s.kubectl.run(['label', 'cm', name, 'k=v', '-n', 'default'])).trim(), `configmap/${name} labeled`);
    assert.equal(ok(await s.kubectl.run(['patch', 'cm', name, '-n', 'default', '--type=merge', '-p', '{"data":{"m":"1"}}'])).trim(), `configmap/${name} patched`);
    assert.equal(ok(await s.kubectl.run(['patch', 'cm', name, '-n', 'default', '--type=json', '-p', '[{"op":"add","path":"/data/j","value":"2"}]'])).trim(), `configmap/${name} patched`);
    const after = assertOk(await s.cluster.request('GET', `/api/v1/namespaces/default/configmaps/${name}`));
    assert.equal(after.metadata.labels.k, 'v');
    assert.deepEqual(after.data, { a: 'b', m: '1', j: '2' });

    // Strategic merge patch is kubectl's default patch type.
    assert.equal(ok(await s.kubectl.run(['patch', 'cm', name, '-n', 'default', '-p', '{"data":{"s":"3"}}'])).trim(), `configmap/${name} patched`);
    assert.equal(assertOk(await s.cluster.request('GET', `/api/v1/namespaces/default/configmaps/${name}`)).data.s, '3');

    assert.equal(ok(await s.kubectl.run(['delete', 'cm', name, '-n', 'default'])).trim(), `configmap "${name}" deleted`);
    const missing = await s.kubectl.run(['get', 'cm', name, '-n', 'default']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, new RegExp(`Error from server \\(NotFound\\): configmaps "${name}" not found`));
  });

  it('kubectl apply -f - creates, then configures on change, then is unchanged', async () => {
    const name = uniq('applied');
    const file = path.join(s.dir, `${name}.yaml`);
    const manifest = (v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\ndata:\n  key: "${v}"\n`;
    await writeFile(file, manifest('1'));
    assert.equal(ok(await s.kubectl.run(['apply', '-f', file])).trim(), `configmap/${name} created`);
    await writeFile(file, manifest('2'));
    assert.equal(ok(await s.kubectl.run(['apply', '-f', file])).trim(), `configmap/${name} configured`);
    assert.equal(ok(await s.kubectl.run(['apply', '-f', file])).trim(), `configmap/${name} unchanged`);
    const obj = assertOk(await s.cluster.request('GET', `/api/v1/namespaces/default/configmaps/${name}`));
    assert.equal(obj.data.key, '2');
    assert.ok(obj.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'], 'client-side apply records its last applied configuration');
  });

  it('kubectl get cm -w - prints a line for a change', async () => {
    const name = uniq('watched');
    assertOk(await s.cluster.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap(name, { w: '1' }) }), 201);
    const child = s.kubectl.spawn(['get', 'cm', name, '-n', 'default', '-w', '-o', 'jsonpath={.metadata.name}={.data.w}{"\\n"}']);
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const waitFor = (re: RegExp, ms: number) =>
      new Promise<void>((resolve, reject) => {
        const t0 = Date.now();
        const tick = setInterval(() => {
          if (re.test(out)) {
            clearInterval(tick);
            resolve();
          } else if (Date.now() - t0 > ms || child.exitCode !== null) {
            clearInterval(tick);
            reject(new Error(`kubectl -w did not print ${re} (exit ${child.exitCode}); stdout: ${out} stderr: ${err}`));
          }
        }, 50);
      });
    try {
      await waitFor(new RegExp(`^${name}=1$`, 'm'), 15_000);
      ok(await s.kubectl.run(['patch', 'cm', name, '-n', 'default', '--type=merge', '-p', '{"data":{"w":"2"}}']));
      await waitFor(new RegExp(`^${name}=2$`, 'm'), 10_000);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('kubectl api-resources - lists configmaps and deployments', async () => {
    const out = ok(await s.kubectl.run(['api-resources']));
    assert.match(out, /^configmaps\s+cm\s+v1\s+true\s+ConfigMap\s*$/m);
    assert.match(out, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment\s*$/m);
    assert.match(out, /^namespaces\s+ns\s+v1\s+false\s+Namespace\s*$/m);
    assert.match(out, /^clusterroles\s+rbac\.authorization\.platform\.io\/v1\s+false\s+ClusterRole\s*$/m);
  });

  it('kubectl create -f - a Deployment is validated and created', async () => {
    const name = uniq('web');
    const file = path.join(s.dir, `${name}.yaml`);
    const manifest = (extra: string) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\n  namespace: default\nspec:\n  replicas: 2\n${extra}  selector:\n    matchLabels:\n      app: ${name}\n  template:\n    metadata:\n      labels:\n        app: ${name}\n    spec:\n      containers:\n      - name: main\n        image: registry.example/web:1\n        ports:\n        - containerPort: 8080\n`;
    await writeFile(file, manifest('  bogusField: true\n'));
    const bad = await s.kubectl.run(['create', '-f', file]);
    assert.notEqual(bad.code, 0, `an unknown field is rejected: ${bad.stdout}`);
    assert.match(bad.stderr, /unknown field "?(spec\.)?bogusField/);
    assert.equal((await s.cluster.request('GET', `/apis/apps/v1/namespaces/default/deployments/${name}`)).status, 404);

    await writeFile(file, manifest(''));
    assert.equal(ok(await s.kubectl.run(['create', '-f', file])).trim(), `deployment.apps/${name} created`);
    const got = JSON.parse(ok(await s.kubectl.run(['get', 'deploy', name, '-n', 'default', '-o', 'json'])));
    assert.equal(got.spec.replicas, 2);
    assert.equal(got.metadata.generation, 1);
    const again = await s.kubectl.run(['create', '-f', file]);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /AlreadyExists/);

    assert.equal(ok(await s.kubectl.run(['scale', 'deploy', name, '-n', 'default', '--replicas=5'])).trim(), `deployment.apps/${name} scaled`);
    const scaled = JSON.parse(ok(await s.kubectl.run(['get', 'deploy', name, '-n', 'default', '-o', 'json'])));
    assert.equal(scaled.spec.replicas, 5);
    assert.equal(scaled.metadata.generation, 2);
  });

  it('kubectl get - server-side tables: per-type columns, -o wide, default columns, -w rows', async () => {
    const name = uniq('tbl');
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'default' },
      spec: { replicas: 2, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'registry.example/web:1' }] } } },
    };
    assertOk(await s.cluster.request('POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment }), 201);
    const plain = ok(await s.kubectl.run(['get', 'deploy', name, '-n', 'default'])).split('\n');
    assert.match(plain[0]!, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s*$/);
    assert.match(plain[1]!, new RegExp(`^${name}\\s+0/2\\s+0\\s+0\\s+\\d+s\\s*$`));
    const wide = ok(await s.kubectl.run(['get', 'deploy', name, '-n', 'default', '-o', 'wide'])).split('\n');
    assert.match(wide[0]!, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\s*$/);
    assert.match(wide[1]!, new RegExp(`\\smain\\s+registry\\.example/web:1\\s+app=${name}\\s*$`));
    // Roles have no columns of their own: Name and Created At, as upstream.
    const role = { apiVersion: 'rbac.authorization.platform.io/v1', kind: 'Role', metadata: { name, namespace: 'default' }, rules: [] };
    assertOk(await s.cluster.request('POST', '/apis/rbac.authorization.platform.io/v1/namespaces/default/roles', { body: role }), 201);
    assert.match(ok(await s.kubectl.run(['get', 'role', name, '-n', 'default'])), new RegExp(`^NAME\\s+CREATED AT\\s*\\n${name}\\s+\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\s*$`));

    const child = s.kubectl.spawn(['get', 'deploy', name, '-n', 'default', '-w']);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const waitFor = async (re: RegExp) => {
      const t0 = Date.now();
      while (!re.test(out)) {
        if (Date.now() - t0 > 15_000 || child.exitCode !== null) throw new Error(`kubectl get -w did not print ${re}; stdout: ${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    try {
      await waitFor(new RegExp(`^${name}\\s+0/2\\s`, 'm'));
      ok(await s.kubectl.run(['scale', 'deploy', name, '-n', 'default', '--replicas=3']));
      await waitFor(new RegExp(`^${name}\\s+0/3\\s`, 'm'));
      assert.equal(out.match(/^NAME\s/gm)?.length, 1, out);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('kubectl apply --server-side - two managers, a conflict, --force-conflicts, release by omission', async () => {
    const name = uniq('ssa');
    const manifest = (replicas: number | null, image = 'registry.example/web:1') =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\n  namespace: default\nspec:\n${replicas === null ? '' : `  replicas: ${replicas}\n`}  selector:\n    matchLabels: {app: ${name}}\n  template:\n    metadata:\n      labels: {app: ${name}}\n    spec:\n      containers:\n      - name: main\n        image: ${image}\n`;
    const applyAs = (manager: string, yaml: string, ...flags: string[]) => s.kubectl.run(['apply', '--server-side', `--field-manager=${manager}`, ...flags, '-f', '-'], { input: yaml });
    const live = async () => assertOk(await s.cluster.request('GET', `/apis/apps/v1/namespaces/default/deployments/${name}`));
    const managersOf = (o: any) => o.metadata.managedFields.map((e: any) => `${e.manager}/${e.operation}`).sort();

    assert.equal(ok(await applyAs('team-a', manifest(2))).trim(), `deployment.apps/${name} serverside-applied`);
    assert.deepEqual(managersOf(await live()), ['team-a/Apply']);
    // Same value: shared ownership, no conflict.
    ok(await applyAs('team-b', manifest(2)));
    // A different value conflicts, with upstream's message, and changes nothing.
    const clash = await applyAs('team-b', manifest(5));
    assert.notEqual(clash.code, 0);
    assert.match(clash.stderr, /Apply failed with 1 conflict: conflict with "team-a": \.spec\.replicas/);
    assert.equal((await live()).spec.replicas, 2);
    // --force-conflicts takes the field.
    ok(await applyAs('team-b', manifest(5), '--force-conflicts'));
    const forced = await live();
    assert.equal(forced.spec.replicas, 5);
    const aFields = JSON.stringify(forced.metadata.managedFields.find((e: any) => e.manager === 'team-a').fieldsV1);
    assert.ok(!aFields.includes('f:replicas'), aFields);
    // team-b drops replicas and nobody else owns it: it goes back to the default.
    ok(await applyAs('team-b', manifest(null)));
    assert.equal((await live()).spec.replicas, 1);
    // The image is co-owned (both applied the same value): a change by either conflicts (rule 2).
    const coOwned = await applyAs('team-a', manifest(null, 'registry.example/web:2'));
    assert.match(coOwned.stderr, /conflict with "team-b": \.spec\.template\.spec\.containers\[name="main"\]\.image/);
  });

  it('kubectl apply (client-side) then --server-side: ownership moves to the kubectl manager; diff and --dry-run=server', async () => {
    const name = uniq('mig');
    const cm = (data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\ndata:\n${data}`;
    ok(await s.kubectl.run(['apply', '-f', '-'], { input: cm('  a: "1"\n  b: "2"\n') }));
    const path = `/api/v1/namespaces/default/configmaps/${name}`;
    assert.deepEqual(
      assertOk(await s.cluster.request('GET', path)).metadata.managedFields.map((e: any) => e.manager),
      ['kubectl-client-side-apply'],
    );
    ok(await s.kubectl.run(['apply', '--server-side', '-f', '-'], { input: cm('  a: "1"\n  b: "2"\n') }));
    const migrated = assertOk(await s.cluster.request('GET', path));
    assert.ok(migrated.metadata.managedFields.some((e: any) => e.manager === 'kubectl' && e.operation === 'Apply'));
    assert.ok(!migrated.metadata.managedFields.some((e: any) => e.manager === 'kubectl-client-side-apply'));
    // Dropping b from the server-side configuration deletes it.
    ok(await s.kubectl.run(['apply', '--server-side', '-f', '-'], { input: cm('  a: "1"\n') }));
    assert.deepEqual(assertOk(await s.cluster.request('GET', path)).data, { a: '1' });

    // kubectl diff asks the server for the dry-run result: exit 1 with the change, 0 without.
    const diff = await s.kubectl.run(['diff', '--server-side', '-f', '-'], { input: cm('  a: "9"\n') });
    assert.equal(diff.code, 1, diff.stderr);
    assert.match(diff.stdout, /^-\s+a: "1"$/m);
    assert.match(diff.stdout, /^\+\s+a: "9"$/m);
    assert.equal((await s.kubectl.run(['diff', '--server-side', '-f', '-'], { input: cm('  a: "1"\n') })).code, 0);
    // --dry-run=server on apply, create and delete: answers as if done, stores nothing.
    assert.match(ok(await s.kubectl.run(['apply', '--server-side', '--dry-run=server', '-f', '-', '-o', 'jsonpath={.data.a}'], { input: cm('  a: "dry"\n') })), /^dry$/);
    ok(await s.kubectl.run(['create', 'configmap', `${name}-dry`, '--from-literal=x=y', '--dry-run=server', '-n', 'default']));
    assertStatus(await s.cluster.request('GET', `${path}-dry`), 404, 'NotFound');
    ok(await s.kubectl.run(['delete', 'configmap', name, '--dry-run=server', '-n', 'default']));
    assert.deepEqual(assertOk(await s.cluster.request('GET', path)).data, { a: '1' });
  });

  it('kubectl edit - the edited field is patched and owned by kubectl-edit; a diff of a Service against itself is empty', async () => {
    const name = uniq('edit');
    ok(await s.kubectl.run(['create', 'configmap', name, '--from-literal=a=1', '--from-literal=b=2', '-n', 'default']));
    const editor = path.join(s.dir, 'editor.sh');
    await writeFile(editor, `#!/bin/sh\nsed -i 's/^  a: "1"$/  a: "edited"/' "$1"\n`, { mode: 0o755 });
    ok(await s.kubectl.run(['edit', 'configmap', name, '-n', 'default'], { env: { KUBE_EDITOR: editor, EDITOR: editor } }));
    const edited = assertOk(await s.cluster.request('GET', `/api/v1/namespaces/default/configmaps/${name}`));
    assert.deepEqual(edited.data, { a: 'edited', b: '2' });
    const entry = edited.metadata.managedFields.find((e: any) => e.manager === 'kubectl-edit');
    assert.equal(entry?.operation, 'Update');
    assert.deepEqual(entry?.fieldsV1, { 'f:data': { 'f:a': {} } });

    // What kubectl prints of a live object, applied back, is no change (nothing the server adds on
    // its own, such as a Service's status or empty maps, shows up as a difference).
    const svc = uniq('esvc');
    ok(await s.kubectl.run(['create', 'service', 'clusterip', svc, '--tcp=80:8080', '-n', 'default']));
    const live = ok(await s.kubectl.run(['get', 'service', svc, '-n', 'default', '-o', 'yaml']));
    assert.match(live, /clusterIP: \d+\.\d+\.\d+\.\d+/);
    assert.match(live, /status:\n  loadBalancer: \{\}/);
    const same = await s.kubectl.run(['diff', '-f', '-'], { input: live });
    assert.equal(same.code, 0, same.stdout + same.stderr);
  });

  it('kubectl delete ns --wait=false - the namespace starts terminating', async () => {
    const ns = uniq('kns');
    await createNamespace(s.cluster, ns);
    assert.equal(ok(await s.kubectl.run(['delete', 'ns', ns, '--wait=false'])).trim(), `namespace "${ns}" deleted`);
    const r = await s.cluster.request('GET', `/api/v1/namespaces/${ns}`);
    if (r.status === 200) assert.equal(r.json.status.phase, 'Terminating');
    else assert.equal(r.status, 404);
  });
});
