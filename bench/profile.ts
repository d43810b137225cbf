// Summarizes a V8 CPU profile (.cpuprofile JSON) into where the time went: the functions with the
// most self time, and — for the project's own code — inclusive time (the function and everything
// it called), which is what points at a slow step of the request pipeline.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './procs.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface FrameTime {
  frame: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  idleShare: number;
  topSelf: FrameTime[];
  topProjectInclusive: FrameTime[];
  byArea: FrameTime[];
}

export function summarizeProfile(file: string, top = 15): ProfileSummary {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, ProfileNode>();
  for (const n of p.nodes) for (const c of n.children ?? []) parentOf.set(c, n);
  // The profiler's own work (the inspector session driven from gateway-proc.ts) is not the gateway's.
  const profiler = new Set<number>();
  const markProfiler = (n: ProfileNode) => {
    profiler.add(n.id);
    for (const c of n.children ?? []) markProfiler(byId.get(c)!);
  };
  for (const n of p.nodes) if (/bench\/gateway-proc\.[jt]s$/.test(n.callFrame.url)) markProfiler(n);
  // Self time per node from the samples (timeDeltas[i] is the gap before sample i).
  const selfUs = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++) {
    if (!profiler.has(p.samples[i]!)) selfUs.set(p.samples[i]!, (selfUs.get(p.samples[i]!) ?? 0) + (p.timeDeltas[i] ?? 0));
  }
  const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);

  const self = new Map<string, number>();
  const area = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const n = byId.get(id)!;
    // A native frame (a syscall wrapper such as writeBuffer) means little alone: name and
    // bucket it by the nearest caller outside Node's internals (who did the write).
    const owner = n.callFrame.url ? n : nearestUserFrame(n, parentOf);
    add(self, owner && owner !== n ? `${n.callFrame.functionName} ← ${frameName(owner)}` : frameName(n), us);
    add(area, owner ? areaOf(owner.callFrame.url, owner.callFrame.functionName) : areaOf('', n.callFrame.functionName), us);
  }

  // Inclusive time of project functions: walk the tree, counting a function once per stack even
  // when it recurses.
  const inclusive = new Map<string, number>();
  const parents = new Set<number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parents.add(c);
  const roots = p.nodes.filter((n) => !parents.has(n.id));
  const onStack = new Map<string, number>();
  const walk = (n: ProfileNode): number => {
    const name = isProject(n.callFrame.url) ? frameName(n) : null;
    if (name) onStack.set(name, (onStack.get(name) ?? 0) + 1);
    let total = selfUs.get(n.id) ?? 0;
    for (const c of n.children ?? []) total += walk(byId.get(c)!);
    if (name) {
      const depth = onStack.get(name)!;
      if (depth === 1) add(inclusive, name, total);
      onStack.set(name, depth - 1);
    }
    return total;
  };
  for (const r of roots) if (!profiler.has(r.id)) walk(r);

  const rank = (m: Map<string, number>, k: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([frame, us]) => ({ frame, ms: us / 1000, share: us / totalUs }));
  return {
    totalMs: totalUs / 1000,
    idleShare: (area.get('(idle)') ?? 0) / totalUs,
    topSelf: rank(self, top),
    topProjectInclusive: rank(inclusive, top),
    byArea: rank(area, 12),
  };
}

/** The summary as the bench prints it: by area, top self time, project code inclusive. */
export function formatSummary(s: ProfileSummary): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(6);
  const section = (title: string, frames: FrameTime[]) => `${title}\n${frames.map((f) => `  ${pct(f.share)}  ${f.frame}\n`).join('')}`;
  return `idle ${pct(s.idleShare).trim()}\n${section('by area (self time):', s.byArea)}${section('top self time:', s.topSelf)}${section('project code, inclusive time:', s.topProjectInclusive)}`;
}

function nearestUserFrame(n: ProfileNode, parentOf: Map<number, ProfileNode>): ProfileNode | undefined {
  if (n.callFrame.functionName.startsWith('(')) return undefined; // (garbage collector), (idle), …
  for (let p = parentOf.get(n.id); p; p = parentOf.get(p.id)) {
    if (p.callFrame.url && !p.callFrame.url.startsWith('node:')) return p;
  }
  return undefined;
}

function add(m: Map<string, number>, k: string, v: number): void {
  m.set(k, (m.get(k) ?? 0) + v);
}

function isProject(url: string): boolean {
  return url.includes(REPO_ROOT) && !url.includes('node_modules');
}

function shortUrl(url: string): string {
  if (!url) return '';
  const u = url.replace(/^file:\/\//, '');
  if (u.startsWith(REPO_ROOT)) return path.relative(REPO_ROOT, u).replace(/^node_modules\//, '~/');
  return u.replace(/^node:/, '');
}

function frameName(n: ProfileNode): string {
  const { functionName, url, lineNumber } = n.callFrame;
  if (!url) return functionName || '(anonymous)';
  // Under tsx, project frames all report line 1 (transpiled output): the line is only shown when real
  // (compiled frames show the line in dist/*.js).
  const line = lineNumber > 0 ? `:${lineNumber + 1}` : '';
  return `${functionName || '(anonymous)'} ${shortUrl(url)}${line}`;
}

/** Coarse buckets: a package, a project directory, Node internals, or V8's pseudo-frames. */
function areaOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const u = url.replace(/^file:\/\//, '');
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u);
  if (nm) return nm[1]!;
  if (u.startsWith(REPO_ROOT)) return path.relative(REPO_ROOT, path.dirname(u));
  if (u.startsWith('node:')) return `node:${u.slice(5).split('/').slice(0, 2).join('/')}`;
  return u;
}
