// ServiceAccount: every pod runs as a service account of its namespace. A new pod naming none
// gets `default`; one naming an account that does not exist is refused. Unless automounting is
// off (the pod's choice first, else the account's) every container and init container gets the
// account's API credentials mounted read-only at the well-known path: one projected volume of a
// bound token, the cluster's root CA and the pod's namespace. A pod without image pull secrets
// gets the account's. Mirror pods come from files on a node and are never changed (the node
// agent would see its spec differ and delete them); instead they may not reference an account
// or a secret at all. Accounts annotated to enforce mountable secrets limit the secrets their
// pods (and ephemeral containers added later) may use to those the account lists.

import type { ApiObject } from '../../../../shared/api/types.js';
import { podObjectReferences } from '../../../../shared/api/node-references.js';
import { AdmissionOperation, type AdmissionRequest } from '../../../../shared/bus/messages.js';
import { generateName as randomName } from '../../../../shared/registry/rest/prepare.js';
import { admissionForbidden } from '../../errors.js';
import type { ObjectCache } from '../../object-cache.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';
import { MIRROR_POD_ANNOTATION } from '../nodes/node-restriction.js';
import { listAt, rec, records, type Json } from '../../object-json.js';

export const SERVICE_ACCOUNT = 'ServiceAccount';

export const DEFAULT_SERVICE_ACCOUNT = 'default';
/** Prefix of the projected volume's name; a pod that already has such a volume keeps it. */
export const TOKEN_VOLUME_PREFIX = 'platform-api-access-';
export const TOKEN_MOUNT_PATH = '/var/run/secrets/platform.io/serviceaccount';
/** The config map the controllers' root-ca-cert-publisher keeps in every namespace. */
export const ROOT_CA_CONFIG_MAP = 'platform-root-ca.crt';
/**
 * Upstream's lifetime of an automounted token: an hour and 7 s. The odd seconds let the token
 * issuer tell these tokens from ones a client asked for, and extend them only with a warning.
 */
export const AUTOMOUNT_TOKEN_EXPIRATION_SECONDS = 3607;
/** `"true"` on an account: its pods may only use the secrets it lists. */
export const ENFORCE_MOUNTABLE_SECRETS_ANNOTATION = 'platform.io/enforce-mountable-secrets';

/**
 * Live reads of a missing `default` account before the pod is refused: the controllers make it
 * right after the namespace, so a pod created at once may just have to wait for it.
 */
const DEFAULT_ACCOUNT_ATTEMPTS = 10;

const PODS = { group: '', resource: 'pods' };

export const SERVICE_ACCOUNT_MATCH: PluginMatch = {
  // Updates only matter for the ephemeralcontainers subresource.
  operations: [AdmissionOperation.Create, AdmissionOperation.Update],
  resources: [PODS],
};

export interface ServiceAccountOptions {
  /** Reads of a missing `default` account (default 10). */
  defaultAccountAttempts?: number;
  /** The wait between them (default 100–200 ms). */
  retryDelayMs?: () => number;
  /** Names the token volume (default: the prefix and 5 random characters). */
  generateName?: (prefix: string) => string;
}

/** The projected volume that carries an account's API credentials into a pod. */
export function tokenVolume(name: string): Json {
  return {
    name,
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: AUTOMOUNT_TOKEN_EXPIRATION_SECONDS, path: 'token' } },
        { configMap: { name: ROOT_CA_CONFIG_MAP, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };
}

const isMirrorPod = (pod: ApiObject): boolean => Object.hasOwn(pod.metadata?.annotations ?? {}, MIRROR_POD_ANNOTATION);
const accountName = (spec: Json): string => (typeof spec.serviceAccountName === 'string' ? spec.serviceAccountName : '');

/** The pod's own setting wins, then the account's; mounting is the default. */
function shouldAutomount(account: ApiObject, spec: Json): boolean {
  if (typeof spec.automountServiceAccountToken === 'boolean') return spec.automountServiceAccountToken;
  if (typeof account.automountServiceAccountToken === 'boolean') return account.automountServiceAccountToken;
  return true;
}

/** Go's strconv.ParseBool true values; anything else (including garbage) is false. */
function enforcesMountableSecrets(account: ApiObject): boolean {
  const v = account.metadata.annotations?.[ENFORCE_MOUNTABLE_SECRETS_ANNOTATION];
  return v !== undefined && ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(v);
}

