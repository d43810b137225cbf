// ClusterRole aggregation: a ClusterRole with `aggregationRule.clusterRoleSelectors` holds the
// union of the rules of every ClusterRole its selectors pick (how `admin`, `edit` and `view` grow
// when an extension labels a role `aggregate-to-view`). Like upstream, the union is written into
// the stored role and decisions use the stored rules; the controller here rewrites it whenever a
// ClusterRole changes. Several authz replicas may run it at once: they compute the same rules, and
// the compare-and-swap update makes the losers re-read and find nothing left to do.

import type { ApiObject } from '../../../shared/api/types.js';
import { labelSelectorFromObject, type LabelSelectorObject } from '../../../shared/api/labels.js';
import { StatusError } from '../../../shared/api/status.js';
import type { PolicyRule } from '../../../shared/bus/messages.js';
import type { InternalStore } from '../../../shared/registry/rest/internal-store.js';
import type { Logger } from '../../../shared/log.js';
import { readRules, ruleKey } from './rules.js';
import type { RbacState } from './state.js';
import { RBAC_GROUP } from '../../../shared/api/groups.js';

export interface AggregationSource {
  name: string;
  labels: Record<string, string>;
  rules: PolicyRule[];
}

/** The selectors of an aggregationRule, or null when the role does not aggregate. */
export function clusterRoleSelectors(aggregationRule: unknown): LabelSelectorObject[] | null {
  if (!aggregationRule || typeof aggregationRule !== 'object') return null;
  const sel = (aggregationRule as { clusterRoleSelectors?: unknown }).clusterRoleSelectors;
  if (!Array.isArray(sel)) return null;
  return sel.filter((s): s is LabelSelectorObject => !!s && typeof s === 'object');
}

/**
 * The aggregated rules of role `name`: for each selector in order, the selected roles by name
 * (never the role itself), their rules in order, each distinct rule once. Deterministic, so
 * replicas agree and an unchanged result is recognised as such. A selector that cannot be parsed
 * selects nothing (stored roles were validated; this only guards against hand-written KV entries).
 */
export function aggregateRules(name: string, selectors: LabelSelectorObject[], roles: Iterable<AggregationSource>): PolicyRule[] {
  const sorted = [...roles].filter((r) => r.name !== name).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: PolicyRule[] = [];
  const seen = new Set<string>();
  for (const s of selectors) {
    let selector;
    try {
      selector = labelSelectorFromObject(s);
    } catch {
      continue;
    }
    for (const role of sorted) {
      if (!selector.matches(role.labels)) continue;
      for (const rule of role.rules) {
        const key = ruleKey(rule);
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(rule);
      }
    }
  }
  return out;
}

export function sameRules(a: PolicyRule[], b: PolicyRule[]): boolean {
  return a.length === b.length && a.every((r, i) => ruleKey(r) === ruleKey(b[i]!));
}

export interface AggregationDeps {
  /** Writes go through the generic store, as the API server's own identity. */
  internal: InternalStore;
  rbac: RbacState;
  log: Logger;
  /** Pause before retrying a pass the storage or admission service could not serve. */
  retryMs?: number;
}

export interface AggregationController {
  /** Resolves when no pass is running or scheduled (tests). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

const MAX_CAS_ATTEMPTS = 5;

/** One controller's passes: at most one running, the next scheduled while it runs, retried after an outage. */
class Aggregation {
  running = true;
  /** A pass is wanted: a ClusterRole changed (or a pass failed) since the last one started. */
  private dirty = true;
  pass: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly retryMs: number;

  constructor(private readonly deps: AggregationDeps) {
    this.retryMs = deps.retryMs ?? 1_000;
  }

  schedule(): void {
    this.dirty = true;
    if (!this.running || this.pass) return;
    // Waiting one event-loop turn lets a burst of feed events land before the pass reads the state.
    this.pass = new Promise<void>((r) => setImmediate(r))
      .then(() => this.runPasses())
      .catch((err: unknown) => this.deps.log.error({ err }, 'ClusterRole aggregation failed'))
      .finally(() => {
        this.pass = null;
        // A change that arrived after the last loop check but before this point.
        if (this.dirty && this.running) this.schedule();
      });
  }

  stopRetry(): void {
    clearTimeout(this.retryTimer);
  }

  private async runPasses(): Promise<void> {
    const { rbac } = this.deps;
    while (this.running && this.dirty) {
      this.dirty = false;
      let ok = true;
      const aggregating = [...rbac.clusterRoles()].filter((r) => clusterRoleSelectors(r.aggregationRule)).map((r) => r.name);
      for (const name of aggregating) if (!(await this.reconcileOne(name))) ok = false;
      if (!ok && this.running) {
        clearTimeout(this.retryTimer);
        this.retryTimer = setTimeout(() => this.schedule(), this.retryMs);
        this.retryTimer.unref();
      }
    }
  }

  private sources(): AggregationSource[] {
    return [...this.deps.rbac.clusterRoles()].map((r) => ({ name: r.name, labels: r.labels, rules: r.rules }));
  }

  /** Writes the aggregate of one role; returns false when the storage service was unavailable. */
  private async reconcileOne(name: string): Promise<boolean> {
    const { internal, rbac, log } = this.deps;
    const current = rbac.clusterRole(name);
    let object: ApiObject | undefined = current?.object;
    let revision = current?.revision ?? 0;
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS && this.running; attempt++) {
      if (!object) return true;
      const selectors = clusterRoleSelectors(object.aggregationRule);
      if (!selectors) return true;
      const want = aggregateRules(name, selectors, this.sources());
      if (sameRules(readRules(object.rules), want)) return true;
      const target = internal.targets.preferred(RBAC_GROUP, 'clusterroles');
      if (!target) return true;
      try {
        await internal.store.update(internal.write(target, undefined, name), (cur) => ({ ...cur, rules: want }), revision);
        log.info({ clusterRole: name, rules: want.length }, 'aggregated ClusterRole rules updated');
        return true;
      } catch (err) {
        const code = err instanceof StatusError ? err.code : 0;
        if (code === 404) return true;
        if (code !== 409) {
          log.warn({ err, clusterRole: name }, 'could not write aggregated ClusterRole rules; will retry');
          return false;
        }
      }
      // Someone else wrote it (another replica, or an edit): start over from what is stored now.
      try {
        const got = await internal.get(target, undefined, name);
        if (!got) return true;
        object = got.object;
        revision = got.revision;
      } catch {
        return false;
      }
    }
    // Lost the race every time: leave it to the retry.
    return !this.running;
  }
}

/**
 * Keeps every aggregating ClusterRole's stored rules equal to its aggregate. Runs one pass now
 * (the state must already be synced: a partial view would shrink the roles for a while) and one
 * after every ClusterRole change, coalescing bursts.
 */
export function startAggregation(deps: AggregationDeps): AggregationController {
  const aggregation = new Aggregation(deps);
  const unsubscribe = deps.rbac.onChange((c) => {
    if (c.kind === 'ClusterRole') aggregation.schedule();
  });
  aggregation.schedule();

  return {
    idle: async () => {
      while (aggregation.pass) await aggregation.pass;
    },
    stop: async () => {
      aggregation.running = false;
      unsubscribe();
      aggregation.stopRetry();
      while (aggregation.pass) await aggregation.pass;
    },
  };
}
