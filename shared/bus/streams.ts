// The names of the JetStream streams on the bus: the bucket's (the KV store's own naming) and its
// change log's. Here, below the store, because the bus's permissions (permissions.ts) grant access
// by these names as much as the store uses them.

/** The JetStream stream behind a KV bucket. */
export function streamName(bucket: string): string {
  return `KV_${bucket}`;
}

export function changeLogStream(bucket: string): string {
  return `CHANGES_${bucket}`;
}

/** The log's subjects: one per key, as in the bucket. */
export function changeLogSubject(bucket: string, key: string): string {
  return `platform.changes.${bucket}.${key}`;
}

/** The advisories JetStream publishes (in the stream's account) when a consumer is made on `stream`. */
export function consumerCreatedAdvisories(stream: string): string {
  return `$JS.EVENT.ADVISORY.CONSUMER.CREATED.${stream}.*`;
}