/** Mounts the token volume in every container that has nothing at the path yet; adds the volume if any does. */
export function mountServiceAccountToken(spec: Json, generateName: (prefix: string) => string): void {
  const existing = records(spec.volumes)
    .map((v) => v.name)
    .find((n): n is string => typeof n === 'string' && n.startsWith(TOKEN_VOLUME_PREFIX));
  const volumeName = existing ?? generateName(TOKEN_VOLUME_PREFIX);
  let needed = false;
  for (const key of ['initContainers', 'containers']) {
    for (const container of records(spec[key])) {
      // Whatever the pod mounts there itself takes the place of the credentials.
      if (records(container.volumeMounts).some((m) => m.mountPath === TOKEN_MOUNT_PATH)) continue;
      listAt(container, 'volumeMounts').push({ name: volumeName, readOnly: true, mountPath: TOKEN_MOUNT_PATH });
      needed = true;
    }
  }
  if (!existing && needed) listAt(spec, 'volumes').push(tokenVolume(volumeName));
}

interface Consumer {
  /** `container web` / `init container setup` / `ephemeral container debug` */
  what: string;
  container: Json;
}

const consumers = (spec: Json, keys: Array<[string, string]>): Consumer[] =>
  keys.flatMap(([key, kind]) => records(spec[key]).map((container) => ({ what: `${kind} ${String(container.name ?? '')}`, container })));

/** The first secret reference of these containers the account does not list, as upstream words it. */
function unlistedContainerSecret(list: Consumer[], mountable: Set<string>, account: string): string | undefined {
  for (const { what, container } of list) {
    for (const env of records(container.env)) {
      const name = rec(rec(env.valueFrom)?.secretKeyRef)?.name;
      if (typeof name === 'string' && !mountable.has(name)) {
        return `${what} with envVar ${String(env.name ?? '')} referencing secret.secretName="${name}" is not allowed because service account ${account} does not reference that secret`;
      }
    }
    for (const from of records(container.envFrom)) {
      const name = rec(from.secretRef)?.name;
      if (typeof name === 'string' && !mountable.has(name)) {
        return `${what} with envFrom referencing secret.secretName="${name}" is not allowed because service account ${account} does not reference that secret`;
      }
    }
  }
  return undefined;
}

/** Why a pod may not use the secrets it names under an account that enforces mountable secrets. */
export function unlistedSecret(account: ApiObject, spec: Json): string | undefined {
  const name = account.metadata.name ?? '';
  const mountable = new Set(records(account.secrets).map((s) => String(s.name ?? '')));
  for (const volume of records(spec.volumes)) {
    const secret = rec(volume.secret);
    if (!secret) continue;
    const secretName = String(secret.secretName ?? '');
    if (!mountable.has(secretName)) return `volume with secret.secretName="${secretName}" is not allowed because service account ${name} does not reference that secret`;
  }
  const containers = consumers(spec, [
    ['initContainers', 'init container'],
    ['containers', 'container'],
  ]);
  const fromContainers = unlistedContainerSecret(containers, mountable, name);
  if (fromContainers) return fromContainers;
  const pullable = new Set(records(account.imagePullSecrets).map((s) => String(s.name ?? '')));
  for (const [i, ref] of records(spec.imagePullSecrets).entries()) {
    const secretName = String(ref.name ?? '');
    if (!pullable.has(secretName)) return `imagePullSecrets[${i}].name="${secretName}" is not allowed because service account ${name} does not reference that imagePullSecret`;
  }
  return undefined;
}

function validateMirrorPod(req: AdmissionRequest, pod: ApiObject, spec: Json): void {
  if (accountName(spec)) throw admissionForbidden(req, 'a mirror pod may not reference service accounts');
  if (podObjectReferences(pod).secrets.length) throw admissionForbidden(req, 'a mirror pod may not reference secrets');
  const projectsToken = records(spec.volumes).some((v) => records(rec(v.projected)?.sources).some((s) => s.serviceAccountToken !== undefined));
  if (projectsToken) throw admissionForbidden(req, 'a mirror pod may not use ServiceAccountToken volume projections');
}

