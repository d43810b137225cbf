// What the server needs to know of a remote APIService (one with spec.service): which group/version
// it serves, where its Service is, how to trust the backend's certificate, where it sorts in
// discovery and whether its Available condition is True. The gateway proxies to it and merges its
// discovery; the availability controller checks it. Read from the stored object, never trusted
// further than its validation went: anything missing reads as Go would read it.

import type { ApiObject } from '../../../api/types.js';
import { asObject } from '../common/field-errors.js';
import { availableCondition, DEFAULT_SERVICE_PORT } from './api-service.js';

export interface ApiServiceBackend {
  namespace: string;
  name: string;
  port: number;
}

export interface RemoteApiService {
  /** `<version>.<group>`. */
  name: string;
  group: string;
  version: string;
  groupPriority: number;
  versionPriority: number;
  service: ApiServiceBackend;
  /** PEM of spec.caBundle (empty: the host's roots). */
  caPem: string;
  insecureSkipTLSVerify: boolean;
  /** The Available condition is True: requests are proxied (otherwise answered 503, as upstream). */
  available: boolean;
}

/** The user the server acts as towards a backend for its own checks (upstream's aggregator identity). */
export const AGGREGATOR_USER = 'system:kube-aggregator';

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const int = (v: unknown, d = 0): number => (typeof v === 'number' && Number.isInteger(v) ? v : d);

/** The host name a backend's serving certificate is checked against, as upstream's: `<name>.<namespace>.svc`. */
export function serviceHostName(service: ApiServiceBackend): string {
  return `${service.name}.${service.namespace}.svc`;
}

/** The remote view of an APIService; undefined for a Local one (no spec.service). */
export function remoteApiService(o: ApiObject): RemoteApiService | undefined {
  const spec = asObject(o.spec) ?? {};
  const service = asObject(spec.service);
  if (!service) return undefined;
  const caBundle = text(spec.caBundle);
  return {
    name: o.metadata.name ?? '',
    group: text(spec.group),
    version: text(spec.version),
    groupPriority: int(spec.groupPriorityMinimum),
    versionPriority: int(spec.versionPriority),
    service: { namespace: text(service.namespace), name: text(service.name), port: int(service.port, DEFAULT_SERVICE_PORT) },
    caPem: caBundle ? Buffer.from(caBundle, 'base64').toString('utf8') : '',
    insecureSkipTLSVerify: spec.insecureSkipTLSVerify === true,
    available: availableCondition(o)?.status === 'True',
  };
}
