import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseOptions } from '../../../shared/config/options.js';
import { assertDefaultOptions } from '../../../test/support/options.js';
import { storageOptionSpecs } from '../options.js';

test('storage options - with no flags every default is converted to its type (durations in ms)', () => {
  assertDefaultOptions(storageOptionSpecs, {
    bucket: 'objects',
    replicas: 1,
    'watch-window': 300_000,
    'delete-marker-ttl': 300_000,
    'delete-marker-purge-interval': 60_000,
    'metrics-bind-address': '',
    'show-hidden-metrics-for-version': '',
    'disabled-metrics': [],
  });
});

test('storage options - given durations use the same conversion as the defaults', () => {
  const o = parseOptions(storageOptionSpecs, ['--delete-marker-purge-interval=90s'], { PLATFORM_DELETE_MARKER_TTL: '10m' });
  assert.equal(o['delete-marker-purge-interval'], 90_000);
  assert.equal(o['delete-marker-ttl'], 600_000);
  assert.throws(() => parseOptions(storageOptionSpecs, ['--delete-marker-ttl=soon'], {}), /--delete-marker-ttl: invalid duration "soon"/);
});
