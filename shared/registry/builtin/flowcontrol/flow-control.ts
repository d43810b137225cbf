// API priority and fairness configuration (flowcontrol.apiserver.platform.io): FlowSchemas sort
// requests into priority levels, PriorityLevelConfigurations say how much each level may run and
// how it queues. v1beta2 and v1beta1 have one shape; v1beta1 is deprecated in 1.23 and gone in 1.26.
// The gateway stores and validates them; it does not schedule requests by them (README).

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import { forbidden, invalidValue, required, unsupported } from '../../../api/field-errors.js';
import { isDNS1123Label } from '../../../api/validation.js';
import type { ResourceType, VersionDef } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asArray, asObject, at, ensureObject } from '../common/field-errors.js';
import { updateValidation } from '../common/strategy.js';
import { atomicList, bool, described, int32, mapList, obj, setList, str, strEnum, time } from '../common/schema.js';
import * as docs from './flow-control-docs.js';

export const FLOWCONTROL_GROUP = 'flowcontrol.apiserver.platform.io';

const condition = described(obj({ type: str, status: strEnum('True', 'False', 'Unknown'), lastTransitionTime: time, reason: str, message: str }), docs.conditionDocs, docs.CONDITION_ABOUT);
const status = described(obj({ conditions: mapList(condition, ['type']) }), docs.statusDocs, docs.STATUS_ABOUT);

const subject = described(
  obj(
    {
      kind: strEnum('User', 'Group', 'ServiceAccount'),
      user: described(obj({ name: str }, ['name']), docs.userSubjectDocs, 'A user, by name.'),
      group: described(obj({ name: str }, ['name']), docs.groupSubjectDocs, 'A group, by name.'),
      serviceAccount: described(obj({ namespace: str, name: str }, ['namespace', 'name']), docs.serviceAccountSubjectDocs, 'A service account, by namespace and name.'),
    },
    ['kind'],
  ),
  docs.subjectDocs,
  docs.SUBJECT_ABOUT,
);
const resourceRule = described(
  obj({ verbs: setList(str), apiGroups: setList(str), resources: setList(str), clusterScope: bool, namespaces: setList(str) }, ['verbs', 'apiGroups', 'resources']),
  docs.resourceRuleDocs,
  docs.RESOURCE_RULE_ABOUT,
);
const nonResourceRule = described(obj({ verbs: setList(str), nonResourceURLs: setList(str) }, ['verbs', 'nonResourceURLs']), docs.nonResourceRuleDocs, docs.NON_RESOURCE_RULE_ABOUT);
const policyRule = described(
  obj({ subjects: atomicList(subject), resourceRules: atomicList(resourceRule), nonResourceRules: atomicList(nonResourceRule) }, ['subjects']),
  docs.policyRuleDocs,
  docs.POLICY_RULE_ABOUT,
);

const flowSchemaSpec = described(
  obj(
    {
      priorityLevelConfiguration: described(obj({ name: str }, ['name']), docs.priorityLevelRefDocs, 'A reference to a PriorityLevelConfiguration.'),
      matchingPrecedence: int32,
      distinguisherMethod: described(obj({ type: strEnum('ByUser', 'ByNamespace') }, ['type']), docs.distinguisherDocs, 'How requests are split into flows.'),
      rules: atomicList(policyRule),
    },
    ['priorityLevelConfiguration'],
  ),
  docs.flowSchemaSpecDocs,
  docs.FLOW_SCHEMA_SPEC_ABOUT,
);
const flowSchemaSchema = described(obj({ spec: flowSchemaSpec, status }), docs.flowSchemaDocs, docs.FLOW_SCHEMA_ABOUT);

const queuing = described(obj({ queues: int32, handSize: int32, queueLengthLimit: int32 }), docs.queuingDocs, docs.QUEUING_ABOUT);
const limitResponse = described(obj({ type: strEnum('Queue', 'Reject'), queuing }, ['type']), docs.limitResponseDocs, docs.LIMIT_RESPONSE_ABOUT);
const limited = described(obj({ assuredConcurrencyShares: int32, limitResponse }), docs.limitedDocs, docs.LIMITED_ABOUT);
const priorityLevelSpec = described(obj({ type: strEnum('Exempt', 'Limited'), limited }, ['type']), docs.priorityLevelSpecDocs, docs.PRIORITY_LEVEL_SPEC_ABOUT);
const priorityLevelSchema = described(obj({ spec: priorityLevelSpec, status }), docs.priorityLevelDocs, docs.PRIORITY_LEVEL_ABOUT);

