// The cluster objects authn decides from: bootstrap-token secrets, and the service accounts, pods
// and secrets that service-account tokens name. One object feed keeps a small projection of each
// in memory (a uid and whether it is being deleted; the token fields of the two token secret
// types), so a token check costs no bus round trip. The feed trails writes by a moment, so a
// token lookup that misses memory, or finds another uid there, asks the storage service before
// calling the object gone: a token issued for a just-created object must not fail in between.
// Bootstrap tokens are memory only: the spec makes them an in-memory lookup, and a bootstrap
// token is never minted moments after its secret.

import type { NatsConnection } from '@nats-io/nats-core';
import type { ApiObject } from '../../shared/api/types.js';
import { storageReader, type ObjectReader } from '../../shared/bus/storage-read.js';
import type { Logger } from '../../shared/log.js';
import { resourceFilter, startObjectFeed, type FeedEvent } from '../../shared/store/object-feed.js';

export const BOOTSTRAP_TOKEN_SECRET_TYPE = 'bootstrap.platform.io/token';
export const BOOTSTRAP_TOKEN_NAMESPACE = 'platform-system';
export const BOOTSTRAP_TOKEN_NAME_PREFIX = 'bootstrap-token-';
export const SERVICE_ACCOUNT_TOKEN_SECRET_TYPE = 'platform.io/service-account-token';
export const SERVICE_ACCOUNT_NAME_ANNOTATION = 'platform.io/service-account.name';
export const SERVICE_ACCOUNT_UID_ANNOTATION = 'platform.io/service-account.uid';

/** How long a token lookup waits for the first load, so a service just started does not turn
 *  every token into a live read (or, for bootstrap tokens, a refusal). */
export const SYNC_WAIT_MS = 2_000;

export type ObjectKind = 'serviceaccounts' | 'pods' | 'secrets';

export interface ObjectView {
  uid: string;
  /** `metadata.deletionTimestamp` is set. */
  deleting: boolean;
}

export interface PodView extends ObjectView {
  nodeName?: string;
}

export interface SecretView extends ObjectView {
  type: string;
  /** Service-account token secrets only. */
  serviceAccountName?: string;
  serviceAccountUid?: string;
  /** Service-account token secrets only: the decoded `data.token`. */
  token?: string;
}

export interface BootstrapTokenSecret extends ObjectView {
  name: string;
  /** Decoded `data` (with any `stringData` laid over it). */
  data: Record<string, string>;
}

export interface AuthnObjects {
  /** Resolves once the feed has delivered the current objects. */
  readonly synced: Promise<void>;
  isSynced(): boolean;
  /** Resolves true once synced, or false when `timeoutMs` passes first. */
  whenSynced(timeoutMs: number): Promise<boolean>;
  /** The secret `bootstrap-token-<id>` in platform-system, if it has the bootstrap type. Memory only. */
  bootstrapTokenSecret(tokenId: string): BootstrapTokenSecret | undefined;
  /**
   * The object, from memory when it is there with `expectedUid` (or any uid when none is given),
   * otherwise read live. Undefined = it does not exist. Throws (a StatusError) when the live
   * read fails: the caller cannot know, so it must refuse the token.
   */
  serviceAccount(namespace: string, name: string, expectedUid?: string): Promise<ObjectView | undefined>;
  pod(namespace: string, name: string, expectedUid?: string): Promise<PodView | undefined>;
  secret(namespace: string, name: string, expectedUid?: string): Promise<SecretView | undefined>;
  stop(): Promise<void>;
}

/** The in-memory side, fed with FeedEvents; what startAuthnObjects wraps around a feed. */
export interface AuthnObjectIndex extends AuthnObjects {
  apply(e: FeedEvent): void;
  markSynced(): void;
}

function decodeData(o: ApiObject): Record<string, string> {
  const out: Record<string, string> = {};
  const data = o.data;
  if (data && typeof data === 'object') {
    for (const [k, v] of Object.entries(data)) if (typeof v === 'string') out[k] = Buffer.from(v, 'base64').toString('utf8');
  }
  const stringData = o.stringData;
  if (stringData && typeof stringData === 'object') {
    for (const [k, v] of Object.entries(stringData)) if (typeof v === 'string') out[k] = v;
  }
  return out;
}

function base(o: ApiObject): ObjectView {
  return { uid: o.metadata.uid ?? '', deleting: Boolean(o.metadata.deletionTimestamp) };
}

export function podView(o: ApiObject): PodView {
  const view: PodView = base(o);
  const nodeName = (o.spec as { nodeName?: unknown } | undefined)?.nodeName;
  if (typeof nodeName === 'string' && nodeName) view.nodeName = nodeName;
  return view;
}

