import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { HISTORY_NAMES, recordHistories } from './record-histories';
import { currentWorkflowBundle, describeFailures, loadHistories, replayHistories } from './replay';

describe('npm run record-histories', () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-histories-'));
  after(() => fs.rmSync(directory, { recursive: true, force: true }));

  it('records the stored histories, no more and no fewer (besides those kept from before a patch)', () => {
    assert.deepEqual(
      loadHistories()
        .map((history) => history.name)
        .filter((name) => !name.includes('@')),
      HISTORY_NAMES,
      'test/histories/ and the stories of test/record-histories.ts name the same histories',
    );
  });

  // Re-recording after a deliberate workflow change must not find its stories broken by unrelated changes.
  it('still runs every story against the current service, and what it records replays', { timeout: 300_000 }, async () => {
    const written = await recordHistories({ directory });
    assert.equal(written.length, HISTORY_NAMES.length);
    const failures = await replayHistories(await currentWorkflowBundle(), loadHistories(directory));
    assert.equal(failures.length, 0, describeFailures(failures));
  });
});
