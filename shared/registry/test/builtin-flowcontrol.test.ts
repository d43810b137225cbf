// FlowSchemas and PriorityLevelConfigurations: defaults and upstream's validation rules.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../api/types.js';
import { flowschemas, prioritylevelconfigurations } from '../builtin/flowcontrol/flow-control.js';
import { createFlow, fields } from './builtin-helpers.js';

const fs = (spec: Record<string, unknown>): ApiObject => ({
  apiVersion: 'flowcontrol.apiserver.platform.io/v1beta2',
  kind: 'FlowSchema',
  metadata: { name: 'f' },
  spec: { priorityLevelConfiguration: { name: 'pl' }, ...spec },
});
const pl = (name: string, spec: Record<string, unknown>): ApiObject => ({ apiVersion: 'flowcontrol.apiserver.platform.io/v1beta2', kind: 'PriorityLevelConfiguration', metadata: { name }, spec });
const everything = { verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true };
const users = [{ kind: 'User', user: { name: 'u' } }];

describe('FlowSchema', () => {
  it('defaults matchingPrecedence to 1000', () => {
    assert.equal((createFlow(flowschemas, fs({})).obj.spec as { matchingPrecedence: number }).matchingPrecedence, 1000);
  });
  const cases: Array<[name: string, spec: Record<string, unknown>, want: string[]]> = [
    ['a valid schema', { rules: [{ subjects: users, resourceRules: [everything] }] }, []],
    ['precedence above 10000', { matchingPrecedence: 10001 }, ['spec.matchingPrecedence: Invalid value']],
    ['a negative precedence', { matchingPrecedence: -1 }, ['spec.matchingPrecedence: Invalid value']],
    ['no priority level', { priorityLevelConfiguration: { name: '' } }, ['spec.priorityLevelConfiguration.name: Required value']],
    ['a rule without subjects', { rules: [{ subjects: [], resourceRules: [everything] }] }, ['spec.rules[0].subjects: Required value']],
    ['a rule without any rules', { rules: [{ subjects: users }] }, ['spec.rules[0]: Required value']],
    [
      'a user subject without its member',
      { rules: [{ subjects: [{ kind: 'User', group: { name: 'g' } }], resourceRules: [everything] }] },
      ['spec.rules[0].subjects[0].group: Forbidden', 'spec.rules[0].subjects[0].user: Required value'],
    ],
    [
      'a service account without namespace',
      { rules: [{ subjects: [{ kind: 'ServiceAccount', serviceAccount: { name: 'x', namespace: '' } }], resourceRules: [everything] }] },
      ['spec.rules[0].subjects[0].serviceAccount.namespace: Required value'],
    ],
    ['star beside other verbs', { rules: [{ subjects: users, resourceRules: [{ ...everything, verbs: ['*', 'get'] }] }] }, ['spec.rules[0].resourceRules[0].verbs: Invalid value']],
    ['namespaced rule without namespaces', { rules: [{ subjects: users, resourceRules: [{ ...everything, clusterScope: false }] }] }, ['spec.rules[0].resourceRules[0].namespaces: Required value']],
    [
      'a bad URL',
      { rules: [{ subjects: users, nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['healthz', '/a/*/b'] }] }] },
      ['spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value', 'spec.rules[0].nonResourceRules[0].nonResourceURLs[1]: Invalid value'],
    ],
  ];
  for (const [name, spec, want] of cases) it(name, () => assert.deepEqual(fields(createFlow(flowschemas, fs(spec)).errors).sort(), want));
});

describe('PriorityLevelConfiguration', () => {
  it('defaults shares and queuing', () => {
    const { obj } = createFlow(prioritylevelconfigurations, pl('p', { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } }));
    assert.deepEqual((obj.spec as Record<string, unknown>).limited, { assuredConcurrencyShares: 30, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } } });
  });
  const queue = (queuing: Record<string, number>) => ({ type: 'Limited', limited: { assuredConcurrencyShares: 10, limitResponse: { type: 'Queue', queuing } } });
  const cases: Array<[name: string, plName: string, spec: Record<string, unknown>, want: string[]]> = [
    ['a limited level', 'p', queue({ queues: 64, handSize: 8, queueLengthLimit: 50 }), []],
    ['exempt is only for "exempt"', 'p', { type: 'Exempt' }, ['spec.type: Invalid value']],
    ['"exempt" is exempt', 'exempt', { type: 'Exempt' }, []],
    ['"exempt" cannot be limited', 'exempt', queue({ queues: 1, handSize: 1, queueLengthLimit: 1 }), ['spec.type: Invalid value']],
    ['limited without its settings', 'p', { type: 'Limited' }, ['spec.limited: Required value']],
    ['handSize above queues', 'p', queue({ queues: 4, handSize: 8, queueLengthLimit: 5 }), ['spec.limited.limitResponse.queuing.handSize: Invalid value']],
    ['too much entropy', 'p', queue({ queues: 1 << 20, handSize: 4, queueLengthLimit: 5 }), ['spec.limited.limitResponse.queuing.handSize: Invalid value']],
    [
      'reject with queuing',
      'p',
      { type: 'Limited', limited: { assuredConcurrencyShares: 1, limitResponse: { type: 'Reject', queuing: { queues: 1, handSize: 1, queueLengthLimit: 1 } } } },
      ['spec.limited.limitResponse.queuing: Forbidden'],
    ],
    ['negative shares', 'p', { type: 'Limited', limited: { assuredConcurrencyShares: -1, limitResponse: { type: 'Reject' } } }, ['spec.limited.assuredConcurrencyShares: Invalid value']],
  ];
  for (const [name, plName, spec, want] of cases) it(name, () => assert.deepEqual(fields(createFlow(prioritylevelconfigurations, pl(plName, spec)).errors).sort(), want));
});
