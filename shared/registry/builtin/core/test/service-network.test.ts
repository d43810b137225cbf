// The service network's pure rules, table-driven: IP and CIDR parsing and canonical text (RFC 5952,
// IPv4-mapped IPv6), offsets in a range, the `--service-cluster-ip-range` /
// `--service-node-port-range` flags, the ipFamilies/ipFamilyPolicy a Service gets on a single- and
// a dual-stack cluster (upstream's initIPFamilyFields), and what an update carries over from the
// stored Service or drops on a change of type (upstream's patchAllocatedValues and
// dropTypeDependentFields).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../../api/types.js';
import type { FieldError } from '../../../../api/status.js';
import { formatIP, offsetIn, parseCidr, parseIP, type IPFamily } from '../../../../api/ip.js';
import { carryOverAllocations, DEFAULT_SERVICE_CLUSTER_IP_RANGE, DEFAULT_SERVICE_NODE_PORT_RANGE, initIPFamilies, parseServiceNetwork, type ServiceNetwork } from '../service-network.js';

// ---- parseIP ------------------------------------------------------------------------------------

const goodIPs: Array<[string, IPFamily, bigint]> = [
  ['10.96.0.1', 'IPv4', 0x0a600001n],
  ['0.0.0.0', 'IPv4', 0n],
  ['255.255.255.255', 'IPv4', 0xffffffffn],
  ['::', 'IPv6', 0n],
  ['::1', 'IPv6', 1n],
  ['2001:DB8::1', 'IPv6', 0x20010db8000000000000000000000001n],
  ['2001:0db8:0000:0000:0000:0000:0000:0001', 'IPv6', 0x20010db8000000000000000000000001n],
  ['fd00:10:96::a', 'IPv6', 0xfd00001000960000000000000000000an],
  ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'IPv6', (1n << 128n) - 1n],
  // IPv4-mapped IPv6 reads as the IPv4 address (Go's To4), in dotted or hex form.
  ['::ffff:10.96.0.1', 'IPv4', 0x0a600001n],
  ['::FFFF:a60:1', 'IPv4', 0x0a600001n],
  ['0:0:0:0:0:ffff:10.96.0.1', 'IPv4', 0x0a600001n],
  // Other embedded-IPv4 forms stay IPv6.
  ['::10.96.0.1', 'IPv6', 0x0a600001n],
  ['64:ff9b::10.96.0.1', 'IPv6', 0x0064ff9b00000000000000000a600001n],
];

for (const [text, family, value] of goodIPs) {
  test(`service network - parseIP(${JSON.stringify(text)}) is ${family} ${value.toString(16)}`, () => {
    assert.deepEqual(parseIP(text), { family, value });
  });
}

const badIPs = [
  '',
  ' ',
  '10.96.0',
  '10.96.0.256',
  '10.96.0.1.1',
  '10.96.0.-1',
  ' 10.96.0.1',
  '10.96.0.1/32',
  '1::2::3',
  ':::',
  '12345::',
  'g::1',
  '1:2:3:4:5:6:7:8:9',
  'fe80::1%eth0',
  'localhost',
  '::ffff:10.96.0.256',
];

test('service network - parseIP rejects what is not an IP address', () => {
  for (const text of badIPs) assert.equal(parseIP(text), undefined, JSON.stringify(text));
});

// ---- formatIP (RFC 5952) --------------------------------------------------------------------------

const canonical: Array<[string, string]> = [
  ['10.96.0.15', '10.96.0.15'],
  ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
  ['2001:DB8::A', '2001:db8::a'],
  // The longest run of zero groups is compressed; the first of equal runs.
  ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
  ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
  // A single zero group is never compressed.
  ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
  ['0:0:0:0:0:0:0:0', '::'],
  ['0:0:0:0:0:0:0:1', '::1'],
  ['1:0:0:0:0:0:0:0', '1::'],
  ['1:0:0:2:0:0:0:0', '1:0:0:2::'],
  ['fd00:0010:0096:0000:0000:0000:0000:0000', 'fd00:10:96::'],
  ['FD00:10:96::FFFF', 'fd00:10:96::ffff'],
  // IPv4-mapped addresses are printed as IPv4.
  ['::ffff:10.96.0.1', '10.96.0.1'],
  ['::ffff:a60:1', '10.96.0.1'],
];

