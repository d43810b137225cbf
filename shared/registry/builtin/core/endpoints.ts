// Endpoints: the addresses behind a service, written by the endpoints controller.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import { validateEndpointIP } from '../../../api/special-ip.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asArray, asObject, setDefault } from '../common/field-errors.js';
import { objectReference } from '../common/meta.js';
import { atomicList, described, int32, obj, str, strEnum } from '../common/schema.js';

const endpointAddress = described(
  obj({ ip: str, hostname: str, nodeName: str, targetRef: objectReference }, ['ip']),
  {
    ip: 'IP address of the endpoint, IPv4 or IPv6. Loopback, link-local and unspecified addresses are rejected.',
    hostname: 'Host name of the endpoint (a DNS label), under which cluster DNS may publish it.',
    nodeName: 'Node that hosts the endpoint.',
    targetRef: 'The object that provides the endpoint, normally a pod.',
  },
  'One address behind a service.',
);

const endpointPort = described(
  obj({ name: str, port: int32, protocol: strEnum('TCP', 'UDP', 'SCTP'), appProtocol: str }, ['port']),
  {
    name: 'Name of the port, the same as the name of the service port it serves; tells the ports of a subset with more than one apart.',
    port: 'Port number, 1 to 65535.',
    protocol: 'IP protocol: TCP (the default), UDP or SCTP.',
    appProtocol: 'Application protocol spoken on the port, such as http or a prefixed name like `example.com/proto`.',
  },
  'A port at which the addresses of a subset can be reached.',
);

const subset = described(
  obj({ addresses: atomicList(endpointAddress), notReadyAddresses: atomicList(endpointAddress), ports: atomicList(endpointPort) }),
  {
    addresses: 'Addresses that are ready to receive traffic.',
    notReadyAddresses: 'Addresses that exist but are not ready yet (or no longer), and so get no traffic.',
    ports: 'Ports available on every address of the subset.',
  },
  'A group of addresses that all share the same ports.',
);

const schema = described(
  obj({ subsets: atomicList(subset) }),
  {
    subsets: 'The addresses and ports, grouped so that every address of a subset has every port of it. The endpoints controller fills it from the pods a service selects.',
  },
  'The network addresses behind a service. An Endpoints object has the name of its service; for a service with a selector the endpoints controller writes it, otherwise it is written by hand.',
);

/** Every address's IP (upstream's validateEndpointAddress): a valid IP, not loopback, link-local or unspecified. */
function validateEndpoints(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  asArray(o.subsets).forEach((s, i) => {
    const subset = asObject(s) ?? {};
    for (const list of ['addresses', 'notReadyAddresses'] as const) {
      asArray(subset[list]).forEach((a, j) => errs.push(...validateEndpointIP(asObject(a)?.ip, `subsets[${i}].${list}[${j}].ip`)));
    }
  });
  return errs;
}

/** kubectl shows at most three `ip:port` pairs and a count of the rest. */
function endpointsCell(o: ApiObject): string {
  const list: string[] = [];
  let total = 0;
  for (const s of asArray(o.subsets)) {
    const subset = asObject(s) ?? {};
    const ports = asArray(subset.ports).map((p) => asObject(p) ?? {});
    for (const a of asArray(subset.addresses)) {
      const ip = String(asObject(a)?.ip ?? '');
      const entries = ports.length ? ports.map((p) => `${ip}:${String(p.port)}`) : [ip];
      for (const e of entries) {
        total++;
        if (list.length < 3) list.push(e);
      }
    }
  }
  if (!total) return '<none>';
  return total > 3 ? `${list.join(',')} + ${total - 3} more...` : list.join(',');
}

export const endpoints: ResourceType = {
  group: '',
  versions: [{ name: 'v1', schema }],
  kind: 'Endpoints',
  listKind: 'EndpointsList',
  plural: 'endpoints',
  singular: 'endpoints',
  scope: 'Namespaced',
  createOnUpdate: true,
  shortNames: ['ep'],
  generation: false,
  columns: [{ name: 'Endpoints', type: 'string', description: 'Endpoints of the service', cell: endpointsCell }, ageColumn],
  strategy: {
    defaults(o) {
      for (const s of asArray(o.subsets))
        for (const p of asArray(asObject(s)?.ports)) {
          const port = asObject(p);
          if (port) setDefault(port, 'protocol', 'TCP');
        }
    },
    validate: validateEndpoints,
  },
};
