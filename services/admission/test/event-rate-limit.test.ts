import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import { silentLogger } from '../../../shared/log.js';
import type { AdmissionReply, AdmissionRequest } from '../../../shared/bus/messages.js';
import { runAdmissionChain } from '../chain.js';
import { AdmissionConfigError } from '../config.js';
import { BucketCache, createEventRateLimit, DEFAULT_CACHE_SIZE, limitKey, LimitType, parseEventRateLimitConfiguration, TokenBucket, type EventLimit } from '../plugins/events/event-rate-limit.js';

const API = 'eventratelimit.admission.platform.io/v1alpha1';
const cfg = (configuration: unknown) => ({ configuration, dir: '/etc', source: '/etc/admission.yaml (plugins[0])' });
const config = (limits: unknown, apiVersion = API) => cfg({ apiVersion, kind: 'Configuration', limits });

describe('EventRateLimit configuration', () => {
  test('a valid configuration in either spelling', () => {
    const limits = [
      { type: 'Server', qps: 50, burst: 100 },
      { type: 'Namespace', qps: 5, burst: 10, cacheSize: 2000 },
      { type: 'User', qps: 1, burst: 1 },
      { type: 'SourceAndObject', qps: 1, burst: 5, cacheSize: 0 },
    ];
    const want: EventLimit[] = [
      { type: 'Server', qps: 50, burst: 100, cacheSize: 0 },
      { type: 'Namespace', qps: 5, burst: 10, cacheSize: 2000 },
      { type: 'User', qps: 1, burst: 1, cacheSize: 0 },
      { type: 'SourceAndObject', qps: 1, burst: 5, cacheSize: 0 },
    ];
    assert.deepEqual(parseEventRateLimitConfiguration(config(limits)), want);
    assert.deepEqual(parseEventRateLimitConfiguration(config(limits, 'eventratelimit.admission.k8s.io/v1alpha1')), want);
  });

  test("upstream's rules, every mistake reported", () => {
    const cases: Array<[string, unknown, string]> = [
      ['no configuration', undefined, 'needs a configuration'],
      ['no limits', config(undefined), 'limits: Invalid value: []: must not be empty'],
      ['empty limits', config([]), 'limits: Invalid value: []: must not be empty'],
      ['limits not a list', config({ type: 'Server' }), 'limits: Invalid value: {"type":"Server"}: must be a list'],
      ['unknown type', config([{ type: 'Pod', qps: 1, burst: 1 }]), 'limits[0].type: Unsupported value: "Pod": supported values: "Server", "Namespace", "User", "SourceAndObject"'],
      ['type missing', config([{ qps: 1, burst: 1 }]), 'limits[0].type: Required value'],
      ['qps zero', config([{ type: 'Server', qps: 0, burst: 1 }]), 'limits[0].qps: Invalid value: 0: must be positive'],
      ['burst missing', config([{ type: 'Server', qps: 1 }]), 'limits[0].burst: Invalid value: 0: must be positive'],
      ['negative cacheSize', config([{ type: 'User', qps: 1, burst: 1, cacheSize: -1 }]), 'limits[0].cacheSize: Invalid value: -1: must not be negative'],
      ['fractional qps', config([{ type: 'User', qps: 0.5, burst: 1 }]), 'limits[0].qps: Invalid value: 0.5: must be a 32-bit integer'],
      ['unknown field', config([{ type: 'User', qps: 1, burst: 1, size: 3 }]), 'limits[0].size: Invalid value: unknown field'],
      [
        'several',
        config([{ type: 'Namespace', qps: -1, burst: 0, cacheSize: -3 }]),
        '[limits[0].burst: Invalid value: 0: must be positive, limits[0].qps: Invalid value: -1: must be positive, limits[0].cacheSize: Invalid value: -3: must not be negative]',
      ],
      ['wrong kind', cfg({ apiVersion: API, kind: 'EventRateLimitConfiguration', limits: [] }), 'kind must be Configuration'],
      ['wrong apiVersion', cfg({ apiVersion: 'eventratelimit.admission.platform.io/v1', kind: 'Configuration', limits: [] }), 'is not one of'],
      ['unknown top-level field', cfg({ apiVersion: API, kind: 'Configuration', limits: [], qps: 1 }), 'unknown field "qps"'],
    ];
    for (const [name, c, want] of cases) {
      assert.throws(
        () => parseEventRateLimitConfiguration(c as never),
        (err: Error) => err instanceof AdmissionConfigError && err.message.includes(want) && err.message.includes('EventRateLimit'),
        name,
      );
    }
    // A Server limit's cacheSize is ignored, so it is not checked.
    assert.equal(parseEventRateLimitConfiguration(config([{ type: 'Server', qps: 1, burst: 1, cacheSize: -1 }])).length, 1);
  });
});

