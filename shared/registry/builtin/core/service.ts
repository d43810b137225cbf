// Services: a stable virtual address in front of selected pods. Names are DNS-1035 labels
// (they become DNS names and environment variable prefixes, so they must start with a letter).

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn, joinList } from '../common/columns.js';
import { asArray, asObject, at, ensureObject, type Json, setDefault } from '../common/field-errors.js';
import { conditionList, metaCondition } from '../common/meta.js';
import { atomicList, bool, described, int32, intOrString, mapList, obj, str, strEnum, strMap } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { serviceActions } from './proxy.js';
import { duplicate, forbidden, invalidValue, required } from '../../../api/field-errors.js';
import { DNS1035_LABEL_MESSAGE, validDns1035Label } from '../../../api/validation.js';
import { parseIP } from '../../../api/ip.js';
import { carryOverAllocations, HEADLESS, syncClusterIPs } from './service-network.js';

const servicePort = described(
  obj({ name: str, protocol: strEnum('TCP', 'UDP', 'SCTP'), appProtocol: str, port: int32, targetPort: intOrString, nodePort: int32 }, ['port']),
  {
    name: 'Name of the port, a DNS label unique in the service; required when the service has more than one port. Endpoints carry it.',
    protocol: 'TCP, UDP or SCTP. Defaults to TCP.',
    appProtocol: 'Application protocol of the port, for implementations that care: an IANA service name or a prefixed name such as example.com/proto.',
    port: 'Port the service listens on, 1 to 65535.',
    targetPort: 'Port of the selected pods that traffic goes to: a number, or the name of a container port. Defaults to port.',
    nodePort: 'Port opened on every node for NodePort and LoadBalancer services, from the node port range of the server. Allocated when not given.',
  },
  'A port of a service and where on the pods it leads.',
);

const serviceSpec = described(
  obj({
    ports: mapList(servicePort, ['port', 'protocol'], 'port'),
    selector: { ...strMap, 'x-kubernetes-map-type': 'atomic' },
    clusterIP: str,
    clusterIPs: atomicList(str),
    type: strEnum('ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'),
    externalIPs: atomicList(str),
    sessionAffinity: strEnum('ClientIP', 'None'),
    loadBalancerIP: str,
    loadBalancerSourceRanges: atomicList(str),
    externalName: str,
    externalTrafficPolicy: strEnum('Cluster', 'Local'),
    healthCheckNodePort: int32,
    publishNotReadyAddresses: bool,
    sessionAffinityConfig: described(obj({ clientIP: described(obj({ timeoutSeconds: int32 }), { timeoutSeconds: 'Seconds a client sticks to one pod, 1 to 86400. Defaults to 10800 (3 hours).' }) }), {
      clientIP: 'Settings of ClientIP affinity.',
    }),
    ipFamilies: atomicList(strEnum('IPv4', 'IPv6')),
    ipFamilyPolicy: strEnum('SingleStack', 'PreferDualStack', 'RequireDualStack'),
    allocateLoadBalancerNodePorts: bool,
    loadBalancerClass: str,
    internalTrafficPolicy: strEnum('Cluster', 'Local'),
    trafficDistribution: str,
  }),
  {
    ports: 'Ports the service exposes. At least one, except for headless services without a selector and ExternalName services.',
    selector: 'Labels of the pods traffic is sent to; the endpoints controller keeps the endpoints in step with them. Without a selector, endpoints are managed by someone else.',
    clusterIP:
      'Virtual address of the service, allocated from the service address range when not given. None makes a headless service (DNS answers with the pod addresses). Cannot be changed, except by changing type to or from ExternalName.',
    clusterIPs: 'Virtual addresses of the service, one per IP family, the first being clusterIP. Allocated like it.',
    type: 'How the service is exposed: ClusterIP (the default, inside the cluster), NodePort (also on a port of every node), LoadBalancer (also through an external load balancer), or ExternalName (a DNS alias of externalName).',
    externalIPs: 'Further addresses, not managed by the platform, at which nodes accept traffic for the service.',
    sessionAffinity: 'ClientIP sends the requests of one client address to the same pod; None (the default) spreads them.',
    loadBalancerIP: 'Address asked of the load balancer, when its provider supports choosing one. Deprecated.',
    loadBalancerSourceRanges: 'Client address ranges (CIDRs) the load balancer accepts, when its provider supports it.',
    externalName: 'DNS name the service is an alias of (a CNAME record); required for type ExternalName and used only then.',
    externalTrafficPolicy:
      'For traffic from outside the cluster: Cluster (the default) may forward it to pods on other nodes; Local only serves it from pods on the receiving node, keeping the client address.',
    healthCheckNodePort: 'Node port a load balancer probes to find nodes with local pods, for LoadBalancer services with externalTrafficPolicy Local. Allocated when not given.',
    publishNotReadyAddresses: 'List pods in the endpoints (and DNS) before they are ready, for peers that must find each other while starting. Defaults to false.',
    sessionAffinityConfig: 'Settings of session affinity.',
    ipFamilies: 'IP families (IPv4, IPv6) of the addresses of the service, in order. Chosen from ipFamilyPolicy and the cluster when not given.',
    ipFamilyPolicy: 'SingleStack (one family), PreferDualStack (two when the cluster has both) or RequireDualStack (two, or fail). Defaults to SingleStack.',
    allocateLoadBalancerNodePorts: 'Whether node ports are allocated for a LoadBalancer service. Defaults to true.',
    loadBalancerClass: 'Load balancer implementation meant to handle the service; empty means the default one. Cannot be changed once set.',
    internalTrafficPolicy: 'For traffic from inside the cluster: Cluster (the default) uses all pods; Local only pods on the node of the client.',
    trafficDistribution: 'A hint about how to spread traffic among the pods, such as PreferClose for pods nearby.',
  },
  'What the service exposes and where its traffic goes.',
);

