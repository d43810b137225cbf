// The bus contract's protobuf messages (proto/bus/v1/*.proto, package platform.bus.v1), encoded
// and decoded by protobufjs with reflection from the descriptor generated from those files
// (proto/bus/v1/bus.json, scripts/gen-bus-proto.ts). Reflection, not pbjs's static code: protobufjs
// generates the same encoder and decoder functions at load, and the static code measured no faster
// (docs/bus-contract.md). Which messages travel as protobuf and which as JSON: the same document.

import { createRequire } from 'node:module';
import protobuf from 'protobufjs';
import { badRequest } from '../api/status.js';

const root = protobuf.Root.fromJSON(createRequire(import.meta.url)('../../proto/bus/v1/bus.json') as protobuf.INamespace);

/** A message type of the contract; `T` is the shape its decoder hands back. */
export interface BusType<T> {
  readonly name: string;
  encode(value: T): Uint8Array;
  /** A body that is not this message is a 400: the caller sent something else. */
  decode(data: Uint8Array): T;
}

/** The type `platform.bus.v1.<name>`. */
export function busType<T extends object>(name: string): BusType<T> {
  const type = root.lookupType(`platform.bus.v1.${name}`);
  // Named, so a CPU profile tells a message's encoding and decoding apart (bench/bus-share.ts).
  const encode = (value: T): Uint8Array => type.encode(value).finish();
  const decode = (data: Uint8Array): T => {
    try {
      return type.decode(data) as unknown as T;
    } catch (err) {
      throw badRequest(`the body is not a platform.bus.v1.${name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  return { name, encode, decode };
}

/** A uint64 field as decoded: a number, or a Long when it is too large for one. */
export type Uint64 = number | { toNumber(): number };

export function uint64(v: Uint64 | null | undefined): number {
  return typeof v === 'number' ? v : v ? v.toNumber() : 0;
}
