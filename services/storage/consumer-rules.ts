// Which consumers on the bucket's stream the storage service removes: what NATS permissions cannot
// say about consumers (shared/bus/permissions.ts, "Not enforced by subjects"), decided from what
// JetStream reports of each one. Pure, so the rules are a table in the tests.
//
// - No service reads the bucket through a pull consumer (readers may not fetch from one), so one
//   is an attacker's: removed at once.
// - A push consumer delivers into the store account; only the bucket readers' inbox prefixes
//   (`_INBOX.<user>.…`) leave it. One that delivers elsewhere reaches nobody: removed at once.
// - A consumer nobody subscribes to (JetStream's `push_bound`) serves nobody: removed once it has
//   been seen unbound for the grace period (a client reconnecting resubscribes well within it),
//   and at once beyond a small allowance of them, newest first.
// - A bound consumer belongs to the user whose inbox it delivers to: only that user may subscribe
//   there (subject permissions), so nobody can spend another's share. Each user may hold
//   `perOwner` of them; the newest beyond are removed.

/** What JetStream reports of a consumer on the bucket's stream. */
export interface ConsumerView {
  name: string;
  /** RFC 3339, as JetStream reports it. */
  created: string;
  /** Absent for a pull consumer. */
  deliverSubject?: string;
  /**
   * Whether a subscription has interest in its delivery subject (JetStream's `push_bound`).
   * Across the store account's stream export, nats-server 2.9 counts only a subscription on exactly
   * that subject, not a wildcard one; every nats.js consumer subscribes to exactly its own.
   */
  bound: boolean;
}

export interface ConsumerRules {
  /** Bound consumers one user may hold. */
  perOwner: number;
  /** Unbound consumers left to their grace period before the newest are removed at once. */
  unboundAllowance: number;
  /** How long a consumer may stay without a subscriber. */
  unboundGraceMs: number;
}

export const DEFAULT_CONSUMER_RULES: ConsumerRules = { perOwner: 64, unboundAllowance: 8, unboundGraceMs: 10_000 };

export type RemovalKind = 'pull' | 'outside-inboxes' | 'unbound' | 'unbound-excess' | 'over-share';

export interface Removal {
  name: string;
  kind: RemovalKind;
  reason: string;
}

export interface Judgement {
  remove: Removal[];
  /** When to look again: the earliest moment an unbound consumer's grace ends. */
  recheckInMs?: number;
}

/** The user whose inbox `subject` is in (`_INBOX.<user>.…`), or undefined. */
export function inboxOwner(subject: string): string | undefined {
  const parts = subject.split('.');
  return parts.length >= 3 && parts[0] === '_INBOX' && parts[1] ? parts[1] : undefined;
}

const byNewest = (a: ConsumerView, b: ConsumerView) => Date.parse(b.created) - Date.parse(a.created) || (a.name < b.name ? 1 : -1);

/**
 * The consumers to remove now. `unboundSince` remembers, across calls, when each consumer was first
 * seen without a subscriber; it is updated here (a consumer seen bound, or gone, is forgotten).
 */
export function judgeConsumers(consumers: readonly ConsumerView[], now: number, rules: ConsumerRules, unboundSince: Map<string, number>): Judgement {
  const remove: Removal[] = [];
  const waiting: ConsumerView[] = [];
  const owned = new Map<string, ConsumerView[]>();
  const present = new Set(consumers.map((c) => c.name));
  for (const name of unboundSince.keys()) if (!present.has(name)) unboundSince.delete(name);

  for (const c of consumers) {
    if (c.deliverSubject === undefined) {
      remove.push({ name: c.name, kind: 'pull', reason: 'a pull consumer: no service reads the bucket with one' });
      continue;
    }
    const owner = inboxOwner(c.deliverSubject);
    if (owner === undefined) {
      remove.push({ name: c.name, kind: 'outside-inboxes', reason: `delivers to ${c.deliverSubject}, outside every inbox` });
      continue;
    }
    if (!c.bound) {
      const since = unboundSince.get(c.name) ?? now;
      unboundSince.set(c.name, since);
      if (now - since >= rules.unboundGraceMs) remove.push({ name: c.name, kind: 'unbound', reason: `no subscriber on ${c.deliverSubject} for ${Math.round((now - since) / 1000)} s` });
      else waiting.push(c);
      continue;
    }
    unboundSince.delete(c.name);
    const list = owned.get(owner) ?? [];
    list.push(c);
    owned.set(owner, list);
  }

  const excess = Math.max(0, waiting.length - rules.unboundAllowance);
  waiting.sort(byNewest);
  for (const c of waiting.slice(0, excess)) {
    remove.push({ name: c.name, kind: 'unbound-excess', reason: `more than ${rules.unboundAllowance} consumers without a subscriber` });
    unboundSince.delete(c.name);
  }
  for (const [owner, list] of owned) {
    for (const c of list.sort(byNewest).slice(0, Math.max(0, list.length - rules.perOwner)))
      remove.push({ name: c.name, kind: 'over-share', reason: `${owner} holds more than ${rules.perOwner} consumers` });
  }
  const kept = waiting.slice(excess);
  if (kept.length === 0) return { remove };
  const recheckAt = Math.min(...kept.map((c) => unboundSince.get(c.name)! + rules.unboundGraceMs));
  return { remove, recheckInMs: Math.max(0, recheckAt - now) };
}