const serviceStatus = described(
  obj({
    loadBalancer: described(
      obj({
        ingress: atomicList(
          described(
            obj({
              ip: str,
              hostname: str,
              ipMode: strEnum('VIP', 'Proxy'),
              ports: atomicList(
                described(obj({ port: int32, protocol: strEnum('TCP', 'UDP', 'SCTP'), error: str }, ['port', 'protocol']), {
                  port: 'Port number.',
                  protocol: 'TCP, UDP or SCTP.',
                  error: 'Why the port could not be set up, if it could not.',
                }),
              ),
            }),
            {
              ip: 'Address of the load balancer.',
              hostname: 'DNS name of the load balancer, for those that have a name rather than an address.',
              ipMode: 'VIP: traffic reaches the nodes addressed to the load balancer address; Proxy: it arrives addressed to the node.',
              ports: 'State of each port of the load balancer.',
            },
          ),
        ),
      }),
      { ingress: 'Addresses at which the load balancer receives traffic.' },
    ),
    conditions: conditionList(metaCondition),
  }),
  { loadBalancer: 'The load balancer of the service, once its provider has made one.', conditions: 'Conditions of the service.' },
  'What the platform observed of the service.',
);

const schema = described(
  obj({ spec: serviceSpec, status: serviceStatus }),
  { spec: 'What the service exposes and how.', status: 'What the platform observed of the service, such as the address of its load balancer.' },
  'A service: one stable virtual address and DNS name in front of a changing set of pods, chosen by labels, with traffic spread among them.',
);

function defaults(o: ApiObject): void {
  const spec = ensureObject(o, 'spec');
  syncClusterIPs(spec);
  setDefault(spec, 'type', 'ClusterIP');
  setDefault(spec, 'sessionAffinity', 'None');
  if (spec.sessionAffinity === 'ClientIP') {
    const cfg = ensureObject(ensureObject(spec, 'sessionAffinityConfig'), 'clientIP');
    setDefault(cfg, 'timeoutSeconds', 10800);
  }
  for (const p of asArray(spec.ports)) {
    const port = asObject(p);
    if (!port) continue;
    setDefault(port, 'protocol', 'TCP');
    if (port.targetPort === undefined || port.targetPort === 0 || port.targetPort === '') port.targetPort = port.port;
  }
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') setDefault(spec, 'externalTrafficPolicy', 'Cluster');
  if (spec.type !== 'ExternalName') setDefault(spec, 'internalTrafficPolicy', 'Cluster');
  if (spec.type === 'LoadBalancer') setDefault(spec, 'allocateLoadBalancerNodePorts', true);
}

