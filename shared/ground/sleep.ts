// The one sleep: waits `ms`, or less when `signal` aborts (it resolves then, it never rejects: the
// caller looks at the signal). Leaves no listener behind either way. `unref`: the timer does not
// keep the process alive (a background loop's pause).

export function sleep(ms: number, signal?: AbortSignal, opts: { unref?: boolean } = {}): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (opts.unref) t.unref();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
