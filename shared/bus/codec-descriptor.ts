// The bus contract's protobuf descriptor, made from its .proto files (proto/bus/v1/*.proto) by
// protobufjs's parser. Used by the generator (scripts/gen-bus-proto.ts) and by the test that the
// generated proto/bus/v1/bus.json matches the .proto files; the services load bus.json (codec.ts).

import { readdirSync } from 'node:fs';
import path from 'node:path';
import protobuf from 'protobufjs';

/** Where the bus contract's .proto files are, from the repository root. */
export const BUS_PROTO_DIR = path.join('proto', 'bus', 'v1');

export function busDescriptor(repoRoot: string): protobuf.INamespace {
  const dir = path.join(repoRoot, BUS_PROTO_DIR);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.proto'))
    .sort()
    .map((f) => path.join(dir, f));
  return protobuf.loadSync(files).toJSON();
}
