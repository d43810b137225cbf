// APIServices: upstream's validation rules (field path, type, value and message of each), the
// service port default, the status a create gets, and the table kubectl prints.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../../api/types.js';
import type { FieldError } from '../../../../api/status.js';
import { createBuiltinRegistry } from '../../../builtin-registry.js';
import { createFlow, testStrategyContext } from '../../../test/builtin-helpers.js';
import { APIREGISTRATION_GROUP, apiservices, LOCAL_AVAILABLE } from '../api-service.js';

const registry = createBuiltinRegistry();
const served = registry.lookup(APIREGISTRATION_GROUP, 'v1', 'apiservices')!;

const remote = (spec: Record<string, unknown> = {}, name = 'v1beta1.metrics.example.io'): ApiObject => ({
  apiVersion: `${APIREGISTRATION_GROUP}/v1`,
  kind: 'APIService',
  metadata: { name },
  spec: { service: { namespace: 'platform-system', name: 'metrics-server' }, group: 'metrics.example.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, ...spec },
});
const local = (spec: Record<string, unknown> = {}, name = 'v1.apps'): ApiObject => ({
  apiVersion: `${APIREGISTRATION_GROUP}/v1`,
  kind: 'APIService',
  metadata: { name },
  spec: { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15, ...spec },
});

function withoutPriorities(o: ApiObject): ApiObject {
  const { groupPriorityMinimum: _g, versionPriority: _v, ...spec } = o.spec as Record<string, unknown>;
  return { ...o, spec };
}

/** What a 422 shows of each cause. */
type Cause = [field: string, type: string, value: unknown, detail: string | undefined];
const causes = (errs: FieldError[]): Cause[] => errs.map((e) => [e.field, e.type, e.value, e.detail]);

/** The whole create path's rules: schema, generic metadata (name rule), then the type's. */
function createErrors(o: ApiObject): Cause[] {
  const obj = structuredClone(o);
  registry.defaults(served, obj);
  obj.metadata.uid = '5f0c7a7e-0000-4000-8000-000000000001';
  apiservices.strategy!.prepareForCreate!(obj, testStrategyContext);
  return causes(registry.validate(served, obj));
}

const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const long = 'v' + 'a'.repeat(63);

describe('APIService validation', () => {
  const cases: Array<[name: string, obj: ApiObject, want: Cause[]]> = [
    ['a remote APIService', remote(), []],
    ['a Local APIService', local(), []],
    ['the core group at v1, named `v1.`', local({ group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 }, 'v1.'), []],
    ['a remote one with a CA bundle', remote({ caBundle: Buffer.from('-----BEGIN CERTIFICATE-----').toString('base64') }), []],
    [
      'a name other than version.group',
      remote({}, 'v1beta1.other.example.io'),
      [['metadata.name', 'Invalid value', 'v1beta1.other.example.io', 'must be `spec.version+"."+spec.group`: "v1beta1.metrics.example.io"']],
    ],
    ['a name that is no path segment', remote({}, 'v1%2F'), [['metadata.name', 'Invalid value', 'v1%2F', "may not contain '%'"]]],
    [
      'an empty group at a version other than v1',
      local({ group: '', version: 'v2' }, 'v2.'),
      [['spec.group', 'Required value', undefined, 'only v1 may have an empty group and it better be legacy kube']],
    ],
    ['a group that is no DNS subdomain', remote({ group: 'Metrics_x' }, 'v1beta1.Metrics_x'), [['spec.group', 'Invalid value', 'Metrics_x', SUBDOMAIN]]],
    ['a version that is no DNS-1035 label', remote({ version: '1beta1' }, '1beta1.metrics.example.io'), [['spec.version', 'Invalid value', '1beta1', DNS1035]]],
    ['a version longer than a label', remote({ version: long }, `${long}.metrics.example.io`), [['spec.version', 'Invalid value', long, 'must be no more than 63 characters']]],
    ['groupPriorityMinimum of 0', remote({ groupPriorityMinimum: 0 }), [['spec.groupPriorityMinimum', 'Invalid value', 0, 'must be positive and less than 20000']]],
    ['groupPriorityMinimum above 20000', remote({ groupPriorityMinimum: 20001 }), [['spec.groupPriorityMinimum', 'Invalid value', 20001, 'must be positive and less than 20000']]],
    ['versionPriority above 1000', remote({ versionPriority: 1001 }), [['spec.versionPriority', 'Invalid value', 1001, 'must be positive and less than 1000']]],
    ['a negative versionPriority', remote({ versionPriority: -1 }), [['spec.versionPriority', 'Invalid value', -1, 'must be positive and less than 1000']]],
    [
      'no priorities at all (Go reads 0)',
      withoutPriorities(remote()),
      [
        ['spec.groupPriorityMinimum', 'Invalid value', 0, 'must be positive and less than 20000'],
        ['spec.versionPriority', 'Invalid value', 0, 'must be positive and less than 1000'],
      ],
    ],
    ['a Local one with a CA bundle', local({ caBundle: Buffer.from('12345').toString('base64') }), [['spec.caBundle', 'Invalid value', '5 bytes', 'local APIServices may not have a caBundle']]],
    ['a Local one skipping TLS verification', local({ insecureSkipTLSVerify: true }), [['spec.insecureSkipTLSVerify', 'Invalid value', true, 'local APIServices may not have insecureSkipTLSVerify']]],
    ['a service without namespace', remote({ service: { name: 'metrics-server' } }), [['spec.service.namespace', 'Required value', undefined, undefined]]],
    ['a service without name', remote({ service: { namespace: 'platform-system' } }), [['spec.service.name', 'Required value', undefined, undefined]]],
    ['port 0', remote({ service: { namespace: 'a', name: 'b', port: 0 } }), [['spec.service.port', 'Invalid value', 0, 'port is not valid: must be between 1 and 65535, inclusive']]],
    ['port 65536', remote({ service: { namespace: 'a', name: 'b', port: 65536 } }), [['spec.service.port', 'Invalid value', 65536, 'port is not valid: must be between 1 and 65535, inclusive']]],
    [
      'a CA bundle and insecureSkipTLSVerify together',
      remote({ caBundle: Buffer.from('ca').toString('base64'), insecureSkipTLSVerify: true }),
      [['spec.insecureSkipTLSVerify', 'Invalid value', true, 'may not be true if caBundle is present']],
    ],
  ];
  for (const [name, obj, want] of cases) it(name, () => assert.deepEqual(createErrors(obj), want));

  it('re-checks every rule on update (no field is immutable)', () => {
    const old = createFlow(apiservices, remote()).obj;
    const moved = structuredClone(old);
    (moved.spec as { versionPriority: number }).versionPriority = 20;
    assert.deepEqual(causes(registry.validate(served, moved, old)), []);
    (moved.spec as { groupPriorityMinimum: number }).groupPriorityMinimum = 0;
    assert.deepEqual(causes(registry.validate(served, moved, old)), [['spec.groupPriorityMinimum', 'Invalid value', 0, 'must be positive and less than 20000']]);
  });

  it('a status write: each condition status is True, False or Unknown', () => {
    const old = createFlow(apiservices, remote()).obj;
    const next = { ...structuredClone(old), status: { conditions: [{ type: 'Available', status: 'False', reason: 'ServiceNotFound' }] } };
    assert.deepEqual(causes(registry.validate(served, next, old, 'status')), []);
    next.status.conditions[0]!.status = 'Maybe';
    assert.deepEqual(causes(registry.validate(served, next, old, 'status')), [['status.conditions[0].status', 'Unsupported value', 'Maybe', 'supported values: "True", "False", "Unknown"']]);
  });
});

describe('APIService defaults and create', () => {
  it('defaults the service port to 443', () => {
    const { obj } = createFlow(apiservices, remote());
    assert.equal((obj.spec as { service: { port: number } }).service.port, 443);
    assert.equal((createFlow(apiservices, remote({ service: { namespace: 'a', name: 'b', port: 8443 } })).obj.spec as { service: { port: number } }).service.port, 8443);
  });

  it('a Local APIService is Available from its creation; a remote one starts with no status', () => {
    const created = createFlow(apiservices, { ...local(), status: { conditions: [{ type: 'Available', status: 'False' }] } }).obj;
    assert.deepEqual(created.status, { conditions: [{ ...LOCAL_AVAILABLE, lastTransitionTime: testStrategyContext.now }] });
    assert.equal(createFlow(apiservices, { ...remote(), status: { conditions: [{ type: 'Available', status: 'True' }] } }).obj.status, undefined);
    assert.equal((createFlow(apiservices, local()).obj.spec as { service?: unknown }).service, undefined, 'a Local one gets no service');
  });
});

describe('APIService table', () => {
  const cells = (o: ApiObject) => (apiservices.columns ?? []).filter((c) => c.name !== 'Age').map((c) => c.cell(o));
  const withAvailable = (o: ApiObject, condition: Record<string, unknown>): ApiObject => ({ ...o, status: { conditions: [{ type: 'Other', status: 'True' }, condition] } });
  const cases: Array<[name: string, obj: ApiObject, want: unknown[]]> = [
    ['Local and available', withAvailable(local(), LOCAL_AVAILABLE), ['Local', 'True']],
    ['a remote one not yet judged', remote(), ['platform-system/metrics-server', 'Unknown']],
    ['a remote one down, with a reason', withAvailable(remote(), { type: 'Available', status: 'False', reason: 'ServiceNotFound' }), ['platform-system/metrics-server', 'False (ServiceNotFound)']],
    ['a remote one down, no reason', withAvailable(remote(), { type: 'Available', status: 'False' }), ['platform-system/metrics-server', 'False']],
    ['a remote one available', withAvailable(remote(), { type: 'Available', status: 'True', reason: 'Passed' }), ['platform-system/metrics-server', 'True']],
  ];
  it('prints SERVICE and AVAILABLE as upstream, then AGE', () =>
    assert.deepEqual(
      (apiservices.columns ?? []).map((c) => c.name),
      ['Service', 'Available', 'Age'],
    ));
  for (const [name, obj, want] of cases) it(name, () => assert.deepEqual(cells(obj), want));
});
