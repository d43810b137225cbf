// The service network of the cluster (`--service-cluster-ip-range`, `--service-node-port-range`)
// and the pure rules of a Service's place in it, after upstream's service REST: which families and
// family policy a Service gets, which cluster IPs and node ports it needs, what an update carries
// over from the stored Service, and what a change of type leaves behind.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import { cidrSize, otherFamily, parseCidr, parseIP, type Cidr, type IPFamily } from '../../../api/ip.js';
import { duplicate, invalidValue } from '../../../api/field-errors.js';
import { asArray, asObject, type Json } from '../common/field-errors.js';

export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';
export const DEFAULT_SERVICE_NODE_PORT_RANGE = '30000-32767';
export const HEADLESS = 'None';

export interface PortRange {
  first: number;
  last: number;
}

export interface ServiceNetwork {
  /** One range per family, the primary family's first. */
  ranges: Cidr[];
  nodePorts: PortRange;
}

/** The flags' values as a network; throws with the flag's problem. */
export function parseServiceNetwork(clusterIPRange: string, nodePortRange: string): ServiceNetwork {
  const ranges = clusterIPRange.split(',').map((s) => parseCidr(s.trim()));
  if (ranges.length > 2 || (ranges.length === 2 && ranges[0]!.family === ranges[1]!.family)) {
    throw new Error(`--service-cluster-ip-range: at most one range per IP family (IPv4 and IPv6), got ${clusterIPRange}`);
  }
  for (const r of ranges) {
    if (cidrSize(r) < 4n) throw new Error(`--service-cluster-ip-range: ${r.text} is too small to allocate from`);
  }
  // Upstream spells a range `first-last`, `first+count` or a single port.
  const m = /^(\d+)(?:([-+])(\d+))?$/.exec(nodePortRange.trim());
  if (!m) throw new Error(`--service-node-port-range: expected <first>-<last>, got ${nodePortRange}`);
  const first = Number(m[1]);
  const last = m[2] === undefined ? first : m[2] === '+' ? first + Number(m[3]) : Number(m[3]);
  if (first < 1 || last > 65535 || last < first) throw new Error(`--service-node-port-range: ${nodePortRange} is not a range of ports`);
  return { ranges, nodePorts: { first, last } };
}

export function rangeOf(net: ServiceNetwork, family: IPFamily): Cidr | undefined {
  return net.ranges.find((r) => r.family === family);
}

export function portRangeText(r: PortRange): string {
  return `${r.first}-${r.last}`;
}

type Spec = Json;

function specOf(o: ApiObject): Spec {
  return (asObject(o.spec) ?? {}) as Spec;
}

function strings(v: unknown): string[] {
  return asArray(v).filter((x): x is string => typeof x === 'string');
}

export function needsClusterIP(o: ApiObject): boolean {
  return specOf(o).type !== 'ExternalName';
}

export function isHeadless(o: ApiObject): boolean {
  return specOf(o).clusterIP === HEADLESS;
}

export function needsNodePorts(o: ApiObject): boolean {
  const s = specOf(o);
  return s.type === 'NodePort' || (s.type === 'LoadBalancer' && s.allocateLoadBalancerNodePorts !== false);
}

export function needsHealthCheckNodePort(o: ApiObject): boolean {
  const s = specOf(o);
  return s.type === 'LoadBalancer' && s.externalTrafficPolicy === 'Local';
}

/** The cluster IPs the Service holds (not `None`). */
export function clusterIPsOf(o: ApiObject): string[] {
  return strings(specOf(o).clusterIPs).filter((ip) => ip && ip !== HEADLESS);
}

/** The node ports the Service holds, health check port included, each once. */
export function nodePortsOf(o: ApiObject): number[] {
  const s = specOf(o);
  const ports = asArray(s.ports).map((p) => asObject(p)?.nodePort);
  ports.push(s.healthCheckNodePort);
  return [...new Set(ports.filter((p): p is number => typeof p === 'number' && p > 0))];
}

