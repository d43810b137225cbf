// Micro benchmark of the bus messages' encodings (issue 35 §4): for each message shape, JSON
// (Buffer.from(JSON.stringify) / JSON.parse, what shared/bus/client.ts did for every message)
// against protobufjs with reflection (proto/bus/v1/*.proto loaded at start) and, when given, the
// static code pbjs generates from the same files. A message that carries an object carries it as
// the bytes of its JSON (proto/bus/v1/common.proto): encode includes stringifying the object, and
// decode parses it only where the receiver must read it (admission), not where it only passes it
// on (storage stores it, the caller of a write already has it). The authn and authz rows measure what
// the services run (shared/bus/auth-messages.ts: reflection plus the conversion to and from the
// contract's shapes), so they have no static column.
//
//   npx tsx bench/bus-codec.ts [--static <pbjs es6 module>]
//   (static code: pbjs -t static-module -w es6 -o /tmp/bus-static.mjs proto/bus/v1/*.proto)

import { parseArgs } from 'node:util';
import path from 'node:path';
import protobuf from 'protobufjs';
import { REPO_ROOT } from './procs.js';
import { admissionRequest, authnReply, authnRequest, authzAttributes, authzReply, configMap } from './bus-codec-shapes.js';
import { AuthnMessages, AuthzMessages } from '../shared/bus/auth-messages.js';
import type { BusType } from '../shared/bus/codec.js';

interface ProtoType {
  encode(message: object): { finish(): Uint8Array };
  decode(data: Uint8Array): Record<string, any>;
}
type Lookup = (name: string) => ProtoType;

interface Codec {
  encode(): Uint8Array;
  decode(data: Uint8Array): unknown;
}

interface Case {
  message: string;
  json: Codec;
  /** null: not measured with this lookup (the authn and authz rows: reflection only). */
  proto(t: Lookup, reflection: boolean): Codec | null;
}

const text = new TextDecoder();
const jsonBytes = (v: unknown): Uint8Array => Buffer.from(JSON.stringify(v), 'utf8');
const parse = (b: Uint8Array): any => JSON.parse(text.decode(b));
const jsonCodec = (v: unknown): Codec => ({ encode: () => jsonBytes(v), decode: parse });
const protoCodec = (type: ProtoType, build: () => object, read: (m: Record<string, any>) => unknown = (m) => m): Codec => ({
  encode: () => type.encode(build()).finish(),
  decode: (b) => read(type.decode(b)),
});

/** A contract type of the bus (encode and decode with the conversion), reflection only. */
const contractCodec =
  <T>(type: BusType<T>, value: T) =>
  (_t: Lookup, reflection: boolean): Codec | null =>
    reflection ? { encode: () => type.encode(value), decode: (b) => type.decode(b) } : null;

const ref = { group: '', resource: 'configmaps', namespace: 'team-a', name: 'app-config-42' };
const cm = configMap();
const stored = jsonBytes(cm);

