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
  ['admissionregistration.platform.io/v1 MutatingWebhookConfiguration', 100],
  ['admissionregistration.platform.io/v1 ValidatingWebhookConfiguration', 100],
  ['admissionregistration.platform.io/v1beta1 MutatingWebhookConfiguration', 100],
  ['admissionregistration.platform.io/v1beta1 ValidatingWebhookConfiguration', 100],
  ['apiextensions.platform.io/v1 CustomResourceDefinition', 100],
  ['apiregistration.platform.io/v1 APIService', 100],
  ['apps/v1 ControllerRevision', 100],
  ['apps/v1 DaemonSet', 100],
  ['apps/v1 Deployment', 100],
  ['apps/v1 ReplicaSet', 100],
  ['apps/v1 StatefulSet', 100],
  ['authentication.platform.io/v1 SelfSubjectReview', 100],
  ['authentication.platform.io/v1 TokenReview', 100],
  ['authentication.platform.io/v1beta1 TokenReview', 100],
  ['authorization.platform.io/v1 LocalSubjectAccessReview', 100],
  ['authorization.platform.io/v1 SelfSubjectAccessReview', 100],
  ['authorization.platform.io/v1 SelfSubjectRulesReview', 100],
  ['authorization.platform.io/v1 SubjectAccessReview', 100],
  ['autoscaling/v1 HorizontalPodAutoscaler', 100],
  ['autoscaling/v2 HorizontalPodAutoscaler', 100],
  ['autoscaling/v2beta1 HorizontalPodAutoscaler', 100],
  ['autoscaling/v2beta2 HorizontalPodAutoscaler', 100],
  ['batch/v1 CronJob', 100],
  ['batch/v1 Job', 100],
  ['batch/v1beta1 CronJob', 100],
  ['certificates.platform.io/v1 CertificateSigningRequest', 100],
  ['coordination.platform.io/v1 Lease', 100],
  ['discovery.platform.io/v1 EndpointSlice', 100],
  ['discovery.platform.io/v1beta1 EndpointSlice', 100],
  ['events.platform.io/v1 Event', 100],
  ['events.platform.io/v1beta1 Event', 100],
  ['flowcontrol.apiserver.platform.io/v1beta1 FlowSchema', 100],
  ['flowcontrol.apiserver.platform.io/v1beta1 PriorityLevelConfiguration', 100],
  ['flowcontrol.apiserver.platform.io/v1beta2 FlowSchema', 100],
  ['flowcontrol.apiserver.platform.io/v1beta2 PriorityLevelConfiguration', 100],
  ['networking.platform.io/v1 Ingress', 100],
  ['networking.platform.io/v1 IngressClass', 100],
  ['networking.platform.io/v1 NetworkPolicy', 100],
  ['node.platform.io/v1 RuntimeClass', 100],
  ['node.platform.io/v1beta1 RuntimeClass', 100],
  ['policy/v1 PodDisruptionBudget', 100],
  ['policy/v1beta1 PodDisruptionBudget', 100],
  ['policy/v1beta1 PodSecurityPolicy', 100],
  ['rbac.authorization.platform.io/v1 ClusterRole', 100],
  ['rbac.authorization.platform.io/v1 ClusterRoleBinding', 100],
  ['rbac.authorization.platform.io/v1 Role', 100],
  ['rbac.authorization.platform.io/v1 RoleBinding', 100],
  ['scheduling.platform.io/v1 PriorityClass', 100],
  ['storage.platform.io/v1 CSIDriver', 100],
  ['storage.platform.io/v1 CSINode', 100],
  ['storage.platform.io/v1 CSIStorageCapacity', 100],
  ['storage.platform.io/v1 StorageClass', 100],
  ['storage.platform.io/v1 VolumeAttachment', 100],
  ['storage.platform.io/v1beta1 CSIStorageCapacity', 100],
  ['v1 ConfigMap', 100],
  ['v1 Endpoints', 100],
  ['v1 Event', 100],
  ['v1 LimitRange', 100],
  ['v1 Namespace', 100],
  ['v1 Node', 100],
  ['v1 PersistentVolume', 100],
  ['v1 PersistentVolumeClaim', 100],
  ['v1 Pod', 100],
  ['v1 PodTemplate', 100],
  ['v1 ReplicationController', 100],
  ['v1 ResourceQuota', 100],
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
