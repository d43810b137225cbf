import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestInfo } from '../../../shared/api/request-info.js';
import { cleanScope, dryRunLabel, GatewayMetrics, metricVerb } from '../metrics.js';

test('gateway metrics - reported verb and scope as upstream cleans them', () => {
  const cases: Array<[string, string, string | undefined, string, string]> = [
    ['POST', '/api/v1/namespaces/ns/configmaps', 'application/json', 'POST', 'namespace'],
    ['GET', '/api/v1/namespaces/ns/configmaps/a', undefined, 'GET', 'resource'],
    ['GET', '/api/v1/namespaces/ns/configmaps', undefined, 'LIST', 'namespace'],
    ['GET', '/api/v1/configmaps', undefined, 'LIST', 'cluster'],
    ['GET', '/api/v1/namespaces/ns/configmaps?watch=true', undefined, 'WATCH', 'namespace'],
    ['GET', '/api/v1/watch/namespaces/ns/configmaps', undefined, 'WATCH', 'namespace'],
    ['PUT', '/api/v1/namespaces/ns/configmaps/a', 'application/json', 'PUT', 'resource'],
    ['PATCH', '/api/v1/namespaces/ns/configmaps/a', 'application/merge-patch+json', 'PATCH', 'resource'],
    ['PATCH', '/api/v1/namespaces/ns/configmaps/a', 'application/apply-patch+yaml', 'APPLY', 'resource'],
    ['DELETE', '/api/v1/namespaces/ns/configmaps/a', undefined, 'DELETE', 'resource'],
    ['DELETE', '/api/v1/namespaces/ns/configmaps', undefined, 'DELETECOLLECTION', 'namespace'],
    ['GET', '/api/v1/namespaces/ns', undefined, 'GET', 'resource'],
    ['GET', '/api/v1/nodes/n1/proxy/metrics', undefined, 'CONNECT', 'resource'],
    ['GET', '/healthz', undefined, 'GET', ''],
    ['HEAD', '/version', undefined, 'GET', ''],
    ['POST', '/metrics', undefined, 'POST', ''],
  ];
  for (const [method, url, contentType, verb, scope] of cases) {
    const [path, q] = url.split('?');
    const info = parseRequestInfo(method, path!, new URLSearchParams(q ?? ''));
    assert.equal(cleanScope(info), scope, `${method} ${url} scope`);
    assert.equal(metricVerb(info, method, cleanScope(info), contentType), verb, `${method} ${url} verb`);
  }
});

test('gateway metrics - dry_run label: empty, All, or invalid', () => {
  const cases: Array<[string, string]> = [
    ['', ''],
    ['pretty=true', ''],
    ['dryRun=All', 'All'],
    ['dryRun=All&dryRun=All', 'All'],
    ['dryRun=Everything', 'invalid'],
    ['dryRun=', 'invalid'],
    ['dryRun=All&dryRun=x', 'invalid'],
  ];
  for (const [query, want] of cases) assert.equal(dryRunLabel(new URLSearchParams(query)), want, query);
});

test('gateway metrics - the reference release hides apiserver_registered_watchers and apiserver_longrunning_gauge unless asked for 1.23', async () => {
  const hidden = await new GatewayMetrics().text();
  assert.doesNotMatch(hidden, /apiserver_registered_watchers/);
  assert.doesNotMatch(hidden, /apiserver_longrunning_gauge/);
  assert.match(hidden, /^# HELP apiserver_longrunning_requests \[ALPHA\] /m);
  assert.match(hidden, /^# HELP apiserver_storage_objects \[STABLE\] /m);
  const warned: string[] = [];
  const shown = await new GatewayMetrics({ showHiddenMetricsForVersion: '1.23', log: { warn: (_o, msg) => void warned.push(msg) } }).text();
  assert.match(shown, /^# HELP apiserver_registered_watchers \[ALPHA\] \(Deprecated since 1\.23\.0\) Number of currently registered watchers for a given resources$/m);
  assert.match(shown, /^# HELP apiserver_longrunning_gauge \[ALPHA\] \(Deprecated since 1\.23\.0\) /m);
  assert.deepEqual(warned.sort(), [
    'Hidden metrics (apiserver_longrunning_gauge) have been manually overridden, showing this very deprecated metric.',
    'Hidden metrics (apiserver_registered_watchers) have been manually overridden, showing this very deprecated metric.',
  ]);
  assert.doesNotMatch(await new GatewayMetrics({ disabledMetrics: ['apiserver_request_total'] }).text(), /^# HELP apiserver_request_total /m);
});
