// Started by `npm start` (scripts/local-up.ts) in its own process group with an IPC channel. It
// outlives a `npm start` killed outright (SIGKILL, or a terminal's group kill) and then stops what
// would otherwise run on forever: the services (which also exit by themselves when their own
// channel closes) and, last, nats-server. `npm start` tells it the current pids as it starts and
// restarts children, and says `done` once it has stopped everything itself.

let services = [];
let nats = 0;
let done = false;

process.on('message', (msg) => {
  if (msg?.type === 'pids') ({ services, nats } = msg);
  if (msg?.type === 'done') done = true;
});

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function stop(pids, graceMs) {
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGTERM');
  const until = Date.now() + graceMs;
  while (pids.some(alive) && Date.now() < until) await sleep(100);
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
}

process.on('disconnect', async () => {
  if (done) process.exit(0);
  // Services first (they may already be stopping on their own), NATS last, as Ctrl-C would.
  await stop(services, 8_000);
  if (nats) await stop([nats], 5_000);
  process.exit(0);
});
