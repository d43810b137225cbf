// Who may do what on NATS: one user per service with the subjects it uses and no more. The one
// table every deployment is generated from (`npm start`, docker compose through `local-up
// --init-only`, and the Helm chart, which reads helm/platform-apiserver/files/nats-permissions.json:
// after a change here, `npm run gen:helm-permissions` rewrites that file, or the chart's tests fail).
//
// Two NATS accounts, because subject permissions cannot see where a JetStream consumer delivers
// (its `deliver_subject` is in the request's payload, which nats-server 2.9 does not inspect):
//
// - The store account (`PLATFORM_STORE`) holds JetStream: the bucket's stream and its change log.
//   No user connects to it. It exports to the bus account, and to no other, the JetStream API
//   (`$JS.API.>`, flow control `$JS.FC.>`), the bucket's put subjects and the change log's, and, as
//   streams, the inbox prefix (`_INBOX.<user>.>`) of each user that reads the bucket. A consumer
//   delivers inside the store account, so its messages reach the bus account only under one of
//   those inbox prefixes: a consumer pointed at the monitor's inbox, at a service's request
//   subjects (`platform.v1.…`) or at anything else delivers to nobody. The account's JetStream
//   limit bounds the consumers (STORE_MAX_CONSUMERS, every user together).
// - The bus account (`PLATFORM`) holds every user and has no JetStream of its own: nobody can make
//   streams or consumers outside the store account.
//
// Within the bus account, per user:
// - Only storage publishes to the bucket's subjects (`$KV.<bucket>.>`) and the change log's, and
//   uses the JetStream API that changes their streams (create, update, purge). Nobody may delete a
//   stream or create a durable (`DURABLE.CREATE`) consumer.
// - The readers of the bucket (gateway, authn, authz, admission, storage) may look at the stream,
//   get entries, create, inspect and delete consumers on it (a KV watch's ordered push consumers,
//   delivered to their own inbox) and send their flow control; a gateway also reads the change log
//   with an ordered pull consumer. The monitor reads stream info and pings, nothing else.
// - A service answers only its own endpoint subjects and its `$SRV` discovery subjects; answers go
//   back through `allow_responses`, so no user may publish to inboxes, and each reads only its
//   own inbox (`_INBOX.<user>.>`, the connection's inboxPrefix).
// - A service calls only the endpoints it uses (CALLS below): authn storage.get; authz storage's
//   four (its RBAC reconcile deletes and re-creates) and admission's admit and interest; admission
//   storage.get/create/update and authz.authorize; the gateway every endpoint; storage none.
//
// Not enforced by subjects (a consumer's configuration is payload, which nats-server does not
// inspect), so the storage service enforces it (services/storage/consumer-rules.ts): the store
// account announces each consumer made on the bucket to storage alone, and storage removes pull
// consumers, consumers delivering outside the readers' inboxes, consumers nobody subscribes to
// (after a grace period), and a user's bound consumers beyond its share (a consumer is bound only
// when its delivery subject has a subscriber, and only the inbox's user may subscribe there, so
// nobody spends another's share). STORE_MAX_CONSUMERS stays the hard limit over everyone: a burst
// can reach it before storage has removed the excess.
//
// Not enforced at all: which consumers a reader may inspect or delete. Ordered consumers' names
// are `<prefix>_<n>` with a growing `n`, and a permission can match only whole subject tokens;
// another service's watch that loses its consumer notices and restarts (kv-feed.ts liveness).

import { ServiceName, Subjects, serviceSubjects } from './subjects.js';
import { changeLogStream, changeLogSubject, consumerCreatedAdvisories, streamName } from './streams.js';

/** The NATS users: one per service, and a monitor (readiness pings and stream statistics for `npm start` and tools). */
export const NatsUser = {
  storage: ServiceName.storage,
  authn: ServiceName.authn,
  authz: ServiceName.authz,
  admission: ServiceName.admission,
  gateway: 'platform-gateway',
  monitor: 'platform-monitor',
} as const;
export type NatsUserRole = keyof typeof NatsUser;
export const NATS_USER_ROLES = Object.keys(NatsUser) as NatsUserRole[];

