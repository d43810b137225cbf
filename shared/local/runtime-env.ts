// The environment a service process is started with: the runtime settings it is measured and
// shipped with. The image sets the same in its Dockerfile; `npm start`'s supervisor and the bench
// start their processes with `withRuntimeEnv`. Both are read when the process starts, so they are
// set by whoever starts it.
//
// - MALLOC_MMAP_THRESHOLD_: memory a burst took goes back to the system once the burst is over.
//   glibc's malloc raises its mmap threshold each time a large block is freed, so after a burst of
//   large buffers (list responses, request bodies) later ones come from the heap arenas, which it
//   seldom gives back: a gateway measured 127 MB before a burst of large lists and 242 MB after it,
//   idle and collected, with 47 MB of JavaScript heap. A fixed threshold keeps blocks of 128 KiB and
//   more in their own mappings, returned when freed: 163 MB before, 156 MB after.
// - NODE_OPTIONS=--max-semi-space-size=32: V8's young generation may grow to 32 MiB per semi-space
//   (Node's default on 64-bit is 16) when a process allocates fast, so its short-lived request
//   objects are scavenged less often. The gateway measured 186–188 µs of CPU per update with the
//   default and 152–166 µs with 32 (creates 140–184 → 133–151 µs), about 20 % more writes a second
//   on a 2-core machine (docs/benchmarks.md). It is a cap, not a reservation: `npm start` at rest
//   and the idle soak's memory checks measured the same as without it.

const RUNTIME_NODE_OPTIONS = '--max-semi-space-size=32';

export const RUNTIME_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072', NODE_OPTIONS: RUNTIME_NODE_OPTIONS };

/** `env` with the runtime settings added: a value the caller set wins, and NODE_OPTIONS the caller gave comes after ours (the last of a flag wins). */
export function withRuntimeEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const nodeOptions = env.NODE_OPTIONS?.trim() ? `${RUNTIME_NODE_OPTIONS} ${env.NODE_OPTIONS.trim()}` : RUNTIME_NODE_OPTIONS;
  return { ...RUNTIME_ENV, ...env, NODE_OPTIONS: nodeOptions };
}
