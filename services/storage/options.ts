// The storage service's flags. Kept apart from main.ts so a test can parse them as a user's
// start-up would, with no flags at all.

import { commonOptions, type OptionSpecs } from '../../shared/config/options.js';
import { DEFAULT_BUCKET } from '../../shared/api/groups.js';
import { metricsOptionSpecs, metricsServingOptionSpecs } from '../../shared/metrics/options.js';

export const storageOptionSpecs = {
  ...commonOptions,
  bucket: { type: 'string', default: DEFAULT_BUCKET, description: 'JetStream KV bucket holding every object' },
  replicas: { type: 'number', default: 1, description: 'replicas of the bucket when it is created (3 in a clustered NATS)' },
  'watch-window': {
    type: 'duration',
    default: '5m',
    description: "the gateways' watch window (their --watch-cache-window): the bucket's change log keeps twice this and a minute, so a gateway started later rebuilds its window from it",
  },
  'delete-marker-ttl': { type: 'duration', default: '5m', description: 'how long delete markers are kept for resuming watchers (the watch window)' },
  'delete-marker-purge-interval': {
    type: 'duration',
    default: '60s',
    description: 'how often expired delete markers are purged (those this replica wrote; the whole bucket is scanned for the others at start and hourly)',
  },
  ...metricsServingOptionSpecs,
  ...metricsOptionSpecs,
} satisfies OptionSpecs;
