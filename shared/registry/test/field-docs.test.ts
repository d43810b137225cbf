// The share of fields that carry a description, per served kind, in the OpenAPI v3 documents the
// server publishes (what `kubectl explain` prints). A kind may never fall below its floor: a field
// added without a description, or a description lost on the way to OpenAPI, fails here. Raise a
// floor when you describe more of a kind; 100 marks a kind that is complete. A kind served for the
// first time needs a row. What is still missing: `npx tsx scripts/field-docs.ts --missing`.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createBuiltinRegistry } from '../builtin-registry.js';
import { formatCoverageTable, formatMissing, kindDocCoverage } from '../field-doc-report.js';
import { coveragePercent } from '../schema-docs.js';

const FLOORS: ReadonlyArray<readonly [kind: string, percent: number]> = [
  ['admissionregistration.platform.io/v1 MutatingWebhookConfiguration', 62.3],
  ['admissionregistration.platform.io/v1 ValidatingWebhookConfiguration', 63.2],
  ['admissionregistration.platform.io/v1beta1 MutatingWebhookConfiguration', 62.3],
  ['admissionregistration.platform.io/v1beta1 ValidatingWebhookConfiguration', 63.2],
  ['apiextensions.platform.io/v1 CustomResourceDefinition', 46.2],
  ['apiregistration.platform.io/v1 APIService', 62],
  ['apps/v1 ControllerRevision', 91.1],
  ['apps/v1 DaemonSet', 97.9],
  ['apps/v1 Deployment', 100],
  ['apps/v1 ReplicaSet', 100],
  ['apps/v1 StatefulSet', 96.9],
  ['authentication.platform.io/v1 SelfSubjectReview', 81.5],
  ['authentication.platform.io/v1 TokenReview', 70.4],
  ['authentication.platform.io/v1beta1 TokenReview', 70.4],
  ['authorization.platform.io/v1 LocalSubjectAccessReview', 58.4],
  ['authorization.platform.io/v1 SelfSubjectAccessReview', 63.2],
  ['authorization.platform.io/v1 SelfSubjectRulesReview', 68.8],
  ['authorization.platform.io/v1 SubjectAccessReview', 58.4],
  ['autoscaling/v1 HorizontalPodAutoscaler', 67.3],
  ['autoscaling/v2 HorizontalPodAutoscaler', 38.7],
  ['autoscaling/v2beta1 HorizontalPodAutoscaler', 52.1],
  ['autoscaling/v2beta2 HorizontalPodAutoscaler', 38.7],
  ['batch/v1 CronJob', 97.1],
  ['batch/v1 Job', 96.9],
  ['batch/v1beta1 CronJob', 97.1],
  ['certificates.platform.io/v1 CertificateSigningRequest', 62],
  ['coordination.platform.io/v1 Lease', 77.5],
  ['discovery.platform.io/v1 EndpointSlice', 66.1],
  ['discovery.platform.io/v1beta1 EndpointSlice', 67.2],
  ['events.platform.io/v1 Event', 73.4],
  ['events.platform.io/v1beta1 Event', 73.4],
  ['flowcontrol.apiserver.platform.io/v1beta1 FlowSchema', 48.4],
  ['flowcontrol.apiserver.platform.io/v1beta1 PriorityLevelConfiguration', 63.2],
  ['flowcontrol.apiserver.platform.io/v1beta2 FlowSchema', 48.4],
  ['flowcontrol.apiserver.platform.io/v1beta2 PriorityLevelConfiguration', 63.2],
  ['networking.platform.io/v1 Ingress', 54.1],
  ['networking.platform.io/v1 IngressClass', 77.5],
  ['networking.platform.io/v1 NetworkPolicy', 74.3],
  ['node.platform.io/v1 RuntimeClass', 83.7],
  ['node.platform.io/v1beta1 RuntimeClass', 83.7],
  ['policy/v1 PodDisruptionBudget', 76.7],
  ['policy/v1beta1 PodDisruptionBudget', 76.7],
  ['policy/v1beta1 PodSecurityPolicy', 41.3],
  ['rbac.authorization.platform.io/v1 ClusterRole', 80],
  ['rbac.authorization.platform.io/v1 ClusterRoleBinding', 75.6],
  ['rbac.authorization.platform.io/v1 Role', 81.5],
  ['rbac.authorization.platform.io/v1 RoleBinding', 75.6],
  ['scheduling.platform.io/v1 PriorityClass', 86.1],
  ['storage.platform.io/v1 CSIDriver', 70.4],
  ['storage.platform.io/v1 CSINode', 79.4],
  ['storage.platform.io/v1 CSIStorageCapacity', 90.2],
  ['storage.platform.io/v1 StorageClass', 80.9],
  ['storage.platform.io/v1 VolumeAttachment', 63.2],
  ['storage.platform.io/v1beta1 CSIStorageCapacity', 90.2],
  ['v1 ConfigMap', 100],
  ['v1 Endpoints', 75.8],
  ['v1 Event', 73.4],
  ['v1 LimitRange', 77.5],
  ['v1 Namespace', 100],
  ['v1 Node', 46.2],
  ['v1 PersistentVolume', 76.5],
  ['v1 PersistentVolumeClaim', 83.5],
  ['v1 Pod', 100],
  ['v1 PodTemplate', 99.8],
  ['v1 ReplicationController', 98.7],
  ['v1 ResourceQuota', 72],
  ['v1 Secret', 100],
  ['v1 Service', 100],
  ['v1 ServiceAccount', 100],
];

const rows = kindDocCoverage(createBuiltinRegistry({ upstreamGroupAliases: true }));

test('field descriptions - the coverage table of every served kind', (t) => {
  for (const line of formatCoverageTable(rows).trimEnd().split('\n')) t.diagnostic(line);
  assert.ok(rows.length >= FLOORS.length);
});

test('field descriptions - every served kind has a floor, and every floor a served kind', () => {
  const floors = new Map(FLOORS);
  assert.equal(floors.size, FLOORS.length, 'a kind is listed twice');
  assert.deepEqual(
    rows.map((r) => r.id).filter((id) => !floors.has(id)),
    [],
    'kinds served without a floor: add a row',
  );
  assert.deepEqual(
    FLOORS.map(([id]) => id).filter((id) => !rows.some((r) => r.id === id)),
    [],
    'floors of kinds no longer served: remove the row',
  );
});

test('field descriptions - no kind falls below its floor; complete kinds describe every field', () => {
  const floors = new Map(FLOORS);
  for (const r of rows) {
    const floor = floors.get(r.id);
    if (floor === undefined) continue;
    const got = coveragePercent(r);
    if (floor === 100) assert.deepEqual(r.missing, [], `${r.id} is complete: these fields lost their description`);
    else assert.ok(got >= floor, `${r.id}: ${got}% of fields described, below its floor of ${floor}%. Missing:\n${formatMissing([r])}`);
  }
});

test('field descriptions - the kinds this table marks complete', () => {
  const complete = FLOORS.filter(([, p]) => p === 100).map(([id]) => id);
  for (const kind of ['v1 Pod', 'v1 ConfigMap', 'v1 Secret', 'v1 Service', 'v1 Namespace', 'v1 ServiceAccount', 'apps/v1 Deployment', 'apps/v1 ReplicaSet']) {
    assert.ok(complete.includes(kind), `${kind} should stay complete`);
  }
});
