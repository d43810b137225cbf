// The bus contract's protobuf codec: the descriptor the services load is the one the .proto files
// make, messages round-trip, and a body that is not the message is the caller's error (400).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { StatusError } from '../../api/status.js';
import { busDescriptor, BUS_PROTO_DIR } from '../codec-descriptor.js';
import { uint64 } from '../codec.js';
import { StorageMessages as M } from '../storage-messages.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

test('bus codec - proto/bus/v1/bus.json is what the .proto files make (rerun scripts/gen-bus-proto.ts)', () => {
  const committed: unknown = JSON.parse(readFileSync(path.join(root, BUS_PROTO_DIR, 'bus.json'), 'utf8'));
  assert.deepEqual(committed, JSON.parse(JSON.stringify(busDescriptor(root))));
});

test('bus codec - storage messages round-trip; the object bytes are carried as they are', () => {
  const objectJson = Buffer.from('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}');
  const cases = [
    { ref: { group: '', resource: 'configmaps', namespace: 'ns', name: 'c' }, revision: 1 },
    { ref: { group: 'apps', resource: 'deployments', namespace: '', name: 'd' }, revision: 2 ** 40 + 3 },
  ];
  for (const c of cases) {
    const req = M.updateRequest.decode(M.updateRequest.encode({ ref: c.ref, objectJson, expectedRevision: c.revision }));
    assert.deepEqual({ ...req.ref }, c.ref);
    assert.deepEqual(Buffer.from(req.objectJson), objectJson);
    assert.equal(uint64(req.expectedRevision), c.revision);
    assert.equal(uint64(M.writeReply.decode(M.writeReply.encode({ revision: c.revision })).revision), c.revision);
  }
  assert.equal(uint64(M.deleteRequest.decode(M.deleteRequest.encode({ ref: cases[0]!.ref })).expectedRevision), 0, 'absent: 0');
});

test('bus codec - a body that is not the message is 400 BadRequest', () => {
  for (const body of [Buffer.from([0x0a, 0x10, 0x01]), Buffer.from([0xff, 0xff, 0xff])]) {
    assert.throws(
      () => M.createRequest.decode(body),
      (err: unknown) => err instanceof StatusError && err.code === 400 && /platform\.bus\.v1\.StorageCreateRequest/.test(err.message),
    );
  }
});