test('TokenBucket - starts full, refills qps a second up to burst', () => {
  const b = new TokenBucket(2, 3, 0);
  const steps: Array<[number, boolean]> = [
    [0, true],
    [0, true],
    [0, true],
    [0, false], // burst spent
    [250, false], // half a token
    [500, true], // one token at 2/s
    [500, false],
    [10_000, true], // refilled to burst, not beyond
    [10_000, true],
    [10_000, true],
    [10_000, false],
  ];
  for (const [t, want] of steps) assert.equal(b.tryAccept(t), want, `at ${t} ms`);
  assert.equal(b.secondsUntilToken(10_000), 0.5);
  assert.equal(b.secondsUntilToken(10_250), 0.25);
  assert.equal(b.secondsUntilToken(10_500), 0);
  // A clock going backwards neither adds nor removes tokens.
  const c = new TokenBucket(1, 1, 1000);
  assert.equal(c.tryAccept(1000), true);
  assert.equal(c.tryAccept(0), false);
  assert.equal(c.tryAccept(2000), true);
});

test('BucketCache - keeps the most recently used buckets; an evicted key starts full again', () => {
  let made = 0;
  const cache = new BucketCache(2, () => (made++, new TokenBucket(1, 1, 0)));
  assert.equal(cache.get('a').tryAccept(0), true);
  assert.equal(cache.get('b').tryAccept(0), true);
  assert.equal(cache.get('a').tryAccept(0), false, 'a is remembered and empty');
  cache.get('c'); // evicts b, the least recently used
  assert.equal(cache.entries, 2);
  assert.equal(cache.get('a').tryAccept(0), false, 'a survived');
  assert.equal(cache.get('b').tryAccept(0), true, 'b came back full');
  assert.equal(made, 4);
  assert.equal(DEFAULT_CACHE_SIZE, 4096);
});

const event = (over: Record<string, unknown> = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'web.1', namespace: 'team-a' },
  involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace: 'team-a', name: 'web', uid: 'u-1' },
  source: { component: 'agent', host: 'n1' },
  reason: 'Pulled',
  ...over,
});

function eventRequest(over: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return {
    uid: 'u',
    phase: 'validating',
    kind: { group: '', version: 'v1', kind: 'Event' },
    resource: { group: '', version: 'v1', resource: 'events' },
    name: 'web.1',
    namespace: 'team-a',
    operation: 'CREATE',
    userInfo: { username: 'system:node:n1', groups: ['system:nodes'] },
    object: event(),
    oldObject: null,
    dryRun: false,
    ...over,
  };
}

test("limitKey - upstream's key per limit type", () => {
  const r = eventRequest();
  assert.equal(limitKey(LimitType.Server, r), '');
  assert.equal(limitKey(LimitType.Namespace, r), 'team-a');
  assert.equal(limitKey(LimitType.User, r), 'system:node:n1');
  assert.equal(limitKey(LimitType.SourceAndObject, r), 'agentn1Podteam-awebu-1v1');
  assert.equal(limitKey(LimitType.SourceAndObject, eventRequest({ object: event({ source: undefined }) })), 'Podteam-awebu-1v1');
  assert.equal(limitKey(LimitType.Namespace, eventRequest({ namespace: undefined })), '');
});

