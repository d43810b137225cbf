// Gives memory back once a process goes quiet after heavy work. V8 collects its old generation
// when allocation asks for room, and a process at rest allocates almost nothing, so the garbage of
// a burst (request bodies, decoded objects, expired watch events) stays resident: after a probe
// run the gateway sat at 350 MB RSS with 32 MB of its heap alive, for as long as it stayed idle.
// When the event loop has been nearly idle for an interval and the heap has grown well past what
// the last collection left, one full collection runs; a busy process is left to V8.

import v8 from 'node:v8';
import vm from 'node:vm';
import { performance } from 'node:perf_hooks';

export interface IdleReclaimOptions {
  /** How often to look (default 30 s). */
  intervalMs?: number;
  /** Heap growth since the last collection that is worth a collection (default 64 MiB). */
  growthBytes?: number;
  /** Event-loop utilization below which the last interval counts as idle (default 0.02). */
  idleUtilization?: number;
  onCollect?: (e: { beforeBytes: number; afterBytes: number; ms: number }) => void;
}

let gc: (() => void) | undefined;

/** V8's full collection. The flag exposes `gc` to contexts made after it, so a fresh one fetches it. */
function fullCollection(): () => void {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
  }
  return gc;
}

function heapUsed(): number {
  return v8.getHeapStatistics().used_heap_size;
}

/** Starts looking; returns a function that stops. The timer never keeps the process alive. */
export function reclaimWhenIdle(o: IdleReclaimOptions = {}): () => void {
  const growth = o.growthBytes ?? 64 * 1024 * 1024;
  const idle = o.idleUtilization ?? 0.02;
  let mark = performance.eventLoopUtilization();
  let baseline = heapUsed();
  const timer = setInterval(() => {
    const { utilization } = performance.eventLoopUtilization(mark);
    mark = performance.eventLoopUtilization();
    const before = heapUsed();
    // V8's own collections lower the heap too: growth counts from the lowest point seen.
    if (before < baseline) baseline = before;
    if (utilization > idle || before - baseline < growth) return;
    const t = performance.now();
    fullCollection()();
    baseline = heapUsed();
    o.onCollect?.({ beforeBytes: before, afterBytes: baseline, ms: performance.now() - t });
  }, o.intervalMs ?? 30_000);
  timer.unref();
  return () => clearInterval(timer);
}
