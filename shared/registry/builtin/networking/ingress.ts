// Ingresses: HTTP routing from outside the cluster to services.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject, JsonSchema } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn, joinList } from '../common/columns.js';
import { asArray, asObject, at } from '../common/field-errors.js';
import { typedLocalObjectReference } from '../common/meta.js';
import { atomicList, described, int32, obj, str, strEnum } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { invalidValue, required } from '../../../api/field-errors.js';

const servicePort = described(
  obj({ name: str, number: int32 }),
  { name: "Name of the port in the service's spec.ports.", number: 'Number of the port of the service, 1 to 65535.' },
  'A port of the service: exactly one of name and number.',
);

const backend: JsonSchema = described(
  obj({
    service: described(
      obj({ name: str, port: servicePort }, ['name']),
      { name: 'Name of the service, in the namespace of the ingress.', port: 'The port of the service to send traffic to.' },
      'A service that receives the traffic.',
    ),
    resource: typedLocalObjectReference,
  }),
  {
    service: 'A service that receives the traffic.',
    resource: 'Another object in the namespace of the ingress that serves the traffic, such as a bucket of static files, as the ingress controller understands it.',
  },
  'Where matching traffic is sent: exactly one of service and resource.',
);

const ingressPath = described(
  obj({ path: str, pathType: strEnum('Exact', 'Prefix', 'ImplementationSpecific'), backend }, ['pathType', 'backend']),
  {
    path: 'The URL path requests are compared with; must start with `/` unless pathType is ImplementationSpecific.',
    pathType:
      'How path is compared: Exact matches the whole URL path; Prefix matches by path element (`/foo` matches `/foo` and `/foo/bar`, not `/foobar`); ImplementationSpecific leaves it to the ingress controller.',
    backend: 'Where requests matching the path are sent.',
  },
  'A URL path and where requests for it go.',
);

const ingressRule = described(
  obj({
    host: str,
    http: described(
      obj({ paths: atomicList(ingressPath) }, ['paths']),
      { paths: 'Paths and their backends. When several match, the longest path wins, and Exact before Prefix.' },
      'HTTP routes of a host.',
    ),
  }),
  {
    host: 'The host name requests must carry, as a DNS name (not an IP address); a leading `*.` matches one label. Empty: every host.',
    http: 'How HTTP requests for the host are routed by path.',
  },
  'Routes for requests to one host.',
);

const tls = described(
  obj({ hosts: atomicList(str), secretName: str }),
  {
    hosts: 'Host names the certificate is used for; they should match hosts of the rules. Empty: the default host of the ingress controller.',
    secretName: 'Name of a secret in the namespace of the ingress holding the certificate and key (normally of type platform.io/tls). Empty: the controller routes TLS by the SNI host name alone.',
  },
  'TLS for a set of hosts.',
);

const ingressSpec = described(
  obj({ ingressClassName: str, defaultBackend: backend, tls: atomicList(tls), rules: atomicList(ingressRule) }),
  {
    ingressClassName: 'Name of the IngressClass whose controller serves this ingress. Unset on create: admission sets the class marked as the cluster default, if there is one.',
    defaultBackend: 'Where requests no rule matches are sent. Either it or rules must be set.',
    tls: 'TLS termination; unset means the ingress serves plain HTTP only.',
    rules: 'Routes by host and path. Requests no rule matches go to defaultBackend.',
  },
  'How requests are routed to services.',
);

const ingressPortStatus = described(obj({ port: int32, protocol: strEnum('TCP', 'UDP', 'SCTP'), error: str }, ['port', 'protocol']), {
  port: 'Port number.',
  protocol: 'Protocol of the port: TCP, UDP or SCTP.',
  error: 'Why the port could not be set up, if it could not.',
});

const ingressStatus = described(
  obj({
    loadBalancer: described(
      obj({
        ingress: atomicList(
          described(
            obj({ ip: str, hostname: str, ports: atomicList(ingressPortStatus) }),
            {
              ip: 'IP address of the entry point.',
              hostname: 'DNS name of the entry point, for load balancers that have a name rather than an address.',
              ports: 'State of each port of the entry point.',
            },
            'An entry point of the load balancer.',
          ),
        ),
      }),
      { ingress: 'Addresses where the ingress is reachable.' },
      'The load balancer in front of the ingress.',
    ),
  }),
  { loadBalancer: 'Where the ingress can be reached, once its controller has set it up.' },
  'What the ingress controller reports, through the status subresource.',
);

