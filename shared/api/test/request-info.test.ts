import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestInfo, type RequestInfo } from '../request-info.js';

type Expect = Partial<Omit<RequestInfo, 'path'>>;
interface Case {
  name: string;
  method: string;
  url: string;
  want: Expect;
}

const res = (want: Expect): Expect => ({ isResourceRequest: true, subresource: '', name: '', ...want });

const cases: Case[] = [
  // core group
  {
    name: 'core namespaced list',
    method: 'GET',
    url: '/api/v1/namespaces/default/pods',
    want: res({ verb: 'list', apiPrefix: 'api', apiGroup: '', apiVersion: 'v1', namespace: 'default', resource: 'pods', parts: ['pods'] }),
  },
  { name: 'core namespaced get', method: 'GET', url: '/api/v1/namespaces/default/pods/p1', want: res({ verb: 'get', namespace: 'default', resource: 'pods', name: 'p1', parts: ['pods', 'p1'] }) },
  { name: 'core head is get', method: 'HEAD', url: '/api/v1/namespaces/default/pods/p1', want: res({ verb: 'get', name: 'p1' }) },
  { name: 'core head collection is list', method: 'HEAD', url: '/api/v1/namespaces/default/pods', want: res({ verb: 'list' }) },
  { name: 'core create', method: 'POST', url: '/api/v1/namespaces/default/pods', want: res({ verb: 'create', resource: 'pods', name: '' }) },
  { name: 'core update', method: 'PUT', url: '/api/v1/namespaces/default/pods/p1', want: res({ verb: 'update', name: 'p1' }) },
  { name: 'core patch', method: 'PATCH', url: '/api/v1/namespaces/default/pods/p1', want: res({ verb: 'patch', name: 'p1' }) },
  { name: 'core delete', method: 'DELETE', url: '/api/v1/namespaces/default/pods/p1', want: res({ verb: 'delete', name: 'p1' }) },
  { name: 'core deletecollection', method: 'DELETE', url: '/api/v1/namespaces/default/pods', want: res({ verb: 'deletecollection', name: '' }) },
  { name: 'lowercase method', method: 'get', url: '/api/v1/nodes', want: res({ verb: 'list', resource: 'nodes' }) },
  { name: 'unknown method on resource', method: 'OPTIONS', url: '/api/v1/nodes/n1', want: res({ verb: '', resource: 'nodes', name: 'n1' }) },
  // cluster-scoped, all namespaces
  { name: 'core cluster-scoped get', method: 'GET', url: '/api/v1/nodes/n1', want: res({ verb: 'get', namespace: '', resource: 'nodes', name: 'n1' }) },
  { name: 'namespaced type across namespaces', method: 'GET', url: '/api/v1/pods', want: res({ verb: 'list', namespace: '', resource: 'pods' }) },
  {
    name: 'named group across namespaces',
    method: 'GET',
    url: '/apis/apps/v1/deployments',
    want: res({ verb: 'list', apiPrefix: 'apis', apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments' }),
  },
  // named groups
  {
    name: 'named group cluster-scoped',
    method: 'GET',
    url: '/apis/rbac.authorization.platform.io/v1/clusterroles/admin',
    want: res({ verb: 'get', apiGroup: 'rbac.authorization.platform.io', apiVersion: 'v1', resource: 'clusterroles', name: 'admin' }),
  },
  {
    name: 'named group namespaced',
    method: 'PUT',
    url: '/apis/apps/v1/namespaces/ns1/deployments/web',
    want: res({ verb: 'update', apiGroup: 'apps', namespace: 'ns1', resource: 'deployments', name: 'web' }),
  },
  // subresources
  {
    name: 'namespaced subresource',
    method: 'GET',
    url: '/api/v1/namespaces/default/pods/p1/log',
    want: res({ verb: 'get', namespace: 'default', resource: 'pods', name: 'p1', subresource: 'log', parts: ['pods', 'p1', 'log'] }),
  },
  {
    name: 'status subresource update',
    method: 'PUT',
    url: '/apis/apps/v1/namespaces/ns1/deployments/web/status',
    want: res({ verb: 'update', resource: 'deployments', name: 'web', subresource: 'status' }),
  },
  {
    name: 'cluster-scoped subresource',
    method: 'PUT',
    url: '/apis/certificates.platform.io/v1/certificatesigningrequests/csr1/approval',
    want: res({ verb: 'update', apiGroup: 'certificates.platform.io', resource: 'certificatesigningrequests', name: 'csr1', subresource: 'approval' }),
  },
  { name: 'eviction create', method: 'POST', url: '/api/v1/namespaces/default/pods/p1/eviction', want: res({ verb: 'create', name: 'p1', subresource: 'eviction' }) },
  {
    name: 'proxy subresource keeps the rest in parts',
    method: 'GET',
    url: '/api/v1/namespaces/default/pods/p1/proxy/a/b',
    want: res({ verb: 'get', name: 'p1', subresource: 'proxy', parts: ['pods', 'p1', 'proxy', 'a', 'b'] }),
  },
  // the namespaces resource itself
  { name: 'namespaces list', method: 'GET', url: '/api/v1/namespaces', want: res({ verb: 'list', namespace: '', resource: 'namespaces', parts: ['namespaces'] }) },
  { name: 'namespace get', method: 'GET', url: '/api/v1/namespaces/ns1', want: res({ verb: 'get', namespace: 'ns1', resource: 'namespaces', name: 'ns1' }) },
  { name: 'namespace delete', method: 'DELETE', url: '/api/v1/namespaces/ns1', want: res({ verb: 'delete', namespace: 'ns1', resource: 'namespaces', name: 'ns1' }) },
  { name: 'namespace status', method: 'PUT', url: '/api/v1/namespaces/ns1/status', want: res({ verb: 'update', namespace: 'ns1', resource: 'namespaces', name: 'ns1', subresource: 'status' }) },
  { name: 'namespace finalize', method: 'PUT', url: '/api/v1/namespaces/ns1/finalize', want: res({ verb: 'update', namespace: 'ns1', resource: 'namespaces', name: 'ns1', subresource: 'finalize' }) },
  { name: 'namespace create', method: 'POST', url: '/api/v1/namespaces', want: res({ verb: 'create', resource: 'namespaces' }) },
  // path scope: whether the resource sits inside `namespaces/<ns>/` (what routing compares with
  // the type's scope), as opposed to the namespace object's own URL, which names a namespace too
  { name: 'scope: namespaced path', method: 'GET', url: '/api/v1/namespaces/ns1/pods/p1/log', want: res({ namespaced: true, namespace: 'ns1', resource: 'pods', name: 'p1', subresource: 'log' }) },
  { name: 'scope: cluster path', method: 'GET', url: '/api/v1/nodes/n1/status', want: res({ namespaced: false, namespace: '', resource: 'nodes', name: 'n1', subresource: 'status' }) },
  { name: 'scope: all-namespaces collection', method: 'GET', url: '/apis/apps/v1/deployments', want: res({ namespaced: false, namespace: '' }) },
  { name: 'scope: cluster-scoped type under a namespace', method: 'GET', url: '/api/v1/namespaces/ns1/nodes/n1', want: res({ namespaced: true, namespace: 'ns1', resource: 'nodes', name: 'n1' }) },
  { name: 'scope: namespaces collection', method: 'GET', url: '/api/v1/namespaces', want: res({ namespaced: false, namespace: '', resource: 'namespaces' }) },
  {
    name: 'scope: a namespace object',
    method: 'GET',
    url: '/api/v1/namespaces/ns1',
    want: res({ namespaced: false, namespace: 'ns1', resource: 'namespaces', name: 'ns1', parts: ['namespaces', 'ns1'] }),
  },
  { name: 'scope: a namespace status', method: 'PUT', url: '/api/v1/namespaces/ns1/status', want: res({ namespaced: false, namespace: 'ns1', name: 'ns1', subresource: 'status' }) },
  { name: 'scope: a namespace finalize', method: 'PUT', url: '/api/v1/namespaces/ns1/finalize', want: res({ namespaced: false, namespace: 'ns1', name: 'ns1', subresource: 'finalize' }) },
  { name: 'scope: legacy watch of a namespace object', method: 'GET', url: '/api/v1/watch/namespaces/ns1', want: res({ verb: 'watch', namespaced: false, namespace: 'ns1', name: 'ns1' }) },
  {
    name: 'scope: namespaces inside a namespace',
    method: 'GET',
    url: '/api/v1/namespaces/ns1/namespaces',
    want: res({ verb: 'list', namespaced: true, namespace: 'ns1', resource: 'namespaces', name: '', parts: ['namespaces'] }),
  },
  {
    name: 'scope: a namespace inside a namespace',
    method: 'DELETE',
    url: '/api/v1/namespaces/ns1/namespaces/other',
    want: res({ verb: 'delete', namespaced: true, namespace: 'ns1', resource: 'namespaces', name: 'other' }),
  },
  {
    name: 'scope: a namespace inside itself',
    method: 'GET',
    url: '/api/v1/namespaces/ns1/namespaces/ns1',
    want: res({ namespaced: true, namespace: 'ns1', resource: 'namespaces', name: 'ns1', parts: ['namespaces', 'ns1'] }),
  },
  {
    name: 'scope: a namespace finalize inside a namespace',
    method: 'PUT',
    url: '/api/v1/namespaces/ns1/namespaces/other/finalize',
    want: res({ namespaced: true, namespace: 'ns1', name: 'other', subresource: 'finalize' }),
  },
  {
    name: 'scope: legacy watch of namespaces inside a namespace',
    method: 'GET',
    url: '/api/v1/watch/namespaces/ns1/namespaces',
    want: res({ verb: 'watch', namespaced: true, namespace: 'ns1', resource: 'namespaces' }),
  },
  // watch
  { name: 'watch by query', method: 'GET', url: '/api/v1/namespaces/default/pods?watch=true', want: res({ verb: 'watch', resource: 'pods', name: '' }) },
  { name: 'watch=1', method: 'GET', url: '/api/v1/pods?watch=1', want: res({ verb: 'watch' }) },
  { name: 'bare watch flag', method: 'GET', url: '/api/v1/pods?watch', want: res({ verb: 'watch' }) },
  { name: 'watch=false is list', method: 'GET', url: '/api/v1/pods?watch=false', want: res({ verb: 'list' }) },
  { name: 'watch=0 is list', method: 'GET', url: '/api/v1/pods?watch=0', want: res({ verb: 'list' }) },
  { name: 'named get ignores watch', method: 'GET', url: '/api/v1/namespaces/default/pods/p1?watch=true', want: res({ verb: 'get', name: 'p1' }) },
  {
    name: 'single-object watch by field selector',
    method: 'GET',
    url: '/api/v1/namespaces/default/pods?watch=true&fieldSelector=metadata.name%3Dp1',
    want: res({ verb: 'watch', name: 'p1', parts: ['pods'] }),
  },
  { name: 'single-object list by field selector', method: 'GET', url: '/api/v1/namespaces/default/pods?fieldSelector=metadata.name==p1', want: res({ verb: 'list', name: 'p1' }) },
  { name: 'negated name selector pins nothing', method: 'GET', url: '/api/v1/pods?fieldSelector=metadata.name!%3Dp1', want: res({ verb: 'list', name: '' }) },
  { name: 'other field selector pins nothing', method: 'GET', url: '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1', want: res({ verb: 'list', name: '' }) },
  { name: 'malformed field selector pins nothing', method: 'GET', url: '/api/v1/pods?fieldSelector=metadata.name', want: res({ verb: 'list', name: '' }) },
  { name: 'selector name must be a path segment', method: 'GET', url: '/api/v1/pods?fieldSelector=metadata.name%3D..', want: res({ verb: 'list', name: '' }) },
  {
    name: 'deletecollection ignores field selector name',
    method: 'DELETE',
    url: '/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dp1',
    want: res({ verb: 'deletecollection', name: '' }),
  },
  { name: 'legacy watch collection', method: 'GET', url: '/api/v1/watch/namespaces/default/pods', want: res({ verb: 'watch', namespace: 'default', resource: 'pods', name: '', parts: ['pods'] }) },
  { name: 'legacy watch one object', method: 'GET', url: '/api/v1/watch/namespaces/default/pods/p1', want: res({ verb: 'watch', namespace: 'default', resource: 'pods', name: 'p1' }) },
  { name: 'legacy watch named group', method: 'GET', url: '/apis/apps/v1/watch/deployments', want: res({ verb: 'watch', apiGroup: 'apps', resource: 'deployments' }) },
  { name: 'legacy watch namespaces', method: 'GET', url: '/api/v1/watch/namespaces', want: res({ verb: 'watch', resource: 'namespaces', namespace: '' }) },
  { name: 'legacy watch one namespace', method: 'GET', url: '/api/v1/watch/namespaces/ns1', want: res({ verb: 'watch', resource: 'namespaces', namespace: 'ns1', name: 'ns1' }) },
  {
    name: 'legacy proxy',
    method: 'GET',
    url: '/api/v1/proxy/namespaces/default/pods/p1/x/y',
    want: res({ verb: 'proxy', namespace: 'default', resource: 'pods', name: 'p1', subresource: '', parts: ['pods', 'p1', 'x', 'y'] }),
  },
  // odd names and encoding
  { name: 'colon name', method: 'GET', url: '/apis/rbac.authorization.platform.io/v1/clusterroles/system:node:n1', want: res({ verb: 'get', name: 'system:node:n1' }) },
  { name: 'dotted name', method: 'GET', url: '/api/v1/namespaces/ns/configmaps/my.config', want: res({ verb: 'get', resource: 'configmaps', name: 'my.config' }) },
  { name: 'percent-encoded name', method: 'GET', url: '/apis/rbac.authorization.platform.io/v1/clusterroles/system%3Anode%3An1', want: res({ verb: 'get', name: 'system:node:n1' }) },
  { name: 'trailing slash', method: 'GET', url: '/api/v1/namespaces/ns/pods/', want: res({ verb: 'list', resource: 'pods' }) },
];

const nonResource: Case[] = [
  { name: 'healthz', method: 'GET', url: '/healthz', want: { verb: 'get' } },
  { name: 'livez check', method: 'GET', url: '/livez/etcd', want: { verb: 'get' } },
  { name: 'version', method: 'GET', url: '/version', want: { verb: 'get' } },
  { name: 'openapi', method: 'GET', url: '/openapi/v2', want: { verb: 'get' } },
  { name: 'metrics post', method: 'POST', url: '/metrics', want: { verb: 'post' } },
  { name: 'root', method: 'GET', url: '/', want: { verb: 'get' } },
  { name: 'api discovery', method: 'GET', url: '/api', want: { verb: 'get' } },
  { name: 'core version discovery', method: 'GET', url: '/api/v1', want: { verb: 'get' } },
  { name: 'apis discovery', method: 'GET', url: '/apis', want: { verb: 'get' } },
  { name: 'group discovery', method: 'GET', url: '/apis/apps', want: { verb: 'get' } },
  { name: 'group version discovery', method: 'GET', url: '/apis/apps/v1', want: { verb: 'get' } },
  { name: 'put on non-resource', method: 'PUT', url: '/healthz', want: { verb: 'put' } },
  { name: 'other prefix', method: 'GET', url: '/foo/v1/pods', want: { verb: 'get' } },
  { name: 'dot-dot segment', method: 'GET', url: '/api/v1/namespaces/ns/../secrets', want: { verb: 'get' } },
  { name: 'dot segment', method: 'GET', url: '/api/v1/./pods', want: { verb: 'get' } },
  { name: 'empty segment', method: 'GET', url: '/api/v1//pods', want: { verb: 'get' } },
  { name: 'encoded slash', method: 'GET', url: '/api/v1/namespaces/ns/configmaps/a%2Fb', want: { verb: 'get' } },
  { name: 'encoded dot-dot', method: 'GET', url: '/api/v1/namespaces/ns/%2E%2E/secrets', want: { verb: 'get' } },
  { name: 'bad percent encoding', method: 'GET', url: '/api/v1/namespaces/ns/pods/%zz', want: { verb: 'get' } },
  { name: 'legacy watch with nothing after it', method: 'GET', url: '/api/v1/watch', want: { verb: 'get' } },
];

function split(url: string): { path: string; query: URLSearchParams } {
  const q = url.indexOf('?');
  return q < 0 ? { path: url, query: new URLSearchParams() } : { path: url.slice(0, q), query: new URLSearchParams(url.slice(q + 1)) };
}

for (const c of cases) {
  test(`request info - ${c.name}`, () => {
    const { path, query } = split(c.url);
    const info = parseRequestInfo(c.method, path, query);
    assert.equal(info.path, path);
    for (const [k, v] of Object.entries(c.want)) assert.deepEqual(info[k as keyof RequestInfo], v, `${c.method} ${c.url}: ${k}`);
  });
}

for (const c of nonResource) {
  test(`request info - non-resource ${c.name}`, () => {
    const { path, query } = split(c.url);
    const info = parseRequestInfo(c.method, path, query);
    assert.deepEqual(info, {
      isResourceRequest: false,
      path,
      verb: c.want.verb,
      apiPrefix: '',
      apiGroup: '',
      groupSpelling: '',
      apiVersion: '',
      namespace: '',
      namespaced: false,
      resource: '',
      subresource: '',
      name: '',
      parts: [],
    });
  });
}
