// StatefulSets: pods with stable identities and per-pod volume claims.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asArray, asObject, at, ensureObject, setDefault } from '../common/field-errors.js';
import { conditionList, embeddedObjectMeta, typedCondition } from '../common/meta.js';
import { defaultPodTemplate, persistentVolumeClaimSpec, podTemplateSpec } from '../common/pod-spec.js';
import { atomicList, int32, int64, intOrString, obj, partial, str, strEnum } from '../common/schema.js';
import { labelSelector } from '../common/meta.js';
import { updateValidation } from '../common/strategy.js';
import { nonNegative, REPLICAS_SCALE, selectorImmutable, validateSelectorAndTemplate, wideTemplateColumns } from '../common/workload.js';
import { validateIntOrPercent } from './deployment.js';
import { forbidden, required } from '../../../api/field-errors.js';
import { jsonEqual } from '../../../patch/json-value.js';

const claimTemplate = obj({ apiVersion: str, kind: str, metadata: embeddedObjectMeta, spec: persistentVolumeClaimSpec, status: partial({}) });

const schema = obj({
  spec: obj(
    {
      replicas: int32,
      selector: labelSelector,
      template: podTemplateSpec,
      volumeClaimTemplates: atomicList(claimTemplate),
      serviceName: str,
      podManagementPolicy: strEnum('OrderedReady', 'Parallel'),
      updateStrategy: obj({ type: strEnum('RollingUpdate', 'OnDelete'), rollingUpdate: obj({ partition: int32, maxUnavailable: intOrString }) }),
      revisionHistoryLimit: int32,
      minReadySeconds: int32,
      persistentVolumeClaimRetentionPolicy: obj({ whenDeleted: strEnum('Retain', 'Delete'), whenScaled: strEnum('Retain', 'Delete') }),
      ordinals: obj({ start: int32 }),
    },
    ['selector', 'template'],
  ),
  status: obj(
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
});

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
