// Where a pod may run: node selectors and affinity, pod (anti-)affinity, tolerations of node
// taints and topology spread constraints.

import { labelSelector } from './meta.js';
import { atomicList, described, int32, int64, obj, str, strEnum } from './schema.js';
import type { JsonSchema } from '../../../api/types.js';

const nodeSelectorRequirement = described(
  obj({ key: str, operator: strEnum('In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'), values: atomicList(str) }, ['key', 'operator']),
  {
    key: 'Node label (or, under matchFields, node field) the requirement tests.',
    operator: 'In and NotIn compare the value with values; Exists and DoesNotExist test whether the key is there; Gt and Lt compare it, as an integer, with the one integer in values.',
    values: 'Values to compare with: at least one for In and NotIn, exactly one integer for Gt and Lt, none for Exists and DoesNotExist.',
  },
  'One condition on a label or field of a node.',
);

export const nodeSelectorTerm: JsonSchema = described(
  obj({ matchExpressions: atomicList(nodeSelectorRequirement), matchFields: atomicList(nodeSelectorRequirement) }, undefined, { 'x-kubernetes-map-type': 'atomic' }),
  {
    matchExpressions: 'Conditions on the labels of the node.',
    matchFields: 'Conditions on fields of the node; metadata.name is the only field supported.',
  },
  'Conditions a node must all meet. An empty term matches no node.',
);

export const nodeSelector: JsonSchema = described(
  obj({ nodeSelectorTerms: atomicList(nodeSelectorTerm) }, ['nodeSelectorTerms'], { 'x-kubernetes-map-type': 'atomic' }),
  { nodeSelectorTerms: 'Terms of which a node must meet at least one.' },
  'A choice of nodes: those that meet any one of the terms.',
);

const podAffinityTerm = described(
  obj({ labelSelector, namespaces: atomicList(str), topologyKey: str, namespaceSelector: labelSelector, matchLabelKeys: atomicList(str), mismatchLabelKeys: atomicList(str) }, ['topologyKey']),
  {
    labelSelector: 'Pods the term is about. A missing selector matches no pod.',
    namespaces: 'Namespaces to look for those pods in, together with those namespaceSelector picks. Both empty means the namespace of this pod.',
    topologyKey: 'Node label whose value says which domain (node, zone, region) a node is in. The term is about pods running in the same domain as the candidate node.',
    namespaceSelector: 'Namespaces to look for those pods in, by their labels; an empty selector means every namespace.',
    matchLabelKeys: 'Label keys whose values on this pod are added to labelSelector as `key in (value)` conditions, such as pod-template-hash to stay within one rollout.',
    mismatchLabelKeys: 'Label keys whose values on this pod are added to labelSelector as `key notin (value)` conditions.',
  },
  'Pods to run near (affinity) or away from (anti-affinity), within a topology domain.',
);

const weightedPodAffinityTerm = described(
  obj({ weight: int32, podAffinityTerm }, ['weight', 'podAffinityTerm']),
  { weight: 'Weight of the term, 1 to 100. A node scores the sum of the weights of the terms it meets.', podAffinityTerm: 'The term.' },
  'A preference: a pod affinity term with a weight.',
);

const required = 'Rules a node must meet for the pod to be scheduled there. They are not checked again once the pod runs.';
const preferred = 'Rules that make a node score higher. The scheduler favours nodes with the highest sum of weights but may pick others.';

const podAffinity = described(
  obj({ requiredDuringSchedulingIgnoredDuringExecution: atomicList(podAffinityTerm), preferredDuringSchedulingIgnoredDuringExecution: atomicList(weightedPodAffinityTerm) }),
  { requiredDuringSchedulingIgnoredDuringExecution: required, preferredDuringSchedulingIgnoredDuringExecution: preferred },
  'Rules about which other pods this pod runs near or away from.',
);

const nodeAffinity = described(
  obj({
    requiredDuringSchedulingIgnoredDuringExecution: nodeSelector,
    preferredDuringSchedulingIgnoredDuringExecution: atomicList(
      described(obj({ weight: int32, preference: nodeSelectorTerm }, ['weight', 'preference']), {
        weight: 'Weight of the preference, 1 to 100.',
        preference: 'Conditions a node must meet to earn the weight.',
      }),
    ),
  }),
  { requiredDuringSchedulingIgnoredDuringExecution: required, preferredDuringSchedulingIgnoredDuringExecution: preferred },
  'Rules about which nodes the pod may run on, by their labels and fields.',
);

export const affinity: JsonSchema = described(
  obj({ nodeAffinity, podAffinity, podAntiAffinity: podAffinity }),
  {
    nodeAffinity: 'Nodes the pod may or prefers to run on.',
    podAffinity: 'Pods this pod must or prefers to run in the same domain as.',
    podAntiAffinity: 'Pods this pod must not or prefers not to run in the same domain as.',
  },
  'Scheduling rules of a pod beyond nodeSelector.',
);

export const toleration: JsonSchema = described(
  obj({
    key: str,
    operator: strEnum('Exists', 'Equal', ''),
    value: str,
    effect: strEnum('NoSchedule', 'PreferNoSchedule', 'NoExecute', ''),
    tolerationSeconds: int64,
  }),
  {
    key: 'Taint key tolerated. Empty, with operator Exists, tolerates every taint.',
    operator: 'Equal (the default) tolerates taints whose value equals value; Exists tolerates any value.',
    value: 'Taint value tolerated with operator Equal; empty with Exists.',
    effect: 'Taint effect tolerated: NoSchedule, PreferNoSchedule or NoExecute. Empty tolerates all three.',
    tolerationSeconds: 'With effect NoExecute: how long the pod may stay on a node after the taint appears. Unset means for ever; zero or less means it is evicted at once.',
  },
  'Lets a pod be scheduled onto, or keep running on, nodes with a matching taint.',
);

export const topologySpreadConstraint: JsonSchema = described(
  obj(
    {
      maxSkew: int32,
      topologyKey: str,
      whenUnsatisfiable: strEnum('DoNotSchedule', 'ScheduleAnyway'),
      labelSelector,
      minDomains: int32,
      nodeAffinityPolicy: strEnum('Honor', 'Ignore'),
      nodeTaintsPolicy: strEnum('Honor', 'Ignore'),
      matchLabelKeys: atomicList(str),
    },
    ['maxSkew', 'topologyKey', 'whenUnsatisfiable'],
  ),
  {
    maxSkew: 'Largest difference allowed between the number of matching pods in any two domains. At least 1.',
    topologyKey: 'Node label whose value names the domain a node is in (such as a zone label); nodes without the label are left out.',
    whenUnsatisfiable: 'DoNotSchedule keeps the pod pending rather than exceed maxSkew; ScheduleAnyway only prefers nodes that keep the skew low.',
    labelSelector: 'Pods that are counted in each domain.',
    minDomains: 'Fewest domains to spread over: while fewer domains are eligible, each missing one counts as holding no pods. Only with DoNotSchedule; defaults to 1.',
    nodeAffinityPolicy: 'Honor (the default) counts only domains of nodes matching the node affinity and selector of the pod; Ignore counts all nodes.',
    nodeTaintsPolicy: 'Honor counts only nodes whose taints the pod tolerates; Ignore (the default) counts all nodes.',
    matchLabelKeys: 'Label keys whose values on this pod are added to labelSelector, to count only pods of the same revision.',
  },
  'How evenly matching pods must be spread over the domains of a topology (zones, nodes).',
);
