// "Does holding these rules cover granting those?" — the escalation check's core, and how the
// bootstrap reconciler finds rules an existing role lacks. A requested rule is broken into atomic
// pieces (one group, resource, verb and name; or one URL and verb), and every piece must be
// matched by some held rule. Wildcards only help on the holder's side: granting `*` needs `*`.

import type { PolicyRule } from '../../../shared/bus/messages.js';
import { ALL } from './rules.js';

/** Splits a rule into single-group/resource/verb(/name) and single-URL/verb rules. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        if (rule.resourceNames?.length) {
          for (const name of rule.resourceNames) out.push({ verbs: [verb], apiGroups: [group], resources: [resource], resourceNames: [name] });
        } else {
          out.push({ verbs: [verb], apiGroups: [group], resources: [resource] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) out.push({ verbs: [verb], nonResourceURLs: [url] });
  }
  return out;
}

function holds(list: string[] | undefined, v: string): boolean {
  return !!list && (list.includes(ALL) || list.includes(v));
}

/** A held resource pattern covers a requested one (which may itself be a pattern, taken literally). */
function resourceCovers(owner: string, wanted: string): boolean {
  if (owner === ALL || owner === wanted) return true;
  const os = owner.indexOf('/');
  const ws = wanted.indexOf('/');
  if (os < 0 || ws < 0) return false;
  const [or, osub] = [owner.slice(0, os), owner.slice(os + 1)];
  const [wr, wsub] = [wanted.slice(0, ws), wanted.slice(ws + 1)];
  return (or === ALL || or === wr) && (osub === ALL || osub === wsub);
}

function urlCovers(owner: string, wanted: string): boolean {
  if (owner === wanted || owner === ALL) return true;
  return owner.endsWith('*') && wanted.startsWith(owner.slice(0, -1));
}

/** Whether one held rule covers one atomic rule (from breakdownRule). */
export function ruleCovers(owner: PolicyRule, atom: PolicyRule): boolean {
  if (!holds(owner.verbs, atom.verbs[0]!)) return false;
  const url = atom.nonResourceURLs?.[0];
  if (url !== undefined) return (owner.nonResourceURLs ?? []).some((u) => urlCovers(u, url));
  if (!holds(owner.apiGroups, atom.apiGroups![0]!)) return false;
  const resource = atom.resources![0]!;
  if (!(owner.resources ?? []).some((r) => resourceCovers(r, resource))) return false;
  const ownerNames = owner.resourceNames ?? [];
  if (ownerNames.length === 0) return true;
  const name = atom.resourceNames?.[0];
  return name !== undefined && ownerNames.includes(name);
}

export interface Coverage {
  covered: boolean;
  /** The atomic rules no held rule covers, in the order of the requested rules. */
  missing: PolicyRule[];
}

export function covers(owned: PolicyRule[], wanted: PolicyRule[]): Coverage {
  const missing: PolicyRule[] = [];
  for (const rule of wanted) {
    for (const atom of breakdownRule(rule)) {
      if (!owned.some((o) => ruleCovers(o, atom))) missing.push(atom);
    }
  }
  return { covered: missing.length === 0, missing };
}

/**
 * Merges atomic resource rules that differ only by verb (same group, resource and at most one
 * name), so a refusal lists `Verbs:["get" "list"]` once rather than one line per verb.
 */
export function compactRules(rules: PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple = !r.nonResourceURLs?.length && r.apiGroups?.length === 1 && r.resources?.length === 1 && (r.resourceNames?.length ?? 0) <= 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups![0], r.resources![0], r.resourceNames?.[0] ?? null]);
    const seen = simple.get(key);
    if (!seen) {
      simple.set(key, { ...r, verbs: [...r.verbs] });
      continue;
    }
    for (const v of r.verbs) if (!seen.verbs.includes(v)) seen.verbs.push(v);
  }
  return [...out, ...simple.values()];
}

/** Go's `%q` of a string slice: `["a" "b"]`. */
export function quoteList(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}

/** The compact one-line form upstream uses in escalation messages. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${quoteList(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${quoteList(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${quoteList(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${quoteList(r.resourceNames)}`);
  if (r.verbs.length) parts.push(`Verbs:${quoteList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}