export function secretView(o: ApiObject): SecretView {
  const type = typeof o.type === 'string' ? o.type : 'Opaque';
  const view: SecretView = { ...base(o), type };
  if (type === SERVICE_ACCOUNT_TOKEN_SECRET_TYPE) {
    const annotations = o.metadata.annotations ?? {};
    const name = annotations[SERVICE_ACCOUNT_NAME_ANNOTATION];
    const uid = annotations[SERVICE_ACCOUNT_UID_ANNOTATION];
    if (name) view.serviceAccountName = name;
    if (uid) view.serviceAccountUid = uid;
    const token = decodeData(o).token;
    if (token) view.token = token;
  }
  return view;
}

/** The bootstrap-token projection of a secret, or undefined when it is not one. */
export function bootstrapTokenView(o: ApiObject): BootstrapTokenSecret | undefined {
  const name = o.metadata.name ?? '';
  if (o.type !== BOOTSTRAP_TOKEN_SECRET_TYPE || o.metadata.namespace !== BOOTSTRAP_TOKEN_NAMESPACE || !name.startsWith(BOOTSTRAP_TOKEN_NAME_PREFIX)) return undefined;
  return { ...base(o), name, data: decodeData(o) };
}

const keyOf = (namespace: string | undefined, name: string) => `${namespace ?? ''}/${name}`;

export function createAuthnObjectIndex(opts: { liveGet?: ObjectReader; syncWaitMs?: number } = {}): AuthnObjectIndex {
  const syncWaitMs = opts.syncWaitMs ?? SYNC_WAIT_MS;
  const serviceAccounts = new Map<string, ObjectView>();
  const pods = new Map<string, PodView>();
  const secrets = new Map<string, SecretView>();
  const bootstrap = new Map<string, BootstrapTokenSecret>();
  let isSynced = false;
  let markSynced!: () => void;
  const synced = new Promise<void>((r) => (markSynced = r)).then(() => {
    isSynced = true;
  });

  async function whenSynced(timeoutMs: number): Promise<boolean> {
    if (isSynced) return true;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), timeoutMs)));
    try {
      return await Promise.race([synced.then(() => true), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function find<V extends ObjectView>(resource: ObjectKind, memory: Map<string, V>, project: (o: ApiObject) => V, namespace: string, name: string, expectedUid?: string): Promise<V | undefined> {
    // Not loaded in time: go on; a miss then falls through to the live read.
    await whenSynced(syncWaitMs);
    const hit = memory.get(keyOf(namespace, name));
    if (hit && (expectedUid === undefined || hit.uid === expectedUid)) return hit;
    if (!opts.liveGet) return hit;
    const live = await opts.liveGet({ group: '', resource, namespace, name });
    return live ? project(live) : undefined;
  }

  return {
    synced,
    isSynced: () => isSynced,
    whenSynced,
    markSynced: () => markSynced(),
    apply(e: FeedEvent): void {
      if (e.ref.group !== '') return;
      const key = keyOf(e.ref.namespace, e.ref.name);
      const o = e.object;
      switch (e.ref.resource) {
        case 'serviceaccounts':
          if (o) serviceAccounts.set(key, base(o));
          else serviceAccounts.delete(key);
          break;
        case 'pods':
          if (o) pods.set(key, podView(o));
          else pods.delete(key);
          break;
        case 'secrets': {
          if (o) secrets.set(key, secretView(o));
          else secrets.delete(key);
          const b = o ? bootstrapTokenView(o) : undefined;
          if (b) bootstrap.set(key, b);
          else bootstrap.delete(key);
          break;
        }
      }
    },
    bootstrapTokenSecret: (tokenId) => bootstrap.get(keyOf(BOOTSTRAP_TOKEN_NAMESPACE, `${BOOTSTRAP_TOKEN_NAME_PREFIX}${tokenId}`)),
    serviceAccount: (namespace, name, expectedUid) => find('serviceaccounts', serviceAccounts, base, namespace, name, expectedUid),
    pod: (namespace, name, expectedUid) => find('pods', pods, podView, namespace, name, expectedUid),
    secret: (namespace, name, expectedUid) => find('secrets', secrets, secretView, namespace, name, expectedUid),
    stop: async () => undefined,
  };
}

/** A live read through the storage service: 404 is absence, any other failure is thrown. */
export function startAuthnObjects(opts: { nc: NatsConnection; bucket: string; log: Logger; liveGet?: ObjectReader }): AuthnObjects {
  const index = createAuthnObjectIndex({ liveGet: opts.liveGet ?? storageReader(opts.nc) });
  const feed = startObjectFeed({
    nc: opts.nc,
    bucket: opts.bucket,
    filters: [resourceFilter('', 'secrets'), resourceFilter('', 'serviceaccounts'), resourceFilter('', 'pods')],
    onEvent: (e) => index.apply(e),
    log: opts.log,
  });
  void feed.synced.then(() => {
    index.markSynced();
    opts.log.info({ bucket: opts.bucket }, 'authn object views loaded');
  });
  return {
    synced: index.synced,
    isSynced: index.isSynced,
    whenSynced: index.whenSynced,
    bootstrapTokenSecret: index.bootstrapTokenSecret,
    serviceAccount: index.serviceAccount,
    pod: index.pod,
    secret: index.secret,
    stop: () => feed.stop(),
  };
}
