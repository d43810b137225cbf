// Where a process's CPU went during one time window of a V8 CPU profile (.cpuprofile), by the bus
// contract's parts: encoding and decoding bus messages (shared/bus/codec.ts and client.ts), the
// storage service's JSON of the bucket value, the NATS client and the bus helpers, garbage
// collection, and everything else. A sample counts for the first part found walking its stack from
// the leaf (the codec before the NATS client that called it), so the parts add up to the total.

import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export const BusPart = {
  Encode: 'bus message encode',
  Decode: 'bus message decode',
  BucketJson: 'bucket value JSON (storage)',
  Nats: 'NATS client + bus helpers',
  Gc: 'garbage collector',
  Other: 'everything else',
} as const;
export type BusPart = (typeof BusPart)[keyof typeof BusPart];

/** A frame's part, or undefined when it says nothing by itself (its callers decide). */
function partOf(frame: ProfileNode['callFrame']): BusPart | undefined {
  const { functionName: fn, url } = frame;
  // The bus codec (JSON in client.ts, protobuf in codec.ts), and the object's JSON that a storage
  // request carries (stored-value.ts) or a get's reply is parsed from (storage-client.ts).
  if (/shared\/(bus\/(client|codec|service|storage-client|auth-messages)|contracts\/stored-value)\.[jt]s$/.test(url)) {
    if (/^(encode|encodeJson|encodeStoredValue)$/.test(fn)) return BusPart.Encode;
    if (/^(decode|decodeJson|decodeStoredValue|replyError)$/.test(fn)) return BusPart.Decode;
  }
  if (/services\/storage\/bucket-writer\.[jt]s$/.test(url) && /^(encodeValue|withRevision|stampValue)$/.test(fn)) return BusPart.BucketJson;
  if (/@nats-io\/kv\//.test(url) && /^(json|string)$/.test(fn)) return BusPart.BucketJson;
  return undefined;
}

/** The part of a leaf whose callers named none: NATS code or GC by its own frame, else other. */
function leafPart(leaf: ProfileNode, nearestJs: ProfileNode | undefined): BusPart {
  if (leaf.callFrame.functionName === '(garbage collector)') return BusPart.Gc;
  const url = nearestJs?.callFrame.url ?? '';
  if (/@nats-io\//.test(url) || /shared\/bus\//.test(url)) return BusPart.Nats;
  return BusPart.Other;
}

export interface WindowShare {
  /** Sampled CPU time in the window (idle excluded), ms. */
  busyMs: number;
  /** ms per part; the parts add up to busyMs. */
  parts: Record<BusPart, number>;
}

/** CPU by part in [fromUs, toUs] (the profile's clock: CLOCK_MONOTONIC µs, as process.hrtime). */
export function busShare(file: string, windows: Array<{ fromUs: number; toUs: number }>): WindowShare[] {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, ProfileNode>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, byId.get(n.id)!);
  const partCache = new Map<number, BusPart | null>();
  const classify = (leaf: ProfileNode): BusPart | null => {
    const cached = partCache.get(leaf.id);
    if (cached !== undefined) return cached;
    let result: BusPart | null;
    if (leaf.callFrame.functionName === '(idle)') result = null;
    else {
      let nearestJs: ProfileNode | undefined;
      let found: BusPart | undefined;
      for (let n: ProfileNode | undefined = leaf; n && !found; n = parent.get(n.id)) {
        found = partOf(n.callFrame);
        if (!nearestJs && n.callFrame.url && !n.callFrame.url.startsWith('node:')) nearestJs = n;
      }
      result = found ?? leafPart(leaf, nearestJs);
    }
    partCache.set(leaf.id, result);
    return result;
  };
  const out: WindowShare[] = windows.map(() => ({ busyMs: 0, parts: Object.fromEntries(Object.values(BusPart).map((k) => [k, 0])) as Record<BusPart, number> }));
  let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i] ?? 0;
    t += dt;
    const w = windows.findIndex((x) => t >= x.fromUs && t <= x.toUs);
    if (w < 0) continue;
    const part = classify(byId.get(p.samples[i]!)!);
    if (!part) continue;
    out[w]!.busyMs += dt / 1000;
    out[w]!.parts[part] += dt / 1000;
  }
  return out;
}
