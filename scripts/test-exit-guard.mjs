// Preloaded into every test file's process by scripts/run-tests.mjs. A file whose tests have all
// ended but that something it started keeps alive (a load loop a failed test left behind kept one
// alive, and CI waited on it for an hour) exits a while after its last test, with the runner's exit
// code. Not node's --test-force-exit: on Node 20 that exits before the file's results have reached
// the parent through the pipe, so tests that ran (failed ones too) went missing from the report
// and the run still passed.
import { after } from 'node:test';

/** Long enough for the results to reach the parent; a file that exits by itself never waits for it. */
const LINGER_MS = 30_000;

after(() => {
  setTimeout(() => {
    process.stderr.write(`test-exit-guard: ${process.argv[1]} still running ${LINGER_MS} ms after its last test; exiting\n`);
    process.exit();
  }, LINGER_MS).unref();
});
