import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inboxOwner, judgeConsumers, type ConsumerRules, type ConsumerView } from '../consumer-rules.js';

const RULES: ConsumerRules = { perOwner: 2, unboundAllowance: 1, unboundGraceMs: 10_000 };
const T0 = Date.parse('2026-11-28T12:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

function push(name: string, deliverSubject: string, createdS: number, bound = true): ConsumerView {
  return { name, created: at(createdS), deliverSubject, bound };
}

test('consumer rules - the inbox owner of a delivery subject', () => {
  const rows: Array<[string, string | undefined]> = [
    ['_INBOX.platform-gateway.abc.1', 'platform-gateway'],
    ['_INBOX.platform-authn.x', 'platform-authn'],
    ['_INBOX.platform-authn', undefined],
    ['_INBOX..x', undefined],
    ['platform.v1.storage.create', undefined],
    ['_inbox.a.b', undefined],
  ];
  for (const [subject, owner] of rows) assert.equal(inboxOwner(subject), owner, subject);
});

test('consumer rules - what is removed at once, what waits, what stays', () => {
  const rows: Array<{ name: string; consumers: ConsumerView[]; remove: string[]; recheckInMs?: number }> = [
    { name: 'bound consumers within the share stay', consumers: [push('a', '_INBOX.gw.1', 0), push('b', '_INBOX.gw.2', 1)], remove: [] },
    { name: 'a pull consumer goes at once', consumers: [{ name: 'p', created: at(0), bound: false }], remove: ['p'] },
    { name: 'delivery outside every inbox goes at once', consumers: [push('x', 'platform.v1.storage.create', 0), push('y', '_INBOX', 0)], remove: ['x', 'y'] },
    { name: 'beyond the share, the newest of that owner go', consumers: [push('a', '_INBOX.gw.1', 0), push('c', '_INBOX.gw.3', 5), push('b', '_INBOX.gw.2', 2)], remove: ['c'] },
    {
      name: "one owner's excess does not touch another's",
      consumers: [push('a', '_INBOX.authn.1', 0), push('b', '_INBOX.authn.2', 1), push('c', '_INBOX.authn.3', 2), push('g', '_INBOX.gw.1', 3)],
      remove: ['c'],
    },
    { name: 'one unbound consumer waits for its grace', consumers: [push('u', '_INBOX.gw.x', 0, false)], remove: [], recheckInMs: 10_000 },
    {
      name: 'unbound beyond the allowance: the newest go at once, the oldest waits',
      consumers: [push('u1', '_INBOX.gw.x', 0, false), push('u2', '_INBOX.gw.y', 3, false), push('u3', '_INBOX.authn.z', 1, false)],
      remove: ['u2', 'u3'],
      recheckInMs: 10_000,
    },
    {
      name: "unbound consumers pointed at another user's inbox do not count against its share",
      consumers: [push('a', '_INBOX.gw.1', 0), push('b', '_INBOX.gw.2', 1), push('fake', '_INBOX.gw.nobody', 2, false)],
      remove: [],
      recheckInMs: 10_000,
    },
  ];
  for (const row of rows) {
    const judged = judgeConsumers(row.consumers, T0 + 60_000, RULES, new Map());
    assert.deepEqual(judged.remove.map((r) => r.name).sort(), [...row.remove].sort(), row.name);
    assert.equal(judged.recheckInMs, row.recheckInMs, `${row.name}: recheck`);
    for (const r of judged.remove) assert.ok(r.reason.length > 0);
  }
});

test('consumer rules - the grace counts from when a consumer was first seen unbound, not from its creation', () => {
  const seen = new Map<string, number>();
  const old = push('u', '_INBOX.gw.x', -3600, false);
  const now = T0;
  assert.deepEqual(judgeConsumers([old], now, RULES, seen), { remove: [], recheckInMs: 10_000 });
  assert.deepEqual(judgeConsumers([old], now + 4_000, RULES, seen).recheckInMs, 6_000);
  // Bound again in between: forgotten, and a later unbound spell starts over.
  assert.deepEqual(judgeConsumers([{ ...old, bound: true }], now + 5_000, RULES, seen), { remove: [] });
  assert.equal(seen.size, 0);
  assert.deepEqual(judgeConsumers([old], now + 6_000, RULES, seen).remove, []);
  const late = judgeConsumers([old], now + 16_000, RULES, seen);
  assert.deepEqual(
    late.remove.map((r) => r.name),
    ['u'],
  );
  assert.match(late.remove[0]!.reason, /no subscriber on _INBOX\.gw\.x for 10 s/);
  // A consumer gone is forgotten.
  judgeConsumers([], now + 17_000, RULES, seen);
  assert.equal(seen.size, 0);
});
