import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { batches, fileWeights, type Job, OWN_PROCESS, type Phase, runBatch } from './batches';
import { closeSharedStack, startStack } from './stack';

// npm test's batches (docs/testing.md): several files in one process, each inside a suite of its own.

const phase = (): Phase => ({ name: 'PostgreSQL', env: process.env, files: 0, passed: 0, failed: 0 });
const fixture = (name: string) => `test/fixtures/batch/${name}`;

describe('npm test: a batch of files in one process', () => {
  let scratch: string;
  before(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-batches-'));
  });
  after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it("keeps each file's top-level hooks to that file's tests, and times each file", async () => {
    let printed = '';
    const job: Job = { phase: phase(), files: [fixture('hooks.ts'), fixture('after-hooks.ts')], weight: 0 };
    const result = await runBatch(job, scratch, 1, (text) => {
      printed += text;
    });
    assert.equal(result.failed, 0, printed);
    assert.equal(result.passed, 3, printed);
    assert.equal(result.code, 0, printed);
    assert.deepEqual(
      result.times.map((time) => time.file),
      job.files,
    );
    assert.ok(result.times.every((time) => time.seconds >= 0 && time.phase === 'PostgreSQL'));
    assert.match(printed, /^\n=== PostgreSQL: test\/fixtures\/batch\/hooks\.ts test\/fixtures\/batch\/after-hooks\.ts \(\d+\.\d s\)\n/);
  });

  it('counts a file that does not load as a failure, and goes on with the next', async () => {
    let printed = '';
    const job: Job = { phase: phase(), files: [fixture('broken.ts'), fixture('hooks.ts')], weight: 0 };
    const result = await runBatch(job, scratch, 2, (text) => {
      printed += text;
    });
    assert.equal(result.failed, 1, printed);
    assert.equal(result.passed, 1, printed);
    assert.notEqual(result.code, 0);
    assert.match(printed, /this file does not load/);
  });

  it('fails by name every file a batch process did not finish when it ended', async () => {
    let printed = '';
    const job: Job = { phase: phase(), files: [fixture('hooks.ts'), fixture('exits.ts'), fixture('after-hooks.ts')], weight: 0 };
    const result = await runBatch(job, scratch, 3, (text) => {
      printed += text;
    });
    assert.notEqual(result.code, 0);
    assert.equal(result.failed, 2, printed);
    assert.match(printed, /✖ test\/fixtures\/batch\/exits\.ts did not finish: its batch process ended \(exit code 3\)/);
    assert.match(printed, /✖ test\/fixtures\/batch\/after-hooks\.ts did not finish/);
  });

  it('runs a workflow test file after a file whose worker installed the Temporal runtime, and before one', async () => {
    for (const [id, files] of [
      [4, [fixture('runtime-stack.ts'), fixture('runtime-workflows.ts')]],
      [5, [fixture('runtime-workflows.ts'), fixture('runtime-stack.ts')]],
    ] as const) {
      let printed = '';
      const result = await runBatch({ phase: phase(), files: [...files], weight: 0 }, scratch, id, (text) => {
        printed += text;
      });
      assert.equal(result.failed, 0, printed);
      assert.equal(result.passed, 2, printed);
    }
  });

  it('gathers files into batches heaviest first, by an earlier run’s seconds, else by size; and knows the `// Own process:` line', () => {
    const durations = path.join(scratch, 'durations.json');
    fs.writeFileSync(durations, JSON.stringify({ PostgreSQL: { 'test/smtp.test.ts': 30, 'test/lint.test.ts': 10 } }));
    const weights = fileWeights(durations);
    assert.equal(weights('PostgreSQL', 'test/smtp.test.ts'), 30);
    const perByte = [30 / fs.statSync('test/smtp.test.ts').size, 10 / fs.statSync('test/lint.test.ts').size].sort((a, b) => a - b)[1];
    assert.equal(weights('PostgreSQL', 'test/pki.test.ts'), fs.statSync('test/pki.test.ts').size * perByte, 'no time: its size');
    const files = ['test/lint.test.ts', 'test/pki.test.ts', 'test/smtp.test.ts'];
    const one = batches(phase(), files, 1, weights);
    assert.equal(one.length, files.length, 'a target of one second: one file per batch');
    const order = one.map((job) => job.weight);
    assert.deepEqual(
      order,
      [...order].sort((a, b) => b - a),
      'heaviest first',
    );
    assert.equal(one.find((job) => job.files[0] === 'test/smtp.test.ts')?.weight, 30);
    const together = batches(phase(), files, Number.POSITIVE_INFINITY, weights);
    assert.equal(together.length, 1);
    assert.deepEqual([...together[0].files].sort(), [...files].sort());
    assert.equal(OWN_PROCESS.test('import x;\n// Own process: measures its memory'), true);
    assert.equal(OWN_PROCESS.test('// own process, said otherwise'), false);
  });
});

describe('npm test: the shared stack of a batch', () => {
  it('answers one stack to every call without settings, and its own to a call with some', async () => {
    const saved = process.env.TEST_SHARED_STACK;
    process.env.TEST_SHARED_STACK = '1';
    try {
      const first = await startStack();
      const second = await startStack();
      assert.equal(second.url, first.url, 'the shared stack');
      const own = await startStack({ own: true });
      try {
        assert.notEqual(own.url, first.url, 'own: true starts another');
      } finally {
        await own.close();
      }
      // Closing a file's view of the shared stack keeps it running, with an empty mailbox for the next file.
      first.smtp!.mails.push({ to: ['ann@example.test'], from: '', subject: 'left over', text: '', purpose: 'x', raw: '' });
      await first.close();
      assert.equal(second.smtp!.mails.length, 0, 'the mailbox is emptied');
      const health = await fetch(`${second.url}/v1/health`);
      await health.arrayBuffer();
      assert.notEqual(health.status, 0);
    } finally {
      // Outside a batch (node --test on this file alone) nothing else closes it.
      if (saved !== '1') await closeSharedStack();
      if (saved === undefined) delete process.env.TEST_SHARED_STACK;
      else process.env.TEST_SHARED_STACK = saved;
    }
  });
});
