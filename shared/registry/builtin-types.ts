// Every built-in resource type, one line each. Order is the discovery order within each group.
//
// Adding a built-in type, all of it (routes, discovery, OpenAPI, authorization attributes, watch
// and storage then come from the generic machinery):
// 1. builtin/<group>/<kind>.ts exporting its ResourceType (types.ts: schema, strategy, columns,
//    field selectors, subresources; `rest:` hooks only for what the generic store does not do);
// 2. its line below;
// 3. a valid object for it in test/builtin-samples.ts (builtin-types.test.ts fails without one);
// 4. its protobuf messages: rerun scripts/gen-proto.ts against upstream's API definitions, which
//    rewrites proto/k8s/wire.json (without them a protobuf request for the kind fails);
// 5. where upstream's default roles grant it, the same rules in
//    services/authz/rbac/bootstrap-policy.ts (admin, edit, view and the controllers' roles name
//    resources one by one, as upstream's do);
// 6. if it embeds a pod template, its path in the PodSecurity plugin's list
//    (services/admission/plugins/pod-security/admission.ts).

import type { ResourceType } from './types.js';
import { namespaces } from './builtin/core/namespace.js';
import { pods } from './builtin/core/pod.js';
import { services } from './builtin/core/service.js';
import { nodes } from './builtin/core/node.js';
import { configmaps } from './builtin/core/config-map.js';
import { secrets } from './builtin/core/secret.js';
import { serviceaccounts } from './builtin/core/service-account.js';
import { events } from './builtin/core/event.js';
import { endpoints } from './builtin/core/endpoints.js';
import { endpointslices } from './builtin/discovery/endpoint-slice.js';
import { limitranges } from './builtin/core/limit-range.js';
import { resourcequotas } from './builtin/core/resource-quota.js';
import { persistentvolumes } from './builtin/core/persistent-volume.js';
import { persistentvolumeclaims } from './builtin/core/persistent-volume-claim.js';
import { podtemplates } from './builtin/core/pod-template.js';
import { replicationcontrollers } from './builtin/core/replication-controller.js';
import { deployments } from './builtin/apps/deployment.js';
import { statefulsets } from './builtin/apps/stateful-set.js';
import { daemonsets } from './builtin/apps/daemon-set.js';
import { replicasets } from './builtin/apps/replica-set.js';
import { controllerrevisions } from './builtin/apps/controller-revision.js';
import { jobs } from './builtin/batch/job.js';
import { cronjobs } from './builtin/batch/cron-job.js';
import { horizontalpodautoscalers } from './builtin/autoscaling/horizontal-pod-autoscaler.js';
import { eventsV1 } from './builtin/events/event.js';
import { roles } from './builtin/rbac/role.js';
import { rolebindings } from './builtin/rbac/role-binding.js';
import { clusterroles } from './builtin/rbac/cluster-role.js';
import { clusterrolebindings } from './builtin/rbac/cluster-role-binding.js';
import { certificatesigningrequests } from './builtin/certificates/certificate-signing-request.js';
import { mutatingwebhookconfigurations } from './builtin/admissionregistration/mutating-webhook-configuration.js';
import { validatingwebhookconfigurations } from './builtin/admissionregistration/validating-webhook-configuration.js';
import { customResourceDefinitions } from './builtin/apiextensions/custom-resource-definition.js';
import { leases } from './builtin/coordination/lease.js';
import { flowschemas, prioritylevelconfigurations } from './builtin/flowcontrol/flow-control.js';
import { priorityclasses } from './builtin/scheduling/priority-class.js';
import { storageclasses } from './builtin/storage/storage-class.js';
import { csidrivers } from './builtin/storage/csi-driver.js';
import { csinodes } from './builtin/storage/csi-node.js';
import { volumeattachments } from './builtin/storage/volume-attachment.js';
import { csistoragecapacities } from './builtin/storage/csi-storage-capacity.js';
import { networkpolicies } from './builtin/networking/network-policy.js';
import { ingresses } from './builtin/networking/ingress.js';
import { ingressclasses } from './builtin/networking/ingress-class.js';
import { runtimeclasses } from './builtin/node/runtime-class.js';
import { poddisruptionbudgets } from './builtin/policy/pod-disruption-budget.js';
import { podsecuritypolicies } from './builtin/policy/pod-security-policy.js';
import { tokenreviews } from './builtin/authentication/token-review.js';
import { selfsubjectreviews } from './builtin/authentication/self-subject-review.js';
import { localsubjectaccessreviews, selfsubjectaccessreviews, selfsubjectrulesreviews, subjectaccessreviews } from './builtin/authorization/access-reviews.js';
import { apiservices } from './builtin/apiregistration/api-service.js';

export const builtinTypes: ResourceType[] = [
  namespaces,
  pods,
  services,
  nodes,
  configmaps,
  secrets,
  serviceaccounts,
  events,
  endpoints,
  limitranges,
  resourcequotas,
  persistentvolumes,
  persistentvolumeclaims,
  podtemplates,
  replicationcontrollers,
  deployments,
  statefulsets,
  daemonsets,
  replicasets,
  controllerrevisions,
  jobs,
  cronjobs,
  horizontalpodautoscalers,
  endpointslices,
  eventsV1,
  roles,
  rolebindings,
  clusterroles,
  clusterrolebindings,
  certificatesigningrequests,
  mutatingwebhookconfigurations,
  validatingwebhookconfigurations,
  customResourceDefinitions(() => builtinTypes),
  leases,
  flowschemas,
  prioritylevelconfigurations,
  priorityclasses,
  storageclasses,
  csidrivers,
  csinodes,
  volumeattachments,
  csistoragecapacities,
  networkpolicies,
  ingresses,
  ingressclasses,
  runtimeclasses,
  poddisruptionbudgets,
  podsecuritypolicies,
  tokenreviews,
  selfsubjectreviews,
  subjectaccessreviews,
  selfsubjectaccessreviews,
  localsubjectaccessreviews,
  selfsubjectrulesreviews,
  apiservices,
];
