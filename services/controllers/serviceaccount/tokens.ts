// The service-account token controller, as upstream's since secrets stopped being made for every
// account: a `platform.io/service-account-token` secret naming an account (annotation
// `platform.io/service-account.name`) gets a legacy token signed with
// `--service-account-private-key-file`, the root CA as `ca.crt` and its `namespace`; a secret whose
// account does not exist (or is another account of that name, by uid) is deleted, and so are an
// account's secrets when the account goes. With upstream's names served, a
// `kubernetes.io/service-account-token` secret is its twin, naming its account in upstream's
// annotations (`kubernetes.io/service-account.name`, `.uid`).

import type { KeyObject } from 'node:crypto';
import type { ApiObject } from '../../../shared/api/types.js';
import type { Logger } from '../../../shared/log.js';
import { Informer } from '../../../shared/client/informer.js';
import { ApiClient, isConflict, isNotFound } from '../../../shared/client/rest.js';
import { signLegacyServiceAccountToken } from '../../../shared/serviceaccount/tokens.js';
import { WorkQueue } from '../queue.js';
import { queueController, type Controller } from '../types.js';
import { PLATFORM_NAMES, serviceAccountAnnotations, type WellKnownNames } from '../../../shared/api/well-known-names.js';

export const TOKEN_SECRET_TYPE = 'platform.io/service-account-token';
export const SA_NAME_ANNOTATION = serviceAccountAnnotations(TOKEN_SECRET_TYPE).name;
export const SA_UID_ANNOTATION = serviceAccountAnnotations(TOKEN_SECRET_TYPE).uid;
const UPSTREAM_TOKEN_SECRET_TYPE = 'kubernetes.io/service-account-token';

interface Secret extends ApiObject {
  type?: string;
  data?: Record<string, string>;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** What the controller does with one token secret, given its account as the cache has it. */
export function tokenSecretAction(secret: Secret, account: ApiObject | undefined, rootCA: string | undefined, names: WellKnownNames = PLATFORM_NAMES): 'delete' | 'populate' | 'none' {
  if (names.secretType(secret.type ?? '') !== TOKEN_SECRET_TYPE || secret.metadata.deletionTimestamp) return 'none';
  const wantUid = secret.metadata.annotations?.[serviceAccountAnnotations(secret.type).uid];
  if (!account || (wantUid && wantUid !== account.metadata.uid)) return 'delete';
  const d = secret.data ?? {};
  const complete = Boolean(d.token) && d.namespace === b64(secret.metadata.namespace ?? '') && (rootCA === undefined || d['ca.crt'] === b64(rootCA));
  return complete && wantUid ? 'none' : 'populate';
}

/** The account a token secret names, in the annotation its type's spelling uses. */
const accountOf = (s: Secret): string => s.metadata.annotations?.[serviceAccountAnnotations(s.type).name] ?? '';

/** The token secrets of every type spelling the controller serves, one informer per spelling. */
class TokenSecrets {
  readonly informers: Informer<Secret>[];

  constructor(client: ApiClient, log: Logger, names: WellKnownNames) {
    const types = names.upstream ? [TOKEN_SECRET_TYPE, UPSTREAM_TOKEN_SECRET_TYPE] : [TOKEN_SECRET_TYPE];
    this.informers = types.map(
      (type) =>
        new Informer<Secret>(client, { group: '', version: 'v1', resource: 'secrets' }, { fieldSelector: `type=${type}`, onError: (err) => log.warn({ err }, 'secret watch failed; retrying') }),
    );
  }

  get(key: string): Secret | undefined {
    for (const i of this.informers) {
      const s = i.get(key);
      if (s) return s;
    }
    return undefined;
  }

  list(namespace?: string): Secret[] {
    return this.informers.flatMap((i) => i.list(namespace));
  }
}

export function serviceAccountTokenController(client: ApiClient, log: Logger, signingKey: KeyObject, rootCA: string | undefined, names: WellKnownNames = PLATFORM_NAMES): Controller {
  const secrets = new TokenSecrets(client, log, names);
  const accounts = new Informer(client, { group: '', version: 'v1', resource: 'serviceaccounts' }, { onError: (err) => log.warn({ err }, 'service account watch failed; retrying') });

  async function reconcile(key: string): Promise<void> {
    const secret = secrets.get(key);
    if (!secret) return;
    const namespace = secret.metadata.namespace ?? '';
    const name = secret.metadata.name ?? '';
    const saName = accountOf(secret);
    const account = accounts.get(`${namespace}/${saName}`);
    const ref = { group: '', version: 'v1', resource: 'secrets', namespace, name };
    try {
      switch (tokenSecretAction(secret, account, rootCA, names)) {
        case 'delete':
          await client.delete(ref, { preconditions: { uid: secret.metadata.uid } });
          log.info({ secret: key, serviceAccount: saName }, 'token secret of a missing service account deleted');
          return;
        case 'populate': {
          const uid = account!.metadata.uid ?? '';
          const token = secret.data?.token
            ? Buffer.from(secret.data.token, 'base64').toString('utf8')
            : await signLegacyServiceAccountToken(signingKey, { namespace, serviceAccountName: saName, serviceAccountUid: uid, secretName: name });
          const data: Record<string, string> = { ...(secret.data ?? {}), token: b64(token), namespace: b64(namespace) };
          if (rootCA !== undefined) data['ca.crt'] = b64(rootCA);
          await client.update(ref, { ...secret, metadata: { ...secret.metadata, annotations: { ...secret.metadata.annotations, [serviceAccountAnnotations(secret.type).uid]: uid } }, data });
          log.info({ secret: key, serviceAccount: saName }, 'service account token written');
          return;
        }
        default:
          return;
      }
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }

  const queue = new WorkQueue(reconcile, { onError: (key, err) => log.warn({ err, secret: key }, 'token secret sync failed; retrying') });
  const secretKey = (o: ApiObject) => `${o.metadata.namespace}/${o.metadata.name}`;
  for (const i of secrets.informers) i.addHandlers({ onAdd: (o) => queue.add(secretKey(o)), onUpdate: (_o, n) => queue.add(secretKey(n)) });
  // An account that comes or goes changes what its secrets need.
  const byAccount = (sa: ApiObject) => {
    for (const s of secrets.list(sa.metadata.namespace)) if (accountOf(s) === sa.metadata.name) queue.add(secretKey(s));
  };
  accounts.addHandlers({ onAdd: byAccount, onDelete: byAccount, onUpdate: (_o, n) => byAccount(n) });
  return queueController('serviceaccount-token', [accounts, ...secrets.informers], queue);
}
