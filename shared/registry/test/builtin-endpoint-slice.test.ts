// EndpointSlices: v1 ↔ v1beta1 topology conversion (lossless both ways), validation and the table.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../api/types.js';
import { createBuiltinRegistry } from '../builtin-registry.js';
import { Targets } from '../target.js';
import { HOSTNAME_LABEL, ZONE_LABEL, endpointslices } from '../builtin/discovery/endpoint-slice.js';
import { createFlow, fields } from './builtin-helpers.js';

const registry = createBuiltinRegistry();
const targets = new Targets(registry);
const v1 = targets.of('discovery.platform.io', 'v1', 'endpointslices')!;
const beta = targets.of('discovery.platform.io', 'v1beta1', 'endpointslices')!;
const read = (t: typeof v1, o: ApiObject) => (t.fromStored ? t.fromStored(o) : o);

const slice = (apiVersion: string, endpoint: Record<string, unknown>): ApiObject => ({
  apiVersion,
  kind: 'EndpointSlice',
  metadata: { name: 's', namespace: 'ns' },
  addressType: 'IPv4',
  endpoints: [{ addresses: ['10.0.0.1'], ...endpoint }],
});
const endpointOf = (o: ApiObject) => (o.endpoints as Array<Record<string, unknown>>)[0];

describe('EndpointSlice topology between v1beta1 and v1', () => {
  const cases: Array<{ name: string; beta: Record<string, unknown>; v1: Record<string, unknown> }> = [
    { name: 'zone moves to its field', beta: { topology: { [ZONE_LABEL]: 'z1', rack: 'r1' } }, v1: { zone: 'z1', deprecatedTopology: { rack: 'r1' } } },
    { name: 'a host name equal to nodeName is not repeated', beta: { nodeName: 'n1', topology: { [HOSTNAME_LABEL]: 'n1' } }, v1: { nodeName: 'n1' } },
    { name: 'a host name other than nodeName is kept', beta: { nodeName: 'n1', topology: { [HOSTNAME_LABEL]: 'other' } }, v1: { nodeName: 'n1', deprecatedTopology: { [HOSTNAME_LABEL]: 'other' } } },
    { name: 'no topology, no fields', beta: {}, v1: {} },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const stored = beta.toStored(slice('discovery.platform.io/v1beta1', c.beta));
      assert.equal(stored.apiVersion, 'discovery.platform.io/v1');
      assert.deepEqual(endpointOf(read(v1, stored)), { addresses: ['10.0.0.1'], ...c.v1 });
      // Read back through v1beta1: nodeName shows in the map as upstream shows it.
      const back = read(beta, stored);
      assert.equal(back.apiVersion, 'discovery.platform.io/v1beta1');
      const again = beta.toStored(back);
      assert.deepEqual(again, stored, 'v1beta1 → v1 → v1beta1 → v1 loses nothing');
    });
  }

  it('a v1 endpoint with nodeName and zone reads as a v1beta1 topology map and writes back the same', () => {
    const stored = v1.toStored(slice('discovery.platform.io/v1', { nodeName: 'n1', zone: 'z', deprecatedTopology: { rack: 'r' } }));
    const asBeta = endpointOf(read(beta, stored))!;
    assert.deepEqual(asBeta, { addresses: ['10.0.0.1'], nodeName: 'n1', topology: { rack: 'r', [ZONE_LABEL]: 'z', [HOSTNAME_LABEL]: 'n1' } });
    assert.deepEqual(beta.toStored(read(beta, stored)), stored);
  });
});

