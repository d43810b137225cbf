// APIServices (apiregistration.platform.io/v1): which server serves each API group/version. A
// Local one (no spec.service) is served by this API server itself and is Available from the
// moment it exists; a remote one names the in-cluster Service that would serve it. The server
// lists a Local APIService for each built-in group/version (local-api-services.ts).

import type { ApiObject } from '../../../api/types.js';
import type { ResourceType, StrategyContext } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asArray, asObject, setDefault } from '../common/field-errors.js';
import { conditionList } from '../common/meta.js';
import { bool, bytes, described, int32, obj, str, time } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { validateAPIService, validateAPIServiceStatus } from './api-service-validation.js';

export const APIREGISTRATION_GROUP = 'apiregistration.platform.io';

/** The port of a referenced Service when the APIService names none (upstream's default). */
export const DEFAULT_SERVICE_PORT = 443;

/** The condition every Local APIService carries: this server serves it, so it is always there. */
export const LOCAL_AVAILABLE = { type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' } as const;

const serviceReference = described(
  obj({ namespace: str, name: str, port: int32 }),
  {
    namespace: 'Namespace of the service. Required.',
    name: 'Name of the service. Required.',
    port: 'Port of the service to call, 1 to 65535. Defaults to 443.',
  },
  'The service in the cluster that serves the API group/version over https. Its serving certificate must be valid for `<name>.<namespace>.svc`.',
);

const condition = described(
  obj({ type: str, status: str, lastTransitionTime: time, reason: str, message: str }, ['type', 'status']),
  {
    type: 'Available: whether requests for the group/version can be served. Required.',
    status: 'True, False or Unknown. Required.',
    lastTransitionTime: 'When status last changed.',
    reason: 'Machine-readable reason, in CamelCase, such as Local, Passed, ServiceNotFound, MissingEndpoints or FailedDiscoveryCheck.',
    message: 'Readable details, such as the error the last check met.',
  },
  'One aspect of the state of the APIService, as the server last checked it.',
);

const schema = described(
  obj({
    spec: described(
      obj({
        service: serviceReference,
        group: str,
        version: str,
        insecureSkipTLSVerify: bool,
        caBundle: bytes,
        // Not schema-required: Go reads them as 0, which the rules report as upstream words it.
        groupPriorityMinimum: int32,
        versionPriority: int32,
      }),
      {
        service:
          'The service that serves the group/version; the server proxies its requests there. Omitted for a Local APIService, which this server serves itself (built-in groups and custom resources).',
        group: 'API group served, such as `metrics.platform.io`; empty only for the core group at v1. The APIService must be named `<version>.<group>`.',
        version: 'API version served, such as `v1beta1`: a DNS label.',
        insecureSkipTLSVerify: 'Skip checking the serving certificate of the service. Strongly discouraged; not allowed together with caBundle or on a Local APIService.',
        caBundle:
          "PEM certificates (base64 in JSON and YAML) that the serving certificate of the service must chain to. Omitted means the root certificates the server's host trusts. Not allowed on a Local APIService.",
        groupPriorityMinimum:
          'Where the group sorts in discovery: groups with a higher value come first (kubectl then prefers their resources when two groups use the same name). The group takes the highest value of its APIServices. Required: 1 to 20000.',
        versionPriority:
          'Where this version sorts among the versions of its group in discovery: higher values come first, and the first is the preferred version; equal values sort by version name (v2 before v1 before v1beta1). Required: 1 to 1000.',
      },
      'Which group/version is meant and where it is served.',
    ),
    status: described(
      obj({ conditions: conditionList(condition) }),
      { conditions: 'The Available condition, kept by the server: always True for a Local APIService; for a remote one, True once its service answers discovery for the group/version.' },
      'Whether the group/version can be served.',
    ),
  }),
  {
    spec: 'Which group/version is meant and where it is served.',
    status: 'Whether the group/version can be served. Written by the server.',
  },
  'Registers a server for one API group/version: this server itself (Local), or a service in the cluster that this server proxies the requests of the group/version to and whose discovery it merges into its own. The server keeps a Local APIService for each built-in group/version.',
);

type Condition = { type?: unknown; status?: unknown; reason?: unknown; message?: unknown; lastTransitionTime?: unknown };

/** The object's Available condition, when it has one. */
export function availableCondition(o: ApiObject): Condition | undefined {
  return asArray(asObject(o.status)?.conditions).find((c): c is Condition => asObject(c)?.type === 'Available');
}

/** Whether the object shows exactly the Local Available condition. */
export function isLocalAvailable(o: ApiObject): boolean {
  return showsAvailable(o, LOCAL_AVAILABLE);
}

/** What an availability check concludes: the Available condition without its transition time. */
export interface AvailableCondition {
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

/**
 * Sets the Available condition in place, keeping the other conditions; the transition time moves
 * only when the status changes (upstream's SetAPIServiceCondition).
 */
export function setAvailableCondition(o: ApiObject, condition: AvailableCondition, now: string): void {
  const status = (asObject(o.status) ?? {}) as { conditions?: unknown[] };
  const conditions = asArray(status.conditions).filter((c) => asObject(c)?.type !== 'Available');
  const old = availableCondition(o);
  const since = old?.status === condition.status && typeof old.lastTransitionTime === 'string' ? old.lastTransitionTime : now;
  o.status = { ...status, conditions: [...conditions, { type: 'Available', status: condition.status, lastTransitionTime: since, reason: condition.reason, message: condition.message }] };
}

/** Whether the object's Available condition already says exactly this (an update would change nothing). */
export function showsAvailable(o: ApiObject, condition: AvailableCondition): boolean {
  const c = availableCondition(o);
  return c?.status === condition.status && c.reason === condition.reason && c.message === condition.message;
}

/** Sets the Local Available condition in place (see setAvailableCondition). */
export function setLocalAvailable(o: ApiObject, now: string): void {
  setAvailableCondition(o, LOCAL_AVAILABLE, now);
}

/** `Local`, or the `<namespace>/<name>` of the serving Service. */
function serviceCell(o: ApiObject): string {
  const service = asObject(asObject(o.spec)?.service);
  return service ? `${String(service.namespace ?? '')}/${String(service.name ?? '')}` : 'Local';
}

/** `True`, `False (<reason>)`, or `Unknown` before any controller has judged it. */
function availableCell(o: ApiObject): string {
  const c = availableCondition(o);
  if (!c) return 'Unknown';
  const status = String(c.status ?? '');
  return status !== 'True' && typeof c.reason === 'string' && c.reason ? `${status} (${c.reason})` : status;
}

function defaults(o: ApiObject): void {
  const service = asObject(asObject(o.spec)?.service);
  if (service) setDefault(service, 'port', DEFAULT_SERVICE_PORT);
}

/** A new APIService's status is the server's: cleared, and Available at once when Local. */
function prepareForCreate(o: ApiObject, ctx: StrategyContext): void {
  delete o.status;
  if (!asObject(asObject(o.spec)?.service)) setLocalAvailable(o, ctx.now);
}

export const apiservices: ResourceType = {
  group: APIREGISTRATION_GROUP,
  versions: [{ name: 'v1', schema }],
  kind: 'APIService',
  plural: 'apiservices',
  singular: 'apiservice',
  scope: 'Cluster',
  categories: ['api-extensions'],
  nameRule: 'path-segment',
  generation: false,
  subresources: { status: true },
  columns: [
    { name: 'Service', type: 'string', description: 'The reference to the service that hosts this API endpoint.', cell: serviceCell },
    { name: 'Available', type: 'string', description: 'Whether this service is available.', cell: availableCell },
    ageColumn,
  ],
  strategy: {
    defaults,
    prepareForCreate,
    validate: validateAPIService,
    validateUpdate: updateValidation(validateAPIService),
    subresources: {
      // The generic status handling already keeps spec and metadata from the stored object.
      status: { prepareForUpdate: (o) => o, validateUpdate: (o) => validateAPIServiceStatus(o) },
    },
  },
};