const MAX_PRECEDENCE = 10000;
/** The names whose configuration upstream keeps mandatory. */
const EXEMPT = 'exempt';

/** `*` stands for everything and must then stand alone (upstream's rule for verbs, groups, resources, namespaces and URLs). */
function validateStarList(values: unknown, f: string, what: string): FieldError[] {
  const list = asArray(values);
  if (!list.length) return [required(f, `${what} must contain at least one value`)];
  if (list.includes('*') && list.length > 1) return [invalidValue(f, list, `if '*' is present, must not specify other ${what}`)];
  return [];
}

function validateSubject(s: Record<string, unknown>, f: string): FieldError[] {
  const kind = s.kind;
  const member: Record<string, string> = { User: 'user', Group: 'group', ServiceAccount: 'serviceAccount' };
  if (!(typeof kind === 'string' && kind in member)) return [unsupported(`${f}.kind`, kind, Object.keys(member))];
  const errs: FieldError[] = [];
  for (const [k, field] of Object.entries(member)) {
    const present = s[field] !== undefined && s[field] !== null;
    if (k === kind && !present) errs.push(required(`${f}.${field}`, `${field} is required when subject kind is '${kind}'`));
    if (k !== kind && present) errs.push(forbidden(`${f}.${field}`, `${field} is forbidden when subject kind is not '${k}'`));
  }
  const m = asObject(s[member[kind]!]);
  if (m) {
    for (const key of kind === 'ServiceAccount' ? ['namespace', 'name'] : ['name']) {
      if (typeof m[key] !== 'string' || !m[key]) errs.push(required(`${f}.${member[kind]}.${key}`, `${key} is required`));
    }
  }
  return errs;
}

