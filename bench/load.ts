// A closed-loop load generator: N workers, each sending its next request as soon as the previous
// one completes, for a fixed time after a warm-up. Closed loop means the rate measured IS the
// capacity at that concurrency (no queue builds up on our side), and latency is per request.
// Only completions inside the measuring window count, so warm-up effects (JIT, connection set-up,
// caches) are excluded.

export interface LoadOptions {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
}

export interface LoadResult {
  /** Successful operations completed inside the window. */
  ops: number;
  errors: number;
  /** Operations per second. */
  rate: number;
  p50Ms: number;
  p99Ms: number;
  firstError?: string;
}

/** `op` performs one operation and throws on failure; `seq` is unique for the whole run (for names). */
export type Operation = (worker: number, seq: number) => Promise<void>;

// Shared by every loop so that names built from `seq` never repeat across rounds.
let seq = 0;

export async function closedLoop(op: Operation, o: LoadOptions): Promise<LoadResult> {
  const t0 = performance.now();
  const from = t0 + o.warmupMs;
  const until = from + o.durationMs;
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;

  const worker = async (w: number) => {
    while (performance.now() < until) {
      const start = performance.now();
      let failed = false;
      try {
        await op(w, seq++);
      } catch (err) {
        failed = true;
        firstError ??= err instanceof Error ? err.message : String(err);
      }
      const end = performance.now();
      if (end < from || end > until) continue;
      if (failed) errors++;
      else latencies.push(end - start);
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, (_, w) => worker(w)));

  latencies.sort((a, b) => a - b);
  const result: LoadResult = {
    ops: latencies.length,
    errors,
    rate: latencies.length / (o.durationMs / 1000),
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
  };
  if (firstError) result.firstError = firstError;
  return result;
}

/**
 * Runs the contenders in turn, one short closed-loop round each, `rounds` times over. On a
 * machine shared with other work, load from elsewhere comes and goes; interleaving makes a
 * figure and its raw limit see the same conditions, and the ratio is taken round by round.
 */
export async function interleaved<K extends string>(contenders: Record<K, Operation>, rounds: number, load: LoadOptions): Promise<Record<K, LoadResult[]>> {
  const out = Object.fromEntries(Object.keys(contenders).map((k) => [k, [] as LoadResult[]])) as Record<K, LoadResult[]>;
  // One untimed pass first: a freshly started gateway needs a few thousand requests of a kind
  // before V8 has optimized that path; without this the first round reads several times low.
  for (const k of Object.keys(contenders) as K[]) await closedLoop(contenders[k], { ...load, warmupMs: 0, durationMs: load.warmupMs + load.durationMs });
  for (let r = 0; r < rounds; r++) {
    for (const k of Object.keys(contenders) as K[]) out[k].push(await closedLoop(contenders[k], load));
  }
  return out;
}

/** One figure from several rounds: median rate and latencies, errors summed. */
export function combine(rounds: LoadResult[]): LoadResult {
  const result: LoadResult = {
    ops: rounds.reduce((a, r) => a + r.ops, 0),
    errors: rounds.reduce((a, r) => a + r.errors, 0),
    rate: median(rounds.map((r) => r.rate)),
    p50Ms: median(rounds.map((r) => r.p50Ms)),
    p99Ms: median(rounds.map((r) => r.p99Ms)),
  };
  const firstError = rounds.find((r) => r.firstError)?.firstError;
  if (firstError) result.firstError = firstError;
  return result;
}

/** Median over rounds of figure/limit, each pair measured back to back. */
export function roundRatio(figure: LoadResult[], limit: LoadResult[]): number {
  return median(figure.map((f, i) => f.rate / limit[i]!.rate));
}

/** Nearest-rank percentile of an ascending array (NaN when empty). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

export function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}
