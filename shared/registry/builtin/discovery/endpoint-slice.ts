// EndpointSlices (discovery.platform.io): the network endpoints behind a service, in slices of at
// most 1000. v1 is stored; v1beta1 (deprecated in 1.21, gone in 1.25) keeps node name and zone in
// a `topology` map where v1 has `nodeName`, `zone` and the rest of the map as `deprecatedTopology`.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject, JsonSchema } from '../../../api/types.js';
import { duplicate, immutable, invalidValue, required, tooMany, unsupported } from '../../../api/field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, validateLabels } from '../../../api/validation.js';
import { parseIP } from '../../../api/ip.js';
import { specialEndpointIPErrors } from '../../../api/special-ip.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asArray, asObject, setDefault } from '../common/field-errors.js';
import { objectReference } from '../common/meta.js';
import { atomicList, bool, described, int32, obj, setList, str, strEnum, strMap } from '../common/schema.js';

export const ZONE_LABEL = 'topology.platform.io/zone';
export const HOSTNAME_LABEL = 'platform.io/hostname';

const ADDRESS_TYPES = ['IPv4', 'IPv6', 'FQDN'];
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 20000;
const MAX_HINT_ZONES = 8;

const conditions = described(
  obj({ ready: bool, serving: bool, terminating: bool }),
  {
    ready: 'Whether the endpoint should receive new traffic: serving and not terminating. Unset: unknown, which consumers treat as ready.',
    serving: 'Whether the endpoint can serve, whether or not it is terminating (for a pod: its Ready condition). Unset: unknown, treated as serving.',
    terminating: 'Whether the endpoint is shutting down (for a pod: it has a deletion timestamp). Unset: unknown, treated as not terminating.',
  },
  'The state of an endpoint, for consumers that decide where to send traffic.',
);
const hints = described(
  obj({ forZones: atomicList(described(obj({ name: str }, ['name']), { name: 'Name of the zone, as in the zone label of nodes.' }, 'A zone the endpoint serves.')) }),
  { forZones: 'Zones whose clients should be sent to this endpoint, for topology-aware routing; at most 8, without repeats.' },
  'Hints for consumers on where the endpoint should be used.',
);
const port = described(
  obj({ name: str, protocol: strEnum(...PROTOCOLS), port: int32, appProtocol: str }),
  {
    name: 'Name of the port, taken from the service port; a DNS label or empty. Unique within the slice; defaults to the empty name.',
    protocol: 'IP protocol of the port: TCP (the default), UDP or SCTP.',
    port: 'Port number, 1 to 65535. Unset: every port.',
    appProtocol: 'Application protocol of the port, such as `http` or a qualified name like `example.com/proto`; a hint for proxies and load balancers.',
  },
  'A port the endpoints of the slice listen on.',
);
const commonDocs = {
  addresses: "Addresses of the endpoint, of the slice's addressType; 1 to 100, treated as one endpoint (consumers normally use the first).",
  conditions: 'Whether the endpoint is ready, serving and terminating.',
  hostname: 'Host name of the endpoint, a DNS label; consumers may use it to tell endpoints apart, as DNS names of the pods of a headless service do.',
  targetRef: 'The object behind the endpoint, normally a pod.',
  nodeName: 'Name of the node hosting the endpoint.',
  hints: 'Where consumers should use the endpoint.',
};
const common = { addresses: setList(str), conditions, hostname: str, targetRef: objectReference, nodeName: str, hints };

const slice = (endpoint: Record<string, JsonSchema>, docs: Record<string, string>, about: string): JsonSchema =>
  described(
    obj(
      {
        addressType: strEnum(...ADDRESS_TYPES),
        endpoints: atomicList(described(obj({ ...common, ...endpoint }, ['addresses']), { ...commonDocs, ...docs }, 'One network endpoint, normally a pod.')),
        ports: atomicList(port),
      },
      ['addressType', 'endpoints'],
    ),
    {
      addressType: 'Kind of address every endpoint of the slice has: IPv4, IPv6 or FQDN (a DNS name). Cannot be changed.',
      endpoints: 'The endpoints: at most 1000 per slice.',
      ports: 'Ports every endpoint of the slice listens on; at most 20000. Empty: no port is known.',
    },
    about,
  );

