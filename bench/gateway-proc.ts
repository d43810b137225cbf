// The gateway exactly as services/gateway/main.ts runs it (same flags, same code), plus one thing
// a benchmark needs: CPU profiling that the parent switches on and off over the IPC channel, so a
// profile covers one measurement only (not tsx start-up or the other phases). `--cpu-prof` would
// profile the whole life of the process. Also `memory`: a full GC (the parent starts this process
// with --expose-gc) and then process.memoryUsage(), so heap figures are live objects, not garbage.

import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

type Command = { cmd: 'profile-start' } | { cmd: 'profile-stop'; file: string } | { cmd: 'memory' };

let session: Session | null = null;

process.on('message', (m: Command) => {
  void (async () => {
    try {
      if (m.cmd === 'profile-start') {
        session = new Session();
        session.connect();
        await session.post('Profiler.enable');
        // 200 µs sampling: fine enough for request paths of ~1 ms, cheap enough not to swamp them.
        await session.post('Profiler.setSamplingInterval', { interval: 200 });
        await session.post('Profiler.start');
      } else if (m.cmd === 'profile-stop' && session) {
        const { profile } = await session.post('Profiler.stop');
        session.disconnect();
        session = null;
        await writeFile(m.file, JSON.stringify(profile));
      }
      if (m.cmd === 'memory') {
        (globalThis as { gc?: () => void }).gc?.();
        process.send?.({ ok: true, cmd: m.cmd, memory: process.memoryUsage() });
        return;
      }
      process.send?.({ ok: true, cmd: m.cmd });
    } catch (err) {
      process.send?.({ ok: false, cmd: m.cmd, error: String(err) });
    }
  })();
});

await import('../services/gateway/main.js');