function cases(): Case[] {
  const admission = admissionRequest();
  return [
    {
      // Storage side: JSON must parse the whole body to find the ref; protobuf leaves the object as bytes.
      message: 'StorageCreateRequest (ConfigMap ~1 KiB)',
      json: jsonCodec({ ref, object: cm }),
      proto: (t) => protoCodec(t('StorageCreateRequest'), () => ({ ref, objectJson: jsonBytes(cm) })),
    },
    {
      message: 'StorageUpdateRequest (ConfigMap ~1 KiB)',
      json: jsonCodec({ ref, object: cm, expectedRevision: 123456 }),
      proto: (t) => protoCodec(t('StorageUpdateRequest'), () => ({ ref, objectJson: jsonBytes(cm), expectedRevision: 123456 })),
    },
    {
      // JSON sends the stored object back; protobuf the revision only (the caller has the object).
      message: 'StorageWriteReply',
      json: jsonCodec({ object: cm, revision: 123457 }),
      proto: (t) => protoCodec(t('StorageWriteReply'), () => ({ revision: 123457 })),
    },
    {
      // Both end with the object parsed at the caller; protobuf sends the stored bytes as they are.
      message: 'StorageGetReply (caller parses the object)',
      json: jsonCodec({ object: cm, revision: 123457 }),
      proto: (t) =>
        protoCodec(
          t('StorageGetReply'),
          () => ({ objectJson: stored, revision: 123457 }),
          (m) => ({ object: parse(m.objectJson), revision: Number(m.revision) }),
        ),
    },
    { message: 'StorageDeleteRequest', json: jsonCodec({ ref, expectedRevision: 123456 }), proto: (t) => protoCodec(t('StorageDeleteRequest'), () => ({ ref, expectedRevision: 123456 })) },
    { message: 'AuthzAttributes', json: jsonCodec(authzAttributes), proto: contractCodec(AuthzMessages.attributes, authzAttributes) },
    { message: 'AuthzReply', json: jsonCodec(authzReply), proto: contractCodec(AuthzMessages.reply, authzReply) },
    { message: 'AuthnRequest (bearer token)', json: jsonCodec(authnRequest), proto: contractCodec(AuthnMessages.request, authnRequest) },
    { message: 'AuthnReply', json: jsonCodec(authnReply), proto: contractCodec(AuthnMessages.reply, authnReply) },
    {
      // The admission service reads the object: both decodes parse it.
      message: 'AdmissionRequest (Pod, validating)',
      json: jsonCodec(admission),
      proto: (t) =>
        protoCodec(
          t('AdmissionRequest'),
          () => ({ ...admission, object: undefined, oldObject: undefined, options: undefined, objectJson: jsonBytes(admission.object), optionsJson: jsonBytes(admission.options) }),
          (m) => ({ ...m, object: parse(m.objectJson), options: parse(m.optionsJson) }),
        ),
    },
    { message: 'AdmissionReply (allowed)', json: jsonCodec({ allowed: true }), proto: (t) => protoCodec(t('AdmissionReply'), () => ({ allowed: true })) },
  ];
}

/** Nanoseconds per call of `fn`, the best of three runs of ~150 ms after a warm-up. */
function timeNs(fn: () => unknown): number {
  for (let i = 0; i < 20_000; i++) fn();
  let best = Infinity;
  for (let run = 0; run < 3; run++) {
    let n = 0;
    const start = process.hrtime.bigint();
    let elapsed = 0n;
    while (elapsed < 150_000_000n) {
      for (let i = 0; i < 1_000; i++) fn();
      n += 1_000;
      elapsed = process.hrtime.bigint() - start;
    }
    best = Math.min(best, Number(elapsed) / n);
  }
  return best;
}

function measure(c: Codec): { bytes: number; enc: number; dec: number } {
  const data = c.encode();
  return { bytes: data.length, enc: timeNs(() => c.encode()), dec: timeNs(() => c.decode(data)) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { static: { type: 'string' } } });
  const root = protobuf.loadSync(['storage', 'authn', 'authz', 'admission', 'interest', 'events'].map((f) => path.join(REPO_ROOT, 'proto', 'bus', 'v1', `${f}.proto`)));
  const reflect: Lookup = (name) => root.lookupType(`platform.bus.v1.${name}`) as unknown as ProtoType;
  const generated = values.static ? ((await import(path.resolve(values.static))) as { platform: { bus: { v1: Record<string, ProtoType> } } }).platform.bus.v1 : undefined;
  const codecs: Array<[string, (c: Case) => Codec | null]> = [
    ['JSON', (c) => c.json],
    ['protobufjs reflection', (c) => c.proto(reflect, true)],
    ...(generated ? [['protobufjs static', (c: Case) => c.proto((name) => generated[name]!, false)] as [string, (c: Case) => Codec | null]] : []),
  ];
  process.stdout.write(`node ${process.version}; ns per encode / decode (best of 3), bytes on the wire\n\n`);
  process.stdout.write(`${'message'.padEnd(44)} ${codecs.map(([n]) => n.padStart(30)).join(' ')}\n`);
  for (const c of cases()) {
    const cells = codecs.map(([, pick]) => {
      const codec = pick(c);
      if (!codec) return '—'.padStart(30);
      const m = measure(codec);
      return `${m.enc.toFixed(0)} / ${m.dec.toFixed(0)} ns, ${m.bytes} B`.padStart(30);
    });
    process.stdout.write(`${c.message.padEnd(44)} ${cells.join(' ')}\n`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