const ABOUT =
  "A set of network endpoints behind a service (or another consumer), with their ports. A service's endpoints are split over several slices, joined by the label `platform.io/service-name`; the controller that owns a slice keeps it up to date.";

const v1Schema = slice(
  { deprecatedTopology: strMap, zone: str },
  {
    deprecatedTopology: 'Topology labels carried over from a v1beta1 topology map that v1 has no field for; written only by conversion.',
    zone: 'Zone of the endpoint, as in the zone label of its node.',
  },
  ABOUT,
);
const v1beta1Schema = slice(
  { topology: strMap },
  { topology: 'Topology labels of the endpoint, such as its node (`platform.io/hostname`) and zone (`topology.platform.io/zone`). In v1 these became nodeName and zone.' },
  ABOUT,
);

type Json = Record<string, unknown>;

function mapEndpoints(o: ApiObject, f: (e: Json) => Json): ApiObject {
  if (!Array.isArray(o.endpoints)) return o;
  return { ...o, endpoints: o.endpoints.map((e) => (asObject(e) ? f(asObject(e)!) : e)) };
}

/** v1beta1 → v1: the zone moves to its field, the host name goes when it repeats nodeName, the rest stays as deprecatedTopology. */
function endpointToV1(e: Json): Json {
  const { topology, ...out } = e;
  const t = asObject(topology);
  if (!t) return out;
  const rest: Record<string, unknown> = { ...t };
  if (typeof rest[ZONE_LABEL] === 'string') {
    out.zone = rest[ZONE_LABEL];
    delete rest[ZONE_LABEL];
  }
  if (rest[HOSTNAME_LABEL] !== undefined && rest[HOSTNAME_LABEL] === out.nodeName) delete rest[HOSTNAME_LABEL];
  if (Object.keys(rest).length) out.deprecatedTopology = rest;
  return out;
}

/** v1 → v1beta1: the topology map again holds the zone and, unless it names another, the node. */
function endpointToV1beta1(e: Json): Json {
  const { deprecatedTopology, zone, ...out } = e;
  if (deprecatedTopology === undefined && zone === undefined && out.nodeName === undefined) return out;
  const topology: Record<string, unknown> = { ...(asObject(deprecatedTopology) ?? {}) };
  if (typeof zone === 'string') topology[ZONE_LABEL] = zone;
  if (typeof out.nodeName === 'string' && topology[HOSTNAME_LABEL] === undefined) topology[HOSTNAME_LABEL] = out.nodeName;
  out.topology = topology;
  return out;
}

function validateAddress(addressType: unknown, a: unknown, f: string): FieldError[] {
  if (typeof a !== 'string') return [invalidValue(f, a, 'must be a string')];
  if (addressType === 'FQDN') return isDNS1123Subdomain(a, f);
  // As upstream, an IPv4-mapped address is an IPv4 address, and only in the IPv4 spelling.
  const ip = parseIP(a);
  const valid = addressType === 'IPv6' ? ip?.family === 'IPv6' : ip?.family === 'IPv4' && !a.includes(':');
  if (!valid) return [invalidValue(f, a, `must be a valid ${addressType} address`)];
  return specialEndpointIPErrors(a, f);
}

function validateEndpoints(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const endpoints = asArray(o.endpoints);
  if (endpoints.length > MAX_ENDPOINTS) errs.push(tooMany('endpoints', MAX_ENDPOINTS));
  endpoints.forEach((raw, i) => {
    const e = asObject(raw) ?? {};
    const f = `endpoints[${i}]`;
    const addresses = asArray(e.addresses);
    if (!addresses.length) errs.push(required(`${f}.addresses`, 'must contain at least 1 address'));
    else if (addresses.length > MAX_ADDRESSES) errs.push(tooMany(`${f}.addresses`, MAX_ADDRESSES));
    addresses.forEach((a, j) => errs.push(...validateAddress(o.addressType, a, `${f}.addresses[${j}]`)));
    if (typeof e.hostname === 'string') errs.push(...isDNS1123Label(e.hostname, `${f}.hostname`));
    if (typeof e.nodeName === 'string') errs.push(...isDNS1123Subdomain(e.nodeName, `${f}.nodeName`));
    if (e.deprecatedTopology !== undefined) errs.push(...validateLabels(e.deprecatedTopology, `${f}.deprecatedTopology`));
    if (typeof e.zone === 'string') errs.push(...isValidLabelValue(e.zone, `${f}.zone`));
    const zones = asArray(asObject(e.hints)?.forZones);
    if (zones.length > MAX_HINT_ZONES) errs.push(tooMany(`${f}.hints.forZones`, MAX_HINT_ZONES));
    const seen = new Set<unknown>();
    zones.forEach((z, j) => {
      const name = asObject(z)?.name;
      if (typeof name === 'string') errs.push(...isValidLabelValue(name, `${f}.hints.forZones[${j}].name`));
      if (seen.has(name)) errs.push(duplicate(`${f}.hints.forZones[${j}].name`, name));
      seen.add(name);
    });
  });
  return errs;
}