describe('EndpointSlice validation', () => {
  const errs = (o: Record<string, unknown>) =>
    fields(createFlow(endpointslices, { apiVersion: 'discovery.platform.io/v1', kind: 'EndpointSlice', metadata: { name: 's', namespace: 'ns' }, ...o } as ApiObject).errors);
  const cases: Array<[name: string, body: Record<string, unknown>, want: string[]]> = [
    ['a valid IPv4 slice', { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }], ports: [{ name: 'http', port: 80 }] }, []],
    ['an unknown address type', { addressType: 'IP', endpoints: [] }, ['addressType: Unsupported value']],
    ['an IPv6 address in an IPv4 slice', { addressType: 'IPv4', endpoints: [{ addresses: ['::1'] }] }, ['endpoints[0].addresses[0]: Invalid value']],
    ['an endpoint without addresses', { addressType: 'IPv4', endpoints: [{ addresses: [] }] }, ['endpoints[0].addresses: Required value']],
    ['an FQDN slice takes names', { addressType: 'FQDN', endpoints: [{ addresses: ['db.example.com'] }] }, []],
    [
      'duplicate port names',
      {
        addressType: 'IPv4',
        endpoints: [],
        ports: [
          { name: 'a', port: 1 },
          { name: 'a', port: 2 },
        ],
      },
      ['ports[1].name: Duplicate value'],
    ],
    ['a port out of range', { addressType: 'IPv4', endpoints: [], ports: [{ port: 70000 }] }, ['ports[0].port: Invalid value']],
    ['a bad hostname', { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], hostname: 'Not_A_Label' }] }, ['endpoints[0].hostname: Invalid value']],
    ['an IPv6 slice', { addressType: 'IPv6', endpoints: [{ addresses: ['2001:db8::1', 'fd00::2'] }] }, []],
    ['not an address', { addressType: 'IPv4', endpoints: [{ addresses: ['not-an-ip'] }] }, ['endpoints[0].addresses[0]: Invalid value']],
    ['IPv4 loopback', { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1', '127.0.0.1'] }] }, ['endpoints[0].addresses[1]: Invalid value']],
    ['the metadata address', { addressType: 'IPv4', endpoints: [{ addresses: ['169.254.169.254'] }] }, ['endpoints[0].addresses[0]: Invalid value']],
    ['IPv4 unspecified', { addressType: 'IPv4', endpoints: [{ addresses: ['0.0.0.0'] }] }, ['endpoints[0].addresses[0]: Invalid value']],
    ['IPv4 link-local multicast', { addressType: 'IPv4', endpoints: [{ addresses: ['224.0.0.5'] }] }, ['endpoints[0].addresses[0]: Invalid value']],
    ['IPv6 loopback', { addressType: 'IPv6', endpoints: [{ addresses: ['::1'] }] }, ['endpoints[0].addresses[0]: Invalid value']],
    ['IPv6 unspecified', { addressType: 'IPv6', endpoints: [{ addresses: ['::'] }] }, ['endpoints[0].addresses[0]: Invalid value']],
    ['IPv6 link-local', { addressType: 'IPv6', endpoints: [{ addresses: ['fe80::1'] }] }, ['endpoints[0].addresses[0]: Invalid value']],
    ['IPv6 link-local multicast', { addressType: 'IPv6', endpoints: [{ addresses: ['ff02::1'] }] }, ['endpoints[0].addresses[0]: Invalid value']],
    ['IPv4-mapped loopback in an IPv6 slice', { addressType: 'IPv6', endpoints: [{ addresses: ['::ffff:7f00:1'] }] }, ['endpoints[0].addresses[0]: Invalid value']],
    ['IPv4-mapped loopback in an IPv4 slice', { addressType: 'IPv4', endpoints: [{ addresses: ['::ffff:127.0.0.1'] }] }, ['endpoints[0].addresses[0]: Invalid value']],
  ];
  for (const [name, body, want] of cases) it(name, () => assert.deepEqual(errs(body), want));

  it('says why a special address is refused, in v1beta1 too', () => {
    const body = {
      apiVersion: 'discovery.platform.io/v1beta1',
      kind: 'EndpointSlice',
      metadata: { name: 's', namespace: 'ns' },
      addressType: 'IPv6',
      endpoints: [{ addresses: ['::1', 'fe80::1'] }],
    } as ApiObject;
    const { errors } = createFlow(endpointslices, beta.toStored(body));
    assert.deepEqual(
      errors.map((e) => e.detail),
      ['may not be in the loopback range (127.0.0.0/8, ::1/128)', 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'],
    );
  });

  it('defaults a port to TCP with an empty name', () => {
    const { obj } = createFlow(endpointslices, {
      apiVersion: 'discovery.platform.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 's' },
      addressType: 'IPv4',
      endpoints: [],
      ports: [{ port: 80 }],
    } as ApiObject);
    assert.deepEqual(obj.ports, [{ port: 80, name: '', protocol: 'TCP' }]);
  });

  it('addressType is immutable', () => {
    const old = { apiVersion: 'discovery.platform.io/v1', kind: 'EndpointSlice', metadata: { name: 's' }, addressType: 'IPv4', endpoints: [] } as ApiObject;
    assert.deepEqual(fields(endpointslices.strategy!.validateUpdate!({ ...old, addressType: 'IPv6' }, old)), ['addressType: Invalid value']);
  });

  it('table: address type, first three ports and addresses', () => {
    const cell = (n: string, o: Record<string, unknown>) => endpointslices.columns!.find((c) => c.name === n)!.cell(o as ApiObject);
    const o = { addressType: 'IPv4', ports: [{ port: 80 }, { port: 443 }], endpoints: [{ addresses: ['10.0.0.1', '10.0.0.2'] }, { addresses: ['10.0.0.3', '10.0.0.4'] }] };
    assert.deepEqual([cell('AddressType', o), cell('Ports', o), cell('Endpoints', o)], ['IPv4', '80,443', '10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...']);
    assert.deepEqual([cell('Ports', { ports: [] }), cell('Endpoints', { endpoints: [] })], ['<unset>', '<unset>']);
  });
});
