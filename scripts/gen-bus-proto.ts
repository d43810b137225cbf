// Development tool: writes proto/bus/v1/bus.json, the protobufjs descriptor of the bus contract's
// .proto files (proto/bus/v1/*.proto), which shared/bus/codec.ts loads. A JSON descriptor rather
// than the .proto files themselves: it is emitted into dist/ with the code (tsconfig.build.json), so
// the image needs no .proto parser at start and no files beside the build. Rerun it after editing a
// .proto file (shared/bus/test/codec.test.ts fails while the two differ):
//
//   npx tsx scripts/gen-bus-proto.ts

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { busDescriptor, BUS_PROTO_DIR } from '../shared/bus/codec-descriptor.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = path.join(root, BUS_PROTO_DIR, 'bus.json');
writeFileSync(file, `${JSON.stringify(busDescriptor(root))}\n`);
process.stdout.write(`wrote ${path.relative(root, file)}\n`);
