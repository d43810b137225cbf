// The storage half of the same-shape floor (floor-gateway-proc.ts is the other half): the least a
// storage responder on the bus can do. It answers FLOOR_SUBJECT with a bare subscription (no
// service framework, no decoding of the object) and does one raw KV operation per request in a
// bucket configured like the object bucket:
//   c <key> <value>        create the key                          → ok <revision> | conflict
//   u <key> <rev> <value>  update with a compare-and-swap on <rev>  → ok <revision> | conflict
//   d <key>                read it, delete at that revision         → ok <revision> <value> | notfound
// Each field ends in '\n'; the value is the rest of the message, stored as the bytes it came as.
// Prints "floor storage ready".
//
//   node dist/bench/floor-storage-proc.js --nats-url nats://… --bucket bench-floor

import { parseArgs } from 'node:util';
import type { Msg } from '@nats-io/nats-core';
import type { KV } from '@nats-io/kv';
import { connectBus } from '../shared/bus/connect.js';
import { openObjectBucket } from '../shared/store/kv-bucket.js';
import { FLOOR_SUBJECT, headFields } from './floor-wire.js';

async function handle(kv: KV, msg: Msg): Promise<void> {
  const op = String.fromCharCode(msg.data[0] ?? 0);
  const { fields, rest } = headFields(msg.data, op === 'u' ? 3 : 2);
  const key = fields[1]!;
  try {
    if (op === 'c') {
      msg.respond(`ok\n${await kv.create(key, msg.data.subarray(rest))}\n`);
    } else if (op === 'u') {
      msg.respond(`ok\n${await kv.update(key, msg.data.subarray(rest), Number(fields[2]))}\n`);
    } else {
      const entry = await kv.get(key);
      if (!entry || entry.operation !== 'PUT') return void msg.respond('notfound');
      await kv.delete(key, { previousSeq: entry.revision });
      msg.respond(Buffer.concat([Buffer.from(`ok\n${entry.revision}\n`, 'latin1'), entry.value]));
    }
  } catch {
    // A create of an existing key and a stale compare-and-swap both end here.
    msg.respond('conflict');
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'nats-url': { type: 'string' }, bucket: { type: 'string' } } });
  const nc = await connectBus({ url: values['nats-url']!, name: 'bench-floor-storage' });
  const kv = await openObjectBucket(nc, { bucket: values.bucket!, create: true });
  nc.subscribe(FLOOR_SUBJECT, { callback: (err, msg) => void (err ? undefined : handle(kv, msg)) });
  await nc.flush();
  process.stdout.write('floor storage ready\n');
  process.once('SIGTERM', () => void kv.destroy().then(() => nc.close().then(() => process.exit(0))));
}

main().catch((err: unknown) => {
  process.stderr.write(`bench floor storage: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