for (const [text, want] of canonical) {
  test(`service network - formatIP(parseIP(${JSON.stringify(text)})) is ${want}`, () => {
    const ip = parseIP(text);
    assert.ok(ip, text);
    assert.equal(formatIP(ip), want);
  });
}

test('service network - formatIP prints values built by hand', () => {
  assert.equal(formatIP({ family: 'IPv4', value: 0x0a60000fn }), '10.96.0.15');
  assert.equal(formatIP({ family: 'IPv4', value: 0n }), '0.0.0.0');
  assert.equal(formatIP({ family: 'IPv6', value: 0xfd000010009600000000000000000005n }), 'fd00:10:96::5');
  assert.equal(formatIP({ family: 'IPv6', value: (1n << 128n) - 1n }), 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff');
});

// ---- parseCidr and offsetIn ---------------------------------------------------------------------

const goodCidrs: Array<[string, IPFamily, string, number]> = [
  ['10.96.0.0/28', 'IPv4', '10.96.0.0/28', 28],
  // A host address names its network, as net.ParseCIDR does.
  ['10.96.0.7/28', 'IPv4', '10.96.0.0/28', 28],
  ['10.96.0.1/32', 'IPv4', '10.96.0.1/32', 32],
  ['0.0.0.0/0', 'IPv4', '0.0.0.0/0', 0],
  ['fd00:10:96::/112', 'IPv6', 'fd00:10:96::/112', 112],
  ['FD00:0010:0096:0000::1/112', 'IPv6', 'fd00:10:96::/112', 112],
  ['2001:db8::/32', 'IPv6', '2001:db8::/32', 32],
];

for (const [text, family, canon, prefix] of goodCidrs) {
  test(`service network - parseCidr(${JSON.stringify(text)}) is ${canon}`, () => {
    const c = parseCidr(text);
    assert.deepEqual([c.family, c.text, c.prefix], [family, canon, prefix]);
    assert.equal(formatIP({ family, value: c.base }), canon.split('/')[0]);
  });
}

const badCidrs = ['', '10.96.0.0', '10.96.0.0/', '/24', '10.96.0.0/33', 'fd00::/129', '10.96.0.0/-1', '10.96.0.0/2a', 'foo/24', '10.96.0.0/28/1', '10.96.0/24', '10.96.0.0/1000'];

test('service network - parseCidr throws for what is not a CIDR', () => {
  for (const text of badCidrs) assert.throws(() => parseCidr(text), /invalid CIDR/, JSON.stringify(text));
});

const offsets: Array<[string, string, bigint | undefined]> = [
  ['10.96.0.0/28', '10.96.0.0', 0n],
  ['10.96.0.0/28', '10.96.0.5', 5n],
  ['10.96.0.0/28', '10.96.0.15', 15n],
  ['10.96.0.0/28', '10.96.0.16', undefined],
  ['10.96.0.0/28', '10.95.255.255', undefined],
  ['10.96.0.0/28', '::ffff:10.96.0.3', 3n],
  ['10.96.0.0/28', 'fd00:10:96::3', undefined],
  ['fd00:10:96::/112', 'fd00:10:96::', 0n],
  ['fd00:10:96::/112', 'fd00:10:96::ffff', 65535n],
  ['fd00:10:96::/112', 'fd00:10:96::1:0', undefined],
  ['fd00:10:96::/112', 'fd00:10:95::1', undefined],
  ['fd00:10:96::/112', '10.96.0.3', undefined],
];

for (const [cidr, ip, want] of offsets) {
  test(`service network - offsetIn(${cidr}, ${ip}) is ${String(want)}`, () => {
    const parsed = parseIP(ip);
    assert.ok(parsed, ip);
    assert.equal(offsetIn(parseCidr(cidr), parsed), want);
  });
}

// ---- parseServiceNetwork ------------------------------------------------------------------------

const goodNetworks: Array<[string, string, string[], [number, number]]> = [
  ['10.96.0.0/28', '30000-30009', ['10.96.0.0/28'], [30000, 30009]],
  [DEFAULT_SERVICE_CLUSTER_IP_RANGE, DEFAULT_SERVICE_NODE_PORT_RANGE, ['10.0.0.0/24'], [30000, 32767]],
  ['10.96.0.0/28,fd00:10:96::/112', '30000-32767', ['10.96.0.0/28', 'fd00:10:96::/112'], [30000, 32767]],
  // The primary family is the first range's; blanks around the parts are fine.
  ['fd00:10:96::/112, 10.96.0.0/28', ' 30000-30009 ', ['fd00:10:96::/112', '10.96.0.0/28'], [30000, 30009]],
  // A host address names its network.
  ['10.96.0.9/28', '30000-30009', ['10.96.0.0/28'], [30000, 30009]],
  // Upstream's `first+count`: the ports from first to first+count.
  ['10.96.0.0/28', '30000+9', ['10.96.0.0/28'], [30000, 30009]],
  ['10.96.0.0/28', '30000+0', ['10.96.0.0/28'], [30000, 30000]],
  ['10.96.0.0/28', '30000-30000', ['10.96.0.0/28'], [30000, 30000]],
  ['10.96.0.0/30', '1-65535', ['10.96.0.0/30'], [1, 65535]],
];

for (const [ipRange, portRange, ranges, [first, last]] of goodNetworks) {
  test(`service network - flags ${JSON.stringify(ipRange)} ${JSON.stringify(portRange)} make ${ranges.join(',')} ${first}-${last}`, () => {
    const net = parseServiceNetwork(ipRange, portRange);
    assert.deepEqual(
      net.ranges.map((r) => r.text),
      ranges,
    );
    assert.deepEqual(
      net.ranges.map((r) => r.family),
      ranges.map((r) => (r.includes(':') ? 'IPv6' : 'IPv4')),
    );
    assert.deepEqual(net.nodePorts, { first, last });
  });
}

const badNetworks: Array<[string, string, RegExp]> = [
  ['10.96.0.0', '30000-32767', /CIDR/],
  ['10.96.0.0/28,', '30000-32767', /CIDR/],
  ['10.96.0.0/28,10.97.0.0/28', '30000-32767', /service-cluster-ip-range/],
  ['fd00:10:96::/112,fd00:10:97::/112', '30000-32767', /service-cluster-ip-range/],
  ['10.96.0.0/28,fd00:10:96::/112,10.97.0.0/28', '30000-32767', /service-cluster-ip-range/],
  // Nothing left to hand out.
  ['10.96.0.0/32', '30000-32767', /service-cluster-ip-range/],
  ['fd00:10:96::/127', '30000-32767', /service-cluster-ip-range/],
  ['10.96.0.0/28', 'a-b', /service-node-port-range/],
  ['10.96.0.0/28', '30000:30009', /service-node-port-range/],
  ['10.96.0.0/28', '30000-', /service-node-port-range/],
  ['10.96.0.0/28', '30010-30000', /service-node-port-range/],
  ['10.96.0.0/28', '30000-70000', /service-node-port-range/],
  ['10.96.0.0/28', '65530+10', /service-node-port-range/],
  ['10.96.0.0/28', '-1-30000', /service-node-port-range/],
];

for (const [ipRange, portRange, message] of badNetworks) {
  test(`service network - flags ${JSON.stringify(ipRange)} ${JSON.stringify(portRange)} are refused`, () => {
    assert.throws(() => parseServiceNetwork(ipRange, portRange), message);
  });
}

test('service network - a single port is a node port range of one, as upstream reads `--service-node-port-range=30000`', () => {
  assert.deepEqual(parseServiceNetwork('10.96.0.0/28', '30000').nodePorts, { first: 30000, last: 30000 });
});

// ---- initIPFamilies -----------------------------------------------------------------------------

const SINGLE = parseServiceNetwork('10.96.0.0/28', '30000-30009');
const DUAL = parseServiceNetwork('10.96.0.0/28,fd00:10:96::/112', '30000-30009');
const DUAL6 = parseServiceNetwork('fd00:10:96::/112,10.96.0.0/28', '30000-30009');
const SINGLE6 = parseServiceNetwork('fd00:10:96::/112', '30000-30009');

function service(spec: Record<string, unknown>): ApiObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'ns', uid: 'u1' },
    spec: { type: 'ClusterIP', selector: { app: 'web' }, ports: [{ port: 80, protocol: 'TCP' }], ...spec },
  } as ApiObject;
}

