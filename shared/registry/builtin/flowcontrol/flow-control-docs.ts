// Field descriptions of FlowSchema and PriorityLevelConfiguration (one shape in v1beta1 and
// v1beta2), kept apart from their schemas and validation (flow-control.ts). The texts say what the
// fields mean for API priority and fairness, and that this server only stores and validates them.

import type { FieldDocs } from '../../schema-docs.js';

const NOT_ENFORCED = 'This server stores and validates it but does not classify or queue requests by it.';

export const conditionDocs: FieldDocs = {
  type: 'Kind of condition; each type appears once in the list.',
  status: 'Whether the condition holds: True, False or Unknown.',
  lastTransitionTime: 'When status last changed from one value to another.',
  reason: 'Machine-readable reason for the last transition, in CamelCase.',
  message: 'Readable details of the last transition.',
};
export const CONDITION_ABOUT = 'One aspect of the current state of the object, as the component that maintains the configuration observed it.';
export const statusDocs: FieldDocs = { conditions: 'Current state, such as Dangling on a FlowSchema whose priority level does not exist. Written through the status subresource.' };
export const STATUS_ABOUT = 'The state of the object as the component that maintains the configuration reports it.';

// ---- FlowSchema ----------------------------------------------------------------------------------

export const userSubjectDocs: FieldDocs = { name: 'The user name to match; `*` matches every user.' };
export const groupSubjectDocs: FieldDocs = { name: 'The group to match; `*` matches every group, and `system:authenticated` / `system:unauthenticated` every authenticated or anonymous user.' };
export const serviceAccountSubjectDocs: FieldDocs = {
  namespace: 'Namespace of the service account.',
  name: 'Name of the service account; `*` matches every service account of the namespace.',
};
export const subjectDocs: FieldDocs = {
  kind: 'Which of user, group and serviceAccount is set: User, Group or ServiceAccount.',
  user: 'The user to match; required for kind User and forbidden otherwise.',
  group: 'The group to match; required for kind Group and forbidden otherwise.',
  serviceAccount: 'The service account to match; required for kind ServiceAccount and forbidden otherwise.',
};
export const SUBJECT_ABOUT = 'Who made a request: a user, a group a user belongs to, or a service account.';

const starList = (what: string): string => `${what}; \`*\` alone matches all. At least one.`;

export const resourceRuleDocs: FieldDocs = {
  verbs: starList('Verbs to match, such as get, list, watch, create'),
  apiGroups: starList('API groups to match; the empty string is the core group'),
  resources: starList('Resources to match, by plural name, with a sub-resource written `pods/status`'),
  clusterScope: 'Whether requests for cluster-scoped resources (with no namespace) match.',
  namespaces: 'Namespaces whose requests match, as DNS labels; `*` alone matches every namespace. May be empty only when clusterScope is true.',
};
export const RESOURCE_RULE_ABOUT = 'Requests for resources that match: the verb, the API group, the resource and the namespace each match one of the listed values.';

export const nonResourceRuleDocs: FieldDocs = {
  verbs: starList('Verbs to match, such as get'),
  nonResourceURLs: 'Request paths to match, starting with `/`; a path ending in `/*` matches everything below it and `*` alone every path. At least one.',
};
export const NON_RESOURCE_RULE_ABOUT = 'Requests for paths other than resources (such as /healthz or /version) that match: the verb and the path each match one of the listed values.';

export const policyRuleDocs: FieldDocs = {
  subjects: 'Who made the request; at least one. A request matches when it matches a subject and a rule.',
  resourceRules: 'Resource requests that match. This or nonResourceRules must be non-empty.',
  nonResourceRules: 'Non-resource requests that match. This or resourceRules must be non-empty.',
};
export const POLICY_RULE_ABOUT = 'Requests that match: those of one of the subjects that match one of the resource or non-resource rules.';

export const flowSchemaSpecDocs: FieldDocs = {
  priorityLevelConfiguration: 'The priority level that matching requests are handled at.',
  matchingPrecedence: 'Order in which FlowSchemas are tried; the lowest value is tried first and the first that matches wins. 1 to 10000; unset or 0 defaults to 1000.',
  distinguisherMethod: 'How matching requests are split into flows for fair queuing. Unset: all of them form one flow.',
  rules: 'Which requests match: those that match any of the rules. Empty: none.',
};
export const FLOW_SCHEMA_SPEC_ABOUT = 'Which requests the schema matches and the priority level they are handled at.';
export const priorityLevelRefDocs: FieldDocs = { name: 'Name of the PriorityLevelConfiguration.' };
export const distinguisherDocs: FieldDocs = { type: 'ByUser: one flow per requesting user; ByNamespace: one flow per namespace of the request.' };

export const flowSchemaDocs: FieldDocs = {
  spec: 'Which requests the schema matches and the priority level they are handled at.',
  status: 'The state of the schema, such as whether its priority level exists.',
};
export const FLOW_SCHEMA_ABOUT = `A flow schema of API priority and fairness: sorts requests that match it into a priority level, and into flows within it. ${NOT_ENFORCED}`;

// ---- PriorityLevelConfiguration --------------------------------------------------------------------

export const queuingDocs: FieldDocs = {
  queues: 'Number of queues of the level; unset or 0 defaults to 64. More queues keep flows apart better and cost memory.',
  handSize: 'Number of queues each flow is dealt (shuffle sharding); a request joins the shortest of them. Not above queues; unset or 0 defaults to 8.',
  queueLengthLimit: 'Requests a queue may hold; a request that finds its queue full is rejected with 429. Unset or 0 defaults to 50.',
};
export const QUEUING_ABOUT = 'How requests wait for their turn: in queues, flows dealt to queues by shuffle sharding.';

export const limitResponseDocs: FieldDocs = {
  type: 'Queue: requests wait in queues for their turn (and are rejected when the queue is full); Reject: requests are rejected with 429 at once.',
  queuing: 'The queues; required for type Queue and forbidden for Reject.',
};
export const LIMIT_RESPONSE_ABOUT = 'What happens to a request that arrives when the level has no room for it.';

export const limitedDocs: FieldDocs = {
  assuredConcurrencyShares: "Share of the server's concurrency the level gets: its shares divided by the sum of the shares of all Limited levels. Positive; unset or 0 defaults to 30.",
  limitResponse: 'What happens to requests that cannot run at once.',
};
export const LIMITED_ABOUT = 'The concurrency a Limited level gets and what happens to requests beyond it.';

export const priorityLevelSpecDocs: FieldDocs = {
  type: 'Exempt: requests are never limited or queued (only for the level named exempt); Limited: requests share the concurrency set in limited.',
  limited: 'The limits of the level; required for type Limited and forbidden for Exempt.',
};
export const PRIORITY_LEVEL_SPEC_ABOUT = "How much of the server's concurrency the level gets and how requests wait for it.";

export const priorityLevelDocs: FieldDocs = {
  spec: "How much of the server's concurrency the level gets and how requests wait for it.",
  status: 'The state of the level.',
};
export const PRIORITY_LEVEL_ABOUT = `A priority level of API priority and fairness: a share of the server's capacity to handle requests concurrently, isolated from other levels, that the requests FlowSchemas send to it share fairly. ${NOT_ENFORCED}`;
