// Replicas joining a system at scale (scale.ts): a gateway's time from process start to serving
// (its /readyz 200, then a consistent list answered) while it loads the bucket and rebuilds its
// watch window from the whole change log, optionally under a steady write load; and a storage
// replica's time from process start to serving its subjects with that bucket.

import { readdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { Cleanup } from './cleanup.js';
import { spawnReplica, type BenchCluster } from './cluster.js';
import { HttpClient } from './http.js';
import { median } from './load.js';
import { formatSummary, summarizeProfile } from './profile.js';
import { ms, type Row } from './report.js';
import { steadyWrites, type Revisions, type ScaleShape } from './scale-fill.js';
import { freePort } from '../shared/local/nats-server.js';
import { changeLogStream } from '../shared/bus/streams.js';

export interface JoinOptions {
  shape: ScaleShape;
  bucket: string;
  /** Writes a second while the gateway joins (0: at rest). */
  writesPerSecond: number;
  joinReadyMs: number;
  /** The objects' current revisions, which the steady writes go on from. */
  revisions: Revisions;
  /** Profile the joining gateway's whole life (node --cpu-prof) and summarize it. */
  profile: boolean;
  progress(msg: string): void;
}

const JOIN_TIMEOUT_MS = 180_000;
const POLL_MS = 50;

/** What the gateway logs once its window is rebuilt (kv-feed.ts startCacheFeed), and when it gave up reading the log (change-log.ts). */
const RESTORED = /watch window restored from the change log/;
const LOG_UNREAD = /change log was not read to its end in time|change log cannot be read;/;

export async function joinFigure(parent: Cleanup, c: BenchCluster, o: JoinOptions): Promise<{ row: Row; profile?: string }> {
  const local = new Cleanup();
  parent.defer('stop the joining gateway', () => local.run());
  try {
    const logEntries = (await (await jetstreamManager(c.nc)).streams.info(changeLogStream(o.bucket))).state.messages;
    const writesFrom = performance.now();
    const writes = o.writesPerSecond > 0 ? steadyWrites(c.nc, o.bucket, o.shape, o.revisions, o.writesPerSecond) : null;
    local.defer('stop the steady writes', () => writes?.stop());
    // The writes are flowing before the gateway starts.
    if (writes) await new Promise((r) => setTimeout(r, 2_000));
    const profileDir = path.join(c.dir, `join-profile-${Date.now()}`);
    if (o.profile) await mkdir(profileDir);
    const port = await freePort();
    const started = performance.now();
    const gateway = spawnReplica(local, c.material, { service: 'gateway', port }, 'joining gateway', o.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
    const restored = gateway.waitForLine(RESTORED, JOIN_TIMEOUT_MS).then(parseRestored, () => null);
    const unread = gateway.waitForLine(LOG_UNREAD, JOIN_TIMEOUT_MS).then(
      () => true,
      () => false,
    );
    const client = new HttpClient(`https://127.0.0.1:${port}`, c.caPem, { token: c.token, maxSockets: 1 });
    local.defer('close HTTP agent', () => client.destroy());
    const readyMs = (await until(client, '/readyz', gateway.tail)) - started;
    const listMs = (await until(client, '/api/v1/configmaps?limit=500', gateway.tail)) - started;
    const window = await restored;
    // Under writes the restored log soon passes its cap: what a compaction then leaves is checked too.
    const kept = writes && window ? await windowKept(client, window.windowStart) : undefined;
    const written = writes ? await writes.stop() : 0;
    const rate = Math.round(written / ((performance.now() - writesFrom) / 1000));
    await gateway.stop();
    const gaveUp = await unread;
    const ok = listMs <= o.joinReadyMs && window !== null && window.restored > 0 && !gaveUp && (kept === undefined || kept.status === 200);
    const row: Row = {
      figure: `a gateway joining ${writes ? `under ${o.writesPerSecond.toLocaleString('en-US')} writes/s` : 'at rest'}: /readyz 200, then a consistent list`,
      measured: `${ms(readyMs)}, ${ms(listMs)}`,
      limit: `log of ${logEntries.toLocaleString('en-US')} entries; ${window && !gaveUp ? `window restored: ${window.restored.toLocaleString('en-US')} changes from revision ${window.windowStart}${window.longestStepMs === undefined ? '' : ` (longest step without a turn of the event loop ${window.longestStepMs} ms; ${window.heldChanges} changes held back meanwhile)`}` : 'WINDOW NOT RESTORED (the log read gave up)'}${writes ? `; ${rate.toLocaleString('en-US')} writes/s made` : ''}${kept ? `; ${KEPT_AFTER_MS / 1000} s later an exact list at revision ${kept.revision}, a quarter into the window, answered ${kept.status}` : ''}`,
      target: `serves ≤ ${o.joinReadyMs / 1000} s`,
      ok,
    };
    return { row, ...(o.profile ? { profile: profileText(profileDir, readyMs) } : {}) };
  } finally {
    await local.run();
  }
}

const KEPT_AFTER_MS = 3_000;

/**
 * After more writes, whether the window's oldest events alone were compacted: an exact list a
 * quarter of the way from the window's start to the latest revision must still be answered.
 */
async function windowKept(client: HttpClient, windowStart: number): Promise<{ revision: number; status: number }> {
  await new Promise((r) => setTimeout(r, KEPT_AFTER_MS));
  const head = await client.request('GET', '/api/v1/configmaps?limit=1');
  const latest = Number((JSON.parse(head.body.toString()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
  const revision = windowStart + Math.floor((latest - windowStart) / 4);
  const res = await client.request('GET', `/api/v1/configmaps?limit=1&resourceVersion=${revision}&resourceVersionMatch=Exact`);
  return { revision, status: res.status };
}

/** Polls `path` until it answers 200; the time it did (performance.now()). */
async function until(client: HttpClient, path: string, tail: () => string): Promise<number> {
  const deadline = performance.now() + JOIN_TIMEOUT_MS;
  let last = 'no answer';
  while (performance.now() < deadline) {
    try {
      const res = await client.request('GET', path);
      if (res.status === 200) return performance.now();
      last = `${res.status} ${res.body.toString().slice(0, 200)}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  throw new Error(`the joining gateway did not answer ${path} with 200 within ${JOIN_TIMEOUT_MS} ms (last: ${last}):\n${tail()}`);
}

function parseRestored(line: string): { restored: number; windowStart: number; longestStepMs?: number; heldChanges?: number } | null {
  try {
    const entry = JSON.parse(line.slice(line.indexOf('{'))) as { restored?: number; windowStart?: number; longestStepMs?: number; heldChanges?: number };
    return {
      restored: entry.restored ?? 0,
      windowStart: entry.windowStart ?? 0,
      ...(entry.longestStepMs === undefined ? {} : { longestStepMs: entry.longestStepMs, heldChanges: entry.heldChanges ?? 0 }),
    };
  } catch {
    return null;
  }
}

function profileText(dir: string, readyMs: number): string {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) return `\n(no CPU profile of the joining gateway was written in ${dir})\n`;
  const s = summarizeProfile(path.join(dir, file));
  return `\n=== joining gateway CPU profile, process start to stop (ready after ${ms(readyMs)}; ${(s.totalMs / 1000).toFixed(1)} s sampled) ===\n${formatSummary(s)}`;
}

/** A storage replica started `times` times with the full bucket: process start to its service answering. */
export async function storageStartFigure(parent: Cleanup, c: BenchCluster, times: number): Promise<Row> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const local = new Cleanup();
    parent.defer('stop the extra storage replica', () => local.run());
    try {
      const started = performance.now();
      const storage = spawnReplica(local, c.material, { service: 'storage' }, 'storage replica');
      await storage.waitForLine(/service started/, JOIN_TIMEOUT_MS);
      samples.push(performance.now() - started);
    } finally {
      await local.run();
    }
  }
  return {
    figure: 'storage start-up with that bucket (process start → serving)',
    measured: ms(median(samples)),
    limit: `median of ${times}: ${samples.map((x) => ms(x)).join(', ')} (information)`,
  };
}
