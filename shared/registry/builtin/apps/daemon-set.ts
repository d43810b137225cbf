// DaemonSets: one pod per eligible node.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asObject, at, ensureObject, setDefault } from '../common/field-errors.js';
import { conditionList, labelSelector, typedCondition } from '../common/meta.js';
import { defaultPodTemplate, podTemplateSpec } from '../common/pod-spec.js';
import { described, int32, int64, intOrString, obj, strEnum } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { countColumn, nonNegative, selectorImmutable, validateSelectorAndTemplate, wideTemplateColumns } from '../common/workload.js';
import { parseIntOrPercent, validateIntOrPercent } from './deployment.js';
import { forbidden, invalidValue } from '../../../api/field-errors.js';

const rollingUpdate = described(obj({ maxUnavailable: intOrString, maxSurge: intOrString }), {
  maxUnavailable:
    'How many nodes may be without an available daemon pod during the update: a number or a percentage of the nodes that should run one (rounded up). Defaults to 1; cannot be 0 when maxSurge is 0.',
  maxSurge:
    'How many nodes may run a new pod beside the old one during the update, so the node is never without one: a number or a percentage of the nodes that should run one (rounded up). Defaults to 0.',
});

const daemonSetSpec = described(
  obj(
    {
      selector: labelSelector,
      template: podTemplateSpec,
      updateStrategy: described(obj({ type: strEnum('RollingUpdate', 'OnDelete'), rollingUpdate }), {
        type: 'RollingUpdate (the default) replaces the pods node by node within maxUnavailable and maxSurge; OnDelete makes a new pod on a node only after its old pod has been deleted by hand.',
        rollingUpdate: 'Limits of a rolling update; only with type RollingUpdate.',
      }),
      minReadySeconds: int32,
      revisionHistoryLimit: int32,
    },
    ['selector', 'template'],
  ),
  {
    selector: 'Labels of the pods the daemon set manages; must match the labels of the template. Required; cannot be changed.',
    template:
      'Pod to run on every eligible node: all nodes, or those its node selector, affinity and tolerations allow. Its restartPolicy must be Always. Changing it starts an update as updateStrategy says.',
    updateStrategy: 'How running pods are replaced when the template changes.',
    minReadySeconds: 'Seconds a new pod must be ready, with no container crashing, before it counts as available. Defaults to 0.',
    revisionHistoryLimit: 'How many old ControllerRevisions are kept to roll back to. Defaults to 10.',
  },
  'What the daemon set runs on each node and how it rolls out changes.',
);

const daemonSetStatus = described(
  obj(
    {
      currentNumberScheduled: int32,
      numberMisscheduled: int32,
      desiredNumberScheduled: int32,
      numberReady: int32,
      observedGeneration: int64,
      updatedNumberScheduled: int32,
      numberAvailable: int32,
      numberUnavailable: int32,
      collisionCount: int32,
      conditions: conditionList(typedCondition()),
    },
    ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady'],
  ),
  {
    currentNumberScheduled: 'Nodes that should run the daemon pod and run at least one.',
    numberMisscheduled: 'Nodes that run the daemon pod but should not.',
    desiredNumberScheduled: 'Nodes that should run the daemon pod, whether or not they do yet.',
    numberReady: 'Nodes that should run the daemon pod and have at least one that is ready.',
    observedGeneration: 'The metadata.generation the controller last acted on.',
    updatedNumberScheduled: 'Nodes that run a daemon pod made from the current template.',
    numberAvailable: 'Nodes that should run the daemon pod and have at least one that has been ready for minReadySeconds.',
    numberUnavailable: 'Nodes that should run the daemon pod but have none available.',
    collisionCount: 'Counter the controller raises when the hash naming a new ControllerRevision collides, to get a fresh name.',
    conditions: 'Conditions of the daemon set.',
  },
  'What the daemon set controller last observed, counted in nodes.',
);

const schema = described(
  obj({ spec: daemonSetSpec, status: daemonSetStatus }),
  { spec: 'What the daemon set runs on each node and how it rolls out changes.', status: 'What the daemon set controller last observed.' },
  'A daemon set: runs one copy of a pod on every eligible node, adding pods as nodes join and removing them as nodes go. Used for node agents such as log collectors and network plugins.',
);

function validateDaemonSet(o: ApiObject): FieldError[] {
  const spec = asObject(o.spec) ?? {};
  const errs = validateSelectorAndTemplate(spec, { kind: 'daemonset' });
  errs.push(...nonNegative(spec, ['minReadySeconds', 'revisionHistoryLimit']));
  const us = asObject(spec.updateStrategy) ?? {};
  if (us.type === 'OnDelete' && us.rollingUpdate) errs.push(forbidden('spec.updateStrategy.rollingUpdate', "may not be specified when strategy `type` is 'OnDelete'"));
  const ru = asObject(us.rollingUpdate);
  if (ru) {
    errs.push(...validateIntOrPercent(ru.maxUnavailable, 'spec.updateStrategy.rollingUpdate.maxUnavailable'));
    errs.push(...validateIntOrPercent(ru.maxSurge, 'spec.updateStrategy.rollingUpdate.maxSurge'));
    const mu = parseIntOrPercent(ru.maxUnavailable ?? 0);
    const ms = parseIntOrPercent(ru.maxSurge ?? 0);
    if (typeof mu !== 'string' && typeof ms !== 'string' && mu.value === 0 && ms.value === 0) {
      errs.push(invalidValue('spec.updateStrategy.rollingUpdate.maxUnavailable', ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
    }
  }
  return errs;
}

function nodeSelectorCell(o: ApiObject): string {
  const sel = asObject(at(o, 'spec.template.spec.nodeSelector')) ?? {};
  const parts = Object.entries(sel).map(([k, v]) => `${k}=${String(v)}`);
  return parts.length ? parts.join(',') : '<none>';
}

export const daemonsets: ResourceType = {
  group: 'apps',
  versions: [{ name: 'v1', schema }],
  kind: 'DaemonSet',
  plural: 'daemonsets',
  singular: 'daemonset',
  scope: 'Namespaced',
  shortNames: ['ds'],
  categories: ['all'],
  subresources: { status: true },
  columns: [
    countColumn('Desired', 'status.desiredNumberScheduled', 'The total number of nodes that should be running the daemon pod.'),
    countColumn('Current', 'status.currentNumberScheduled', 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.'),
    countColumn('Ready', 'status.numberReady', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.'),
    countColumn('Up-to-date', 'status.updatedNumberScheduled', 'The total number of nodes that are running updated daemon pod'),
    countColumn('Available', 'status.numberAvailable', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.'),
    { name: 'Node Selector', type: 'string', description: 'Node selector of the daemon pods', cell: nodeSelectorCell },
    ageColumn,
    ...wideTemplateColumns(),
  ],
  strategy: {
    defaults(o) {
      const spec = ensureObject(o, 'spec');
      const us = ensureObject(spec, 'updateStrategy');
      setDefault(us, 'type', 'RollingUpdate');
      if (us.type === 'RollingUpdate') {
        const ru = ensureObject(us, 'rollingUpdate');
        setDefault(ru, 'maxUnavailable', 1);
        setDefault(ru, 'maxSurge', 0);
      }
      setDefault(spec, 'revisionHistoryLimit', 10);
      defaultPodTemplate(spec.template);
    },
    validate: validateDaemonSet,
    validateUpdate: updateValidation(validateDaemonSet, selectorImmutable),
  },
};
