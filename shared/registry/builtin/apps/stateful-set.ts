// StatefulSets: pods with stable identities and per-pod volume claims.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asArray, asObject, at, ensureObject, setDefault } from '../common/field-errors.js';
import { conditionList, embeddedObjectMeta, typedCondition } from '../common/meta.js';
import { defaultPodTemplate, persistentVolumeClaimSpec, podTemplateSpec } from '../common/pod-spec.js';
import { atomicList, described, int32, int64, intOrString, obj, partial, str, strEnum } from '../common/schema.js';
import { labelSelector } from '../common/meta.js';
import { updateValidation } from '../common/strategy.js';
import { nonNegative, REPLICAS_SCALE, selectorImmutable, validateSelectorAndTemplate, wideTemplateColumns } from '../common/workload.js';
import { validateIntOrPercent } from './deployment.js';
import { forbidden, required } from '../../../api/field-errors.js';
import { jsonEqual } from '../../../patch/json-value.js';

const FIXED = 'Cannot be changed after creation.';

const claimTemplate = described(
  obj({ apiVersion: str, kind: str, metadata: embeddedObjectMeta, spec: persistentVolumeClaimSpec, status: partial({}) }),
  {
    apiVersion: 'API version of the claim, v1; may be omitted.',
    kind: 'PersistentVolumeClaim; may be omitted.',
    metadata: 'Name of the template (required; containers mount the claim as a volume of that name) and the labels and annotations of the claims.',
    spec: 'Spec of each claim made from the template. volumeMode defaults to Filesystem.',
    status: 'Ignored in a template.',
  },
  'A PersistentVolumeClaim made for each pod of a stateful set.',
);

const rollingUpdate = described(obj({ partition: int32, maxUnavailable: intOrString }), {
  partition: 'Only pods with an ordinal at or above this number are updated; the others keep their revision, which allows a staged rollout. Defaults to 0 (every pod).',
  maxUnavailable: 'How many pods may be unavailable at once during the update: a number or a percentage of replicas. Unset means 1.',
});

const statefulSetSpec = described(
  obj(
    {
      replicas: int32,
      selector: labelSelector,
      template: podTemplateSpec,
      volumeClaimTemplates: atomicList(claimTemplate),
      serviceName: str,
      podManagementPolicy: strEnum('OrderedReady', 'Parallel'),
      updateStrategy: described(obj({ type: strEnum('RollingUpdate', 'OnDelete'), rollingUpdate }), {
        type: 'RollingUpdate (the default) replaces pods one at a time, from the highest ordinal down; OnDelete makes a new pod only after the old one has been deleted by hand.',
        rollingUpdate: 'Limits of a rolling update; only with type RollingUpdate.',
      }),
      revisionHistoryLimit: int32,
      minReadySeconds: int32,
      persistentVolumeClaimRetentionPolicy: described(obj({ whenDeleted: strEnum('Retain', 'Delete'), whenScaled: strEnum('Retain', 'Delete') }), {
        whenDeleted: 'Retain (the default) keeps the claims when the stateful set is deleted; Delete deletes them with it.',
        whenScaled: 'Retain (the default) keeps the claims of pods removed by scaling down; Delete deletes them.',
      }),
      ordinals: described(obj({ start: int32 }), { start: 'Ordinal of the first pod; the pods are numbered from start to start + replicas - 1. Defaults to 0.' }),
    },
    ['selector', 'template'],
  ),
  {
    replicas: 'Number of pods wanted. Defaults to 1. Also set through the scale subresource.',
    selector: 'Labels of the pods the stateful set manages; must match the labels of the template. Required; cannot be changed.',
    template: 'Pod each replica is made from, named `<statefulset>-<ordinal>`. Its restartPolicy must be Always. Changing it starts an update as updateStrategy says.',
    volumeClaimTemplates: `Claims made for every pod, named \`<template>-<statefulset>-<ordinal>\`; a pod keeps its claims when it is rescheduled. ${FIXED}`,
    serviceName: `Headless service that gives the pods their stable DNS names, \`<pod>.<serviceName>.<namespace>.svc\`. ${FIXED}`,
    podManagementPolicy: `OrderedReady (the default) starts pods one at a time in ordinal order, each once the one before is ready, and removes them in reverse; Parallel starts and removes them all at once. ${FIXED}`,
    updateStrategy: 'How running pods are replaced when the template changes.',
    revisionHistoryLimit: 'How many old ControllerRevisions are kept to roll back to. Defaults to 10.',
    minReadySeconds: 'Seconds a new pod must be ready, with no container crashing, before it counts as available. Defaults to 0.',
    persistentVolumeClaimRetentionPolicy: 'What becomes of the claims of volumeClaimTemplates when the stateful set is deleted or scaled down.',
    ordinals: 'Numbering of the pods.',
  },
  'What the stateful set runs, the storage of each pod, and how it rolls out changes.',
);