/** Defaulting that needs no configuration: `clusterIP` and `clusterIPs[0]` name the same address. */
export function syncClusterIPs(spec: Spec): void {
  const ips = strings(spec.clusterIPs);
  if (typeof spec.clusterIP === 'string' && spec.clusterIP && ips.length === 0) spec.clusterIPs = [spec.clusterIP];
  else if ((spec.clusterIP === undefined || spec.clusterIP === '') && ips.length > 0) spec.clusterIP = ips[0];
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * An update of the main resource: what the client left out that the stored Service was given
 * (its cluster IPs and node ports) is carried over, and what a change of type no longer needs is
 * dropped when the client did not change it (upstream's patchAllocatedValues and dropTypeDependentFields).
 */
export function carryOverAllocations(obj: ApiObject, old: ApiObject): void {
  const spec = (obj.spec ??= {}) as Spec;
  const oldSpec = specOf(old);
  if (needsClusterIP(old) && needsClusterIP(obj)) {
    if ((spec.clusterIP === undefined || spec.clusterIP === '') && oldSpec.clusterIP) spec.clusterIP = oldSpec.clusterIP;
    if (strings(spec.clusterIPs).length === 0 && oldSpec.clusterIPs) {
      const oldIPs = strings(oldSpec.clusterIPs);
      if (oldIPs[0] === spec.clusterIP) spec.clusterIPs = oldIPs;
    }
  }
  if (needsNodePorts(old) && needsNodePorts(obj)) {
    // By port name, as upstream: the client may have changed anything else about the port. A node
    // port the new spec already gives another port is not carried.
    const used = new Set(nodePortsOf(obj));
    const byName = new Map(asArray(oldSpec.ports).map((p) => [asObject(p)?.name ?? '', asObject(p)?.nodePort]));
    for (const p of asArray(spec.ports).map((x) => asObject(x))) {
      if (!p || (typeof p.nodePort === 'number' && p.nodePort > 0)) continue;
      const carried = byName.get(typeof p.name === 'string' ? p.name : '');
      if (typeof carried === 'number' && carried > 0 && !used.has(carried)) p.nodePort = carried;
    }
  }
  if (needsHealthCheckNodePort(old) && needsHealthCheckNodePort(obj) && !spec.healthCheckNodePort && oldSpec.healthCheckNodePort) {
    spec.healthCheckNodePort = oldSpec.healthCheckNodePort;
  }
  // A change of type drops what the new type does not use, unless the client changed it itself.
  if (needsClusterIP(old) && !needsClusterIP(obj)) {
    if (sameJson(spec.clusterIP, oldSpec.clusterIP)) delete spec.clusterIP;
    if (sameJson(spec.clusterIPs, oldSpec.clusterIPs)) delete spec.clusterIPs;
    if (sameJson(spec.ipFamilies, oldSpec.ipFamilies)) delete spec.ipFamilies;
    if (sameJson(spec.ipFamilyPolicy, oldSpec.ipFamilyPolicy)) delete spec.ipFamilyPolicy;
  }
  if (needsNodePorts(old) && !needsNodePorts(obj)) {
    // Dropping node ports is allowed, adding new ones is not: drop them all when none is new.
    const oldPorts = new Set(nodePortsOf({ ...old, spec: { ...oldSpec, healthCheckNodePort: undefined } }));
    const ports = asArray(spec.ports).map((p) => asObject(p) ?? {});
    if (ports.every((p) => !p.nodePort || oldPorts.has(p.nodePort as number))) for (const p of ports) delete p.nodePort;
  }
  if (needsHealthCheckNodePort(old) && !needsHealthCheckNodePort(obj) && spec.healthCheckNodePort === oldSpec.healthCheckNodePort) {
    delete spec.healthCheckNodePort;
  }
}

function familyOf(ip: string): IPFamily | undefined {
  return parseIP(ip)?.family;
}

/**
 * `spec.ipFamilies` and `spec.ipFamilyPolicy` as upstream fills them in for the cluster's network:
 * families from the requested cluster IPs, else the primary family (and the other one when the
 * policy asks for dual-stack and the cluster has it); headless Services without a selector get
 * every family the cluster has. Returns the errors of a request the cluster cannot serve.
 */
export function initIPFamilies(obj: ApiObject, old: ApiObject | null, net: ServiceNetwork): FieldError[] {
  const spec = (obj.spec ??= {}) as Spec;
  if (!needsClusterIP(obj)) return [];
  const dualStack = net.ranges.length === 2;
  const primary = net.ranges[0]!.family;
  if (spec.ipFamilyPolicy === undefined && old && needsClusterIP(old) && specOf(old).ipFamilyPolicy) spec.ipFamilyPolicy = specOf(old).ipFamilyPolicy;
  const families = strings(spec.ipFamilies) as IPFamily[];
  const errs: FieldError[] = [];
  families.forEach((f, i) => {
    if (families.indexOf(f) !== i) errs.push(duplicate(`spec.ipFamilies[${i}]`, f));
  });
  if (errs.length) return errs;

  // Upstream's one exception: a headless Service without a selector (its endpoints are managed by
  // hand) may carry every family, configured on this cluster or not.
  if (isHeadless(obj) && Object.keys(asObject(spec.selector) ?? {}).length === 0) {
    if (families.length === 0) families.push(primary);
    spec.ipFamilyPolicy ??= 'RequireDualStack';
    if (families.length === 1 && spec.ipFamilyPolicy !== 'SingleStack') families.push(otherFamily(families[0]!));
    spec.ipFamilies = families;
    return [];
  }
  families.forEach((f, i) => {
    if (!rangeOf(net, f)) errs.push(invalidValue(`spec.ipFamilies[${i}]`, f, 'not configured on this cluster'));
  });
  if (errs.length) return errs;
  // Only the families the client named imply a policy; two cluster IPs under the default
  // SingleStack are refused below.
  if (spec.ipFamilyPolicy === undefined && families.length === 2) spec.ipFamilyPolicy = 'RequireDualStack';

  // Families follow the addresses asked for.
  strings(spec.clusterIPs).forEach((ip, i) => {
    if (ip === HEADLESS) return;
    const f = familyOf(ip);
    if (!f) return;
    if (families[i] === undefined) families[i] = f;
    else if (families[i] !== f) errs.push(invalidValue(`spec.clusterIPs[${i}]`, ip, `expected an IP of family ${families[i]}`));
    if (!rangeOf(net, f)) errs.push(invalidValue(`spec.clusterIPs[${i}]`, ip, `IP family ${f} is not configured on this cluster`));
  });
  if (errs.length) return errs;
  spec.ipFamilyPolicy ??= 'SingleStack';
  const policy = spec.ipFamilyPolicy;
  if (policy === 'RequireDualStack' && !dualStack) {
    return [invalidValue('spec.ipFamilyPolicy', policy, 'this cluster is not configured for dual-stack services')];
  }
  if (policy === 'SingleStack' && clusterIPsOf(obj).length > 1) {
    return [invalidValue('spec.ipFamilyPolicy', policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified")];
  }
  if (policy === 'SingleStack' && families.length > 1) {
    return [invalidValue('spec.ipFamilyPolicy', policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified")];
  }
  if (families.length === 0) families.push(primary);
  if (families.length === 1 && policy !== 'SingleStack' && dualStack) families.push(otherFamily(families[0]!));
  spec.ipFamilies = families;
  return [];
}