function validatePorts(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const ports = asArray(o.ports);
  if (ports.length > MAX_PORTS) errs.push(tooMany('ports', MAX_PORTS));
  const names = new Set<string>();
  ports.forEach((raw, i) => {
    const p = asObject(raw) ?? {};
    const f = `ports[${i}]`;
    const name = typeof p.name === 'string' ? p.name : '';
    if (name) errs.push(...isDNS1123Label(name, `${f}.name`));
    if (names.has(name)) errs.push(duplicate(`${f}.name`, name));
    names.add(name);
    if (p.protocol === undefined) errs.push(required(`${f}.protocol`));
    else if (!PROTOCOLS.includes(p.protocol as string)) errs.push(unsupported(`${f}.protocol`, p.protocol, PROTOCOLS));
    if (typeof p.port === 'number' && (p.port < 1 || p.port > 65535)) errs.push(invalidValue(`${f}.port`, p.port, 'must be between 1 and 65535, inclusive'));
    if (typeof p.appProtocol === 'string') errs.push(...isQualifiedName(p.appProtocol, `${f}.appProtocol`));
  });
  return errs;
}

function validateEndpointSlice(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  if (o.addressType === undefined) errs.push(required('addressType'));
  else if (!ADDRESS_TYPES.includes(o.addressType as string)) errs.push(unsupported('addressType', o.addressType, ADDRESS_TYPES));
  errs.push(...validateEndpoints(o), ...validatePorts(o));
  return errs;
}

/** At most three entries, then a count of the rest, as kubectl's printer shows them. */
function firstThree(values: string[]): string {
  if (!values.length) return '<unset>';
  return values.length > 3 ? `${values.slice(0, 3).join(',')} + ${values.length - 3} more...` : values.join(',');
}

export const endpointslices: ResourceType = {
  group: 'discovery.platform.io',
  versions: [
    { name: 'v1', schema: v1Schema },
    {
      name: 'v1beta1',
      schema: v1beta1Schema,
      toHub: (o) => mapEndpoints(o, endpointToV1),
      fromHub: (o) => mapEndpoints(o, endpointToV1beta1),
      deprecation: { since: '1.21', removedIn: '1.25', replacement: 'v1' },
    },
  ],
  kind: 'EndpointSlice',
  plural: 'endpointslices',
  singular: 'endpointslice',
  scope: 'Namespaced',
  generation: false,
  columns: [
    { name: 'AddressType', type: 'string', description: 'Type of address the endpoints hold', cell: (o) => String(o.addressType ?? '') },
    {
      name: 'Ports',
      type: 'string',
      description: 'Port numbers of the slice',
      cell: (o) => firstThree(asArray(o.ports).map((p) => (typeof asObject(p)?.port === 'number' ? String(asObject(p)!.port) : '<unset>'))),
    },
    { name: 'Endpoints', type: 'string', description: 'Addresses of the endpoints', cell: (o) => firstThree(asArray(o.endpoints).flatMap((e) => asArray(asObject(e)?.addresses).map(String))) },
    ageColumn,
  ],
  strategy: {
    defaults(o) {
      for (const p of asArray(o.ports)) {
        const port = asObject(p);
        if (!port) continue;
        setDefault(port, 'name', '');
        setDefault(port, 'protocol', 'TCP');
      }
    },
    validate: validateEndpointSlice,
    validateUpdate(o, old) {
      const errs = validateEndpointSlice(o);
      if (o.addressType !== old.addressType) errs.push(immutable('addressType', o.addressType));
      return errs;
    },
  },
};
