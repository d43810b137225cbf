// Endpoints: the addresses behind a service, written by the endpoints controller.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import { validateEndpointIP } from '../../../api/special-ip.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asArray, asObject, setDefault } from '../common/field-errors.js';
import { objectReference } from '../common/meta.js';
import { atomicList, int32, obj, str, strEnum } from '../common/schema.js';

const endpointAddress = obj({ ip: str, hostname: str, nodeName: str, targetRef: objectReference }, ['ip']);
const endpointPort = obj({ name: str, port: int32, protocol: strEnum('TCP', 'UDP', 'SCTP'), appProtocol: str }, ['port']);

const schema = obj({
  subsets: atomicList(obj({ addresses: atomicList(endpointAddress), notReadyAddresses: atomicList(endpointAddress), ports: atomicList(endpointPort) })),
});

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
