// Ingresses: HTTP routing from outside the cluster to services.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject, JsonSchema } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn, joinList } from '../common/columns.js';
import { asArray, asObject, at } from '../common/field-errors.js';
import { typedLocalObjectReference } from '../common/meta.js';
import { atomicList, int32, obj, str, strEnum } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { invalidValue, required } from '../../../api/field-errors.js';

const backend: JsonSchema = obj({
  service: obj({ name: str, port: obj({ name: str, number: int32 }) }, ['name']),
  resource: typedLocalObjectReference,
});

const schema = obj({
  spec: obj({
    ingressClassName: str,
    defaultBackend: backend,
    tls: atomicList(obj({ hosts: atomicList(str), secretName: str })),
    rules: atomicList(
      obj({
        host: str,
        http: obj({ paths: atomicList(obj({ path: str, pathType: strEnum('Exact', 'Prefix', 'ImplementationSpecific'), backend }, ['pathType', 'backend'])) }, ['paths']),
      }),
    ),
  }),
  status: obj({
    loadBalancer: obj({
      ingress: atomicList(obj({ ip: str, hostname: str, ports: atomicList(obj({ port: int32, protocol: strEnum('TCP', 'UDP', 'SCTP'), error: str }, ['port', 'protocol'])) })),
    }),
  }),
});

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