const NO_SELECTOR = { selector: undefined };

interface FamilyCase {
  name: string;
  net: ServiceNetwork;
  spec: Record<string, unknown>;
  old?: Record<string, unknown>;
  /** Expected families and policy; or the field of the expected error. */
  families?: IPFamily[];
  policy?: string;
  errorField?: string;
}

const familyCases: FamilyCase[] = [
  { name: 'single-stack: defaults to SingleStack and the primary family', net: SINGLE, spec: {}, families: ['IPv4'], policy: 'SingleStack' },
  { name: 'single-stack IPv6: defaults to the IPv6 family', net: SINGLE6, spec: {}, families: ['IPv6'], policy: 'SingleStack' },
  { name: 'dual-stack: defaults to SingleStack and the primary family', net: DUAL, spec: {}, families: ['IPv4'], policy: 'SingleStack' },
  { name: 'dual-stack IPv6 primary: defaults to IPv6', net: DUAL6, spec: {}, families: ['IPv6'], policy: 'SingleStack' },
  { name: 'dual-stack: PreferDualStack gets both families, primary first', net: DUAL, spec: { ipFamilyPolicy: 'PreferDualStack' }, families: ['IPv4', 'IPv6'], policy: 'PreferDualStack' },
  { name: 'dual-stack IPv6 primary: PreferDualStack gets IPv6 then IPv4', net: DUAL6, spec: { ipFamilyPolicy: 'PreferDualStack' }, families: ['IPv6', 'IPv4'], policy: 'PreferDualStack' },
  { name: 'single-stack: PreferDualStack settles for one family', net: SINGLE, spec: { ipFamilyPolicy: 'PreferDualStack' }, families: ['IPv4'], policy: 'PreferDualStack' },
  { name: 'dual-stack: RequireDualStack gets both families', net: DUAL, spec: { ipFamilyPolicy: 'RequireDualStack' }, families: ['IPv4', 'IPv6'], policy: 'RequireDualStack' },
  { name: 'single-stack: RequireDualStack is refused on spec.ipFamilyPolicy', net: SINGLE, spec: { ipFamilyPolicy: 'RequireDualStack' }, errorField: 'spec.ipFamilyPolicy' },
  { name: 'dual-stack: the secondary family alone', net: DUAL, spec: { ipFamilies: ['IPv6'] }, families: ['IPv6'], policy: 'SingleStack' },
  {
    name: 'dual-stack: the secondary family first with PreferDualStack',
    net: DUAL,
    spec: { ipFamilies: ['IPv6'], ipFamilyPolicy: 'PreferDualStack' },
    families: ['IPv6', 'IPv4'],
    policy: 'PreferDualStack',
  },
  { name: 'single-stack: an unconfigured family is refused on spec.ipFamilies[0]', net: SINGLE, spec: { ipFamilies: ['IPv6'] }, errorField: 'spec.ipFamilies[0]' },
  { name: 'dual-stack: a family given twice is refused', net: DUAL, spec: { ipFamilies: ['IPv4', 'IPv4'], ipFamilyPolicy: 'PreferDualStack' }, errorField: 'spec.ipFamilies[1]' },
  { name: 'dual-stack: the family is inferred from an IPv6 cluster IP', net: DUAL, spec: { clusterIP: 'fd00:10:96::5', clusterIPs: ['fd00:10:96::5'] }, families: ['IPv6'], policy: 'SingleStack' },
  {
    name: 'dual-stack: families are inferred from two cluster IPs with RequireDualStack',
    net: DUAL,
    spec: { clusterIP: '10.96.0.5', clusterIPs: ['10.96.0.5', 'fd00:10:96::5'], ipFamilyPolicy: 'RequireDualStack' },
    families: ['IPv4', 'IPv6'],
    policy: 'RequireDualStack',
  },
  {
    name: 'dual-stack: families follow the order of the cluster IPs',
    net: DUAL,
    spec: { clusterIP: 'fd00:10:96::5', clusterIPs: ['fd00:10:96::5', '10.96.0.5'], ipFamilyPolicy: 'PreferDualStack' },
    families: ['IPv6', 'IPv4'],
    policy: 'PreferDualStack',
  },
  {
    name: 'single-stack: a cluster IP of an unconfigured family is refused on spec.clusterIPs[0]',
    net: SINGLE,
    spec: { clusterIP: 'fd00:10:96::5', clusterIPs: ['fd00:10:96::5'] },
    errorField: 'spec.clusterIPs[0]',
  },
  {
    name: 'dual-stack: two cluster IPs without a policy are refused (the policy defaults to SingleStack)',
    net: DUAL,
    spec: { clusterIP: '10.96.0.5', clusterIPs: ['10.96.0.5', 'fd00:10:96::5'] },
    errorField: 'spec.ipFamilyPolicy',
  },
  {
    name: 'dual-stack: SingleStack with two families is refused on spec.ipFamilyPolicy',
    net: DUAL,
    spec: { ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'SingleStack' },
    errorField: 'spec.ipFamilyPolicy',
  },
  { name: 'dual-stack: headless with a selector is SingleStack', net: DUAL, spec: { clusterIP: 'None', clusterIPs: ['None'] }, families: ['IPv4'], policy: 'SingleStack' },
  {
    name: 'dual-stack: headless selectorless defaults to RequireDualStack with both families',
    net: DUAL,
    spec: { clusterIP: 'None', clusterIPs: ['None'], ...NO_SELECTOR },
    families: ['IPv4', 'IPv6'],
    policy: 'RequireDualStack',
  },
  {
    name: 'dual-stack IPv6 primary: headless selectorless gets IPv6 then IPv4',
    net: DUAL6,
    spec: { clusterIP: 'None', clusterIPs: ['None'], ...NO_SELECTOR },
    families: ['IPv6', 'IPv4'],
    policy: 'RequireDualStack',
  },
  {
    name: 'dual-stack: headless selectorless SingleStack keeps one family',
    net: DUAL,
    spec: { clusterIP: 'None', clusterIPs: ['None'], ipFamilyPolicy: 'SingleStack', ...NO_SELECTOR },
    families: ['IPv4'],
    policy: 'SingleStack',
  },
  // Upstream's one exception: headless selectorless Services may carry a family the cluster lacks.
  {
    name: 'single-stack: headless selectorless defaults to RequireDualStack with both families',
    net: SINGLE,
    spec: { clusterIP: 'None', clusterIPs: ['None'], ...NO_SELECTOR },
    families: ['IPv4', 'IPv6'],
    policy: 'RequireDualStack',
  },
  {
    name: 'single-stack: headless selectorless may ask for the unconfigured family',
    net: SINGLE,
    spec: { clusterIP: 'None', clusterIPs: ['None'], ipFamilies: ['IPv6'], ...NO_SELECTOR },
    families: ['IPv6', 'IPv4'],
    policy: 'RequireDualStack',
  },
  {
    name: 'update: an omitted policy is the stored one',
    net: DUAL,
    spec: { clusterIP: '10.96.0.5', clusterIPs: ['10.96.0.5'], ipFamilies: ['IPv4'] },
    old: { clusterIP: '10.96.0.5', clusterIPs: ['10.96.0.5'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'PreferDualStack' },
    families: ['IPv4', 'IPv6'],
    policy: 'PreferDualStack',
  },
  { name: 'update from ExternalName: the policy defaults as on create', net: DUAL, spec: {}, old: { type: 'ExternalName', externalName: 'db.example.com' }, families: ['IPv4'], policy: 'SingleStack' },
];

for (const c of familyCases) {
  test(`service network - initIPFamilies - ${c.name}`, () => {
    const obj = service(c.spec);
    const old = c.old ? service(c.old) : null;
    const errs: FieldError[] = initIPFamilies(obj, old, c.net);
    const spec = obj.spec as Record<string, unknown>;
    if (c.errorField) {
      assert.ok(errs.length > 0, `expected an error on ${c.errorField}, got spec ${JSON.stringify(spec)}`);
      assert.ok(
        errs.some((e) => e.field === c.errorField),
        `expected an error on ${c.errorField}, got ${JSON.stringify(errs)}`,
      );
      return;
    }
    assert.deepEqual(errs, []);
    assert.deepEqual([spec.ipFamilies, spec.ipFamilyPolicy], [c.families, c.policy]);
  });
}

test('service network - initIPFamilies - ExternalName gets no families and no policy', () => {
  for (const net of [SINGLE, DUAL]) {
    const obj = service({ type: 'ExternalName', externalName: 'db.example.com', ipFamilyPolicy: undefined });
    assert.deepEqual(initIPFamilies(obj, null, net), []);
    const spec = obj.spec as Record<string, unknown>;
    assert.deepEqual([spec.ipFamilies, spec.ipFamilyPolicy], [undefined, undefined]);
  }
});

// ---- carryOverAllocations -----------------------------------------------------------------------

const clusterIPSpec = { type: 'ClusterIP', clusterIP: '10.96.0.5', clusterIPs: ['10.96.0.5'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' };
const nodePortSpec = {
  ...clusterIPSpec,
  type: 'NodePort',
  externalTrafficPolicy: 'Cluster',
  ports: [
    { name: 'http', port: 80, protocol: 'TCP', nodePort: 30001 },
    { name: 'https', port: 443, protocol: 'TCP', nodePort: 30002 },
  ],
};
const lbLocalSpec = { ...nodePortSpec, type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: 30007 };
const dnsNodePortSpec = {
  ...clusterIPSpec,
  type: 'NodePort',
  ports: [
    { name: 'dns', port: 53, protocol: 'UDP', nodePort: 30053 },
    { name: 'dns-tcp', port: 53, protocol: 'TCP', nodePort: 30053 },
  ],
};

/** A deep copy of a spec with some fields replaced (undefined removes). */
function specWith(base: Record<string, unknown>, changes: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...structuredClone(base), ...changes };
  for (const [k, v] of Object.entries(changes)) if (v === undefined) delete out[k];
  return out;
}

interface CarryCase {
  name: string;
  old: Record<string, unknown>;
  next: Record<string, unknown>;
  /** Fields of the resulting spec (undefined: absent). */
  want: Record<string, unknown>;
}

const carryCases: CarryCase[] = [
  {
    name: 'an update that omits clusterIP and clusterIPs keeps both',
    old: clusterIPSpec,
    next: specWith(clusterIPSpec, { clusterIP: undefined, clusterIPs: undefined }),
    want: { clusterIP: '10.96.0.5', clusterIPs: ['10.96.0.5'] },
  },
  {
    name: 'an empty clusterIP counts as omitted',
    old: clusterIPSpec,
    next: specWith(clusterIPSpec, { clusterIP: '', clusterIPs: undefined }),
    want: { clusterIP: '10.96.0.5', clusterIPs: ['10.96.0.5'] },
  },
  {
    name: 'clusterIP given, clusterIPs omitted: clusterIPs carried',
    old: clusterIPSpec,
    next: specWith(clusterIPSpec, { clusterIPs: undefined }),
    want: { clusterIP: '10.96.0.5', clusterIPs: ['10.96.0.5'] },
  },
  {
    name: 'both addresses of a dual-stack Service are carried',
    old: { ...clusterIPSpec, clusterIPs: ['10.96.0.5', 'fd00:10:96::5'], ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'PreferDualStack' },
    next: specWith(clusterIPSpec, { clusterIP: undefined, clusterIPs: undefined, ipFamilies: undefined, ipFamilyPolicy: undefined }),
    want: { clusterIP: '10.96.0.5', clusterIPs: ['10.96.0.5', 'fd00:10:96::5'] },
  },
  {
    name: 'a headless Service stays headless',
    old: { ...clusterIPSpec, clusterIP: 'None', clusterIPs: ['None'] },
    next: specWith(clusterIPSpec, { clusterIP: undefined, clusterIPs: undefined }),
    want: { clusterIP: 'None', clusterIPs: ['None'] },
  },
  {
    name: 'NodePort update that omits nodePorts keeps them',
    old: nodePortSpec,
    next: specWith(nodePortSpec, {
      ports: [
        { name: 'http', port: 80, protocol: 'TCP' },
        { name: 'https', port: 443, protocol: 'TCP' },
      ],
    }),
    want: {
      ports: [
        { name: 'http', port: 80, protocol: 'TCP', nodePort: 30001 },
        { name: 'https', port: 443, protocol: 'TCP', nodePort: 30002 },
      ],
    },
  },
  {
    name: 'a nodePort given replaces its own, the omitted one is carried',
    old: nodePortSpec,
    next: specWith(nodePortSpec, {
      ports: [
        { name: 'http', port: 80, protocol: 'TCP', nodePort: 30005 },
        { name: 'https', port: 443, protocol: 'TCP' },
      ],
    }),
    want: {
      ports: [
        { name: 'http', port: 80, protocol: 'TCP', nodePort: 30005 },
        { name: 'https', port: 443, protocol: 'TCP', nodePort: 30002 },
      ],
    },
  },
  {
    // Upstream maps the stored node ports by port name: a new port number under the same name keeps its node port.
    name: 'nodePorts are carried by port name when the port number changes',
    old: nodePortSpec,
    next: specWith(nodePortSpec, {
      ports: [
        { name: 'http', port: 8080, protocol: 'TCP' },
        { name: 'https', port: 443, protocol: 'TCP' },
      ],
    }),
    want: {
      ports: [
        { name: 'http', port: 8080, protocol: 'TCP', nodePort: 30001 },
        { name: 'https', port: 443, protocol: 'TCP', nodePort: 30002 },
      ],
    },
  },
  {
    name: 'LoadBalancer Local update that omits healthCheckNodePort keeps it',
    old: lbLocalSpec,
    next: specWith(lbLocalSpec, { healthCheckNodePort: undefined }),
    want: { healthCheckNodePort: 30007 },
  },
  {
    name: 'NodePort -> ClusterIP with unchanged nodePorts drops them and keeps the cluster IP',
    old: nodePortSpec,
    next: specWith(nodePortSpec, { type: 'ClusterIP' }),
    want: {
      clusterIP: '10.96.0.5',
      clusterIPs: ['10.96.0.5'],
      ports: [
        { name: 'http', port: 80, protocol: 'TCP' },
        { name: 'https', port: 443, protocol: 'TCP' },
      ],
    },
  },
  {
    name: 'NodePort -> ClusterIP that also removes a port drops the remaining unchanged nodePort',
    old: nodePortSpec,
    next: specWith(nodePortSpec, { type: 'ClusterIP', ports: [{ name: 'http', port: 80, protocol: 'TCP', nodePort: 30001 }] }),
    want: { ports: [{ name: 'http', port: 80, protocol: 'TCP' }] },
  },
  {
    name: 'NodePort -> ClusterIP with TCP and UDP sharing one nodePort drops it from both',
    old: dnsNodePortSpec,
    next: specWith(dnsNodePortSpec, { type: 'ClusterIP' }),
    want: {
      ports: [
        { name: 'dns', port: 53, protocol: 'UDP' },
        { name: 'dns-tcp', port: 53, protocol: 'TCP' },
      ],
    },
  },
  {
    name: 'NodePort -> ClusterIP with a changed nodePort keeps what the client sent (for validation to refuse)',
    old: nodePortSpec,
    next: specWith(nodePortSpec, {
      type: 'ClusterIP',
      ports: [
        { name: 'http', port: 80, protocol: 'TCP', nodePort: 30009 },
        { name: 'https', port: 443, protocol: 'TCP', nodePort: 30002 },
      ],
    }),
    want: {
      ports: [
        { name: 'http', port: 80, protocol: 'TCP', nodePort: 30009 },
        { name: 'https', port: 443, protocol: 'TCP', nodePort: 30002 },
      ],
    },
  },
  {
    name: 'LoadBalancer Local -> Cluster drops the unchanged healthCheckNodePort, keeps the nodePorts',
    old: lbLocalSpec,
    next: specWith(lbLocalSpec, { externalTrafficPolicy: 'Cluster' }),
    want: { healthCheckNodePort: undefined, ports: nodePortSpec.ports },
  },
  {
    name: 'ClusterIP -> ExternalName drops the unchanged clusterIP, clusterIPs, ipFamilies and ipFamilyPolicy',
    old: clusterIPSpec,
    next: specWith(clusterIPSpec, { type: 'ExternalName', externalName: 'db.example.com' }),
    want: { clusterIP: undefined, clusterIPs: undefined, ipFamilies: undefined, ipFamilyPolicy: undefined, externalName: 'db.example.com' },
  },
  {
    name: 'NodePort -> ExternalName drops the addresses and the nodePorts',
    old: nodePortSpec,
    next: specWith(nodePortSpec, { type: 'ExternalName', externalName: 'db.example.com' }),
    want: {
      clusterIP: undefined,
      clusterIPs: undefined,
      ipFamilies: undefined,
      ipFamilyPolicy: undefined,
      ports: [
        { name: 'http', port: 80, protocol: 'TCP' },
        { name: 'https', port: 443, protocol: 'TCP' },
      ],
    },
  },
  {
    name: 'ClusterIP -> ExternalName with a changed clusterIP keeps what the client sent (for validation to refuse)',
    old: clusterIPSpec,
    next: specWith(clusterIPSpec, { type: 'ExternalName', externalName: 'db.example.com', clusterIP: '10.96.0.9', clusterIPs: ['10.96.0.9'] }),
    want: { clusterIP: '10.96.0.9', clusterIPs: ['10.96.0.9'] },
  },
  {
    name: 'ExternalName -> ClusterIP carries nothing',
    old: { type: 'ExternalName', externalName: 'db.example.com' },
    next: specWith(clusterIPSpec, { clusterIP: undefined, clusterIPs: undefined, ipFamilies: undefined, ipFamilyPolicy: undefined }),
    want: { clusterIP: undefined, clusterIPs: undefined },
  },
];

for (const c of carryCases) {
  test(`service network - carryOverAllocations - ${c.name}`, () => {
    const old = service(structuredClone(c.old));
    const next = service(structuredClone(c.next));
    carryOverAllocations(next, old);
    const spec = next.spec as Record<string, unknown>;
    for (const [k, v] of Object.entries(c.want)) assert.deepEqual(spec[k], v, `spec.${k} of ${JSON.stringify(spec)}`);
    // The stored object is never touched.
    assert.deepEqual(old, service(structuredClone(c.old)));
  });
}