export interface NatsPermissions {
  publish: string[];
  subscribe: string[];
  /** May answer the requests it receives (publish once to their reply subject). */
  allowResponses: boolean;
  /** What the store account delivers to this user (its inbox prefix, for a bucket reader; storage's consumer announcements): the stream exports. */
  deliveries: string[];
}

/** The account holding JetStream (the bucket's and the change log's streams); no user connects to it. */
export const STORE_ACCOUNT = 'PLATFORM_STORE';
/** The account of every user; it has no JetStream of its own. */
export const BUS_ACCOUNT = 'PLATFORM';
/**
 * The store account's JetStream limit on consumers, all users together. What runs needs a few per
 * replica (a watch per filter of each reader, its replay's while it hands over, a gateway's
 * change-log reader); one user's share (consumer-rules.ts, 64) leaves the others room.
 */
export const STORE_MAX_CONSUMERS = 256;

/** A service the store account exports to the bus account; `stream` responses for requests answered by many messages (a pull's batch). */
export interface NatsServiceExport {
  subject: string;
  responses: 'singleton' | 'stream';
}

/** What the bus account imports from the store account as services, for the bucket `bucket`. */
export function natsStoreServices(bucket: string): NatsServiceExport[] {
  return [
    { subject: '$JS.API.>', responses: 'stream' },
    { subject: '$JS.FC.>', responses: 'singleton' },
    { subject: `$KV.${bucket}.>`, responses: 'singleton' },
    { subject: changeLogSubject(bucket, '>'), responses: 'singleton' },
  ];
}

/** The inbox every connection of `user` takes its replies on (nats.js `inboxPrefix`). */
export function userInboxPrefix(user: string): string {
  return `_INBOX.${user}`;
}

const VERBS = ['ping', 'info', 'stats'] as const;

/** The `$SRV` subjects a service named `name` answers: the bare verbs (any service), the name and each instance. */
function discoverySubjects(name: string): string[] {
  return VERBS.flatMap((v) => {
    const own = serviceSubjects[v](name);
    return [own.slice(0, own.length - name.length - 1), own, `${own}.*`];
  });
}

type ServiceRole = Exclude<NatsUserRole, 'gateway' | 'monitor'>;

/** The endpoints each service answers. */
const ANSWERS: Record<ServiceRole, string[]> = {
  storage: [Subjects.storageCreate, Subjects.storageUpdate, Subjects.storageDelete, Subjects.storageGet],
  authn: [Subjects.authnAuthenticate, Subjects.authnInterest, Subjects.authnIssueToken],
  authz: [Subjects.authzAuthorize, Subjects.authzRules, Subjects.authzEscalation, Subjects.authzInterest],
  admission: [Subjects.admissionAdmit, Subjects.admissionInterest],
};

/**
 * The endpoints each user calls. authn reads objects its feed has not seen yet (storage-read.ts);
 * authz writes its bootstrap policy and aggregated roles through the generic store (reads,
 * creates, updates, and a delete and re-create when a role's reference changes), which asks
 * admission; admission reads and writes through storage-read.ts and storage-writer.ts (namespace
 * auto-provisioning) and asks authz (signer authorization); the gateway calls every endpoint.
 */
const CALLS: Record<Exclude<NatsUserRole, 'monitor'>, string[]> = {
  storage: [],
  authn: [Subjects.storageGet],
  authz: [Subjects.storageGet, Subjects.storageCreate, Subjects.storageUpdate, Subjects.storageDelete, Subjects.admissionAdmit, Subjects.admissionInterest],
  admission: [Subjects.storageGet, Subjects.storageCreate, Subjects.storageUpdate, Subjects.authzAuthorize],
  gateway: Object.values(ANSWERS).flat(),
};

/**
 * The JetStream API a reader of the bucket needs (what @nats-io/kv's watch and get send): stream
 * info, entries, the ordered consumers of a watch and their flow control, and deleting consumers:
 * a watch retires its replay's consumer when it hands over (kv-feed.ts), because nats-server 2.9
 * keeps paying for a last-per-subject consumer over the whole bucket until it is gone, and
 * storage deletes its marker scan's.
 */
function bucketReadApi(stream: string): string[] {
  return [
    `$JS.API.STREAM.INFO.${stream}`,
    `$JS.API.STREAM.MSG.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}.>`,
    // The consumer's name and filter subject follow the stream in the subject.
    `$JS.API.CONSUMER.CREATE.${stream}`,
    `$JS.API.CONSUMER.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.INFO.${stream}.*`,
    `$JS.API.CONSUMER.DELETE.${stream}.*`,
    `$JS.FC.${stream}.>`,
  ];
}

