// The test runner's process, started by run-tests.mjs as
//   node --enable-source-maps --import tsx scripts/run-test-files.mjs <concurrency> <timeout-ms> [timing-file] -- <file ...>
// It is `node --test <file ...>` through node:test's run(), for one difference: `--test` sorts the
// files by path before it starts them, and run() starts them in the order given (run-tests.mjs puts
// the longest first). Each file still runs in a process of its own, with this process's node flags
// (--enable-source-maps --import tsx), and the reporters are the ones `--test` would use: spec on a
// terminal, TAP otherwise, and with a timing file scripts/test-timing-reporter.mjs into it too.
import { createWriteStream } from 'node:fs';
import { compose } from 'node:stream';
import { run } from 'node:test';
import { spec, tap } from 'node:test/reporters';
import timingReporter from './test-timing-reporter.mjs';

const sep = process.argv.indexOf('--');
const [concurrency, timeout, timingFile] = process.argv.slice(2, sep);
const files = process.argv.slice(sep + 1);

const stream = run({ files, concurrency: Number(concurrency), timeout: Number(timeout) });
// As `node --test` decides its exit code: any failed test that is not a todo.
stream.on('test:fail', (data) => {
  if (!data.todo) process.exitCode = 1;
});
const report = compose(stream, process.stdout.isTTY ? new spec() : tap);
report.pipe(process.stdout);
// A reporter that throws ends the stream of results early: the run must not then pass on what it did not report.
let reported = false;
report.on('end', () => (reported = true));
process.on('exit', () => {
  if (reported) return;
  process.stderr.write('run-test-files: the test report ended before the run did\n');
  process.exitCode = 1;
});
if (timingFile) compose(stream, timingReporter).pipe(createWriteStream(timingFile));