describe('EventRateLimit plugin', () => {
  function plugin(limits: EventLimit[]) {
    let clock = 0;
    const p = createEventRateLimit(limits, () => clock);
    const admit = (over: Partial<AdmissionRequest> = {}): Promise<AdmissionReply> => runAdmissionChain([p], eventRequest(over), silentLogger());
    return { p, admit, advance: (ms: number) => (clock += ms) };
  }

  test('past the burst an event is refused with 429 and Retry-After until a token refills', async () => {
    const { admit, advance } = plugin([{ type: 'Namespace', qps: 1, burst: 2, cacheSize: 0 }]);
    assert.equal((await admit()).allowed, true);
    assert.equal((await admit({ operation: 'UPDATE', oldObject: event() })).allowed, true, 'updates count too');
    const refused = await admit();
    assert.equal(refused.allowed, false);
    assert.equal(refused.status?.code, 429);
    assert.equal(refused.status?.reason, 'TooManyRequests');
    assert.equal(refused.status?.message, 'Too many requests: limit reached on type Namespace for key team-a');
    assert.equal(refused.status?.details?.retryAfterSeconds, 1);
    assert.equal((await admit({ namespace: 'team-b' })).allowed, true, 'another namespace has its own bucket');
    advance(999);
    assert.equal((await admit()).allowed, false);
    advance(1);
    assert.equal((await admit()).allowed, true);
  });

  test('several refusals are listed together; Retry-After is the whole seconds the emptiest bucket needs', async () => {
    const { admit, advance } = plugin([
      { type: 'Server', qps: 1, burst: 1, cacheSize: 0 },
      { type: 'User', qps: 1, burst: 1, cacheSize: 0 },
    ]);
    assert.equal((await admit()).allowed, true);
    advance(200);
    const refused = await admit();
    assert.equal(refused.status?.message, 'Too many requests: [limit reached on type Server for key , limit reached on type User for key system:node:n1]');
    // 0.8 s to the next token, rounded up (qps is a whole number, so this is never more than 1 s).
    assert.equal(refused.status?.details?.retryAfterSeconds, 1);
  });

  test('every limit takes its token even when another refuses', async () => {
    const { admit } = plugin([
      { type: 'User', qps: 1, burst: 1, cacheSize: 0 },
      { type: 'Namespace', qps: 1, burst: 2, cacheSize: 0 },
    ]);
    await admit();
    const second = await admit(); // User refuses; Namespace still spends its second token
    assert.equal(second.status?.message, 'Too many requests: limit reached on type User for key system:node:n1');
    const third = await admit({ userInfo: { username: 'jane', groups: [] } });
    assert.equal(third.status?.message, 'Too many requests: limit reached on type Namespace for key team-a');
  });

  test('dry runs, other kinds and events.platform.io Events are not counted', async () => {
    const { p, admit } = plugin([{ type: 'Server', qps: 1, burst: 1, cacheSize: 0 }]);
    for (let i = 0; i < 3; i++) assert.equal((await admit({ dryRun: true })).allowed, true);
    const v1 = { kind: { group: 'events.platform.io', version: 'v1', kind: 'Event' }, resource: { group: 'events.platform.io', version: 'v1', resource: 'events' } };
    for (let i = 0; i < 3; i++) assert.equal((await admit(v1)).allowed, true);
    assert.equal((await admit()).allowed, true, 'the bucket was still full');
    assert.equal((await admit()).allowed, false);
    assert.deepEqual(p.match, { operations: ['CREATE', 'UPDATE'], resources: [{ group: '', resource: 'events' }] });
  });

  test('SourceAndObject buckets per source and involved object, bounded by cacheSize', async () => {
    const { admit } = plugin([{ type: 'SourceAndObject', qps: 1, burst: 1, cacheSize: 1 }]);
    const other = event({ involvedObject: { kind: 'Pod', namespace: 'team-a', name: 'db', uid: 'u-2', apiVersion: 'v1' } });
    assert.equal((await admit()).allowed, true);
    assert.equal((await admit()).allowed, false);
    assert.equal((await admit({ object: other })).allowed, true, "another object, and the first one's bucket is evicted");
    assert.equal((await admit()).allowed, true, 'the evicted bucket came back full');
  });
});
