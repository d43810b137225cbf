// Which addresses a proxy may reach and an Endpoints address may hold, over every spelling of
// the same address: the attacker's `::ffff:7f00:1` must read as 127.0.0.1 wherever it is checked.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalIP, proxyableIP, validateEndpointIP } from '../special-ip.js';

describe('canonicalIP', () => {
  const cases: Array<[spelling: string, canonical: string | undefined]> = [
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::ffff:7f00:1', '127.0.0.1'],
    ['0:0:0:0:0:ffff:7f00:1', '127.0.0.1'],
    ['0000:0000:0000:0000:0000:FFFF:7F00:0001', '127.0.0.1'],
    ['::FFFF:7F00:1', '127.0.0.1'],
    ['::7f00:1', '127.0.0.1'],
    ['::127.0.0.1', '127.0.0.1'],
    ['::ffff:0:7f00:1', '127.0.0.1'],
    ['64:ff9b::7f00:1', '127.0.0.1'],
    ['64:ff9b::169.254.169.254', '169.254.169.254'],
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0177.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['0xa9.0xfe.0xa9.0xfe', '169.254.169.254'],
    ['2852039166', '169.254.169.254'],
    ['0', '0.0.0.0'],
    ['[::1]', '::1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['::', '::'],
    ['FE80::1%eth0', 'fe80::1'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:db8::1%2', '2001:db8::1'],
    ['10.0.0.1', '10.0.0.1'],
    ['localhost', undefined],
    ['example.com', undefined],
    ['256.0.0.1', undefined],
    ['1.2.3.4.5', undefined],
    ['0x100.1', undefined],
    ['08.0.0.1', undefined],
    ['', undefined],
  ];
  for (const [spelling, canonical] of cases) it(`${JSON.stringify(spelling)} reads as ${canonical ?? 'a name'}`, () => assert.equal(canonicalIP(spelling), canonical));
});

describe('proxyableIP', () => {
  const refused = [
    // loopback
    '127.0.0.1',
    '127.8.9.1',
    '::1',
    '0:0:0:0:0:0:0:1',
    '[::1]',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '0:0:0:0:0:ffff:7f00:1',
    '::FFFF:7F00:0001',
    '::7f00:1',
    '::127.0.0.1',
    '64:ff9b::7f00:1',
    '64:ff9b::127.0.0.1',
    '2130706433',
    '0x7f.1',
    '0177.0.0.1',
    '127.1',
    '0x7f000001',
    // link-local, the metadata address in any spelling
    '169.254.169.254',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '64:ff9b::a9fe:a9fe',
    '2852039166',
    '0xa9.0xfe.0xa9.0xfe',
    '0251.0376.0251.0376',
    '169.254.43518',
    'fe80::1',
    'FE80::1%eth0',
    'febf::1',
    // unspecified
    '0.0.0.0',
    '0.1.2.3',
    '0',
    '::',
    '0:0:0:0:0:0:0:0',
    '::ffff:0.0.0.0',
    // multicast and broadcast
    '224.0.0.1',
    '239.255.255.250',
    '::ffff:e000:1',
    'ff02::1',
    'ff05::2',
    'FF0E::1',
    '255.255.255.255',
    '0xffffffff',
    // not an address at all
    'not-an-ip',
    'localhost',
    '',
  ];
  const allowed = [
    '10.0.0.1',
    '192.168.1.1',
    '172.16.0.1',
    '8.8.8.8',
    '2001:db8::1',
    '2001:DB8::0001',
    'fd00::1',
    '::ffff:10.0.0.1',
    '::ffff:a00:1',
    '64:ff9b::808:808',
    '10.1',
    '0xa.1',
    '126.255.255.255',
    '128.0.0.1',
    '169.253.255.255',
    '223.255.255.255',
    'fec0::1',
  ];
  for (const ip of refused) it(`refuses ${JSON.stringify(ip)}`, () => assert.equal(proxyableIP(ip), false));
  for (const ip of allowed) it(`allows ${ip}`, () => assert.equal(proxyableIP(ip), true));
});

describe('validateEndpointIP', () => {
  const detail = (value: string) => validateEndpointIP(value, 'subsets[0].addresses[0].ip').map((e) => `${e.field}: ${e.detail}`);
  const cases: Array<[value: string, details: string[]]> = [
    ['10.0.0.1', []],
    ['2001:db8::1', []],
    ['::ffff:10.0.0.1', []],
    ['239.1.1.1', []],
    ['not-an-ip', ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']],
    ['fe80::1%eth0', ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']],
    ['0x7f.1', ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']],
    ['0.0.0.0', ['may not be unspecified (0.0.0.0)']],
    ['::', ['may not be unspecified (::)']],
    ['127.0.0.1', ['may not be in the loopback range (127.0.0.0/8, ::1/128)']],
    ['::1', ['may not be in the loopback range (127.0.0.0/8, ::1/128)']],
    ['::ffff:7f00:1', ['may not be in the loopback range (127.0.0.0/8, ::1/128)']],
    ['0:0:0:0:0:ffff:7f00:1', ['may not be in the loopback range (127.0.0.0/8, ::1/128)']],
    ['::ffff:127.0.0.1', ['may not be in the loopback range (127.0.0.0/8, ::1/128)']],
    ['169.254.169.254', ['may not be in the link-local range (169.254.0.0/16, fe80::/10)']],
    ['::ffff:a9fe:a9fe', ['may not be in the link-local range (169.254.0.0/16, fe80::/10)']],
    ['fe80::1', ['may not be in the link-local range (169.254.0.0/16, fe80::/10)']],
    ['224.0.0.251', ['may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)']],
    ['ff02::1', ['may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)']],
    ['ff12::1', ['may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)']],
  ];
  for (const [value, details] of cases)
    it(`${value}: ${details.length ? details[0] : 'valid'}`, () =>
      assert.deepEqual(
        detail(value),
        details.map((d) => `subsets[0].addresses[0].ip: ${d}`),
      ));

  it('a value that is not a string is invalid', () => assert.equal(validateEndpointIP(undefined, 'ip')[0]?.type, 'Invalid value'));
});
