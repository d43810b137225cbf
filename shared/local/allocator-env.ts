// The environment a service process is started with so that memory a burst took goes back to the
// system once the burst is over. glibc's malloc raises its mmap threshold each time a large block
// is freed, so after a burst of large buffers (list responses, request bodies) later ones come from
// the heap arenas, which it seldom gives back: a gateway measured 127 MB before a burst of large
// lists and 242 MB after it, idle and collected, with 47 MB of JavaScript heap. A fixed threshold
// keeps blocks of 128 KiB and more in their own mappings, returned when freed: 163 MB before, 156 MB
// after. glibc reads it at start, so it is set by whoever starts the process (`npm start`'s
// supervisor here; the image sets the same in its Dockerfile).

export const ALLOCATOR_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072' };

/** `env` with the allocator settings added (a value the caller set wins). */
export function withAllocatorEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...ALLOCATOR_ENV, ...env };
}
