// Who may do what on NATS: one user per service with the subjects it needs and no more. The one
// table every deployment is generated from (`npm start`, docker compose through `local-up
// --init-only`, and the Helm chart, whose template the chart's tests compare with this table).
//
// - Only storage publishes to the bucket's subjects (`$KV.<bucket>.>`) and uses the JetStream API
//   that changes the bucket's stream (create, update, purge). Nobody may delete the stream.
// - The readers of the bucket (gateway, authn, authz, admission) may look at the stream, get
//   entries, create (and delete) the ephemeral ordered consumers a KV watch uses, and receive what
//   those deliver; nothing else of JetStream, except that a gateway reads the bucket's change log
//   (the stream `CHANGES_<bucket>`, which storage creates) with a consumer of its own.
// - A service answers only its own subjects (`platform.v1.<service>.>` and its `$SRV` discovery
//   subjects); answers go back through `allow_responses`, so no service may publish to inboxes in
//   general, and each reads only its own inbox (`_INBOX.<user>.>`, the connection's inboxPrefix).
// - A service calls only the services it needs: the gateway all of them, admission storage and
//   authz, authz storage and admission (its own writes pass the generic store), authn storage;
//   storage none.

import { ServiceName, SubjectGroup, Subjects, serviceSubjects } from './subjects.js';
import { streamName } from '../store/kv-bucket.js';
import { changeLogStream, changeLogSubject } from '../store/change-log.js';

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

/**
 * The JetStream API a reader of the bucket needs (what @nats-io/kv's watch and get send): stream
 * info, entries, the ordered consumers of a watch and their flow control, and deleting consumers:
 * a watch retires its replay's consumer when it hands over (kv-feed.ts), because nats-server 2.9
 * keeps paying for a last-per-subject consumer over the whole bucket until it is gone, and
 * storage deletes its marker scan's. A reader could delete another service's consumer too; that
 * service's watch notices and restarts (kv-feed.ts liveness), and every reader can already write
 * through storage's subjects, which is far more.
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

function service(name: string, user: string, group: string, calls: string[], extra: { publish?: string[]; subscribe?: string[] } = {}): NatsPermissions {
  return {
    publish: [
      // Its own readiness probe (scripts/ping-service.ts runs with the service's credentials).
      serviceSubjects.ping(name),
      ...calls.map((g) => `${g}.>`),
      ...(extra.publish ?? []),
    ],
    subscribe: [`${group}.>`, ...discoverySubjects(name), userInboxPrefix(user) + '.>', ...(extra.subscribe ?? [])],
    allowResponses: true,
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
  return {
    storage: service(ServiceName.storage, users.storage, SubjectGroup.storage, [], { publish: [...read, ...bucketWriteApi(bucket, stream, log)] }),
    authn: service(ServiceName.authn, users.authn, SubjectGroup.authn, [SubjectGroup.storage], { publish: read }),
    // Writes its default policy and aggregated roles through the generic store: storage and admission.
    authz: service(ServiceName.authz, users.authz, SubjectGroup.authz, [SubjectGroup.storage, SubjectGroup.admission], { publish: read, subscribe: [Subjects.admissionInterestChanged] }),
    admission: service(ServiceName.admission, users.admission, SubjectGroup.admission, [SubjectGroup.storage, SubjectGroup.authz], {
      // Tells the gateways that its interest changed (a subject of its own group).
      publish: [...read, Subjects.admissionInterestChanged],
    }),
    gateway: {
      publish: [...Object.values(SubjectGroup).map((g) => `${g}.>`), ...pings, ...read, ...changeLogReadApi(log)],
      subscribe: [Subjects.admissionInterestChanged, userInboxPrefix(users.gateway) + '.>'],
      allowResponses: false,
    },
    monitor: {
      publish: [...VERBS.map((v) => `${serviceSubjects[v]('')}>`), '$JS.API.INFO', `$JS.API.STREAM.INFO.${stream}`],
      subscribe: [userInboxPrefix(users.monitor) + '.>'],
      allowResponses: false,
    },
  };
}
