import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../../api/types.js';
import type { FieldError } from '../../../../api/status.js';
import { resourcequotas } from '../resource-quota.js';
import { limitranges } from '../limit-range.js';

const rq = (spec: Record<string, unknown>, status?: Record<string, unknown>): ApiObject => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: { name: 'q', namespace: 'ns' },
  spec,
  ...(status ? { status } : {}),
});
const lr = (...limits: Array<Record<string, unknown>>): ApiObject => ({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'l', namespace: 'ns' }, spec: { limits } });
const brief = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${e.detail ?? e.type}`);

test('ResourceQuota validation', () => {
  const v = resourcequotas.strategy!.validate!;
  const cases: Array<[string, ApiObject, string[]]> = [
    [
      'standard names and counts',
      rq({
        hard: {
          pods: '10',
          'requests.cpu': '2',
          'count/deployments.apps': '3',
          'gold.storageclass.storage.platform.io/requests.storage': '10Gi',
          'requests.example.com/gpu': '2',
          'hugepages-2Mi': '1Gi',
        },
      }),
      [],
    ],
    ['an unknown plain name', rq({ hard: { bananas: '1' } }), ['spec.hard[bananas]: must be a standard resource type or fully qualified', 'spec.hard[bananas]: must be a standard resource for quota']],
    ['a name standard elsewhere but not for quota', rq({ hard: { storage: '1' } }), ['spec.hard[storage]: must be a standard resource for quota']],
    ['negative', rq({ hard: { 'requests.cpu': '-1' } }), ['spec.hard[requests.cpu]: must be greater than or equal to 0']],
    ['a fractional count', rq({ hard: { pods: '1500m' } }), ['spec.hard[pods]: must be an integer']],
    ['scopes with pod resources', rq({ hard: { pods: '1', 'requests.cpu': '1' }, scopes: ['NotBestEffort', 'Terminating'] }), []],
    ['a scope over services', rq({ hard: { services: '1' }, scopes: ['Terminating'] }), ['spec.scopes: unsupported scope applied to resource']],
    ['BestEffort limits only counts', rq({ hard: { 'requests.cpu': '1' }, scopes: ['BestEffort'] }), ['spec.scopes: unsupported scope applied to resource']],
    ['an unknown scope', rq({ hard: { pods: '1' }, scopes: ['Sometimes'] }), ['spec.scopes: unsupported scope']],
    ['conflicting scopes', rq({ hard: { pods: '1' }, scopes: ['BestEffort', 'NotBestEffort'] }), ['spec.scopes: conflicting scopes']],
    ['a priority class selector', rq({ hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } }), []],
    [
      'In without values',
      rq({ hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In' }] } }),
      ["spec.scopeSelector.matchExpressions.values: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"],
    ],
    [
      'Terminating needs Exists',
      rq({ hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'Terminating', operator: 'In', values: ['x'] }] } }),
      [
        "spec.scopeSelector.matchExpressions.operator: must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
      ],
    ],
    ['status values are checked too', rq({ hard: { pods: '1' } }, { hard: { pods: '1' }, used: { pods: '-1' } }), ['status.used[pods]: must be greater than or equal to 0']],
  ];
  for (const [name, o, want] of cases) assert.deepEqual(brief(v(o)), want, name);
  const vu = resourcequotas.strategy!.validateUpdate!;
  assert.deepEqual(brief(vu(rq({ hard: { pods: '1' }, scopes: ['Terminating'] }), rq({ hard: { pods: '1' } }))), ['spec.scopes: field is immutable']);
  assert.deepEqual(brief(vu(rq({ hard: { pods: '2' } }), rq({ hard: { pods: '1' } }))), []);
});

test('LimitRange validation', () => {
  const v = limitranges.strategy!.validate!;
  const cases: Array<[string, ApiObject, string[]]> = [
    ['a sensible range', lr({ type: 'Container', min: { cpu: '100m' }, max: { cpu: '2' }, default: { cpu: '1' }, defaultRequest: { cpu: '500m' }, maxLimitRequestRatio: { cpu: '4' } }), []],
    ['min over max', lr({ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }), ['spec.limits[0].min[cpu]: min value 2 is greater than max value 1']],
    ['default over max', lr({ type: 'Container', max: { memory: '1Gi' }, default: { memory: '2Gi' } }), ['spec.limits[0].default[memory]: default value 2Gi is greater than max value 1Gi']],
    [
      'default request over default',
      lr({ type: 'Container', default: { cpu: '1' }, defaultRequest: { cpu: '2' } }),
      ['spec.limits[0].defaultRequest[cpu]: default request value 2 is greater than default limit value 1'],
    ],
    ['ratio below 1', lr({ type: 'Container', maxLimitRequestRatio: { cpu: '500m' } }), ['spec.limits[0].maxLimitRequestRatio[cpu]: ratio 500m is less than 1']],
    [
      'ratio above max/min',
      lr({ type: 'Container', min: { cpu: '1' }, max: { cpu: '2' }, maxLimitRequestRatio: { cpu: '3' } }),
      ['spec.limits[0].maxLimitRequestRatio[cpu]: ratio 3 is greater than max/min = 2.000000'],
    ],
    ['defaults on a Pod item', lr({ type: 'Pod', default: { cpu: '1' } }), ["spec.limits[0].default: may not be specified when `type` is 'Pod'"]],
    [
      'a claim item needs storage bounds',
      lr({ type: 'PersistentVolumeClaim', min: { memory: '1Gi' } }),
      ['spec.limits[0].limits: either minimum or maximum storage value is required, but neither was provided'],
    ],
    ['a container resource that is not one', lr({ type: 'Container', max: { pods: '1' } }), ['spec.limits[0].max[pods]: must be a standard resource for containers']],
    ['an unknown type', lr({ type: 'Node', max: { cpu: '1' } }), ['spec.limits[0].type: must be a standard limit type or fully qualified']],
    ['a duplicate type', lr({ type: 'Pod', max: { cpu: '1' } }, { type: 'Pod', max: { cpu: '2' } }), ['spec.limits[1].type: Duplicate value']],
    [
      'hugepages default and request must agree',
      lr({ type: 'Container', default: { 'hugepages-2Mi': '4Mi' }, defaultRequest: { 'hugepages-2Mi': '2Mi' } }),
      ['spec.limits[0].defaultRequest[hugepages-2Mi]: default value 4Mi must equal to defaultRequest value 2Mi in hugepages-2Mi'],
    ],
  ];
  for (const [name, o, want] of cases) assert.deepEqual(brief(v(o)), want, name);
});

test('LimitRange defaults - max gives the default limit, the default limit or min the default request', () => {
  const o = lr({ type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { cpu: '100m', 'ephemeral-storage': '1Gi' }, default: { memory: '512Mi' } }, { type: 'Pod', max: { cpu: '4' } });
  limitranges.strategy!.defaults!(o);
  const [c, p] = (o.spec as { limits: Array<Record<string, unknown>> }).limits;
  assert.deepEqual(c!.default, { memory: '512Mi', cpu: '2' });
  assert.deepEqual(c!.defaultRequest, { memory: '512Mi', cpu: '2', 'ephemeral-storage': '1Gi' });
  assert.deepEqual(p, { type: 'Pod', max: { cpu: '4' } });
});
