// Field ownership as upstream kubectl users meet it (skipped when kubectl is not on PATH): moving
// from client-side to server-side apply with a changed value, applying through `/status`, and
// clearing managedFields with a merge or JSON patch (spec: server-side apply, rule 8).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { findKubectl, kubectlOk as ok, kubectlSuite } from '../support/kubectl.js';
import { assertOk, uniq } from './helpers.js';

const bin = findKubectl();
const skip = bin ? false : 'kubectl not on PATH: skipping the kubectl managed fields suite';
if (!bin) console.log(skip);

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const managers = (o: any) => (o.metadata.managedFields ?? []).map((e: any) => `${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ''}`).sort();
const fieldsOf = (o: any, manager: string) => o.metadata.managedFields.find((e: any) => e.manager === manager)?.fieldsV1;

describe('kubectl - managed fields', { skip }, () => {
  const s = kubectlSuite(bin, 'kubectl-managed-fields-');

  it('kubectl apply, then apply --server-side of a changed value - no conflict: kubectl takes over what its client-side apply owned', async () => {
    const name = uniq('csa');
    const cm = (a: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\ndata:\n  a: "${a}"\n  b: "2"\n`;
    const path = `/api/v1/namespaces/default/configmaps/${name}`;
    ok(await s.kubectl.run(['apply', '-f', '-'], { input: cm('1') }));
    assert.deepEqual(managers(assertOk(await s.cluster.request('GET', path))), ['kubectl-client-side-apply/Update']);

    const res = await s.kubectl.run(['apply', '--server-side', '-f', '-'], { input: cm('9') });
    assert.equal(res.code, 0, res.stderr);
    const live = assertOk(await s.cluster.request('GET', path));
    assert.deepEqual(live.data, { a: '9', b: '2' });
    // The server rewrote the annotation to what kubectl applied; kubectl then kept it under its own
    // manager and moved what the client-side manager still owned to `kubectl`, as against upstream.
    assert.deepEqual(JSON.parse(live.metadata.annotations[LAST_APPLIED]).data, { a: '9', b: '2' });
    assert.deepEqual(managers(live), ['kubectl-last-applied/Apply', 'kubectl/Apply']);
    assert.deepEqual(fieldsOf(live, 'kubectl'), { 'f:data': { 'f:a': {}, 'f:b': {} } });
    assert.deepEqual(fieldsOf(live, 'kubectl-last-applied'), { 'f:metadata': { 'f:annotations': { [`f:${LAST_APPLIED}`]: {} } } });

    // Another manager is not let off: the value kubectl applied conflicts.
    const clash = await s.kubectl.run(['apply', '--server-side', '--field-manager=team-a', '-f', '-'], { input: cm('7') });
    assert.notEqual(clash.code, 0);
    assert.match(clash.stderr, /Apply failed with 1 conflict: conflict with "kubectl": \.data\.a/);
  });

  it('kubectl apply --server-side --subresource=status - the status manager is recorded with subresource status', async () => {
    const name = uniq('st');
    ok(await s.kubectl.run(['create', 'deployment', name, '--image=registry.example/web:1', '-n', 'default']));
    const status = `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\n  namespace: default\nstatus:\n  observedGeneration: 1\n  replicas: 3\n`;
    ok(await s.kubectl.run(['apply', '--server-side', '--subresource=status', '--field-manager=status-writer', '-f', '-'], { input: status }));
    const live = assertOk(await s.cluster.request('GET', `/apis/apps/v1/namespaces/default/deployments/${name}`));
    assert.equal(live.status.replicas, 3);
    const entry = live.metadata.managedFields.find((e: any) => e.manager === 'status-writer');
    assert.deepEqual([entry?.operation, entry?.subresource, entry?.fieldsV1], ['Apply', 'status', { 'f:status': { 'f:observedGeneration': {}, 'f:replicas': {} } }]);
    assert.ok(managers(live).includes('kubectl-create/Update'), 'the main resource’s manager stays');
    // Applied again with another value by someone else, it conflicts with the status manager.
    const clash = await s.kubectl.run(['apply', '--server-side', '--subresource=status', '--field-manager=other', '-f', '-'], { input: status.replace('replicas: 3', 'replicas: 4') });
    assert.match(clash.stderr, /conflict with "status-writer" with subresource "status": \.status\.replicas/);
  });

  it('kubectl patch managedFields [{}] (merge or JSON patch) - clears them all and records no manager for that request', async () => {
    for (const [type, patch] of [
      ['merge', '{"metadata":{"managedFields":[{}]}}'],
      ['json', '[{"op":"replace","path":"/metadata/managedFields","value":[{}]}]'],
    ]) {
      const name = uniq(`clear-${type}`);
      const path = `/api/v1/namespaces/default/configmaps/${name}`;
      ok(await s.kubectl.run(['create', 'configmap', name, '--from-literal=a=1', '-n', 'default']));
      ok(await s.kubectl.run(['label', 'configmap', name, 'x=y', '-n', 'default']));
      assert.deepEqual(managers(assertOk(await s.cluster.request('GET', path))), ['kubectl-create/Update', 'kubectl-label/Update']);
      ok(await s.kubectl.run(['patch', 'configmap', name, '-n', 'default', `--type=${type}`, '-p', patch]));
      const cleared = assertOk(await s.cluster.request('GET', path));
      assert.equal(cleared.metadata.managedFields, undefined, `${type}: ${JSON.stringify(cleared.metadata.managedFields)}`);
      assert.deepEqual([cleared.data, cleared.metadata.labels], [{ a: '1' }, { x: 'y' }]);
      // An empty list resets nothing; with other changes in the same request, the writer owns just those.
      ok(await s.kubectl.run(['label', 'configmap', name, 'z=w', '-n', 'default']));
      ok(await s.kubectl.run(['patch', 'configmap', name, '-n', 'default', '--type=merge', '-p', '{"metadata":{"managedFields":[]}}']));
      assert.deepEqual(managers(assertOk(await s.cluster.request('GET', path))), ['kubectl-label/Update']);
      ok(await s.kubectl.run(['patch', 'configmap', name, '-n', 'default', '--type=merge', '-p', '{"metadata":{"managedFields":[{}]},"data":{"b":"2"}}']));
      const reset = assertOk(await s.cluster.request('GET', path));
      assert.deepEqual(managers(reset), ['kubectl-patch/Update']);
      assert.deepEqual(fieldsOf(reset, 'kubectl-patch'), { 'f:data': { 'f:b': {} } });
    }
  });
});