function validateService(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = o.metadata.name;
  if (name && !validDns1035Label(name)) {
    errs.push(invalidValue('metadata.name', name, DNS1035_LABEL_MESSAGE));
  }
  const spec = asObject(o.spec) ?? {};
  const ports = asArray(spec.ports).map((p) => asObject(p) ?? {});
  const headless = spec.clusterIP === HEADLESS;
  errs.push(...validateClusterIPs(spec));
  if (spec.type === 'ExternalName') {
    if (typeof spec.externalName !== 'string' || !spec.externalName) errs.push(required('spec.externalName'));
  } else if (ports.length === 0 && !headless) {
    errs.push(required('spec.ports'));
  }
  const names = new Set<string>();
  const keys = new Set<string>();
  ports.forEach((p, i) => {
    const f = `spec.ports[${i}]`;
    if (ports.length > 1 && (typeof p.name !== 'string' || !p.name)) errs.push(required(`${f}.name`));
    if (typeof p.name === 'string' && p.name) {
      if (names.has(p.name)) errs.push(duplicate(`${f}.name`, p.name));
      names.add(p.name);
    }
    if (typeof p.port === 'number' && (p.port < 1 || p.port > 65535)) errs.push(invalidValue(`${f}.port`, p.port, 'must be between 1 and 65535, inclusive'));
    const key = `${String(p.port)}/${String(p.protocol ?? 'TCP')}`;
    if (keys.has(key)) errs.push(duplicate(`${f}`, { port: p.port, protocol: p.protocol }));
    keys.add(key);
    if (p.nodePort !== undefined && spec.type !== 'NodePort' && spec.type !== 'LoadBalancer' && p.nodePort !== 0) {
      errs.push(forbidden(`${f}.nodePort`, "may not be used when `type` is 'ClusterIP'"));
    }
  });
  if (spec.sessionAffinity === 'ClientIP') {
    const t = at(spec, 'sessionAffinityConfig.clientIP.timeoutSeconds');
    if (typeof t === 'number' && (t <= 0 || t > 86400)) errs.push(invalidValue('spec.sessionAffinityConfig.clientIP.timeoutSeconds', t, 'must be greater than 0 and less than 86400'));
  }
  return errs;
}

/** Addresses asked for: `None` or IPs, `clusterIP` the first of `clusterIPs`, none for ExternalName, no headless node ports. */
function validateClusterIPs(spec: Json): FieldError[] {
  const errs: FieldError[] = [];
  const ips = asArray(spec.clusterIPs);
  if (spec.type === 'ExternalName') {
    if (spec.clusterIP) errs.push(invalidValue('spec.clusterIP', spec.clusterIP, 'may not be set for ExternalName services'));
    else if (ips.length) errs.push(invalidValue('spec.clusterIPs', ips, 'may not be set for ExternalName services'));
    return errs;
  }
  const ip = spec.clusterIP;
  if (ip !== undefined && ip !== '' && ip !== HEADLESS && (typeof ip !== 'string' || !parseIP(ip))) {
    errs.push(invalidValue('spec.clusterIP', ip, "must be empty, 'None', or a valid IP address"));
  }
  if (ips.length > 2) errs.push(invalidValue('spec.clusterIPs', ips, 'may have at most 2 entries (one per IP family)'));
  ips.forEach((v, i) => {
    if (i === 0 && ip !== undefined && ip !== '' && v !== ip) errs.push(invalidValue('spec.clusterIPs[0]', v, 'must match `spec.clusterIP`'));
    else if (v === HEADLESS ? i > 0 : typeof v !== 'string' || !parseIP(v)) errs.push(invalidValue(`spec.clusterIPs[${i}]`, v, "must be 'None' (first entry only) or a valid IP address"));
  });
  const families = ips.map((v) => (typeof v === 'string' ? parseIP(v)?.family : undefined));
  if (families.length === 2 && families[0] && families[0] === families[1]) errs.push(invalidValue('spec.clusterIPs', ips, 'may specify no more than one IP for each IP family'));
  if (ip === HEADLESS && (spec.type === 'NodePort' || spec.type === 'LoadBalancer')) {
    errs.push(invalidValue('spec.clusterIPs[0]', HEADLESS, `may not be set to 'None' for ${String(spec.type)} services`));
  }
  return errs;
}

function validateServiceUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const spec = asObject(o.spec) ?? {};
  const oldSpec = asObject(old.spec) ?? {};
  // The allocated addresses and the primary family stay unless the service moves to or from ExternalName.
  if (spec.type === 'ExternalName' || oldSpec.type === 'ExternalName') return [];
  if (oldSpec.clusterIP && spec.clusterIP !== undefined && spec.clusterIP !== '' && spec.clusterIP !== oldSpec.clusterIP) {
    return [invalidValue('spec.clusterIP', spec.clusterIP, 'field is immutable')];
  }
  const families = asArray(spec.ipFamilies);
  const oldFamilies = asArray(oldSpec.ipFamilies);
  if (families.length && oldFamilies.length && families[0] !== oldFamilies[0]) {
    return [invalidValue('spec.ipFamilies[0]', families[0], 'may not change once set')];
  }
  return [];
}

function externalIPCell(o: ApiObject): string {
  const spec = asObject(o.spec) ?? {};
  const ingress = asArray(at(o, 'status.loadBalancer.ingress')).map((i) => asObject(i) ?? {});
  switch (spec.type) {
    case 'ExternalName':
      return String(spec.externalName ?? '<none>');
    case 'LoadBalancer': {
      const ips = [...ingress.map((i) => String(i.ip || i.hostname || '')), ...asArray(spec.externalIPs).map(String)].filter(Boolean);
      return ips.length ? ips.join(',') : '<pending>';
    }
    default:
      return joinList(spec.externalIPs);
  }
}

function portsCell(o: ApiObject): string {
  const ports = asArray(at(o, 'spec.ports')).map((p) => asObject(p) ?? ({} as Json));
  if (!ports.length) return '<none>';
  return ports.map((p) => (p.nodePort ? `${String(p.port)}:${String(p.nodePort)}/${String(p.protocol ?? 'TCP')}` : `${String(p.port)}/${String(p.protocol ?? 'TCP')}`)).join(',');
}

function selectorCell(o: ApiObject): string {
  const sel = asObject(at(o, 'spec.selector'));
  if (!sel || !Object.keys(sel).length) return '<none>';
  return Object.entries(sel)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(',');
}

export const services: ResourceType = {
  group: '',
  versions: [{ name: 'v1', schema }],
  kind: 'Service',
  plural: 'services',
  singular: 'service',
  scope: 'Namespaced',
  returnDeletedObject: true,
  shortNames: ['svc'],
  categories: ['all'],
  nameRule: 'dns-label',
  subresources: {
    status: true,
    others: [{ name: 'proxy', kind: 'ServiceProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] }],
  },
  rest: { actions: serviceActions },
  columns: [
    { name: 'Type', type: 'string', description: 'The type of the service.', cell: (o) => at(o, 'spec.type') ?? 'ClusterIP' },
    { name: 'Cluster-IP', type: 'string', description: 'The IP address of the service.', cell: (o) => (at(o, 'spec.clusterIP') as string | undefined) || '<none>' },
    { name: 'External-IP', type: 'string', description: 'The external IP addresses of the service.', cell: externalIPCell },
    { name: 'Port(s)', type: 'string', description: 'The ports exposed by the service.', cell: portsCell },
    ageColumn,
    { name: 'Selector', type: 'string', priority: 1, description: 'The label selector of the service.', cell: selectorCell },
  ],
  strategy: {
    defaults,
    prepareForUpdate: (obj, old) => carryOverAllocations(obj, old),
    validate: validateService,
    validateUpdate: updateValidation(validateService, validateServiceUpdate),
  },
};