export function createServiceAccountPlugin(accounts: ObjectCache, opts: ServiceAccountOptions = {}): AdmissionPlugin {
  const attempts = opts.defaultAccountAttempts ?? DEFAULT_ACCOUNT_ATTEMPTS;
  const retryDelayMs = opts.retryDelayMs ?? (() => 100 + Math.floor(Math.random() * 100));
  const generateName = opts.generateName ?? randomName;

  /** The account from the cache, else read live (the cache may lag behind a fresh account). */
  const getAccount = async (req: AdmissionRequest, name: string): Promise<ApiObject> => {
    await accounts.ready();
    const namespace = req.namespace ?? '';
    const tries = name === DEFAULT_SERVICE_ACCOUNT ? attempts : 1;
    for (let i = 0; i < tries; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, retryDelayMs()));
      const found = await accounts.lookup(namespace, name);
      if (found) return found;
    }
    throw admissionForbidden(req, `error looking up service account ${namespace}/${name}: serviceaccount "${name}" not found`);
  };

  /** The checks of both phases on a new pod (mutate runs them on the object it just changed). */
  const validateCreate = async (req: AdmissionRequest, pod: ApiObject, spec: Json, known?: ApiObject): Promise<void> => {
    if (isMirrorPod(pod)) return validateMirrorPod(req, pod, spec);
    const name = accountName(spec);
    if (!name) throw admissionForbidden(req, `no service account specified for pod ${req.namespace ?? ''}/${pod.metadata.name ?? ''}`);
    const account = known ?? (await getAccount(req, name));
    if (!enforcesMountableSecrets(account)) return;
    const why = unlistedSecret(account, spec);
    if (why) throw admissionForbidden(req, why);
  };

  /** Ephemeral containers added to a running pod may not reach secrets the account withholds. */
  const validateEphemeralContainers = async (req: AdmissionRequest, pod: ApiObject, spec: Json): Promise<void> => {
    const name = accountName(spec);
    if (!name) throw admissionForbidden(req, `no service account specified for pod ${req.namespace ?? ''}/${pod.metadata.name ?? ''}`);
    const account = await getAccount(req, name);
    if (!enforcesMountableSecrets(account)) return;
    const mountable = new Set(records(account.secrets).map((s) => String(s.name ?? '')));
    const why = unlistedContainerSecret(consumers(spec, [['ephemeralContainers', 'ephemeral container']]), mountable, name);
    if (why) throw admissionForbidden(req, why);
  };

  return {
    name: SERVICE_ACCOUNT,
    match: SERVICE_ACCOUNT_MATCH,
    async mutate(req) {
      const pod = req.object;
      if (req.operation !== AdmissionOperation.Create || req.subResource || !pod) return;
      const spec = rec(pod.spec);
      if (!spec) return;
      if (isMirrorPod(pod)) return validateMirrorPod(req, pod, spec);

      if (!accountName(spec)) {
        spec.serviceAccountName = DEFAULT_SERVICE_ACCOUNT;
        // The deprecated alias, which the served form keeps equal (defaulting ran before admission).
        spec.serviceAccount = DEFAULT_SERVICE_ACCOUNT;
      }
      const account = await getAccount(req, accountName(spec));
      if (shouldAutomount(account, spec)) mountServiceAccountToken(spec, generateName);
      const pullSecrets = records(account.imagePullSecrets);
      if (!records(spec.imagePullSecrets).length && pullSecrets.length) {
        spec.imagePullSecrets = pullSecrets.map((s) => ({ name: s.name }));
      }
      await validateCreate(req, pod, spec, account);
      return pod;
    },
    async validate(req) {
      const pod = req.object;
      if (!pod) return;
      const spec = rec(pod.spec) ?? {};
      if (req.operation === AdmissionOperation.Update && req.subResource === 'ephemeralcontainers') return validateEphemeralContainers(req, pod, spec);
      if (req.operation !== AdmissionOperation.Create || req.subResource) return;
      await validateCreate(req, pod, spec);
    },
  };
}

export const serviceAccountPlugin: PluginDefinition = {
  name: SERVICE_ACCOUNT,
  defaultEnabled: true,
  create: (deps) => createServiceAccountPlugin(deps.objects('', 'serviceaccounts')),
};
