// One process for several test files (npm test's batches, test/run.ts): node's test runner loads this
// file with --test-isolation=none, and it imports each file of TEST_BATCH_FILES inside a suite named
// by the file's path, so that file's top-level hooks stay its own and its tests run after the previous
// file's. The files share the process's modules and its shared stack (test/stack.ts startStack without
// settings), closed here after the last file.
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import { closeSharedStack } from './stack';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const files: string[] = JSON.parse(process.env.TEST_BATCH_FILES ?? '[]');
process.env.TEST_SHARED_STACK = '1';

// Each file's wall time, written as it ends (synchronously: a process that dies later keeps it), for
// the run's slowest files and for knowing which files a dead batch had finished.
const timesFile = process.env.TEST_BATCH_TIMES;
for (const file of files) {
  describe(file, async () => {
    let started = 0;
    before(() => {
      started = performance.now();
    });
    after(() => {
      if (timesFile) fs.appendFileSync(timesFile, `${JSON.stringify({ file, seconds: (performance.now() - started) / 1000 })}\n`);
    });
    await import(path.join(ROOT, file));
  });
}

after(() => closeSharedStack());
