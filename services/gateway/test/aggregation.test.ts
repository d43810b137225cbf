import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestInfo } from '../../../shared/api/request-info.js';
import { silentLogger } from '../../../shared/log.js';
import { createBuiltinRegistry } from '../../../shared/registry/builtin-registry.js';
import { encodeKey } from '../../../shared/store/key-codec.js';
import { WatchCache } from '../../../shared/store/watch-cache.js';
import { Aggregation } from '../aggregation/api-services.js';
import { authProxyHeaders } from '../aggregation/backends.js';
import { forwardedHeaders } from '../aggregation/proxy.js';

const enc = new TextEncoder();

function apiService(name: string, group: string, version: string, available: boolean) {
  return {
    apiVersion: 'apiregistration.platform.io/v1',
    kind: 'APIService',
    metadata: { name },
    spec: { group, version, groupPriorityMinimum: 100, versionPriority: 100, service: { namespace: 'ns', name: 'svc', port: 443 } },
    status: { conditions: [{ type: 'Available', status: available ? 'True' : 'False', reason: available ? 'Passed' : 'FailedDiscoveryCheck' }] },
  };
}

test('aggregation - the user in front-proxy headers: one X-Remote-Group per group, extra keys escaped as upstream', () => {
  assert.deepEqual(authProxyHeaders({ username: 'jane', groups: ['dev', 'system:authenticated'], extra: { 'scopes.example.com/a b': ['x', 'y'], 'reason%': ['on call'], empty: [] } }), {
    'x-remote-user': 'jane',
    'x-remote-group': ['dev', 'system:authenticated'],
    'x-remote-extra-scopes.example.com%2Fa%20b': ['x', 'y'],
    'x-remote-extra-reason%25': ['on call'],
  });
});

test("aggregation - the backend gets the client's headers less its credentials, impersonation and X-Remote-*", () => {
  const headers = forwardedHeaders(
    {
      accept: 'application/json',
      authorization: 'Bearer secret',
      'impersonate-user': 'bob',
      'x-remote-user': 'mallory',
      'x-remote-group': 'system:masters',
      'x-remote-extra-scopes': 'all',
      'x-forwarded-for': '10.0.0.1',
      connection: 'keep-alive',
      host: 'gateway:6443',
      'content-length': '99',
      'user-agent': 'kubectl',
    },
    { username: 'jane', groups: ['dev'] },
    '192.0.2.9',
    12,
  );
  assert.deepEqual(headers, {
    accept: 'application/json',
    'user-agent': 'kubectl',
    'x-remote-user': 'jane',
    'x-remote-group': ['dev'],
    'x-forwarded-for': '10.0.0.1, 192.0.2.9',
    'content-length': '12',
  });
});

test('aggregation - remote APIServices are found by the group/version a URL spells; a group/version served here is never proxied', () => {
  const cache = new WatchCache();
  const registry = createBuiltinRegistry();
  let rev = 0;
  for (const o of [apiService('v1beta1.metrics.k8s.io', 'metrics.k8s.io', 'v1beta1', true), apiService('v1.batch', 'batch', 'v1', true)]) {
    cache.apply({ key: encodeKey({ group: 'apiregistration.platform.io', resource: 'apiservices', name: o.metadata.name }), revision: ++rev, operation: 'PUT', value: enc.encode(JSON.stringify(o)) });
  }
  const aggregation = new Aggregation({ cache, registry, log: silentLogger() });
  try {
    const find = (method: string, url: string) => {
      const [path, query = ''] = url.split('?');
      return aggregation.remoteFor(parseRequestInfo(method, path!, new URLSearchParams(query)), path!)?.name;
    };
    assert.equal(find('GET', '/apis/metrics.k8s.io/v1beta1/nodes'), undefined, 'nothing before the table is made');
    aggregation.refresh();
    assert.equal(find('GET', '/apis/metrics.k8s.io/v1beta1/nodes?watch=true'), 'v1beta1.metrics.k8s.io');
    assert.equal(find('GET', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/p'), 'v1beta1.metrics.k8s.io');
    assert.equal(find('GET', '/apis/metrics.k8s.io/v1beta1'), 'v1beta1.metrics.k8s.io');
    assert.equal(find('GET', '/apis/metrics.k8s.io/v1beta1/'), 'v1beta1.metrics.k8s.io');
    assert.equal(find('GET', '/apis/metrics.k8s.io'), undefined, 'the group document is the gateway’s own');
    assert.equal(find('GET', '/apis/metrics.k8s.io/v1'), undefined);
    assert.equal(find('GET', '/api/v1/nodes'), undefined);
    assert.equal(find('GET', '/apis/batch/v1/jobs'), undefined, 'batch/v1 is served here: its APIService is not proxied');
    assert.deepEqual(
      aggregation.groupVersions().map((g) => `${g.group}/${g.version}`),
      ['metrics.k8s.io/v1beta1'],
    );
  } finally {
    aggregation.close();
  }
});
