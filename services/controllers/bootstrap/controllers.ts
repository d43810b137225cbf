// Bootstrap tokens' controllers, off by default as upstream's: tokencleaner deletes a
// `bootstrap-token-<id>` secret once its `expiration` has passed; bootstrapsigner signs the
// `kubeconfig` of the `cluster-info` config map in platform-public (and kube-public with upstream's
// names) with every valid signing token,
// as a detached JWS (HS256 keyed by the whole token) in `jws-kubeconfig-<id>`, re-signing when the
// tokens or the kubeconfig change and dropping signatures of tokens that went away.

import { CompactSign } from 'jose';
import type { ApiObject } from '../../../shared/api/types.js';
import type { Logger } from '../../../shared/log.js';
import { Informer } from '../../../shared/client/informer.js';
import { ApiClient, isConflict, isNotFound } from '../../../shared/client/rest.js';
import { WorkQueue } from '../queue.js';
import { queueController, type Controller } from '../types.js';
import { PLATFORM_NAMES, type WellKnownNames } from '../../../shared/api/well-known-names.js';

export const BOOTSTRAP_TOKEN_TYPE = 'bootstrap.platform.io/token';
export const BOOTSTRAP_NAMESPACE = 'platform-system';
export const CLUSTER_INFO_NAMESPACE = 'platform-public';
export const CLUSTER_INFO = 'cluster-info';
export const JWS_PREFIX = 'jws-kubeconfig-';

const SECRETS = { group: '', version: 'v1', resource: 'secrets', namespace: BOOTSTRAP_NAMESPACE };
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps', namespace: CLUSTER_INFO_NAMESPACE };

interface TokenSecret extends ApiObject {
  type?: string;
  data?: Record<string, string>;
}

const field = (s: TokenSecret, key: string): string | undefined => {
  const v = s.data?.[key];
  return v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8');
};

/** A token secret's id, secret, expiry and whether it may sign; undefined when it is not a well-formed token. */
export function readToken(s: TokenSecret): { id: string; secret: string; expires?: number; signing: boolean } | undefined {
  if (s.type !== BOOTSTRAP_TOKEN_TYPE) return undefined;
  const id = field(s, 'token-id');
  const secret = field(s, 'token-secret');
  if (!id || !secret || s.metadata.name !== `bootstrap-token-${id}`) return undefined;
  const exp = field(s, 'expiration');
  const expires = exp ? Date.parse(exp) : undefined;
  return { id, secret, ...(expires !== undefined ? { expires } : {}), signing: field(s, 'usage-bootstrap-signing') === 'true' };
}

export function expired(token: { expires?: number }, now: number): boolean {
  return token.expires !== undefined && (!Number.isFinite(token.expires) || token.expires <= now);
}

/** The detached JWS of `payload`: `<header>..<signature>`, HS256 keyed by `<id>.<secret>`, the token id as `kid`. */
export async function detachedSignature(payload: string, id: string, secret: string): Promise<string> {
  const jws = await new CompactSign(new TextEncoder().encode(payload)).setProtectedHeader({ alg: 'HS256', kid: id }).sign(new TextEncoder().encode(`${id}.${secret}`));
  const [header, , signature] = jws.split('.');
  return `${header}..${signature}`;
}

export function tokenCleaner(client: ApiClient, log: Logger): Controller {
  const informer = new Informer<TokenSecret>(client, SECRETS, { fieldSelector: `type=${BOOTSTRAP_TOKEN_TYPE}`, onError: (err) => log.warn({ err }, 'secret watch failed; retrying') });
  const queue = new WorkQueue(async (name) => {
    const s = informer.get(`${BOOTSTRAP_NAMESPACE}/${name}`);
    const token = s && readToken(s);
    if (!s || !token || token.expires === undefined) return;
    const left = token.expires - Date.now();
    if (left > 0) return { requeueAfterMs: Math.min(left + 100, 2 ** 31 - 1) };
    try {
      await client.delete({ ...SECRETS, name }, { preconditions: { uid: s.metadata.uid } });
      log.info({ secret: name }, 'expired bootstrap token deleted');
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  });
  informer.addHandlers({ onAdd: (o) => queue.add(o.metadata.name!), onUpdate: (_o, n) => queue.add(n.metadata.name!) });
  return queueController('tokencleaner', [informer], queue);
}

/** Signs `cluster-info` in every public namespace of `names` (`kube-public` too with upstream's names). */
export function bootstrapSigner(client: ApiClient, log: Logger, names: WellKnownNames = PLATFORM_NAMES): Controller {
  const secrets = new Informer<TokenSecret>(client, SECRETS, { fieldSelector: `type=${BOOTSTRAP_TOKEN_TYPE}`, onError: (err) => log.warn({ err }, 'secret watch failed; retrying') });
  const configMaps = new Map(
    names.publicNamespaces.map((namespace) => [
      namespace,
      new Informer(client, { ...CONFIGMAPS, namespace }, { fieldSelector: `metadata.name=${CLUSTER_INFO}`, onError: (err) => log.warn({ err, namespace }, 'config map watch failed; retrying') }),
    ]),
  );

  async function sign(namespace: string): Promise<void | { requeueAfterMs: number }> {
    const cm = configMaps.get(namespace)?.get(`${namespace}/${CLUSTER_INFO}`) as (ApiObject & { data?: Record<string, string> }) | undefined;
    const kubeconfig = cm?.data?.kubeconfig;
    if (!cm || kubeconfig === undefined) return;
    const now = Date.now();
    const tokens = secrets
      .list()
      .map(readToken)
      .filter((t): t is NonNullable<typeof t> => t !== undefined && t.signing && !expired(t, now));
    const data: Record<string, string> = Object.fromEntries(Object.entries(cm.data ?? {}).filter(([k]) => !k.startsWith(JWS_PREFIX)));
    for (const t of tokens) data[`${JWS_PREFIX}${t.id}`] = await detachedSignature(kubeconfig, t.id, t.secret);
    const next = tokens.map((t) => t.expires).filter((e): e is number => e !== undefined);
    const requeue = next.length ? { requeueAfterMs: Math.min(...next) - now + 100 } : undefined;
    if (JSON.stringify(data) === JSON.stringify(cm.data ?? {})) return requeue;
    try {
      await client.update({ ...CONFIGMAPS, namespace, name: CLUSTER_INFO }, { ...cm, data });
      log.info({ namespace, tokens: tokens.map((t) => t.id) }, 'cluster-info signed');
    } catch (err) {
      if (!isConflict(err) && !isNotFound(err)) throw err;
    }
    return requeue;
  }

  const queue = new WorkQueue(sign);
  const kick = () => {
    for (const namespace of configMaps.keys()) queue.add(namespace);
  };
  for (const inf of [secrets, ...configMaps.values()] as Informer[]) inf.addHandlers({ onAdd: kick, onUpdate: kick, onDelete: kick });
  return queueController('bootstrapsigner', [secrets, ...configMaps.values()], queue, kick);
}