const statefulSetStatus = described(
  obj(
    {
      observedGeneration: int64,
      replicas: int32,
      readyReplicas: int32,
      currentReplicas: int32,
      updatedReplicas: int32,
      currentRevision: str,
      updateRevision: str,
      collisionCount: int32,
      conditions: conditionList(typedCondition()),
      availableReplicas: int32,
    },
    ['replicas'],
  ),
  {
    observedGeneration: 'The metadata.generation the controller last acted on.',
    replicas: 'Pods the stateful set has now.',
    readyReplicas: 'Pods that are ready.',
    currentReplicas: 'Pods made from currentRevision.',
    updatedReplicas: 'Pods made from updateRevision.',
    currentRevision: 'ControllerRevision the pods not yet updated were made from; equal to updateRevision once an update is complete.',
    updateRevision: 'ControllerRevision made from the current template, which the pods are being moved to.',
    collisionCount: 'Counter the controller raises when the hash naming a new ControllerRevision collides, to get a fresh name.',
    conditions: 'Conditions of the stateful set.',
    availableReplicas: 'Pods that have been ready for at least minReadySeconds.',
  },
  'What the stateful set controller last observed.',
);

const schema = described(
  obj({ spec: statefulSetSpec, status: statefulSetStatus }),
  { spec: 'What the stateful set runs and how it rolls out changes.', status: 'What the stateful set controller last observed.' },
  'A stateful set: runs numbered pods with stable names, stable network identities and storage of their own, started, updated and removed in a set order. For databases and other members of a cluster.',
);

function validateStatefulSet(o: ApiObject): FieldError[] {
  const spec = asObject(o.spec) ?? {};
  // Containers mount their per-pod claims by the templates' names, as upstream allows.
  const claimNames = asArray(spec.volumeClaimTemplates)
    .map((t) => at(t, 'metadata.name'))
    .filter((n): n is string => typeof n === 'string');
  const errs = validateSelectorAndTemplate(spec, { kind: 'statefulset', claimNames });
  errs.push(...nonNegative(spec, ['replicas', 'minReadySeconds', 'revisionHistoryLimit', 'updateStrategy.rollingUpdate.partition', 'ordinals.start']));
  const us = asObject(spec.updateStrategy) ?? {};
  if (us.type === 'OnDelete' && us.rollingUpdate) errs.push(forbidden('spec.updateStrategy.rollingUpdate', "only allowed for updateStrategy 'RollingUpdate'"));
  errs.push(...validateIntOrPercent(at(us, 'rollingUpdate.maxUnavailable'), 'spec.updateStrategy.rollingUpdate.maxUnavailable'));
  asArray(spec.volumeClaimTemplates).forEach((t, i) => {
    const name = at(t, 'metadata.name');
    if (typeof name !== 'string' || !name) errs.push(required(`spec.volumeClaimTemplates[${i}].metadata.name`));
  });
  return errs;
}

const MUTABLE = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds', 'revisionHistoryLimit'];

function validateStatefulSetUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const strip = (spec: unknown) => {
    const s = { ...(asObject(spec) ?? {}) };
    for (const k of MUTABLE) delete s[k];
    return s;
  };
  const errs = selectorImmutable(o, old);
  if (!jsonEqual(strip(o.spec), strip(old.spec))) {
    errs.push(
      forbidden(
        'spec',
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ),
    );
  }
  return errs;
}

export const statefulsets: ResourceType = {
  group: 'apps',
  versions: [{ name: 'v1', schema }],
  kind: 'StatefulSet',
  plural: 'statefulsets',
  singular: 'statefulset',
  scope: 'Namespaced',
  shortNames: ['sts'],
  categories: ['all'],
  subresources: { status: true, scale: REPLICAS_SCALE },
  columns: [
    { name: 'Ready', type: 'string', description: 'Number of the pod with ready state', cell: (o) => `${Number(at(o, 'status.readyReplicas') ?? 0)}/${Number(at(o, 'spec.replicas') ?? 0)}` },
    ageColumn,
    ...wideTemplateColumns().slice(0, 2),
  ],
  strategy: {
    defaults(o) {
      const spec = ensureObject(o, 'spec');
      setDefault(spec, 'replicas', 1);
      setDefault(spec, 'podManagementPolicy', 'OrderedReady');
      const us = ensureObject(spec, 'updateStrategy');
      setDefault(us, 'type', 'RollingUpdate');
      if (us.type === 'RollingUpdate') setDefault(ensureObject(us, 'rollingUpdate'), 'partition', 0);
      setDefault(spec, 'revisionHistoryLimit', 10);
      const retention = ensureObject(spec, 'persistentVolumeClaimRetentionPolicy');
      setDefault(retention, 'whenDeleted', 'Retain');
      setDefault(retention, 'whenScaled', 'Retain');
      for (const t of asArray(spec.volumeClaimTemplates)) {
        const claim = asObject(t);
        if (claim) setDefault(ensureObject(claim, 'spec'), 'volumeMode', 'Filesystem');
      }
      defaultPodTemplate(spec.template);
    },
    validate: validateStatefulSet,
    validateUpdate: updateValidation(validateStatefulSet, validateStatefulSetUpdate),
  },
};