function validateResourceRule(r: Record<string, unknown>, f: string): FieldError[] {
  const errs = [...validateStarList(r.verbs, `${f}.verbs`, 'verbs'), ...validateStarList(r.apiGroups, `${f}.apiGroups`, 'api groups'), ...validateStarList(r.resources, `${f}.resources`, 'resources')];
  const namespaces = asArray(r.namespaces);
  if (!namespaces.length) {
    if (!r.clusterScope) errs.push(required(`${f}.namespaces`, 'resource rules that are not cluster scoped must supply at least one namespace'));
  } else if (namespaces.includes('*')) {
    if (namespaces.length > 1) errs.push(invalidValue(`${f}.namespaces`, namespaces, "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((ns, i) => errs.push(...isDNS1123Label(String(ns), `${f}.namespaces[${i}]`)));
  }
  return errs;
}

function validateNonResourceRule(r: Record<string, unknown>, f: string): FieldError[] {
  const errs = [...validateStarList(r.verbs, `${f}.verbs`, 'verbs'), ...validateStarList(r.nonResourceURLs, `${f}.nonResourceURLs`, 'non-resource URLs')];
  asArray(r.nonResourceURLs).forEach((u, i) => {
    if (u === '*') return;
    const s = String(u);
    const star = s.indexOf('*');
    if (!s.startsWith('/')) errs.push(invalidValue(`${f}.nonResourceURLs[${i}]`, s, "must start with slash or be '*'"));
    else if (s.includes('//')) errs.push(invalidValue(`${f}.nonResourceURLs[${i}]`, s, 'must not contain double slashes'));
    else if (star >= 0 && (star !== s.length - 1 || !s.endsWith('/*'))) errs.push(invalidValue(`${f}.nonResourceURLs[${i}]`, s, "'*' can only be the last segment, as '/*'"));
  });
  return errs;
}

function validateFlowSchema(o: ApiObject): FieldError[] {
  const spec = asObject(o.spec) ?? {};
  const errs: FieldError[] = [];
  const precedence = spec.matchingPrecedence;
  if (typeof precedence === 'number' && precedence <= 0) errs.push(invalidValue('spec.matchingPrecedence', precedence, 'must be a positive value'));
  if (typeof precedence === 'number' && precedence > MAX_PRECEDENCE) errs.push(invalidValue('spec.matchingPrecedence', precedence, `must not be greater than ${MAX_PRECEDENCE}`));
  const pl = at(o, 'spec.priorityLevelConfiguration.name');
  if (typeof pl !== 'string' || !pl) errs.push(required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  asArray(spec.rules).forEach((raw, i) => {
    const rule = asObject(raw) ?? {};
    const f = `spec.rules[${i}]`;
    const subjects = asArray(rule.subjects);
    if (!subjects.length) errs.push(required(`${f}.subjects`, 'subjects must contain at least one value'));
    subjects.forEach((s, j) => errs.push(...validateSubject(asObject(s) ?? {}, `${f}.subjects[${j}]`)));
    const resourceRules = asArray(rule.resourceRules);
    const nonResourceRules = asArray(rule.nonResourceRules);
    if (!resourceRules.length && !nonResourceRules.length) errs.push(required(f, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
    resourceRules.forEach((r, j) => errs.push(...validateResourceRule(asObject(r) ?? {}, `${f}.resourceRules[${j}]`)));
    nonResourceRules.forEach((r, j) => errs.push(...validateNonResourceRule(asObject(r) ?? {}, `${f}.nonResourceRules[${j}]`)));
  });
  return errs;
}

function validatePriorityLevel(o: ApiObject): FieldError[] {
  const spec = asObject(o.spec) ?? {};
  const errs: FieldError[] = [];
  const name = o.metadata.name;
  const limited = asObject(spec.limited);
  if (spec.type === 'Exempt') {
    if (name !== EXEMPT) errs.push(invalidValue('spec.type', spec.type, `type 'Exempt' is only allowed for the priority level '${EXEMPT}'`));
    if (spec.limited !== undefined && spec.limited !== null) errs.push(forbidden('spec.limited', "must be nil if the type is not 'Limited'"));
    return errs;
  }
  if (spec.type !== 'Limited') return [unsupported('spec.type', spec.type, ['Exempt', 'Limited'])];
  if (name === EXEMPT) errs.push(invalidValue('spec.type', spec.type, `the priority level '${EXEMPT}' must be of type 'Exempt'`));
  if (!limited) return [...errs, required('spec.limited', "must not be empty when type is 'Limited'")];
  const shares = limited.assuredConcurrencyShares;
  if (typeof shares === 'number' && shares <= 0) errs.push(invalidValue('spec.limited.assuredConcurrencyShares', shares, 'must be positive'));
  const response = asObject(limited.limitResponse) ?? {};
  const queuing = asObject(response.queuing);
  if (response.type === 'Reject') {
    if (queuing) errs.push(forbidden('spec.limited.limitResponse.queuing', "must be nil if limited.limitResponse.type is not 'Queue'"));
  } else if (response.type === 'Queue') {
    if (!queuing) errs.push(required('spec.limited.limitResponse.queuing', "must not be empty if limited.limitResponse.type is 'Queue'"));
    else errs.push(...validateQueuing(queuing));
  } else {
    errs.push(unsupported('spec.limited.limitResponse.type', response.type, ['Queue', 'Reject']));
  }
  return errs;
}

/** Shuffle sharding needs handSize ≤ queues and at most 60 bits of entropy. */
function validateQueuing(q: Record<string, unknown>): FieldError[] {
  const f = 'spec.limited.limitResponse.queuing';
  const errs: FieldError[] = [];
  for (const k of ['queues', 'handSize', 'queueLengthLimit']) {
    if (typeof q[k] === 'number' && (q[k] as number) <= 0) errs.push(invalidValue(`${f}.${k}`, q[k], 'must be positive'));
  }
  const queues = q.queues as number;
  const hand = q.handSize as number;
  if (typeof queues === 'number' && typeof hand === 'number' && queues > 0 && hand > 0) {
    if (hand > queues) errs.push(invalidValue(`${f}.handSize`, hand, `should not be greater than queues (${queues})`));
    else if (Math.ceil(hand * Math.log2(queues)) > 60) {
      errs.push(invalidValue(`${f}.handSize`, hand, `required entropy bits of deckSize ${queues} and handSize ${hand} should not be greater than 60`));
    }
  }
  return errs;
}

/** Go's int32 zero values standing for "use the default". */
function defaultZero(o: Record<string, unknown>, key: string, value: number): void {
  if (o[key] === undefined || o[key] === 0) o[key] = value;
}

function conditionStatus(o: ApiObject, type: string): string {
  const c = asArray(at(o, 'status.conditions'))
    .map(asObject)
    .find((x) => x?.type === type);
  return typeof c?.status === 'string' ? c.status : '?';
}

const versions = (): VersionDef[] => [
  // v1beta2 was the storage version at the reference release; v1beta1 has its shape.
  { name: 'v1beta2', schema: flowSchemaSchema },
  { name: 'v1beta1', schema: flowSchemaSchema, deprecation: { since: '1.23', removedIn: '1.26', replacement: 'v1beta2' } },
];

export const flowschemas: ResourceType = {
  group: FLOWCONTROL_GROUP,
  versions: versions(),
  kind: 'FlowSchema',
  plural: 'flowschemas',
  singular: 'flowschema',
  scope: 'Cluster',
  subresources: { status: true },
  columns: [
    { name: 'PriorityLevel', type: 'string', description: 'The priority level the matched requests go to', cell: (o) => String(at(o, 'spec.priorityLevelConfiguration.name') ?? '') },
    { name: 'MatchingPrecedence', type: 'string', description: 'Lower values match first', cell: (o) => String(at(o, 'spec.matchingPrecedence') ?? '') },
    { name: 'DistinguisherMethod', type: 'string', description: 'How flows are told apart', cell: (o) => String(at(o, 'spec.distinguisherMethod.type') ?? '<none>') },
    ageColumn,
    { name: 'MissingPL', type: 'string', description: 'Whether the priority level it names is missing', cell: (o) => conditionStatus(o, 'Dangling') },
  ],
  strategy: {
    defaults(o) {
      defaultZero(ensureObject(o, 'spec'), 'matchingPrecedence', 1000);
    },
    validate: validateFlowSchema,
    validateUpdate: updateValidation(validateFlowSchema),
  },
};

export const prioritylevelconfigurations: ResourceType = {
  group: FLOWCONTROL_GROUP,
  versions: versions().map((v) => ({ ...v, schema: priorityLevelSchema })),
  kind: 'PriorityLevelConfiguration',
  plural: 'prioritylevelconfigurations',
  singular: 'prioritylevelconfiguration',
  scope: 'Cluster',
  subresources: { status: true },
  columns: [
    { name: 'Type', type: 'string', description: 'Exempt or Limited', cell: (o) => String(at(o, 'spec.type') ?? '') },
    { name: 'AssuredConcurrencyShares', type: 'string', description: 'Share of the server’s concurrency', cell: (o) => String(at(o, 'spec.limited.assuredConcurrencyShares') ?? '<none>') },
    { name: 'Queues', type: 'string', description: 'Number of queues', cell: (o) => String(at(o, 'spec.limited.limitResponse.queuing.queues') ?? '<none>') },
    { name: 'HandSize', type: 'string', description: 'Queues a flow is dealt', cell: (o) => String(at(o, 'spec.limited.limitResponse.queuing.handSize') ?? '<none>') },
    { name: 'QueueLengthLimit', type: 'string', description: 'Requests a queue may hold', cell: (o) => String(at(o, 'spec.limited.limitResponse.queuing.queueLengthLimit') ?? '<none>') },
    ageColumn,
  ],
  strategy: {
    defaults(o) {
      const limited = asObject(asObject(o.spec)?.limited);
      if (!limited) return;
      defaultZero(limited, 'assuredConcurrencyShares', 30);
      const queuing = asObject(asObject(limited.limitResponse)?.queuing);
      if (!queuing) return;
      defaultZero(queuing, 'queues', 64);
      defaultZero(queuing, 'handSize', 8);
      defaultZero(queuing, 'queueLengthLimit', 50);
    },
    validate: validatePriorityLevel,
    validateUpdate: updateValidation(validatePriorityLevel),
  },
};