/**
 * What the storage service alone may do: write the bucket and its change log, create and
 * reconfigure their streams, purge delete markers.
 */
function bucketWriteApi(bucket: string, stream: string, log: string): string[] {
  // Account info: the JetStream manager's probe when it provisions the bucket.
  return [
    `$KV.${bucket}.>`,
    '$JS.API.INFO',
    `$JS.API.STREAM.CREATE.${stream}`,
    `$JS.API.STREAM.UPDATE.${stream}`,
    `$JS.API.STREAM.PURGE.${stream}`,
    `$JS.API.STREAM.INFO.${log}`,
    `$JS.API.STREAM.CREATE.${log}`,
    `$JS.API.STREAM.UPDATE.${log}`,
    changeLogSubject(bucket, '>'),
  ];
}

/**
 * How a gateway reads the change log once at start (change-log.ts): stream info and one ordered
 * pull consumer, which it deletes when done. Deleting is allowed on the log's consumers only, all
 * of them gateways' one-off readers.
 */
function changeLogReadApi(log: string): string[] {
  return [
    `$JS.API.STREAM.INFO.${log}`,
    `$JS.API.CONSUMER.CREATE.${log}`,
    `$JS.API.CONSUMER.CREATE.${log}.>`,
    `$JS.API.CONSUMER.INFO.${log}.*`,
    `$JS.API.CONSUMER.MSG.NEXT.${log}.*`,
    `$JS.API.CONSUMER.DELETE.${log}.*`,
  ];
}

function service(role: ServiceRole, user: string, extra: { publish?: string[]; subscribe?: string[]; deliveries?: string[] } = {}): NatsPermissions {
  const name = ServiceName[role];
  const inbox = userInboxPrefix(user) + '.>';
  return {
    publish: [
      // Its own readiness probe (scripts/ping-service.ts runs with the service's credentials).
      serviceSubjects.ping(name),
      ...CALLS[role],
      ...(extra.publish ?? []),
    ],
    subscribe: [...ANSWERS[role], ...discoverySubjects(name), inbox, ...(extra.subscribe ?? []), ...(extra.deliveries ?? [])],
    allowResponses: true,
    deliveries: [inbox, ...(extra.deliveries ?? [])],
  };
}

/**
 * The permissions of every user, for the bucket `bucket`. `users` names the NATS users (their
 * inboxes follow the name); the services' own names ($SRV, queue groups) do not change.
 */
export function natsPermissions(bucket: string, users: Record<NatsUserRole, string> = NatsUser): Record<NatsUserRole, NatsPermissions> {
  const stream = streamName(bucket);
  const log = changeLogStream(bucket);
  const read = bucketReadApi(stream);
  const pings = Object.values(ServiceName).map((n) => serviceSubjects.ping(n));
  const gatewayInbox = userInboxPrefix(users.gateway) + '.>';
  return {
    // And the consumer warden's: the stream's consumer announcements and the list of its consumers.
    storage: service('storage', users.storage, { publish: [...read, ...bucketWriteApi(bucket, stream, log), `$JS.API.CONSUMER.LIST.${stream}`], deliveries: [consumerCreatedAdvisories(stream)] }),
    authn: service('authn', users.authn, { publish: read }),
    authz: service('authz', users.authz, { publish: read, subscribe: [Subjects.admissionInterestChanged] }),
    // Tells the gateways and authz that its interest changed (a subject of its own group).
    admission: service('admission', users.admission, { publish: [...read, Subjects.admissionInterestChanged] }),
    gateway: {
      publish: [...CALLS.gateway, ...pings, ...read, ...changeLogReadApi(log)],
      subscribe: [Subjects.admissionInterestChanged, gatewayInbox],
      allowResponses: false,
      deliveries: [gatewayInbox],
    },
    monitor: {
      publish: [...VERBS.map((v) => `${serviceSubjects[v]('')}>`), '$JS.API.INFO', `$JS.API.STREAM.INFO.${stream}`],
      subscribe: [userInboxPrefix(users.monitor) + '.>'],
      allowResponses: false,
      deliveries: [],
    },
  };
}
