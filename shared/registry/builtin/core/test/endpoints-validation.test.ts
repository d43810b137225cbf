// Endpoints addresses as upstream validates them: a valid IP, never loopback, link-local or
// unspecified (in any IPv4-mapped spelling either), in ready and not-ready addresses alike.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../../api/types.js';
import type { FieldError } from '../../../../api/status.js';
import { endpoints } from '../endpoints.js';

const ep = (addresses: string[], notReady: string[] = []): ApiObject =>
  ({
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'svc', namespace: 'ns' },
    subsets: [{ addresses: addresses.map((ip) => ({ ip })), notReadyAddresses: notReady.map((ip) => ({ ip })), ports: [{ name: 'http', port: 80 }] }],
  }) as ApiObject;
const brief = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${e.type}: ${e.detail}`);
const LOOPBACK = 'may not be in the loopback range (127.0.0.0/8, ::1/128)';
const LINK_LOCAL = 'may not be in the link-local range (169.254.0.0/16, fe80::/10)';

describe('Endpoints validation', () => {
  const validate = endpoints.strategy!.validate!;
  const cases: Array<[name: string, obj: ApiObject, want: string[]]> = [
    ['private and public addresses', ep(['10.0.0.1', '192.168.1.1', '2001:db8::1', '8.8.8.8'], ['172.16.0.9']), []],
    ['not an IP address', ep(['not-an-ip']), ['subsets[0].addresses[0].ip: Invalid value: must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']],
    ['loopback', ep(['10.0.0.1', '127.0.0.1']), [`subsets[0].addresses[1].ip: Invalid value: ${LOOPBACK}`]],
    ['IPv6 loopback', ep(['::1']), [`subsets[0].addresses[0].ip: Invalid value: ${LOOPBACK}`]],
    ['IPv4-mapped loopback, compressed', ep(['::ffff:7f00:1']), [`subsets[0].addresses[0].ip: Invalid value: ${LOOPBACK}`]],
    ['IPv4-mapped loopback, expanded', ep(['0:0:0:0:0:ffff:7f00:1']), [`subsets[0].addresses[0].ip: Invalid value: ${LOOPBACK}`]],
    ['IPv4-mapped loopback, dotted', ep(['::ffff:127.0.0.1']), [`subsets[0].addresses[0].ip: Invalid value: ${LOOPBACK}`]],
    ['the metadata address', ep(['169.254.169.254']), [`subsets[0].addresses[0].ip: Invalid value: ${LINK_LOCAL}`]],
    ['IPv6 link-local', ep(['fe80::1']), [`subsets[0].addresses[0].ip: Invalid value: ${LINK_LOCAL}`]],
    ['unspecified', ep(['0.0.0.0']), ['subsets[0].addresses[0].ip: Invalid value: may not be unspecified (0.0.0.0)']],
    ['link-local multicast', ep(['224.0.0.1']), ['subsets[0].addresses[0].ip: Invalid value: may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)']],
    ['a not-ready address too', ep(['10.0.0.1'], ['::ffff:a9fe:a9fe']), [`subsets[0].notReadyAddresses[0].ip: Invalid value: ${LINK_LOCAL}`]],
  ];
  for (const [name, obj, want] of cases) it(name, () => assert.deepEqual(brief(validate(obj)), want));

  it('an update is held to the same rules', () => {
    const errs = brief(endpoints.strategy!.validateUpdate?.(ep(['127.0.0.1']), ep(['10.0.0.1'])) ?? validate(ep(['127.0.0.1'])));
    assert.deepEqual(errs, [`subsets[0].addresses[0].ip: Invalid value: ${LOOPBACK}`]);
  });
});
