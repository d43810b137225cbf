import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../types.js';
import { pickAddress, resolveServiceEndpoints } from '../service-endpoints.js';

const service = (spec: Record<string, unknown>): ApiObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'api', namespace: 'ns' }, spec });
const endpoints = (subsets: unknown[]): ApiObject => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'api', namespace: 'ns' }, subsets });
const svc = service({
  ports: [
    { name: 'https', port: 443 },
    { name: 'metrics', port: 9090 },
  ],
});

test('service endpoints - the ready addresses of the port the Service port names, across subsets', () => {
  const eps = endpoints([
    { addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ name: 'https', port: 8443 }] },
    {
      addresses: [{ ip: '10.0.0.3' }],
      notReadyAddresses: [{ ip: '10.0.0.9' }],
      ports: [
        { name: 'https', port: 9443 },
        { name: 'metrics', port: 9090 },
      ],
    },
  ]);
  assert.deepEqual(resolveServiceEndpoints(svc, eps, 443), {
    kind: 'ok',
    addresses: [
      { host: '10.0.0.1', port: 8443 },
      { host: '10.0.0.2', port: 8443 },
      { host: '10.0.0.3', port: 9443 },
    ],
  });
  assert.deepEqual(
    pickAddress(
      [
        { host: 'a', port: 1 },
        { host: 'b', port: 2 },
      ],
      () => 1,
    ),
    { host: 'b', port: 2 },
  );
});

test('service endpoints - why there is nothing to dial: the type, the port, no Endpoints, no usable address', () => {
  assert.deepEqual(resolveServiceEndpoints(service({ type: 'ExternalName', externalName: 'example.com' }), undefined, 443), { kind: 'unsupported-type', type: 'ExternalName' });
  assert.deepEqual(resolveServiceEndpoints(svc, undefined, 8080), { kind: 'no-port' });
  assert.deepEqual(resolveServiceEndpoints(svc, undefined, 443), { kind: 'no-endpoints', endpoints: false, portName: 'https' });
  assert.deepEqual(resolveServiceEndpoints(svc, endpoints([{ addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'metrics', port: 9090 }] }]), 443), {
    kind: 'no-endpoints',
    endpoints: true,
    portName: 'https',
  });
  // The host's own addresses, in any spelling, are never dialled.
  const own = endpoints([{ addresses: [{ ip: '127.0.0.1' }, { ip: '::ffff:127.0.0.1' }, { ip: '169.254.169.254' }, { ip: '0.0.0.0' }], ports: [{ name: 'https', port: 443 }] }]);
  assert.deepEqual(resolveServiceEndpoints(svc, own, 443), { kind: 'no-endpoints', endpoints: true, portName: 'https' });
});