const schema = described(
  obj({ spec: ingressSpec, status: ingressStatus }),
  { spec: 'How requests are routed to services.', status: 'Where the ingress is reachable. Written by the ingress controller.' },
  'An ingress: routes HTTP and HTTPS requests from outside the cluster to services, by host and path. An ingress controller (chosen by the ingress class) does the routing; the server only stores and validates the rules.',
);

function validateBackend(b: unknown, f: string): FieldError[] {
  const be = asObject(b) ?? {};
  const svc = asObject(be.service);
  const errs: FieldError[] = [];
  if (svc && be.resource) errs.push(invalidValue(f, b, 'cannot set both resource and service backends'));
  if (!svc && !be.resource) errs.push(required(f, 'one of service or resource backend must be specified'));
  if (svc) {
    const port = asObject(svc.port);
    const hasName = typeof port?.name === 'string' && port.name !== '';
    const hasNumber = typeof port?.number === 'number' && port.number !== 0;
    if (!port || hasName === hasNumber) errs.push(required(`${f}.service.port`, 'port name or number is required'));
    if (hasNumber && ((port!.number as number) < 1 || (port!.number as number) > 65535)) errs.push(invalidValue(`${f}.service.port.number`, port!.number, 'must be between 1 and 65535, inclusive'));
  }
  return errs;
}

function validate(o: ApiObject): FieldError[] {
  const spec = asObject(o.spec) ?? {};
  const errs: FieldError[] = [];
  if (!spec.defaultBackend && !asArray(spec.rules).length) errs.push(invalidValue('spec', spec, 'either `defaultBackend` or `rules` must be specified'));
  if (spec.defaultBackend) errs.push(...validateBackend(spec.defaultBackend, 'spec.defaultBackend'));
  asArray(spec.rules).forEach((r, i) => {
    const host = at(r, 'host');
    if (typeof host === 'string' && host && (/^\d+\.\d+\.\d+\.\d+$/.test(host) || host.includes(':'))) {
      errs.push(invalidValue(`spec.rules[${i}].host`, host, 'must be a DNS name, not an IP address'));
    }
    asArray(at(r, 'http.paths')).forEach((p, j) => {
      const path = asObject(p) ?? {};
      const f = `spec.rules[${i}].http.paths[${j}]`;
      if (path.pathType !== 'ImplementationSpecific' && !(typeof path.path === 'string' && path.path.startsWith('/'))) {
        errs.push(invalidValue(`${f}.path`, path.path ?? '', 'must be an absolute path'));
      }
      errs.push(...validateBackend(path.backend, `${f}.backend`));
    });
  });
  return errs;
}

function hostsCell(o: ApiObject): string {
  const hosts = asArray(at(o, 'spec.rules'))
    .map((r) => at(r, 'host'))
    .filter((h) => typeof h === 'string' && h);
  return hosts.length ? hosts.join(',') : '*';
}

export const ingresses: ResourceType = {
  group: 'networking.platform.io',
  versions: [{ name: 'v1', schema }],
  kind: 'Ingress',
  plural: 'ingresses',
  singular: 'ingress',
  scope: 'Namespaced',
  shortNames: ['ing'],
  subresources: { status: true },
  columns: [
    { name: 'Class', type: 'string', cell: (o) => at(o, 'spec.ingressClassName') ?? '<none>' },
    { name: 'Hosts', type: 'string', cell: hostsCell },
    {
      name: 'Address',
      type: 'string',
      cell: (o) =>
        joinList(
          asArray(at(o, 'status.loadBalancer.ingress')).map((i) => at(i, 'ip') ?? at(i, 'hostname')),
          '',
        ),
    },
    { name: 'Ports', type: 'string', cell: (o) => (asArray(at(o, 'spec.tls')).length ? '80, 443' : '80') },
    ageColumn,
  ],
  strategy: { validate, validateUpdate: updateValidation(validate) },
};
